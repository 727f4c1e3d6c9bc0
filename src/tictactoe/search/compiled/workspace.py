"""The compiled solver's workspace: a variant's constants as arrays (`tables`), and the pool of
transposition tables and buffers (`Workspace`) that every search thread borrows from.

>>> from tictactoe.core import Variant
>>> t = tables(Variant.parse("3x3"))
>>> len(t.lines), len(t.permutations), int(t.order[0])
(8, 8, 4)
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from functools import cache

import numpy as np

from tictactoe.core import BoardTooLargeError, Variant, symmetries
from tictactoe.core.symmetry import byte_tables
from tictactoe.search.compiled import kernels as _sk

TABLE_BITS = int(os.environ.get("TICTACTOE_TABLE_BITS", "22"))
"""The solver's transposition table holds at most ``2 ** TABLE_BITS`` entries of 32 bytes
(2**22: 128 MB), in buckets of two. Set the environment variable ``TICTACTOE_TABLE_BITS`` to
change it; small boards use a table sized to their number of positions. Tables live in a
pool shared by all threads (one per search running at the same time, a bigger one made
when a bigger board needs it) and are emptied (in constant time, by a generation stamp)
before each solve."""

MAX_CELLS = 64

LIVE_LISTS_FROM = 16
"""Boards with at least this many lines keep, per depth, the list of lines still open (on
smaller boards the bookkeeping costs more than the scan it saves)."""

SYMMETRIC_PLIES = int(os.environ.get("TICTACTOE_SYMMETRIC_PLIES", "6"))
"""Positions within this many plies of the solved one share one table entry with all their
symmetric images (the table key is the least image)."""

FIRST_BUDGET = 1 << 14
"""Nodes for each question in the first round of a big search, which races deepening on
the distance against the plain win/draw/loss questions (doubled every round)."""

MERGED_SYMMETRIES = 1024
"""Symmetric positions share table entries only on boards with at most this many
symmetries (4x4x4 has 192); on degenerate boards such as 2x2x2k2, where every pair of cells
is a line and all 40,320 permutations are symmetries, the search skips it."""


PAIRING = os.environ.get("TICTACTOE_PAIRING", "1") != "0"
"""Whether the search cuts on pairing strategies (``TICTACTOE_PAIRING=0`` turns it off, to
measure what it saves)."""

SHARED_PAIRS = int(os.environ.get("TICTACTOE_SHARED_PAIRS", "16"))
"""Steps allowed to each search for a pairing whose pairs overlapping lines share (0: none);
only on boards whose lines overlap in two cells or more."""


_SHARED_SCRATCH = threading.local()


def shared_pairs(variant: Variant, other: int, empty: int, budget: int) -> list[int] | None:
    """Pairs (as masks) of ``empty`` cells, disjoint, with one inside every line free of
    ``other``'s marks, where overlapping lines may share a pair: the kernel's
    `shared_pairing`, within ``budget`` steps; None if it finds none.

    >>> shared_pairs(Variant.parse("4x8k4"), 0xFFFFFF00, 0xFF, 64)  # c1-d1 and e1-f1
    [12, 48]
    """
    arrays = _SHARED_SCRATCH.__dict__.setdefault("arrays", {})
    if variant not in arrays:  # per thread: the kernel writes its search into them
        lines = np.array(variant.line_masks, dtype=np.uint64)
        buf = np.zeros((1, _sk.BUF_WIDTH), dtype=np.int64)
        buf[0, _sk.LIVE:_sk.LIVE + len(lines)] = np.arange(len(lines))
        buf[0, _sk.LIVE_COUNT] = len(lines)
        arrays[variant] = (lines, buf, np.zeros(_sk.MISC_SIZE, dtype=np.int64))
    lines, buf, misc = arrays[variant]
    misc[_sk.SHARED_BUDGET] = budget
    if not _sk.shared_pairing(np.uint64(other), np.uint64(empty), lines, buf, 0, misc):
        return None
    return [int(np.uint64(misc[_sk.SHARED_PAIRS + i])) for i in range(misc[_sk.SHARED_FOUND])]


def fits(variant: Variant) -> bool:
    """Whether the compiled kernels handle this variant (at most 64 cells).

    >>> fits(Variant.parse("8x8k5")), fits(Variant.parse("4x4x4"))
    (True, True)
    """
    return variant.cells <= MAX_CELLS and len(variant.lines) <= _sk.MAX_LINES


@dataclass(frozen=True)
class Tables:
    """A variant's constants, as the kernels take them."""

    lines: np.ndarray
    line_cells: np.ndarray
    order: np.ndarray
    full: np.uint64
    permutations: np.ndarray
    """Every symmetry, as a row of cell images."""
    symmetry_bytes: np.ndarray
    """Byte tables of the symmetries whose images share table entries (`MERGED_SYMMETRIES`)."""
    permutations_and_inverses: np.ndarray
    """Those symmetries, then their inverses (to map a table move back and forth)."""
    overlapping: bool = False
    """Whether two lines share two cells or more (then a pair can serve both)."""


