"""Every move's value from every source of knowledge within one bound: what the analysis,
the hints and the apps show.

`analyse` gives the α-β solver (`tictactoe.search.solve`, which brings the tactical floor
and the shipped strategy with it) part of the time. Where it leaves moves open on a board
that proof-number search takes (17 to 64 cells, the ``fast`` extra), the rest of the time
goes to proof-number search (`tictactoe.search.pn`), move by move in the solver's order:

- if the side to move wins the position, the first move proven to keep the win is a
  ``ForcedWin``;
- a move after which the opponent is proven to win is a ``ForcedLoss``;
- a move after which the opponent is proven not to win, in a position the side to move
  cannot win, is a ``Draw``.

Everything else stays the solver's estimate.

Moves that a symmetry of the position maps onto each other (`tictactoe.core.symmetry.
equivalent_cells`: on the empty cube, the 8 corners) are worth the same, so they get one value,
the best known in their class (`by_symmetry`): proof-number search asks about one move of each
class, and a proof found for one move (the shipped strategy's first move, say) holds for its
equivalents too.

Past 64 cells (gomoku) no solver gets far: with the ``fast`` extra, `analyse` gives the
analysis of the levels there (`tictactoe.search.wide.analysis.wide_solution`): the moves
that win or lose by threat sequences (with threes), and estimates for the best few others
only, on the levels' own scale.

>>> from tictactoe.core import Position
>>> s = analyse(Position("x2/1o1/2x o"), seconds=1.0)   # small boards: the solver alone
>>> str(s.score), s.proven
('draw', True)
"""

from __future__ import annotations

import time
from dataclasses import replace
from types import EllipsisType

from tictactoe.core import Position
from tictactoe.core.errors import BoardTooLargeError
from tictactoe.core.symmetry import equivalent_cells
from tictactoe.extras import available
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Score
from tictactoe.search.solution import Solution, best_moves
from tictactoe.search.solver import solve

WIDE_CELLS = 64
"""Boards of more cells are big boards (gomoku): the solvers and proof-number search stop at
64 cells, and the levels and the analysis there use `tictactoe.search.wide`."""

SOLVER_SHARE = 0.5
"""The share of the time the α-β solver gets before proof-number search takes over."""


def proof_numbers_apply(position: Position) -> bool:
    """Whether proof-number search takes this board and is worth asking: 17 to 64 cells
    (the solver settles smaller boards at once), with the ``fast`` extra."""
    return 16 < position.variant.cells <= 64 and available("fast")


def analyse(position: Position | str, *, nodes: int | None = None,
            seconds: float | None = None, threads: int = 1, engine: str = "auto") -> Solution:
    """Every legal move's score within the bounds (see the module's docstring). Without a
    time limit it is `tictactoe.search.solve` itself."""
    if isinstance(position, str):
        position = Position(position)
    if position.variant.cells > WIDE_CELLS and available("fast"):
        from tictactoe.search.wide.analysis import wide_solution

        return wide_solution(position, seconds=seconds)
    classes = move_classes(position)
    if seconds is None or not proof_numbers_apply(position):
        return by_symmetry(position, solve(position, nodes=nodes, seconds=seconds,
                                           threads=threads, engine=engine), classes)
    started = time.perf_counter()
    solution = solve(position, nodes=nodes, seconds=seconds * SOLVER_SHARE, threads=threads,
                     engine=engine)
    if not solution.proven and solution.every_move:
        solution = with_proof_numbers(position, solution, started + seconds, classes)
    return by_symmetry(position, solution, classes)


def move_classes(position: Position) -> list[list[int]] | None:
    """The empty cells in classes of equivalent moves (`tictactoe.core.symmetry.
    equivalent_cells`), or None where they are not worth finding: past 64 cells, on boards
    of two in a row (whose groups are huge) and on boards whose group is too large to list.

    >>> move_classes(Position("x2/1o1/2x o"))  # both diagonals are mirrors: edges, corners
    [[1, 3, 5, 7], [2, 6]]
    """
    variant = position.variant
    if variant.cells > WIDE_CELLS or variant.k < 3:
        return None
    try:
        return equivalent_cells(variant, position.x, position.o)
    except BoardTooLargeError:
        return None


