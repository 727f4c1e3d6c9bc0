"""Variants: a board shape plus k, the number in a row that wins.

Boards are 2-D (rows x columns) or 3-D (layers x rows x columns). Cells are indexed row-major
from 0, so on 3x3 the top row is 0 1 2 and the centre is 4.

>>> v = Variant.parse("tictactoe")
>>> v.name, v.shape, v.k, v.cells, len(v.lines)
('3x3', (3, 3), 3, 9, 8)
>>> Variant.parse("5x5k4")
Variant.parse('5x5k4')
>>> len(Variant.parse("qubic").lines)
76
>>> v.cell_name(4), v.parse_cell("c3"), Variant.parse("4x4x4").cell_name(21)
('b2', 8, '2:b2')
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cached_property

from tictactoe.core.boardcache import MiB, board_cache
from tictactoe.core.errors import InvalidMoveError, VariantError

SMALL_CELLS = 64
"""Any shape of up to this many cells is a board (64x1, 2x2x16); larger boards keep to
`MAX_SIDE` and `MAX_CUBE_SIDE`."""

MAX_SIDE = 32
"""Longest side of a flat board past 64 cells: up to 32x32 (1,024 cells)."""

MAX_CUBE_SIDE = 6
"""Longest side of a 3-D board past 64 cells: up to 6x6x6 (216 cells)."""

MAX_CELLS = MAX_SIDE * MAX_SIDE
"""Most cells of any board (32x32). Engines have their own, smaller limits: the compiled
solver and the proof-number search take at most 64 cells (one 64-bit word per side)."""

MAX_COLUMNS = MAX_SIDE
"""Columns are lettered a to z, then aa, ab, ... (see `column_name`)."""

ALIASES = {"tictactoe": "3x3", "tic-tac-toe": "3x3", "qubic": "4x4x4"}

LINE_KINDS = {
    "row": "rows: across",
    "column": "columns: down",
    "diagonal": "diagonals: corner to corner",
    "layer diagonal": "layer diagonals: corner to corner in one layer",
    "pillar": "pillars: the same cell in every layer",
    "vertical diagonal": "vertical diagonals: along a row or column, one layer further each step",
    "space diagonal": "space diagonals: corner to corner of the cube, through every layer",
}
"""The kinds of lines (see `Variant.line_kind`), each with a few words for a legend."""

_NAME = re.compile(r"^(\d+)x(\d+)(?:x(\d+))?(?:k(\d+))?$", re.ASCII)
_CELL_2D = re.compile(r"^([a-z]{1,2})(\d+)$", re.ASCII)
_CELL_3D = re.compile(r"^(\d+):([a-z]{1,2})(\d+)$", re.ASCII)


def column_name(col: int) -> str:
    """The letters of a column, from 0: ``a`` to ``z``, then ``aa``, ``ab``, ... as in a
    spreadsheet.

    >>> column_name(0), column_name(25), column_name(26), column_name(31)
    ('a', 'z', 'aa', 'af')
    """
    if col < 26:
        return chr(ord("a") + col)
    return chr(ord("a") + col // 26 - 1) + chr(ord("a") + col % 26)


def column_index(letters: str) -> int:
    """The column, from 0, of its letters (the inverse of `column_name`).

    >>> column_index("a"), column_index("z"), column_index("aa"), column_index("af")
    (0, 25, 26, 31)
    """
    index = 0
    for letter in letters:
        index = index * 26 + ord(letter) - ord("a") + 1
    return index - 1


@dataclass(frozen=True)
class Variant:
    """A board shape (rows, columns) or (layers, rows, columns), and k in a row to win.

    Build one with `Variant.parse` or `Variant.of`; both check the limits.
    """

    shape: tuple[int, ...]
    k: int

    # ----------------------------------------------------------------- construction
    @staticmethod
    def of(shape: tuple[int, ...], k: int | None = None) -> Variant:
        """The variant with this shape and k (default: the smallest dimension).

        >>> Variant.of((4, 4, 4)).name
        '4x4x4'
        >>> Variant.of((3, 70))
        Traceback (most recent call last):
        ...
        tictactoe.core.errors.VariantError: 3x70 has 70 columns; at most 32 are supported
        """
        return _make(tuple(shape), k)

    @staticmethod
    def parse(name: str) -> Variant:
        """Parse a variant name: dims joined by ``x``, then an optional ``k<K>``, or an alias.

        >>> Variant.parse("6x5k4").shape
        (6, 5)
        >>> Variant.parse("3x3x")
        Traceback (most recent call last):
        ...
        tictactoe.core.errors.VariantError: unknown variant '3x3x': expected a name like 3x3, \
