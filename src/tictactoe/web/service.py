"""The engine service the routers share: bounded engine calls in a worker thread, the startup
warm-up, and the answers kept as JSON.

Every engine call is bounded in nodes and seconds and runs in a worker thread, a limited
number at a time; a request that cannot get a worker within ``busy_seconds`` is answered 503
rather than queued for ever. Two things answer without a worker: a solution proven before
(for this position or one equivalent under symmetry), and, on the small boards, a search that
proves the position within ``inline_nodes`` nodes (a millisecond or two: less than handing the
work to a thread and back costs on a busy server).

>>> [len([p for p in early_positions("3x3", 9) if p.ply == n]) for n in range(4)]
[1, 3, 12, 38]
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from starlette.exceptions import HTTPException

from tictactoe.core import Position, Side
from tictactoe.search.score import Score
from tictactoe.search.solution import Solution
from tictactoe.web.convert import PerfectMoves, position_info, score_info
from tictactoe.web.engine import LruCache, WebSolver

log = logging.getLogger("tictactoe.web")

T = TypeVar("T")


def early_positions(variant: str, plies: int) -> list[Position]:
    """One position per symmetry class with at most ``plies`` marks, not over, fewest first."""
    level = [Position(variant)]
    found: list[Position] = []
    for _ in range(plies + 1):
        found += level
        following: dict[tuple[int, int, Side], Position] = {}
        for board in level:
            for cell in board.legal_moves():
                after = board.play(cell)
                if not after.is_game_over():
                    following.setdefault(after.canonical_key(), after)
        level = list(following.values())
    return found


class Engine:
    """The solver, its worker limit and the caches of JSON answers, shared by every request."""

    def __init__(self, *, nodes: int, seconds: float, threads: int, busy_seconds: float,
                 inline_nodes: int, cache_size: int, warm_plies: dict[str, int]) -> None:
        self.max_nodes = nodes
        self.max_seconds = seconds
        self.busy_seconds = busy_seconds
        self.inline_nodes = inline_nodes
        self.warm_plies = dict(warm_plies)
        self.limiter = anyio.CapacityLimiter(threads)
        self.solver = WebSolver(cache_size)
        self.ready = asyncio.Event()
        """Set once the warm-up is over (or when there is none)."""
        self.infos: LruCache[bytes] = LruCache(cache_size)  # position string -> PositionInfo JSON
        self.answers: LruCache[bytes] = LruCache(cache_size)  # (position, *moves) -> its JSON
        self.perfect_moves: LruCache[PerfectMoves] = LruCache(cache_size)  # position -> answers
        self.moves_cache: LruCache[bytes] = LruCache(cache_size)  # other players' moves, by seed

    async def run(self, work: Callable[[], T]) -> T:
        """Run a CPU-bound call in a worker thread, waiting at most ``busy_seconds`` for one."""
        acquired = False
        with anyio.move_on_after(self.busy_seconds):
            await self.limiter.acquire()
            acquired = True
        if not acquired:
            raise HTTPException(503, "every engine worker is busy; try again in a moment")
        try:
            return await anyio.to_thread.run_sync(work)
        finally:
            self.limiter.release()

    async def solution_for(self, board: Position, nodes: int, seconds: float) -> Solution:
        """The solver's answer: from the cache when this position or an equivalent one was
        proven before, else from a quick search here if that proves it, else from a bounded
        search in a worker."""
        solver = self.solver
        solution = solver.cached(board)
        if solution is None:
            solution = solver.solve_quickly(board, min(nodes, self.inline_nodes))
        if solution is None:
            solution = await self.run(lambda: solver.solve(board, nodes=nodes, seconds=seconds))
        return solution

    async def warm_up(self) -> None:
        """Load the kernels, then solve the early positions of the small boards, one engine
        call each, so that requests queue between them rather than behind all of them."""
        solver = self.solver
        try:
            await self.run(solver.load)
            for variant, plies in self.warm_plies.items():
                boards = await self.run(functools.partial(early_positions, variant, plies))
                for board in boards:
                    if solver.cached(board) is None:
                        await self.run(functools.partial(
                            solver.solve, board, nodes=self.max_nodes, seconds=self.max_seconds))
            # Everything alive now (the modules, the kernels, the warm cache) lives as long
            # as the server: keep it out of the collector's full passes, which would
            # otherwise stall every request for tens of milliseconds now and then.
            gc.freeze()
            log.info("warm-up done: %d solutions cached", len(solver.cache))
        except HTTPException:  # every worker busy for long: the requests come first
            log.info("warm-up stopped: the engine is busy")
        finally:
            self.ready.set()

    def info_json(self, board: Position) -> bytes:
        """`position_info` as JSON, remembered."""
        key = (board.to_string(),)
        info = self.infos.get(key)
        if info is None:
            info = position_info(board).model_dump_json().encode()
            self.infos.put(key, info)
        return info

    def move_json(self, board: Position, move: int, player: str, score: Score | None) -> bytes:
        """A `MoveResponse` as JSON, around the remembered JSON of the position after it."""
        head = json.dumps({"move": board.move_name(move), "cell": move, "player": player,
                           "score": None if score is None else score_info(score).model_dump()},
                          separators=(",", ":"))
        return head[:-1].encode() + b',"position":' + self.info_json(board.play(move)) + b"}"


__all__ = ["Engine", "early_positions"]