@cache
def tables(variant: Variant) -> Tables:
    """Line masks, the static move order and the symmetries of a variant."""
    if not fits(variant):
        raise BoardTooLargeError(f"{variant.name} has {variant.cells} cells and "
                                 f"{len(variant.lines)} lines; the compiled core handles at "
                                 f"most {MAX_CELLS} cells and {_sk.MAX_LINES} lines")
    n = variant.cells
    lines = np.array(variant.line_masks, dtype=np.uint64)
    centre = [(d - 1) / 2 for d in variant.shape]

    def rank(cell: int) -> tuple[int, float, int]:
        spread = sum((a - b) ** 2 for a, b in zip(variant.coordinates(cell), centre,
                                                   strict=True))
        return (-len(variant.lines_through[cell]), spread, cell)

    order = np.array(sorted(range(n), key=rank), dtype=np.int64)
    try:
        perms = symmetries(variant)
    except BoardTooLargeError:
        perms = (tuple(range(n)),)
    line_cells = np.array(variant.lines, dtype=np.int64).reshape(len(variant.lines), -1)
    perm_array = np.array(perms, dtype=np.int64)
    merged = perms if len(perms) <= MERGED_SYMMETRIES else perms[:1]
    merged_array = np.array(merged, dtype=np.int64)
    inverses = np.argsort(merged_array, axis=1).astype(np.int64)
    return Tables(lines, line_cells, order, np.uint64(variant.full_mask), perm_array,
                  np.array(byte_tables(n, merged), dtype=np.uint64),
                  np.ascontiguousarray(np.concatenate([merged_array, inverses])),
                  overlapping=any((a & b).bit_count() >= 2 for i, a in enumerate(variant.line_masks)
                                  for b in variant.line_masks[i + 1:]))


_GENERATIONS = (1 << 15) - 1


@dataclass(eq=False)
class Workspace:
    """A transposition table and search buffers, preallocated and touched before use.

    The table is ``2 ** table_bits`` entries in rows of two (see `solver_kernels`).
    `reset` empties it in constant time by moving to a new generation.
    """

    tt: np.ndarray
    buf: np.ndarray
    misc: np.ndarray
    table_bits: int

    @staticmethod
    def bits_for(empty: int, table_bits: int | None = None) -> int:
        """The table size (log2 of entries) for a search of ``empty`` empty cells."""
        if table_bits is not None:
            return max(2, table_bits)
        wanted = math.ceil(empty * math.log2(3)) + 1
        return max(10, min(TABLE_BITS, wanted))

    @staticmethod
    def new(cells: int, empty: int, table_bits: int | None = None) -> Workspace:
        """Room for a search of ``empty`` empty cells on a board of ``cells`` cells."""
        bits = Workspace.bits_for(empty, table_bits)
        ws = Workspace(tt=np.zeros((1 << (bits - 1), _sk.ROW), dtype=np.int64),
                       buf=np.zeros((MAX_CELLS + 2, _sk.BUF_WIDTH), dtype=np.int64),
                       misc=np.zeros(_sk.MISC_SIZE, dtype=np.int64), table_bits=bits)
        ws.clear()
        return ws

    def companion(self) -> Workspace:
        """Buffers of its own and this workspace's table, for a second thread searching the
        same tree: the table's entries carry a check word, so unlocked writes are safe."""
        return Workspace(self.tt, self.buf.copy(), self.misc.copy(), self.table_bits)

    def clear(self) -> None:
        """Empty the table, writing every page (so no timing pays for first touches); the
        kernel that writes it lets other threads run meanwhile."""
        _sk.zero_rows(self.tt)
        self.misc.fill(0)
        self.misc[_sk.GENERATION] = 1

    def reset(self, tables: Tables) -> None:
        """Forget every entry (a new generation) and the history; load a variant's order."""
        generation = int(self.misc[_sk.GENERATION]) + 1
        if generation >= _GENERATIONS:
            self.clear()
            generation = 1
        self.misc.fill(0)
        self.misc[_sk.GENERATION] = generation
        self.load(tables)

    def load(self, tables: Tables) -> None:
        """Set the variant's static move order (keeping the table and history)."""
        n = len(tables.order)
        self.misc[_sk.CELLS] = n
        self.misc[_sk.SYMMETRIC] = MAX_CELLS + 1  # no symmetric merging unless asked
        self.misc[_sk.PAIRING] = int(PAIRING)
        self.misc[_sk.SHARED_BUDGET] = SHARED_PAIRS if PAIRING and tables.overlapping else 0
        self.misc[_sk.BUDGET] = 1 << 62
        self.misc[_sk.FIRST_BUDGET] = FIRST_BUDGET
        self.misc[_sk.PLAN] = _sk.PLAN_RACE
        lines = len(tables.lines)
        if lines >= LIVE_LISTS_FROM:
            self.misc[_sk.LIVE_LISTS] = 1
        else:  # every row lists every line
            self.misc[_sk.LIVE_LISTS] = 0
            self.buf[:, _sk.LIVE:_sk.LIVE + lines] = np.arange(lines)
        self.misc[_sk.ORDER:_sk.ORDER + n] = tables.order


_POOL: list[Workspace] = []
_POOL_LOCK = threading.Lock()


def borrow(empty: int) -> Workspace:
    """A free workspace for a search of ``empty`` empty cells from the pool that every
    thread shares (a new one if none is free and big enough); `give_back` returns it.

    Threads come and go (the terminal app and the web server search on short-lived worker
    threads), so tables are pooled rather than kept per thread: each is allocated and
    written once per process, not once per search.
    """
    bits = Workspace.bits_for(empty)
    with _POOL_LOCK:
        fitting = [i for i, ws in enumerate(_POOL) if ws.table_bits >= bits]
        if fitting:
            return _POOL.pop(min(fitting, key=lambda i: _POOL[i].table_bits))
    return Workspace.new(MAX_CELLS, empty)


def give_back(ws: Workspace) -> None:
    with _POOL_LOCK:
        _POOL.append(ws)
