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
from tictactoe.core.position import Outcome, Position, Side, Status, Termination, Threat, Three
from tictactoe.core.symmetry import canonical_masks, symmetries, transform_mask
from tictactoe.core.variant import LINE_KINDS, MAX_CELLS, Variant

__all__ = [
    "LINE_KINDS",
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
    "Threat",
    "Three",
    "TicTacToeError",
    "Variant",
    "VariantError",
    "canonical_masks",
    "symmetries",
    "transform_mask",
]
