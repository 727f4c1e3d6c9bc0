"""The compiled census in memory: canonical positions walked ply by ply in open-addressing hash
tables (numba kernels in `census_kernels`), each carrying its number of move orders as an
exact 128-bit count.

The pieces here (the symmetry group's tables, growing tables, settling a table into arrays,
tallying a ply) are shared with the sharded census of `tictactoe.analysis.sharded`.

>>> c = census_counts(Variant.parse("3x3"))
>>> c["positions"], c["canonical_positions"], c["games"], c["canonical_games"]
(5478, 765, {'x': 131184, 'o': 77904, 'draw': 46080}, 26830)
"""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from __future__ import annotations

from tictactoe.extras import require

require("fast", "the compiled census")

import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from tictactoe.analysis import census_kernels as _ck
from tictactoe.core import BoardTooLargeError, Variant, symmetries
from tictactoe.core.symmetry import byte_tables, geometric_symmetries

MAX_CELLS = 32
"""Keys hold each side's marks in 32 bits."""

WORD = 1 << 64
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
_WARM = [False]


def warm_up() -> None:
    """Compile (or load from the on-disk cache) the census kernels, before a clock starts."""
    if not _WARM[0]:
        _WARM[0] = True
        census_counts(Variant.parse("2x2"))


def split_wide(value: int) -> tuple[int, int]:
    """A count as its (high, low) 64-bit words.

    >>> split_wide(2**64 + 5)
    (1, 5)
    """
    if not 0 <= value < WORD * WORD:
        raise ValueError(f"{value} does not fit in 128 bits")
    return value >> 64, value & (WORD - 1)


def join_wide(hi: int | np.uint64, lo: int | np.uint64) -> int:
    """The count whose (high, low) words are given.

    >>> join_wide(1, 5)
    18446744073709551621
    """
    return int(hi) << 64 | int(lo)


@dataclass(frozen=True)
class Group:
    """The symmetry group as the kernels use it."""

    tables: U64
    """Byte tables of every symmetry: ``tables[g, byte, value]``."""
    conj: I64
    """``conj[i, g]`` is the index of g^-1 h g, h the i-th geometric symmetry."""
    geometric: I64
    """Indices of the rotations and reflections."""
    listed: bool
    """False on degenerate boards whose group is too large to list (then only the identity)."""

    @property
    def size(self) -> int:
        return int(self.tables.shape[0])


def census_group(variant: Variant) -> Group:
    """Byte tables of the symmetries, the conjugation table and the geometric subgroup."""
    n = variant.cells
    try:
        perms = list(symmetries(variant))
        geometric = list(geometric_symmetries(variant))
        listed = True
    except BoardTooLargeError:
        perms = geometric = [tuple(range(n))]
        listed = False
    tables_of_bytes = np.array(byte_tables(n, perms), dtype=np.uint64)
    every = np.array(perms, dtype=np.int64).reshape(len(perms), n)
    rows = np.arange(len(perms))[:, None]
    inverses = np.empty_like(every)
    inverses[rows, every] = np.arange(n)
    index = {row.tobytes(): i for i, row in enumerate(every)}
    # only the geometric rows: the whole table was |G|^2 entries (1.6e9 on 2x2x2, whose
    # 8 cells can be permuted every way that keeps its lines)
    conj = np.zeros((len(geometric), len(perms)), dtype=np.int64)
    for i, h in enumerate(geometric):
        # g^-1 h g for every g at once: first g, then h, then g's inverse
        images = inverses[rows, np.array(h, dtype=np.int64)[every]]
        conj[i] = [index[row.tobytes()] for row in images]
    geometric_index = np.array([index[np.array(p, dtype=np.int64).tobytes()] for p in geometric],
                               dtype=np.int64)
    return Group(tables_of_bytes, conj, geometric_index, listed)


def check_cells(variant: Variant) -> None:
    """Refuse a board whose positions do not fit the census keys."""
    if variant.cells > MAX_CELLS:
        raise BoardTooLargeError(
            f"{variant.name} has {variant.cells} cells; the census handles at most {MAX_CELLS} "
            "(each side's marks are kept in 32 bits)")


