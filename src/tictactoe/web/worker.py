"""What an engine worker runs: bounded solves and computer players, one job at a time, in a
process of its own (or a thread, see `tictactoe.web.pool`).

The compiled search holds the interpreter lock while it runs, and so do the pure-Python
players; in a separate process they cannot stall the server's event loop. Every function here
takes and returns plain picklable values. Each worker keeps its own `WebSolver` (its kept
transposition tables make a search near an earlier one cheaper); the server keeps the proven
answers it gets back in its own cache.

>>> solution = solve("x1x/1o1/o2 x", 10_000, 1.0)
>>> solution.proven, solution.best
(True, [1])
>>> choose("xx1/oo1/3 x", "rules", 0, 1.0)
(2, None)
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import sys
import threading
import time

from tictactoe.core import Position, Variant
from tictactoe.extras import available
from tictactoe.players.base import Limit
from tictactoe.players.levels import limit_for, make_player
from tictactoe.players.perfect import PerfectPlayer, warm_proof_numbers
from tictactoe.search import knowledge
from tictactoe.search.score import Score
from tictactoe.search.solution import Solution
from tictactoe.web.engine import WebSolver

WORKER_CACHE = (10_000, 8 * 1024 * 1024)
"""The worker's own cache of proven answers, in entries and bytes (the server keeps the large
one)."""

_solver: WebSolver | None = None
_lock = threading.Lock()


def solver() -> WebSolver:
    """This process's solver, made on first use."""
    global _solver
    with _lock:
        if _solver is None:
            _solver = WebSolver(WORKER_CACHE[0], cache_bytes=WORKER_CACHE[1])
        return _solver


def start(parent: int, niceness: int = 0) -> None:
    """Set up a worker process: it runs ``niceness`` steps below the server in the system's
    scheduling (so the server's own thread, which answers the light requests, gets a core
    first), and it ends itself when the server that started it is gone (killed, say),
    rather than live on as an orphan. Ctrl-C is left to the server, which stops its workers
    itself (a terminal sends it to every process of the group)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness:
        with contextlib.suppress(OSError):
            os.nice(niceness)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def load(*proof_numbers: str) -> int:
    """Load the compiled search (a second or so) and that of the boards past 64 cells, and
    the perfect player's proof-number searches on the variants named (a few seconds each);
    return this process's memory in bytes."""
    solver().load()
    if available("fast"):  # loaded (or compiled) now rather than at a first gomoku request
        from tictactoe.search.wide.analysis import warm_up

        warm_up(Variant.parse("15x15k5"))  # the kernels serve every board past 64 cells
    for variant in proof_numbers:
        warm_proof_numbers(variant)
    return memory()


def solve(position: str, nodes: int, seconds: float) -> Solution:
    """The solution of a position within the bounds (the same as `WebSolver.solve`)."""
    return solver().solve(Position(position), nodes=nodes, seconds=seconds)


def analyse(position: str, nodes: int, seconds: float) -> Solution:
    """Every move's value within the bounds from every source of knowledge
    (`tictactoe.search.knowledge.analyse`): the solver, then proof-number search."""
    return knowledge.analyse(Position(position), nodes=nodes, seconds=seconds)


def choose(position: str, player: str, seed: int | None, seconds: float
           ) -> tuple[int, Score | None]:
    """A computer player's move and its score (None if the player does not score moves)."""
    board = Position(position)
    choice = make_player(player, seed=seed).choose(
        board, limit_for(player, board.variant, Limit(seconds=seconds)))
    return choice.move, choice.score


def perfect_search(position: str, seed: int | None, nodes: int | None, seconds: float,
                   estimate: Solution) -> tuple[int, Score | None]:
    """The perfect player's proof-number search, after the solver gave only `estimate`."""
    board = Position(position)
    choice = PerfectPlayer(seed).by_proof_numbers(board, Limit(nodes=nodes, seconds=seconds),
                                                  estimate)
    return choice.move, choice.score


def memory() -> int:
    """This process's resident memory in bytes (its peak where the system does not say).

    >>> memory() > 10_000_000
    True
    """
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize()
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak if sys.platform == "darwin" else peak * 1024)


__all__ = ["analyse", "choose", "load", "memory", "perfect_search", "solve", "solver",
           "start"]