5x5k4 or 4x4x4, or one of tictactoe, qubic
        """
        if not isinstance(name, str):
            raise VariantError(f"a variant name is text, not {type(name).__name__}")
        text = name.strip().lower()
        text = ALIASES.get(text, text)
        match = _NAME.match(text) if name.isascii() else None  # not "３x３", nor a Kelvin K
        if not match:
            raise VariantError(
                f"unknown variant {name!r}: expected a name like 3x3, 5x5k4 or 4x4x4, "
                "or one of tictactoe, qubic"
            )
        dims = tuple(int(g) for g in match.groups()[:3] if g is not None)
        k = int(match.group(4)) if match.group(4) is not None else None
        return _make(dims, k)

    # ----------------------------------------------------------------- description
    @property
    def name(self) -> str:
        """The canonical name; k is shown only when it is not the smallest dimension."""
        dims = "x".join(str(d) for d in self.shape)
        return dims if self.k == min(self.shape) else f"{dims}k{self.k}"

    def __repr__(self) -> str:
        return f"Variant.parse({self.name!r})"

    def __str__(self) -> str:
        return self.name

    @property
    def rows(self) -> int:
        return self.shape[-2]

    @property
    def columns(self) -> int:
        return self.shape[-1]

    @property
    def layers(self) -> int:
        """Number of layers: 1 for a flat board."""
        return self.shape[0] if len(self.shape) == 3 else 1

    @property
    def is_3d(self) -> bool:
        return len(self.shape) == 3

    @cached_property
    def cells(self) -> int:
        """Number of cells."""
        total = 1
        for d in self.shape:
            total *= d
        return total

    @cached_property
    def full_mask(self) -> int:
        """Bit mask with one bit set for every cell."""
        return (1 << self.cells) - 1

    # ----------------------------------------------------------------- geometry
    def coordinates(self, cell: int) -> tuple[int, ...]:
        """The (row, column) or (layer, row, column) of a cell index, all from 0.

        >>> Variant.parse("4x4x4").coordinates(21)
        (1, 1, 1)
        """
        out = []
        for d in reversed(self.shape):
            cell, r = divmod(cell, d)
            out.append(r)
        return tuple(reversed(out))

    def off_centre(self, cell: int) -> int:
        """How far a cell lies from the board's centre: the square of the distance, each
        axis doubled so that it stays whole (0 at the centre of an odd board).

        >>> [Variant.parse("15x15k5").off_centre(c) for c in (112, 113, 64)]
        [0, 4, 72]
        """
        return sum((2 * x - (d - 1)) ** 2
                   for x, d in zip(self.coordinates(cell), self.shape, strict=True))

    def index(self, coords: tuple[int, ...]) -> int:
        """The cell index of (row, column) or (layer, row, column).

        >>> Variant.parse("3x3").index((1, 2))
        5
        """
        i = 0
        for c, d in zip(coords, self.shape, strict=True):
            i = i * d + c
        return i

    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every winning line: k cells in a row along any row, column or diagonal.

        Directions are every nonzero vector in {-1, 0, 1}^d, one of each opposite pair, so
        on a cube this covers rows, columns, pillars, the plane diagonals and the space
        diagonals. The cells of a line are in increasing order; lines are sorted.
        """
        found: set[tuple[int, ...]] = set()
        dims = len(self.shape)
        strides = [1] * dims  # how far one step along each axis moves in the cell index
        for axis in range(dims - 2, -1, -1):
            strides[axis] = strides[axis + 1] * self.shape[axis + 1]
        span = self.k - 1
        for direction in itertools.product((-1, 0, 1), repeat=dims):
            first = next((s for s in direction if s), 0)
            if first <= 0:  # skip the zero vector and one of each opposite pair
                continue
            step = sum(s * stride for s, stride in zip(direction, strides, strict=True))
            starts = [range(span if s < 0 else 0, d - span if s > 0 else d)
                      for s, d in zip(direction, self.shape, strict=True)]
            for start in itertools.product(*starts):
                origin = sum(c * stride for c, stride in zip(start, strides, strict=True))
                cells = range(origin, origin + step * self.k, step)
                found.add(tuple(cells) if step > 0 else tuple(reversed(cells)))
        return tuple(sorted(found))

    @cached_property
    def line_masks(self) -> tuple[int, ...]:
        """Each line as a bit mask over cells, in the order of `lines`."""
        return tuple(sum(1 << c for c in line) for line in self.lines)

    @cached_property
    def spans(self) -> tuple[tuple[tuple[int, ...], int], ...]:
        """Every stretch of k+1 cells in a row (two lines of one direction, one a step on from
        the other), in increasing order, with the index (into `lines`) of its first k cells.

        >>> Variant.parse("1x6k5").spans
        (((0, 1, 2, 3, 4, 5), 0),)
        >>> len(Variant.parse("15x15k5").spans)   # 10 a row or column, 100 each way diagonally
        500
        """
        index = {line: i for i, line in enumerate(self.lines)}
        found = []
        for i, line in enumerate(self.lines):
            step = line[1] - line[0]
            if tuple(c + step for c in line) in index:
                found.append(((*line, line[-1] + step), i))
        return tuple(found)

    @cached_property
    def span_masks(self) -> tuple[tuple[int, int], ...]:
        """Each of `spans` as two bit masks: its two end cells, and the k-1 cells between.

        >>> Variant.parse("1x6k5").span_masks
        ((33, 30),)
        """
        return tuple(((1 << span[0]) | (1 << span[-1]), sum(1 << c for c in span[1:-1]))
                     for span, _ in self.spans)

    @cached_property
    def lines_through(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the indices (into `lines`) of the lines through it.

        >>> [len(t) for t in Variant.parse("3x3").lines_through]
        [3, 2, 3, 2, 4, 2, 3, 2, 3]
        """
        through: list[list[int]] = [[] for _ in range(self.cells)]
        for i, line in enumerate(self.lines):
            for c in line:
                through[c].append(i)
        return tuple(tuple(t) for t in through)

    @cached_property
    def masks_through(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the masks of the lines through it (`lines_through` as masks).

        >>> [bin(m) for m in Variant.parse("3x3").masks_through[1]]
        ['0b111', '0b10010010']
        """
        masks = self.line_masks
        return tuple(tuple(masks[i] for i in through) for through in self.lines_through)

    def line_kind(self, line: tuple[int, ...]) -> str:
        """The kind of a line, by its direction: on a flat board ``row``, ``column`` or
        ``diagonal``; on a cube ``row`` or ``column`` (within a layer), ``layer diagonal``,
        ``pillar`` (straight through the layers), ``vertical diagonal`` (a diagonal of a
        vertical plane, through the layers) or ``space diagonal`` (corner to corner).

        >>> q = Variant.parse("4x4x4")
        >>> [q.line_kind(line) for line in ((0, 1, 2, 3), (0, 16, 32, 48), (0, 21, 42, 63))]
        ['row', 'pillar', 'space diagonal']
        >>> Variant.parse("3x3").line_kind((2, 4, 6))
        'diagonal'
        """
        first = self.coordinates(line[0])
        last = self.coordinates(line[-1])
        moving = tuple(a != b for a, b in zip(first, last, strict=True))
        if not self.is_3d:
            return "diagonal" if all(moving) else "row" if moving[1] else "column"
        across, down = moving[0], moving[1]
        if sum(moving) == 3:
            return "space diagonal"
        if sum(moving) == 2:
            return "vertical diagonal" if across else "layer diagonal"
        return "pillar" if across else "column" if down else "row"

    @cached_property
    def line_kinds(self) -> dict[str, int]:
        """How many lines of each kind (see `line_kind`) the board has, in the order of
        `LINE_KINDS`.

        >>> Variant.parse("qubic").line_kinds
        {'row': 16, 'column': 16, 'layer diagonal': 8, 'pillar': 16, 'vertical diagonal': 16, \
'space diagonal': 4}
        """
        counts = {kind: 0 for kind in LINE_KINDS}
        for line in self.lines:
            counts[self.line_kind(line)] += 1
        return {kind: n for kind, n in counts.items() if n}

    # ----------------------------------------------------------------- notation
    def cell_name(self, cell: int) -> str:
        """Name a cell: column letters and row number from the top left (``a1``).

        On a cube the layer comes first: ``2:b3``. Past column ``z`` come ``aa``, ``ab``, ...

        >>> Variant.parse("3x3").cell_name(0), Variant.parse("3x3").cell_name(8)
        ('a1', 'c3')
        >>> Variant.parse("30x30k5").cell_name(899)
        'ad30'
        """
        if not 0 <= cell < self.cells:
            raise InvalidMoveError(
                f"cell {cell} is off the {self.name} board (0..{self.cells - 1})")
        coords = self.coordinates(cell)
        name = f"{column_name(coords[-1])}{coords[-2] + 1}"
        return f"{coords[0] + 1}:{name}" if self.is_3d else name

    def parse_cell(self, text: str) -> int:
        """Parse a cell name (``b2``, ``2:b3``) or a bare row-major index (``4``).

        >>> Variant.parse("3x3").parse_cell("B2")
        4
        >>> Variant.parse("3x3").parse_cell("d1")
        Traceback (most recent call last):
        ...
        tictactoe.core.errors.InvalidMoveError: 'd1' is off the 3x3 board: columns are a-c
        """
        raw = text
        if not isinstance(text, str):
            raise InvalidMoveError(f"a cell name is text (b2, 2:b3 or 4), not "
                                   f"{type(text).__name__}")
        if not text.isascii():
            raise InvalidMoveError(f"{raw!r} is not a cell: a cell is written in ASCII letters "
                                   "and digits, like b2, 2:b3 or 4")
        text = text.strip().lower()
        if text.isascii() and text.isdigit():
            cell = int(text)
            if cell >= self.cells:
                raise InvalidMoveError(
                    f"{raw!r} is off the {self.name} board: cells are 0-{self.cells - 1}")
            return cell
        layer = 0
        if self.is_3d:
            m3 = _CELL_3D.match(text)
            if not m3:
                raise InvalidMoveError(
                    f"cannot read move {raw!r}: expected layer:column-row such as 2:b3, "
                    "or a cell index")
            layer = int(m3.group(1)) - 1
            if not 0 <= layer < self.layers:
                raise InvalidMoveError(
                    f"{raw!r} is off the {self.name} board: layers are 1-{self.layers}")
            text = f"{m3.group(2)}{m3.group(3)}"
        m = _CELL_2D.match(text)
        if not m:
            raise InvalidMoveError(
                f"cannot read move {raw!r}: expected column letter and row number such as b2, "
                "or a cell index")
        col = column_index(m.group(1))
        row = int(m.group(2)) - 1
        if col >= self.columns:
            raise InvalidMoveError(
                f"{raw!r} is off the {self.name} board: columns are "
                f"a-{column_name(self.columns - 1)}")
        if not 0 <= row < self.rows:
            raise InvalidMoveError(
                f"{raw!r} is off the {self.name} board: rows are 1-{self.rows}")
        coords = (layer, row, col) if self.is_3d else (row, col)
        return self.index(coords)


VARIANT_CACHE_BYTES = 64 * MiB
"""The boards kept made (with their lines, once computed) take at most about this much
memory (`Variant.footprint`); the least recently used are dropped first."""


def line_count(shape: tuple[int, ...], k: int) -> int:
    """How many lines of `k` cells the board `shape` has, without listing them.

    >>> line_count((3, 3), 3), line_count((4, 4, 4), 4), line_count((15, 15), 5)
    (8, 76, 572)
    """
    total = 0
    for direction in itertools.product((-1, 0, 1), repeat=len(shape)):
        if next((s for s in direction if s), 0) <= 0:
            continue
        starts = 1
        for s, d in zip(direction, shape, strict=True):
            starts *= max(0, d - (k - 1)) if s else d
        total += starts
    return total


def footprint(variant: Variant) -> int:
    """About how many bytes a board's tables take once computed: its lines (tuples of cell
    numbers), their masks and the lines through each cell. An upper estimate, for
    `VARIANT_CACHE_BYTES`."""
    lines = line_count(variant.shape, variant.k)
    cells = variant.cells
    return 1_000 + lines * (96 + 44 * variant.k + cells // 7) + cells * 64


@board_cache(VARIANT_CACHE_BYTES, weigh=footprint)
def _make(shape: tuple[int, ...], k: int | None) -> Variant:
    dims = "x".join(str(d) for d in shape)
    if len(shape) not in (2, 3):
        raise VariantError(f"{dims}: boards have 2 or 3 dimensions")
    if any(d < 1 for d in shape):
        raise VariantError(f"{dims}: every dimension must be at least 1")
    if len(shape) == 3 and shape[0] < 2:
        raise VariantError(f"{dims}: a 3-D board needs at least 2 layers (use a flat board)")
    cells = 1
    for d in shape:
        cells *= d
    if shape[-1] > MAX_COLUMNS:
        raise VariantError(f"{dims} has {shape[-1]} columns; at most {MAX_COLUMNS} are supported")
    if cells > SMALL_CELLS:  # any shape up to 64 cells; past that, the side limits
        if len(shape) == 2 and max(shape) > MAX_SIDE:
            raise VariantError(f"{dims} is too large: a flat board of more than {SMALL_CELLS} "
                               f"cells has sides of at most {MAX_SIDE} (up to "
                               f"{MAX_SIDE}x{MAX_SIDE})")
        if len(shape) == 3 and max(shape) > MAX_CUBE_SIDE:
            raise VariantError(f"{dims} is too large: a 3-D board of more than {SMALL_CELLS} "
                               f"cells has sides of at most {MAX_CUBE_SIDE} (up to "
                               f"{MAX_CUBE_SIDE}x{MAX_CUBE_SIDE}x{MAX_CUBE_SIDE})")
    if k is None:
        k = min(shape)
    if not 2 <= k <= max(shape):
        raise VariantError(
            f"k={k} does not fit {dims}: k must be from 2 to the longest side, {max(shape)}")
    return Variant(shape, k)