@dataclass
class Table:
    """An open-addressing table of canonical keys with two 128-bit sums per key."""

    keys: U64
    counts: U64
    """``counts[slot]`` is ``in_hi, in_lo, m_hi, m_lo``."""
    count: int = 0

    MAX_LOAD = 0.7

    @classmethod
    def empty(cls, entries: int) -> Table:
        """A table with room for `entries` keys below the maximum load."""
        capacity = 1 << max(10, int(entries / cls.MAX_LOAD).bit_length())
        return cls(np.full(capacity, _ck.EMPTY, dtype=np.uint64),
                   np.zeros((capacity, 4), dtype=np.uint64))

    @property
    def limit(self) -> int:
        """Entries allowed before the table must grow."""
        return int(len(self.keys) * self.MAX_LOAD)

    def grown(self) -> Table:
        """The same entries in a table twice the size."""
        bigger = Table.empty(2 * self.limit)
        bigger.count = _ck.rehash(self.keys, self.counts, bigger.keys, bigger.counts)
        return bigger

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.counts.nbytes


@dataclass
class Settled:
    """The distinct canonical positions of one ply (or one shard of it), ready to expand."""

    keys: U64
    p_hi: U64
    p_lo: U64
    """Move orders reaching one member of the position's orbit."""
    m_hi: U64
    m_lo: U64
    """Paths of the quotient game (symmetric moves merged at each step)."""
    orbit: I64
    status: npt.NDArray[np.int8]
    geometric: I64

    @classmethod
    def root(cls, group: Group, root_paths: int = 1) -> Settled:
        """The empty board, reached by `root_paths` move orders (1 in a real census)."""
        hi, lo = split_wide(root_paths)
        return cls(np.zeros(1, dtype=np.uint64), np.array([hi], dtype=np.uint64),
                   np.array([lo], dtype=np.uint64), np.array([hi], dtype=np.uint64),
                   np.array([lo], dtype=np.uint64), np.ones(1, dtype=np.int64),
                   np.zeros(1, dtype=np.int8),
                   np.array([len(group.geometric)], dtype=np.int64))  # one orbit

    @classmethod
    def empty(cls, n: int) -> Settled:
        """Room for `n` positions."""
        def words() -> U64:
            return np.empty(n, dtype=np.uint64)
        return cls(words(), words(), words(), words(), words(), np.empty(n, dtype=np.int64),
                   np.empty(n, dtype=np.int8), np.empty(n, dtype=np.int64))

    def going(self) -> Settled:
        """Only the positions whose game goes on."""
        keep = self.status == _ck.GOING
        return Settled(*(getattr(self, f.name)[keep] for f in fields(self)))

    def __len__(self) -> int:
        return len(self.keys)


def settle(table: Table, ply: int, variant: Variant, group: Group, lines: U64) -> Settled:
    """Compact a table of ply `ply` into arrays: orbit sizes, per-member paths, status."""
    n = table.count
    out = Settled.empty(n)
    last_shift = np.uint64(32 if ply % 2 == 0 else 0)  # the side that just moved
    uneven = _ck.settle(table.keys, table.counts, last_shift, np.uint64(variant.full_mask),
                        lines, group.tables, group.conj, group.geometric, out.keys,
                        out.p_hi, out.p_lo, out.m_hi, out.m_lo, out.orbit, out.status,
                        out.geometric)
    if uneven:
        raise AssertionError(f"{uneven} orbits at ply {ply} got move orders that do not "
                             "divide among their members")  # pragma: no cover
    return out


