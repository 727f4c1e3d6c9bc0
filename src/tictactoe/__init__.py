"""tictactoe: play, solve and count tic-tac-toe on any m x n board with k in a row, and cubes.

>>> import tictactoe
>>> p = tictactoe.Position("3x3")
>>> p.push(4)
>>> p
Position('3/1x1/3 o')
"""

from tictactoe.core import (
    MAX_CELLS,
    BoardTooLargeError,
    IllegalMoveError,
    ImpossiblePositionError,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    Position,
    Side,
    Status,
    Termination,
    TicTacToeError,
    Variant,
    VariantError,
    canonical_masks,
    symmetries,
)

__version__ = "0.1.0"

__all__ = [
    "MAX_CELLS",
    "BoardTooLargeError",
    "IllegalMoveError",
    "ImpossiblePositionError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Outcome",
    "Position",
    "Side",
    "Status",
    "Termination",
    "TicTacToeError",
    "Variant",
    "VariantError",
    "canonical_masks",
    "symmetries",
]
