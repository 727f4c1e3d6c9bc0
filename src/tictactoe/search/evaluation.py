"""Static evaluations of a position, from the view of a given side (seeds 001 and 003).

- `open_lines`: lines still open for me minus lines still open for the opponent, over every
  row, column and diagonal (a line is open for a side if the other side has no mark on it);
  a won position is worth ±100.
- `win_only`: +10 if I have a line, -10 if the opponent has one, 0 otherwise.

The solvers use `open_line_counts` to order moves and to score the moves a limit left
unproven; the heuristic player (`tictactoe.players.heuristic`) scores its horizon with them.

>>> from tictactoe.core import Position, Side
>>> open_lines(Position("3/1x1/3 o"), Side.X)  # the centre keeps 8 lines open, the O side 4
4
>>> win_only(Position("xxx/oo1/3 o"), Side.O)
-10
"""

from __future__ import annotations

from collections.abc import Callable

from tictactoe.core import Position, Side

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
