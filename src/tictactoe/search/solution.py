"""What a solver answers: `Solution`, its JSON form, and the check that a position can be solved.

Both solvers (the readable one in `tictactoe.search.readable` and the compiled kernels in
`tictactoe.search.compiled`) build on this module, so neither imports the other.

>>> from tictactoe.core import Position
>>> check_solvable(Position("xxx/oo1/3 o"))
Traceback (most recent call last):
...
tictactoe.core.errors.IllegalMoveError: the game is over (won by X) in xxx/oo1/3 o: there \
is nothing to solve
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tictactoe.core import IllegalMoveError, ImpossiblePositionError, Position, Side, Variant
from tictactoe.search.score import Draw, Score
from tictactoe.search.words import side_words


@dataclass(frozen=True)
class Solution:
    """What the solver found for the side to move (`mover`).

    `moves` maps every legal move to its score for the player who plays it, counting that
    move as ply 1; `best` lists every move with the best score, in the order of
    `best_moves`; `score` is that best score.
    """

    score: Score
    moves: dict[int, Score]
    best: list[int]
    proven: bool
    nodes: int
    seconds: float
    mover: Side = field(default=Side.X)
    engine: str = "python"
    """Which search found it: ``compiled`` (the numba kernels) or ``python`` (the reference)."""
    every_move: bool = True
    """Whether `moves` scores every legal move; `solve_value` scores only one best move."""

    @property
    def winner(self) -> Side | None:
        """The winner with best play; None for a draw (or an unproven guess)."""
        return self.score.winner(self.mover)

    @property
    def plies(self) -> int | None:
        """Plies to the end of the game with best play; None if unproven."""
        return self.score.plies


def best_moves(variant: Variant, moves: Mapping[int, Score]) -> list[int]:
    """The moves with the best score (each for the side that plays it). Proven equals
    (every move of a drawn 3x3, say) come in board order; equal estimates come nearest the
    board's centre first (`Variant.off_centre`), then in board order: a tie of estimates
    says nothing about which move is better, and the centre leaves the most room, so the
    first moves listed (``ttt solve`` lists a few) are the ones worth trying first.

    >>> from tictactoe.search.score import Heuristic, Win
    >>> v = Variant.parse("5x5k4")
    >>> [v.cell_name(c) for c in best_moves(v, {c: Heuristic(4.0) for c in range(25)})[:5]]
    ['c3', 'c2', 'b3', 'd3', 'c4']
    >>> best_moves(v, {12: Win(3), 0: Win(3), 3: Heuristic(5.0)})   # proven: board order
    [0, 12]
    """
    if not moves:
        return []
    score = max(moves.values())
    tied = sorted(c for c, s in moves.items() if s == score)
    if score.is_proven:
        return tied
    return sorted(tied, key=lambda c: (variant.off_centre(c), c))


def check_solvable(position: Position, task: str = "solve") -> None:
    """Raise a clear error unless the position can arise in play and the game goes on
    (`task` names what there is nothing of: "solve", "prove")."""
    problems = position.problems()
    if problems:
        raise ImpossiblePositionError(
            f"{position.to_string()} cannot arise in play: {'; '.join(problems)}")
    outcome = position.outcome()
    if outcome is not None:
        result = "a draw" if outcome.winner is None else f"won by {outcome.winner.name}"
        raise IllegalMoveError(
            f"the game is over ({result}) in {position.to_string()}: there is nothing to "
            f"{task}")


def solution_json(position: Position, solution: Solution) -> dict[str, object]:
    """The JSON form used by ``ttt solve --json`` and the web API.

    Keys: position, winner (``x``, ``o``, ``draw``, or None if unproven), plies (for a draw,
    the cells left: a drawn game ends on a full board), best (moves in ``b2`` form), moves
    (move -> {winner, plies}, and estimate where unproven), nodes, seconds, proven, engine,
    every_move (False when only one best move was scored), estimate (the score's number on
    the one scale of `Heuristic`, or None when proven) and text (the score in words).
    """
    def result(score: Score, mover: Side) -> str | None:
        if not score.is_proven:
            return None
        side = score.winner(mover)
        return side.symbol if side else "draw"

    def plies(score: Score) -> int | None:
        return remaining if isinstance(score, Draw) else score.plies

    mover = position.turn
    remaining = position.variant.cells - position.ply
    return {
        "position": position.to_string(),
        "winner": result(solution.score, mover),
        "plies": plies(solution.score),
        "best": [position.move_name(c) for c in solution.best],
        "moves": {position.move_name(c): {"winner": result(s, mover), "plies": plies(s)} | (
            {} if s.is_proven else {"estimate": getattr(s, "value", 0.0)})
                  for c, s in solution.moves.items()},
        "nodes": solution.nodes,
        "seconds": round(solution.seconds, 6),
        "proven": solution.proven,
        "engine": solution.engine,
        "every_move": solution.every_move,
        "estimate": None if solution.score.is_proven else getattr(solution.score, "value", 0.0),
        "text": side_words(solution.score, mover),
    }
