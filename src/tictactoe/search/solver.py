"""Solve a position: the dispatch between the compiled kernels and the readable search.

`solve` scores every legal move; `solve_value` proves the game value and one best move.
Both pick an engine (``auto``, ``compiled`` or ``python``) and answer with a `Solution`.

>>> from tictactoe.core import Position
>>> s = solve(Position("x2/3/3 o"))  # after a corner opening only the centre holds
>>> sorted({str(score) for score in s.moves.values()}), s.best
(['draw', 'loss in 6'], [4])
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

from tictactoe.core import BoardTooLargeError, Position
from tictactoe.core.variant import SMALL_CELLS
from tictactoe.extras import available
from tictactoe.proof.strategy import strategy_move
from tictactoe.search.readable import solve_python
from tictactoe.search.score import Draw, ForcedWin, Heuristic, Score
from tictactoe.search.solution import Solution, best_moves, check_solvable
from tictactoe.search.tactics import value_from_tactics


def solve(position: Position | str, *, nodes: int | None = None,
          seconds: float | None = None, engine: str = "auto", threads: int = 1) -> Solution:
    """Solve a position: its score for the side to move, every move's score, the best moves.

    `nodes` and `seconds` limit the search; if either stops it before a proof, the solution
    is a best guess with ``proven=False``. Raises `ImpossiblePositionError` for a position
    that cannot arise in play and `IllegalMoveError` once the game is over.

    `engine` is ``auto`` (the compiled kernels when the board has at most 64 cells and the
    ``fast`` extra is installed, else the readable search), ``compiled`` (which raises
    `tictactoe.extras.MissingExtraError` without that extra) or ``python``;
    `Solution.engine` says which one ran.
    `threads` above 1 lets the compiled search score the moves of a big board in parallel.

    >>> s = solve("xx1/oo1/3 x")
    >>> str(s.score), s.best, s.proven
    ('win in 1', [2], True)
    >>> solve("xxx/oo1/3 o")
    Traceback (most recent call last):
    ...
    tictactoe.core.errors.IllegalMoveError: the game is over (won by X) in xxx/oo1/3 o: there \
