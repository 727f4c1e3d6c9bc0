"""The engine service the routers share: what answers at once, what goes to a worker, and the
caches, every one bounded.

A request is answered on the server's own thread when that takes a millisecond or two: a
solution proven before (for this position or one equivalent under symmetry), a search on a
small board that proves the position within ``inline_nodes`` nodes, or a cheap player
(`INLINE_PLAYERS`, ``easy`` on small boards, and every level on 3×3 and smaller boards,
`INLINE_LEVEL_CELLS`). Everything else is a job for an engine worker (`tictactoe.web.pool`):
boards of at most `SMALL_CELLS` cells go to one worker, bigger boards to another, so that
searches on the cube never delay a 3×3 game; each worker takes the most urgent job first
(`Priority`) and refuses jobs beyond its queue with 503.

What a board needs before its first answer (its symmetries, the search's tables) is made on
a thread the first time (`Engine.prepared`), never on the event loop.

Every cache is a least-recently-used map with a bound in entries and in bytes (`CACHES`):
the server's memory stays flat however many distinct positions it sees.

>>> [len([p for p in early_positions("3x3", 9) if p.ply == n]) for n in range(4)]
[1, 3, 12, 38]
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import random
from typing import Any, TypeVar

import anyio.to_thread

from tictactoe.core import Position, Side, TicTacToeError, Variant
from tictactoe.players.base import Limit
from tictactoe.players.levels import LEVELS, make_player
from tictactoe.players.perfect import SOLVER_SHARE, PerfectPlayer, proof_numbers_apply
from tictactoe.proof.strategy import SHIPPED, shipped, strategy_move
from tictactoe.search.knowledge import WIDE_CELLS
from tictactoe.search.knowledge import proof_numbers_apply as analysis_uses_proof_numbers
from tictactoe.search.score import ForcedWin, Score
from tictactoe.search.solution import Solution
from tictactoe.web import worker
from tictactoe.web.convert import PLAYER_OR_LEVEL, PerfectMoves, playable, position_info, score_info
from tictactoe.web.engine import LruCache, WebSolver, code_score
from tictactoe.web.pool import EngineBusyError, Lane, Priority

log = logging.getLogger("tictactoe.web")

T = TypeVar("T")

SMALL_CELLS = 16
"""Boards of at most this many cells have their own engine worker."""

INLINE_PLAYERS = frozenset({"random", "rules"})
"""Players cheap enough to answer on the server's thread: ``random`` on any board, ``rules``
on boards of up to 64 cells (under a millisecond; past them it goes to a worker: 5 ms on
15×15, 20-30 ms on 32×32)."""

INLINE_LEVEL_CELLS = 9
"""Boards of at most this many cells (3×3 and smaller) have every level's move chosen on the
server's thread: ``medium`` and ``hard`` take a fraction of a millisecond there (``hard``
solves the position outright), far less than a trip to a worker, and so no queue of 4×4
searches in the small boards' worker can delay a 3×3 game."""

MiB = 1024 * 1024

CACHES: dict[str, tuple[int, int]] = {
    "solutions": (200_000, 32 * MiB),
    "positions": (100_000, 16 * MiB),
    "answers": (100_000, 16 * MiB),
    "perfect": (100_000, 8 * MiB),
    "replies": (100_000, 16 * MiB),
}
"""Each cache's bound: (entries, bytes by `tictactoe.web.engine.entry_bytes`). ``solutions``:
proven solutions by symmetry class; ``positions``: a position's JSON; ``answers``: the JSON of
a position after moves (``POST /api/position``); ``perfect``: the perfect player's best moves
by position; ``replies``: the JSON of computer moves."""

QUEUE_LIMITS = {"small": 64, "large": 32}
"""Jobs that may wait for each worker; one more is refused at once with 503."""

