"""What the environments share: the board as planes, the action mask, and rendering.

>>> from tictactoe import Position, Side
>>> planes(Position("x2/1o1/3 x"), Side.O)[0, 0].tolist()  # a1 from O's side: theirs
[0, 1, 0]
"""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from __future__ import annotations

from tictactoe.extras import require

require("envs", "tictactoe.envs")

import io
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

from tictactoe.core import Position, Side, Variant
from tictactoe.svg import board, png

RENDER_MODES = ["human", "ansi", "rgb_array"]
"""``human`` prints the board, ``ansi`` returns it as text, ``rgb_array`` as pixels."""

RENDER_WIDTH = 360
"""Width in pixels of an RGB rendering of a flat board (a cube's is twice that)."""


def board_shape(variant: Variant) -> tuple[int, ...]:
    """(rows, columns), or (layers, rows, columns) for a cube."""
    return (variant.layers, variant.rows, variant.columns) if variant.is_3d else \
        (variant.rows, variant.columns)


WORD_CELLS = 64
"""Boards of at most this many cells have their planes made from machine words."""

SMALL_CELLS = 16
"""Boards of at most this many cells have their planes written cell by cell (fastest there)."""


def planes(position: Position, side: Side) -> npt.NDArray[np.int8]:
    """The board from `side`'s point of view: planes mine, theirs and empty (last axis)."""
    v = position.variant
    cells = v.cells
    mine, theirs = position.marks(side), position.marks(side.other)
    if cells <= SMALL_CELLS:  # a few microseconds: fewer numpy calls than cells
        flat = bytearray(3 * cells)
        for i in range(cells):
            flat[3 * i + (0 if mine >> i & 1 else 1 if theirs >> i & 1 else 2)] = 1
        return np.frombuffer(flat, dtype=np.int8).reshape((*board_shape(v), 3))
    if cells <= WORD_CELLS:
        words = np.array([mine, theirs, ~(mine | theirs) & v.full_mask], dtype=np.uint64)
        out = ((words[None, :] >> _shifts(cells)[:, None]) & np.uint64(1)).astype(np.int8)
        return out.reshape((*board_shape(v), 3))
    out = np.empty((cells, 3), dtype=np.int8)
    out[:, 0] = _bits(mine, cells)
    out[:, 1] = _bits(theirs, cells)
    out[:, 2] = 1 - out[:, 0] - out[:, 1]
    return out.reshape((*board_shape(v), 3))


_SHIFTS: dict[int, npt.NDArray[np.uint64]] = {}


def _shifts(cells: int) -> npt.NDArray[np.uint64]:
    """0, 1, ..., cells - 1 as machine words."""
    found = _SHIFTS.get(cells)
    if found is None:
        found = _SHIFTS[cells] = np.arange(cells, dtype=np.uint64)
    return found


def _bits(mask: int, cells: int) -> npt.NDArray[np.uint8]:
    """The first `cells` bits of `mask`, lowest first, on any size of board (past 64 cells a
    mask does not fit a machine word).

    >>> _bits(0b101, 4).tolist()
    [1, 0, 1, 0]
    """
    raw = np.frombuffer(mask.to_bytes((cells + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:cells]


def action_mask(position: Position, board: npt.NDArray[np.int8] | None = None
                ) -> npt.NDArray[np.int8]:
    """1 for each legal move (cell index), 0 elsewhere; all 0 once the game is over.
    `board`: the position's `planes`, if made already (their empty plane is the mask)."""
    if position.is_game_over():
        return np.zeros(position.variant.cells, dtype=np.int8)
    if board is None:
        board = planes(position, position.turn)
    return board[..., 2].reshape(-1).copy()


_O_VIEW = np.array([1, 0, 2])
"""The order of the planes from O's side: O's marks first."""


class KeptPlanes:
    """A game's `planes` and `action_mask`, kept from one observation to the next: the marks
    added since are written in (a big board's planes made afresh took most of a step), and
    marks set any other way make them afresh.

    >>> kept, p = KeptPlanes(Variant.parse("3x3")), Position("3x3")
    >>> p.push(4); p.push(0)
    >>> bool((kept.planes(p, Side.O) == planes(p, Side.O)).all()), kept.mask(p).tolist()
    (True, [0, 1, 1, 1, 0, 1, 1, 1, 1])
    """

    def __init__(self, variant: Variant) -> None:
        self.shape = (*board_shape(variant), 3)
        self.board = np.zeros((variant.cells, 3), dtype=np.int8)
        """The planes from X's side (X, O, empty), one row a cell."""
        self.board[:, 2] = 1
        self.marks = (0, 0)
        """The marks (X's, O's) `board` shows."""

    def _follow(self, position: Position) -> None:
        x, o = position.x, position.o
        was_x, was_o = self.marks
        if (x, o) == self.marks:
            return
        if was_x & ~x or was_o & ~o:  # marks taken away: a new game, or set by hand
            self.board[:] = planes(position, Side.X).reshape(-1, 3)
        else:
            for added, plane in ((x & ~was_x, 0), (o & ~was_o, 1)):
                while added:
                    cell = (added & -added).bit_length() - 1
                    added &= added - 1
                    self.board[cell, plane], self.board[cell, 2] = 1, 0
        self.marks = (x, o)

    def planes(self, position: Position, side: Side) -> npt.NDArray[np.int8]:
        """`planes(position, side)`, from the kept board."""
        self._follow(position)
        board = self.board.copy() if side is Side.X else self.board[:, _O_VIEW]
        return board.reshape(self.shape)

    def mask(self, position: Position) -> npt.NDArray[np.int8]:
        """`action_mask(position)`, from the kept board."""
        if position.is_game_over():
            return np.zeros(len(self.board), dtype=np.int8)
        self._follow(position)
        return self.board[:, 2].copy()


def text(position: Position) -> str:
    """The board with coordinates, and whose turn it is or how the game ended."""
    outcome = position.outcome()
    status = (f"{position.turn.name} to move" if outcome is None else
              "draw" if outcome.winner is None else f"{outcome.winner.name} wins")
    return f"{position.diagram()}\n{status}"


def rgb_array(position: Position, lastmove: int | None = None) -> npt.NDArray[np.uint8]:
    """The SVG picture rasterised: an array of shape (height, width, 3), dtype uint8."""
    width = RENDER_WIDTH * (2 if position.variant.is_3d else 1)
    data = png(board(position, size=width, lastmove=lastmove))
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def render(position: Position, mode: str | None, lastmove: int | None = None) -> Any:
    """Render in one of `RENDER_MODES` (None: nothing)."""
    if mode is None:
        return None
    if mode == "rgb_array":
        return rgb_array(position, lastmove)
    if mode == "ansi":
        return text(position)
    if mode == "human":
        print(text(position))
        return None
    raise ValueError(f"unknown render mode {mode!r}: expected one of {', '.join(RENDER_MODES)}")


def check_render_mode(mode: str | None) -> str | None:
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"unknown render mode {mode!r}: expected None or one of "
                         f"{', '.join(RENDER_MODES)}")
    return mode