def _knowledge(score: Score) -> tuple[int, float]:
    """How much a score says, for choosing among the scores of equivalent moves: a proven
    exact result, then a proven result within the fewest plies, then one of unknown
    length, then the highest estimate."""
    if isinstance(score, ForcedWin | ForcedLoss):
        return (1, -float("inf") if score.within is None else -score.within)
    if isinstance(score, Heuristic):
        return (0, score.value)
    return (2, 0.0)


def by_symmetry(position: Position, solution: Solution,
                classes: list[list[int]] | EllipsisType | None = ...) -> Solution:
    """`solution` with every class of equivalent moves (`move_classes`, unless given)
    given the best known score among them: a proof found for one move holds for every move
    a symmetry of the position maps it to.

    >>> from tictactoe.search.score import Heuristic
    >>> s = solve("3x3", nodes=1)
    >>> corner = {0: ForcedWin(), 2: Heuristic(1.0), 6: Heuristic(1.0), 8: Heuristic(1.0)}
    >>> s = replace(s, moves={**s.moves, **corner})
    >>> [str(by_symmetry(Position("3x3"), s).moves[c]) for c in (0, 2, 6, 8)]
    ['forced win', 'forced win', 'forced win', 'forced win']
    """
    if classes is ...:
        classes = move_classes(position)
    if classes is None:
        return solution
    moves = dict(solution.moves)
    for cells in classes:
        known = [moves[cell] for cell in cells if cell in moves]
        if known:
            best = max(known, key=_knowledge)
            moves.update((cell, best) for cell in cells)
    if moves == solution.moves:
        return solution
    score: Score = max(moves.values())
    return replace(solution, score=score, moves=moves,
                   best=best_moves(position.variant, moves))


def with_proof_numbers(position: Position, solution: Solution, deadline: float,
                       classes: list[list[int]] | EllipsisType | None = ...) -> Solution:
    """`solution` with the open moves that proof-number search settles before `deadline`
    (a `time.perf_counter` reading), one move of each class of equivalent moves (the
    others get its value from `by_symmetry`)."""
    from tictactoe.search.pn.shared import shared_searches

    mover = position.turn
    moves = dict(solution.moves)
    if classes is ...:
        classes = move_classes(position)
    asked = set(moves) if classes is None else {cells[0] for cells in classes}
    open_moves = sorted((m for m, s in moves.items() if not s.is_proven and m in asked),
                        key=lambda m: moves[m], reverse=True)
    if not open_moves or solution.score.winner(mover) is mover:
        return solution

    def left(fraction: float) -> float | None:
        rest = deadline - time.perf_counter()
        return None if rest <= 0.01 else rest * fraction

    searches = shared_searches(position.variant)
    with searches.lock:
        share = left(0.3)
        root = None if share is None else \
            searches.of(mover).prove(position, attacker=mover, seconds=share)
        if root is not None and root.outcome == "win":
            for move in open_moves:
                share = left(0.3)
                if share is None:
                    break
                if searches.of(mover).prove(position.play(move), attacker=mover,
                                            seconds=share).outcome == "win":
                    moves[move] = ForcedWin()
                    break
        for move in open_moves:
            share = left(0.25)
            if share is None:
                break
            if moves[move].is_proven:
                continue
            reply = searches.of(mover.other).prove(position.play(move),
                                                   attacker=mover.other, seconds=share)
            if reply.outcome == "win":
                moves[move] = ForcedLoss()
            elif reply.outcome == "no-win" and root is not None and root.outcome == "no-win":
                moves[move] = Draw()
    if moves == solution.moves:
        return solution
    score: Score = max(moves.values())
    return replace(solution, score=score, moves=moves,
                   best=best_moves(position.variant, moves), seconds=solution.seconds)


__all__ = ["SOLVER_SHARE", "WIDE_CELLS", "analyse", "by_symmetry", "move_classes",
           "proof_numbers_apply", "with_proof_numbers"]