NICENESS = {"small": 0, "large": 10}
"""How far below the server each worker process runs in the system's scheduling: the big
boards' searches yield a core to the server's own thread and to the small boards' worker."""


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
    """The solver, the engine workers and the caches of answers, shared by every request."""

    def __init__(self, *, nodes: int, seconds: float, busy_seconds: float, inline_nodes: int,
                 warm_plies: dict[str, int], processes: bool = True,
                 worker_memory: int = 2 * 1024**3,
                 caches: dict[str, tuple[int, int]] | None = None) -> None:
        self.max_nodes = nodes
        self.max_seconds = seconds
        self.inline_nodes = inline_nodes
        self.warm_plies = dict(warm_plies)
        bounds = {**CACHES, **(caches or {})}
        self.solver = WebSolver(bounds["solutions"][0], cache_bytes=bounds["solutions"][1])
        self.infos: LruCache[bytes] = self._cache(bounds["positions"])
        self.answers: LruCache[bytes] = self._cache(bounds["answers"])
        self.perfect_moves: LruCache[PerfectMoves] = self._cache(bounds["perfect"])
        self.replies: LruCache[bytes] = self._cache(bounds["replies"])
        self.small = Lane(f"boards of up to {SMALL_CELLS} cells", processes=processes,
                          queue_limit=QUEUE_LIMITS["small"], wait_seconds=busy_seconds,
                          niceness=NICENESS["small"], reload=(),
                          memory_limit=worker_memory)
        self.large = Lane(f"boards of more than {SMALL_CELLS} cells", processes=processes,
                          queue_limit=QUEUE_LIMITS["large"], wait_seconds=busy_seconds,
                          niceness=NICENESS["large"], reload=tuple(SHIPPED),
                          memory_limit=worker_memory)
        self.ready = asyncio.Event()
        """Set once the warm-up is over (or when there is none)."""
        self._preparing: dict[Variant, asyncio.Future[None]] = {}
        self._limiters: dict[str, anyio.CapacityLimiter] = {}

    @staticmethod
    def _cache(bound: tuple[int, int]) -> LruCache[T]:
        return LruCache(bound[0], max_bytes=bound[1])

    def caches(self) -> dict[str, LruCache[Any]]:
        """Every cache by name, to report or check their sizes."""
        return {"solutions": self.solver.cache, "positions": self.infos,
                "answers": self.answers, "perfect": self.perfect_moves,
                "replies": self.replies}

    def lane(self, board: Position) -> Lane:
        """The worker for this board's searches."""
        return self.small if board.variant.cells <= SMALL_CELLS else self.large

    def close(self) -> None:
        self.small.close()
        self.large.close()

    # ------------------------------------------------------------- answers
    async def prepared(self, board: Position) -> None:
        """Wait until the solver has what this board needs (`WebSolver.prepare`: its
        symmetries, and its tables on a small board). The first request on a board makes
        them on a thread, one board at a time for each lane's size of board and once for
        every request waiting on the same board, so the event loop never computes them and
        a 3×3 game never waits behind a new big board."""
        variant = board.variant
        if self.solver.prepared(variant):
            return
        pending = self._preparing.get(variant)
        if pending is None:
            lane = "small" if variant.cells <= SMALL_CELLS else "large"
            limiter = self._limiters.get(lane)
            if limiter is None:
                limiter = self._limiters[lane] = anyio.CapacityLimiter(1)
            pending = asyncio.ensure_future(anyio.to_thread.run_sync(
                self.solver.prepare, variant, limiter=limiter))
            self._preparing[variant] = pending
            pending.add_done_callback(lambda _: self._preparing.pop(variant, None))
        await asyncio.shield(pending)  # a client that leaves does not stop it for others

    async def solution_for(self, board: Position, nodes: int, seconds: float,
                           priority: Priority) -> Solution:
        """The solver's answer: from the cache when this position or an equivalent one was
        proven before, else from a quick search here if that proves it, else from a bounded
        search on a worker (remembered here if proven)."""
        await self.prepared(board)
        solver = self.solver
        solution = solver.cached(board)
        if solution is None and board.variant.cells <= SMALL_CELLS:
            solution = solver.solve_quickly(board, min(nodes, self.inline_nodes))
        if solution is None:
            solution = await self.lane(board).run(priority, worker.solve, board.to_string(),
                                                  nodes, seconds, limit=seconds)
            if solution.proven:
                solver.remember(board, solution)
        return solution

    async def analysis_for(self, board: Position, nodes: int, seconds: float) -> Solution:
        """Every move's value: the solver's answer where it proves the position (cached,
        or quick), else on a board that proof-number search takes, the solver and then
        proof-number search on a worker (`tictactoe.search.knowledge.analyse`); past 64
        cells, the levels' analysis on a worker (proven facts and the best few moves)."""
        if board.variant.cells > WIDE_CELLS:  # the levels' analysis: facts and a few moves
            return await self.lane(board).run(Priority.ANALYSIS, worker.analyse,
                                              board.to_string(), nodes, seconds,
                                              limit=seconds)
        if not analysis_uses_proof_numbers(board):
            return await self.solution_for(board, nodes, seconds, Priority.ANALYSIS)
        await self.prepared(board)
        solution = self.solver.cached(board)
        if solution is not None:
            return solution
        solution = await self.lane(board).run(Priority.ANALYSIS, worker.analyse,
                                              board.to_string(), nodes, seconds,
                                              limit=seconds)
        if solution.proven:
            self.solver.remember(board, solution)
        return solution

    async def choose(self, board: Position, name: str, seed: int | None,
                     priority: Priority) -> tuple[int, Score | None]:
        """A computer player's move in a playable position, and its score (None if the player
        does not score moves); the same seed gives the same move. Every player's move comes
        from the library's player of that name (`tictactoe.players.levels.make_player`); for
        ``perfect`` on boards up to 64 cells the service keeps the solver's proven answers
        for every client, and picks among the best moves by the seed."""
        if name == "perfect" and board.variant.cells <= WIDE_CELLS:
            # A shipped strategy's move first (on the cube as X: a proven win, here, in a
            # millisecond or two), else the perfect player's own rule (a seeded random choice
            # among the solver's best moves) over a solution cached for every client, else
            # proof-number search on a worker.
            if board.variant.name in SHIPPED:  # read once, only for the side it wins for
                move = await anyio.to_thread.run_sync(strategy_move, board)
                if move is not None:
                    return move, ForcedWin()
            key = (board.to_string(),)
            known = self.perfect_moves.get(key)
            if known is None:
                searching = proof_numbers_apply(board.variant)
                share = SOLVER_SHARE if searching else 1.0  # the bound covers both searches
                solution = await self.solution_for(board, self.max_nodes,
                                                   self.max_seconds * share, priority)
                if not solution.proven and searching:
                    return await self.lane(board).run(
                        priority, worker.perfect_search, board.to_string(), seed,
                        self.max_nodes, self.max_seconds * (1 - share), solution,
                        limit=self.max_seconds * (1 - share))
                if not solution.proven:  # estimates: answered, never remembered
                    choice = PerfectPlayer(seed).from_solution(board, solution)
                    return choice.move, choice.score
                known = PerfectMoves.of(board, solution)
                self.perfect_moves.put(key, known)
            cell = random.Random(seed).choice(known.best)
            return cell, code_score(known.scores[cell])
        cells = board.variant.cells
        if name == "random" or (name in INLINE_PLAYERS and cells <= WIDE_CELLS) or (
                name == "easy" and cells <= SMALL_CELLS) or (
                name in LEVELS and cells <= INLINE_LEVEL_CELLS):
            choice = make_player(name, seed=seed).choose(board.copy(stack=False),
                                                         Limit(seconds=self.max_seconds))
            return choice.move, choice.score
        return await self.lane(board).run(priority, worker.choose, board.to_string(), name,
                                          seed, self.max_seconds, limit=self.max_seconds)

    async def move_answer(self, position: str, name: str, seed: int | None) -> bytes:
        """The JSON answer of ``POST /api/move``: a player's move and the position after it."""
        if name == "perfect":
            known = self.perfect_moves.get((position,))
            if known is not None:
                cell = random.Random(seed).choice(known.best)
                return self._perfect_reply(Position(known.position), cell,
                                           code_score(known.scores[cell]))
        board = playable(position)
        if name not in PLAYER_OR_LEVEL - {"human"}:
            raise TicTacToeError(
                f"unknown player {name!r}: expected one of "
                f"{', '.join(sorted(PLAYER_OR_LEVEL - {'human'}))}")
        key = ("move", board.to_string(), name, seed)
        if name != "perfect" and seed is not None:
            cached = self.replies.get(key)
            if cached is not None:
                return cached
        cell, score = await self.choose(board, name, seed, Priority.MOVE)
        if name == "perfect" and score is not None and score.is_proven:
            return self._perfect_reply(board, cell, score)
        answer = self.move_json(board, cell, name, score)
        if name != "perfect" and seed is not None:
            self.replies.put(key, answer)
        return answer

    def _perfect_reply(self, board: Position, cell: int, score: Score) -> bytes:
        key = ("perfect", board.to_string(), cell)
        reply = self.replies.get(key)
        if reply is None:
            reply = self.move_json(board, cell, "perfect", score)
            self.replies.put(key, reply)
        return reply

    def position_answer(self, position: str, moves: list[str]) -> bytes:
        """The JSON answer of ``POST /api/position``: the position after ``moves``."""
        key = (position, *moves)
        answer = self.answers.get(key)
        if answer is None:
            board = Position(position)
            for number, move in enumerate(moves, 1):
                try:
                    board.push_name(move)
                except TicTacToeError as err:
                    raise type(err)(f"move {number} ({move!r}): {err}") from None
            answer = self.info_json(board)
            self.answers.put(key, answer)
        return answer

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

    # ------------------------------------------------------------- warm-up
    async def warm_up(self) -> None:
        """Load the compiled search in both workers, then here, then solve the early
        positions of the small boards (`warm_plies`), each a job of the lowest priority, so
        that the requests go first. The workers go first: on a fresh install they compile
        the kernels (minutes of work that holds the interpreter) into the on-disk cache,
        away from the server's event loop, which keeps answering; the server then loads
        them from that cache."""
        solver = self.solver
        try:
            await asyncio.gather(self.small.run(Priority.WARM, worker.load),
                                 self.large.run(Priority.WARM, worker.load, *SHIPPED))
            await anyio.to_thread.run_sync(solver.load)
            for name in SHIPPED:  # the shipped strategies (the cube's: a third of a second)
                await anyio.to_thread.run_sync(shipped, name)
            for variant, plies in self.warm_plies.items():
                boards = await anyio.to_thread.run_sync(early_positions, variant, plies)
                for board in boards:
                    await asyncio.sleep(0)  # a quick search here: let requests in between
                    await self.solution_for(board, self.max_nodes, self.max_seconds,
                                            Priority.WARM)
            # Everything alive now (the modules, the kernels, the warm cache) lives as long
            # as the server: keep it out of the collector's full passes, which would
            # otherwise stall every request for tens of milliseconds now and then.
            gc.freeze()
            log.info("warm-up done: %d solutions cached", len(solver.cache))
        except EngineBusyError:  # the workers are busy for long: the requests come first
            log.info("warm-up stopped: the engine is busy")
        finally:
            self.ready.set()


__all__ = ["CACHES", "INLINE_LEVEL_CELLS", "INLINE_PLAYERS", "NICENESS", "QUEUE_LIMITS",
           "SMALL_CELLS", "Engine", "early_positions"]
