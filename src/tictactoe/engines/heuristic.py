"""Static evaluations and the evaluation-function player (the player of seeds 001 and 003).

Two evaluations, both for any variant and both from the view of a given side:

- `open_lines`: lines still open for me minus lines still open for the opponent, over every
  row, column and diagonal (a line is open for a side if the other side has no mark on it);
  a won position is worth ±100.
- `win_only`: +10 if I have a line, -10 if the opponent has one, 0 otherwise.

`depth_limited_scores` searches to a fixed depth with negamax and α-β and scores the leaves
with one of them; the evaluation-function player in `players` is built on it.

>>> from tictactoe.core import Position, Side
>>> open_lines(Position("3/1x1/3 o"), Side.X)  # the centre keeps 8 lines open, the O side 4
4
>>> win_only(Position("xxx/oo1/3 o"), Side.O)
-10
"""

from __future__ import annotations

from collections.abc import Callable

from tictactoe.core import Position, Side, TicTacToeError
from tictactoe.engines.score import Heuristic, Loss, Score, Win

WON = 100
"""The value of a won board in `open_lines` (seed 001 prints it as "∞")."""

Evaluation = Callable[[Position, Side], int]


def open_line_counts(variant_lines: tuple[int, ...], mine: int, theirs: int) -> tuple[int, int]:
    """How many lines are open for me (no opponent mark) and for the opponent."""
    mine_open = theirs_open = 0
    for m in variant_lines:
        if not m & theirs:
            mine_open += 1
        if not m & mine:
            theirs_open += 1
    return mine_open, theirs_open


def open_lines(position: Position, side: Side) -> int:
    """Open lines for `side` minus open lines for its opponent; ±`WON` for a won board.

    Every line counts once: rows, columns and diagonals (seed 001 counted columns twice and
    rows never).

    >>> open_lines(Position("3x3"), Side.X)
    0
    >>> open_lines(Position("x2/3/3 o"), Side.X)  # a corner: 8 - 5
    3
    """
    mine, theirs = position.marks(side), position.marks(side.other)
    winner = position.winner()
    if winner is not None:
        return WON if winner is side else -WON
    a, b = open_line_counts(position.variant.line_masks, mine, theirs)
    return a - b


def win_only(position: Position, side: Side) -> int:
    """+10 if `side` has a line, -10 if its opponent has, else 0 (seed 003's evaluation)."""
    winner = position.winner()
    if winner is None:
        return 0
    return 10 if winner is side else -10


EVALUATIONS: dict[str, Evaluation] = {"lines": open_lines, "win": win_only}
"""The evaluations by name."""

_MATE = 1_000_000


def depth_limited_scores(position: Position, depth: int, evaluation: Evaluation
                         ) -> tuple[dict[int, Score], int]:
    """Every legal move with its score for the mover, searched `depth` plies deep with
    negamax and α-β; also the number of nodes visited.

    Wins and losses seen inside the horizon are exact `Win`/`Loss` scores, the rest are
    `Heuristic` values of `evaluation` at the horizon.

    >>> scores, _ = depth_limited_scores(Position("xx1/oo1/3 o"), 2, open_lines)
    >>> str(scores[2]), str(scores[5]), str(scores[6])
    ('heuristic 1', 'win in 1', 'loss in 2')
    """
    if depth < 1:
        raise TicTacToeError(f"depth must be at least 1, not {depth}")
    board = position.copy(stack=False)
    counter = [0]
    out: dict[int, Score] = {}
    for cell in board.legal_moves():
        board.push(cell)
        value = -_negamax(board, evaluation, depth - 1, 1, -_MATE - 1, _MATE + 1, counter)
        board.pop()
        out[cell] = _to_score(value)
    return out, counter[0]


def _negamax(board: Position, evaluation: Evaluation, depth: int, ply: int, alpha: int,
             beta: int, counter: list[int]) -> int:
    """The value for the side to move; a win ending at ply p from the root is ``_MATE - p``."""
    counter[0] += 1
    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0
        return _MATE - ply if outcome.winner is board.turn else -(_MATE - ply)
    if depth <= 0:
        return evaluation(board, board.turn)
    best = -_MATE - 1
    for cell in board.empty_cells():
        board.push(cell)
        value = -_negamax(board, evaluation, depth - 1, ply + 1, -beta, -alpha, counter)
        board.pop()
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def _to_score(value: int) -> Score:
    """A search value (for the mover at the root) as a `Score`."""
    if value > _MATE - 1000:
        return Win(_MATE - value)
    if value < -_MATE + 1000:
        return Loss(_MATE + value)
    return Heuristic(float(value))