@dataclass
class PlyTally:
    """The census figures of the positions of one ply (or one shard of one ply)."""

    canonical: int = 0
    positions: int = 0
    canonical_won: int = 0
    canonical_drawn: int = 0
    won: int = 0
    drawn: int = 0
    geometric: int = 0
    """``len(geometric subgroup)`` times the orbits under rotations and reflections."""
    games_won: int = 0
    games_drawn: int = 0
    canonical_games: int = 0

    def __add__(self, other: PlyTally) -> PlyTally:
        return PlyTally(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def to_json(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def tally(settled: Settled) -> PlyTally:
    """Count positions, terminal positions and games among settled positions."""
    counts = np.zeros(len(_ck.TALLY_COUNTS), dtype=np.int64)
    wide = np.zeros(2 * len(_ck.TALLY_WIDE), dtype=np.uint64)
    _ck.tally(settled.p_hi, settled.p_lo, settled.m_hi, settled.m_lo, settled.orbit,
              settled.status, settled.geometric, counts, wide)
    values = {name: int(counts[i]) for i, name in enumerate(_ck.TALLY_COUNTS)}
    for i, name in enumerate(_ck.TALLY_WIDE):
        values[name] = join_wide(wide[2 * i], wide[2 * i + 1])
    return PlyTally(**values)


def census_fields(variant: Variant, group: Group, tallies: list[PlyTally], seconds: float,
                  engine: str) -> dict[str, Any]:
    """The fields of a `Census` from the tallies of every ply."""
    by_ply = [t.positions for t in tallies]
    canonical_by_ply = [t.canonical for t in tallies]
    while by_ply and by_ply[-1] == 0:
        by_ply.pop()
        canonical_by_ply.pop()
    terminal = {"x": 0, "o": 0, "draw": 0}
    canonical_terminal = {"x": 0, "o": 0, "draw": 0}
    games = {"x": 0, "o": 0, "draw": 0}
    for ply, t in enumerate(tallies):
        last = "o" if ply % 2 == 0 else "x"
        terminal[last] += t.won
        terminal["draw"] += t.drawn
        canonical_terminal[last] += t.canonical_won
        canonical_terminal["draw"] += t.canonical_drawn
        games[last] += t.games_won
        games["draw"] += t.games_drawn
    geometric_total = sum(t.geometric for t in tallies)
    geometric_size = len(group.geometric)
    if geometric_total % geometric_size:
        raise AssertionError("geometric orbit count is not whole")  # pragma: no cover
    listed = group.listed
    return {
        "variant": variant.name, "positions": sum(by_ply), "by_ply": by_ply,
        "terminal": terminal,
        "canonical_positions": sum(canonical_by_ply) if listed else None,
        "canonical_by_ply": canonical_by_ply if listed else None,
        "canonical_terminal": canonical_terminal if listed else None,
        "games": games,
        "canonical_games": sum(t.canonical_games for t in tallies) if listed else None,
        "symmetries": group.size if listed else None,
        "geometric_symmetries": geometric_size if listed else None,
        "geometric_canonical_positions": geometric_total // geometric_size if listed else None,
        "seconds": seconds, "engine": engine,
    }


def check_root_paths(variant: Variant, root_paths: int) -> None:
    """Every count stays below 2**128: move orders number at most cells! times the root's."""
    bound = root_paths
    for k in range(2, variant.cells + 1):
        bound *= k
    if root_paths < 1 or bound * 64 >= WORD * WORD:
        raise ValueError(f"root_paths={root_paths} could overflow 128-bit counts on "
                         f"{variant.name}")


def census_counts(variant: Variant, progress: Callable[[int, int], None] | None = None,
                  *, root_paths: int = 1) -> dict[str, Any]:
    """The census figures of a variant (at most 32 cells), as the fields of a ``Census``.

    `root_paths` is the number of move orders into the empty board: 1 for a census; a larger
    value multiplies every game count by it, which the tests use to drive the counts past
    64 bits.

    >>> c = census_counts(Variant.parse("3x3"))
    >>> c["positions"], c["canonical_positions"], c["games"], c["canonical_games"]
    (5478, 765, {'x': 131184, 'o': 77904, 'draw': 46080}, 26830)
    """
    check_cells(variant)
    check_root_paths(variant, root_paths)
    warm_up()
    started = time.perf_counter()
    n = variant.cells
    group = census_group(variant)
    lines = np.array(variant.line_masks, dtype=np.uint64)
    bits = np.array([1 << c for c in range(n)], dtype=np.uint64)
    full = np.uint64(variant.full_mask)
    scratch_keys = np.zeros(n, dtype=np.uint64)
    scratch_moves = np.zeros(n, dtype=np.uint64)
    current: Settled | None = Settled.root(group, root_paths)
    tallies: list[PlyTally] = []
    for ply in range(n + 1):
        assert current is not None
        tallies.append(tally(current))
        if progress is not None:
            progress(ply + 1, n + 1)
        parents, current = current.going(), None  # keep one ply's arrays at a time
        if len(parents) == 0:
            break
        table = Table.empty(len(parents) * min(n - ply, 3))
        mover_shift = np.uint64(0 if ply % 2 == 0 else 32)
        start = 0
        while start < len(parents):
            if table.count >= table.limit - n:
                table = table.grown()
            start, table.count = _ck.expand(
                parents.keys, parents.p_hi, parents.p_lo, parents.m_hi, parents.m_lo,
                parents.orbit, start, mover_shift, full, bits, group.tables, table.keys,
                table.counts, table.count, table.limit - n, scratch_keys, scratch_moves)
        del parents
        current = settle(table, ply + 1, variant, group, lines)
        del table
    return census_fields(variant, group, tallies, time.perf_counter() - started, "compiled")