is nothing to solve
    """
    if engine not in ("auto", "compiled", "python"):
        raise ValueError(f"unknown engine {engine!r}: expected auto, compiled or python")
    if isinstance(position, str):
        position = Position(position)
    if engine == "compiled" or (engine == "auto" and available("fast")):
        from tictactoe.search.compiled import solve as solve_compiled

        compiled = solve_compiled(position, nodes=nodes, seconds=seconds, threads=threads)
        if compiled is not None or engine == "compiled":
            if compiled is None:
                raise BoardTooLargeError(f"{position.variant.name} does not fit the compiled "
                                         "core (at most 64 cells)")
            return with_strategy(position, compiled)
    return with_strategy(position, solve_python(position, nodes=nodes, seconds=seconds))


def with_strategy(position: Position, solution: Solution) -> Solution:
    """`solution` with the shipped strategy's move (`tictactoe.proof.strategy`) scored a
    `ForcedWin` where the search left it unproven: on the cube with X to move, in every
    position the shipped proof covers.

    >>> s = with_strategy(Position("4x4x4"), solve("4x4x4", nodes=1000))
    >>> str(s.score), s.best, s.proven
    ('forced win', [0], False)
    """
    if solution.proven:
        return solution
    move = strategy_move(position)
    if move is None or solution.moves.get(move, Draw()).is_proven:
        return solution
    moves = {**solution.moves, move: ForcedWin()}
    score = max(moves.values())
    return replace(solution, score=score, moves=moves,
                   best=best_moves(position.variant, moves))


def solve_value(position: Position | str, *, nodes: int | None = None,
                seconds: float | None = None, engine: str = "auto",
                threads: int = 1) -> Solution:
    """The game value and one best move, without scoring the other moves (`every_move` is
    False, and `moves` holds that move only, or nothing if a limit stopped the search).

    Where the shipped strategy covers the position (the cube, X to move), its move answers at
    once, a `ForcedWin` (`engine` is ``strategy``). Where a limit stops the search, the
    tactical floor may still prove the value (`tictactoe.search.tactics.value_from_tactics`).

    On the compiled path this is much faster on big boards, and `threads` above 1 races two
    ways to the value on two threads. The readable engine solves every move and keeps the
    first best one.

    >>> s = solve_value("x2/3/3 o")
    >>> str(s.score), s.best, s.every_move
    ('draw', [4], False)
    """
    if isinstance(position, str):
        position = Position(position)
    if engine not in ("auto", "compiled", "python"):
        raise ValueError(f"unknown engine {engine!r}: expected auto, compiled or python")
    check_solvable(position)
    started = time.perf_counter()
    move = strategy_move(position)
    if move is not None:
        return Solution(score=ForcedWin(), moves={move: ForcedWin()}, best=[move], proven=True,
                        nodes=0, seconds=time.perf_counter() - started, mover=position.turn,
                        engine="strategy", every_move=False)
    return value_from_tactics(position, _solve_value(position, nodes, seconds, engine,
                                                     threads))


def _solve_value(position: Position, nodes: int | None, seconds: float | None, engine: str,
                 threads: int) -> Solution:
    if engine == "compiled" or (engine == "auto" and available("fast")):
        from tictactoe.search import compiled

        if not compiled.fits(position.variant):
            if engine == "compiled":
                raise BoardTooLargeError(f"{position.variant.name} does not fit the compiled "
                                         "core (at most 64 cells)")
            return _value_from_python(position, nodes, seconds)
        result = compiled.solve_value(position, nodes=nodes, seconds=seconds,
                                         threads=threads)
        moves = {c: compiled.score_of(s) for c, s in result.moves.items()}
        score: Score = compiled.score_of(result.score) if result.proven else Heuristic(0.0)
        return Solution(score=score, moves=moves, best=list(moves), proven=result.proven,
                        nodes=result.nodes, seconds=result.seconds, mover=position.turn,
                        engine="compiled", every_move=False)
    return _value_from_python(position, nodes, seconds)


def _value_from_python(position: Position, nodes: int | None,
                       seconds: float | None) -> Solution:
    full = solve_python(position, nodes=nodes, seconds=seconds)
    first = full.best[:1] if full.proven else []
    return Solution(score=full.score, moves={c: full.moves[c] for c in first}, best=first,
                    proven=full.proven, nodes=full.nodes, seconds=full.seconds,
                    mover=full.mover, engine="python", every_move=False)


QUICK_EMPTY = 9
"""Positions with at most this many empty cells are quick for the readable search."""

QUICK_CELLS_K3 = 16
"""Boards of k=3 with at most this many cells are quick for the readable search too (4x4 k=3
takes about 10 ms; 4x4 k=4 takes over a second and wants the kernels)."""


def kernels_loaded() -> bool:
    """Whether this process has already loaded the compiled kernels."""
    return "tictactoe.search.compiled.kernels" in sys.modules


def quickest_engine(position: Position) -> str:
    """The engine that answers a single question soonest, loading included: ``python``
    where the readable search is quick and the kernels are not loaded yet (loading them
    costs about half a second) or where the board has more than 64 cells, else ``auto``.

    One-shot commands (``ttt solve``, ``ttt move``) use it; a long-running process (the
    web server, the terminal app) keeps the kernels loaded and uses ``auto``.

    >>> quickest_engine(Position("3x3")) in ("python", "auto")
    True
    """
    variant = position.variant
    if variant.cells > SMALL_CELLS:  # past the kernels' 64 cells: loading them would only cost
        return "python"
    if kernels_loaded():
        return "auto"
    empty = variant.cells - position.ply
    quick = (empty <= QUICK_EMPTY or (variant.k <= 3 and variant.cells <= QUICK_CELLS_K3))
    # k=2 boards are degenerate: their symmetry groups are huge and slow to list
    return "python" if quick and variant.k >= 3 else "auto"
