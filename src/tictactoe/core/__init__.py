"""The rules core: geometry, lines, symmetry, positions, notation and legality.

Plain Python with no heavy imports; everything else in the package builds on it.
"""

from tictactoe.core.errors import (
    BoardTooLargeError,
    IllegalMoveError,
    ImpossiblePositionError,
    InvalidMoveError,
    InvalidPositionError,
    TicTacToeError,
    VariantError,
)
from tictactoe.core.position import Outcome, Position, Side, Status, Termination
from tictactoe.core.symmetry import canonical_masks, symmetries, transform_mask
from tictactoe.core.variant import MAX_CELLS, Variant

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
    "transform_mask",
]
