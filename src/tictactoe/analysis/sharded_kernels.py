"""Numba kernels of the sharded census: expand a shard into edge rows, sort the rows by the
shard of their child, and merge the rows that reach one shard into a table.

An edge row is ``key, w_lo, m_lo, w_hi, m_hi``: a canonical child, the move orders into its
orbit through one parent, and that parent's merged-game paths (see `census_kernels`). Files
whose high words are all zero keep only the first three columns.
"""

from __future__ import annotations

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "the sharded census")

import numpy as np
from numba import njit

from tictactoe.analysis.census_kernels import GOING, children, insert, mul_small

ZERO = np.uint64(0)
_SHARD_MUL = np.uint64(0xD6E8FEB86659FD93)
_S32 = np.uint64(32)

COLUMNS = 5
"""Columns of an edge row: key, w_lo, m_lo, w_hi, m_hi."""


@njit(cache=True)
def shard_of(key: np.uint64, shards: int) -> int:  # pragma: no cover
    """The shard a key belongs to: high bits of a product unrelated to the table's hash, so
    one shard's keys still spread over all the slots of its table."""
    return int(((key * _SHARD_MUL) >> _S32) % np.uint64(shards))


@njit(cache=True)
def expand_edges(keys: np.ndarray, p_hi: np.ndarray, p_lo: np.ndarray, m_hi: np.ndarray,
                 m_lo: np.ndarray, orbit: np.ndarray, status: np.ndarray, start: int,
                 mover_shift: np.uint64, full: np.uint64, bits: np.ndarray,
                 tables: np.ndarray, shards: int, rows: np.ndarray, dest: np.ndarray,
                 scratch_keys: np.ndarray,
                 scratch_moves: np.ndarray) -> tuple[int, int]:  # pragma: no cover
    """Write the edge rows of the positions from ``start`` on whose game goes on, with each
    row's destination shard, until ``rows`` might not hold the next parent's children.

    Returns (the next parent, the rows written).
    """
    room = rows.shape[0] - bits.shape[0]
    written = 0
    for i in range(start, keys.shape[0]):
        if written > room:
            return i, written
        if status[i] != GOING:
            continue
        w_hi, w_lo = mul_small(p_hi[i], p_lo[i], np.uint64(orbit[i]))
        distinct = children(keys[i], mover_shift, full, bits, tables, scratch_keys,
                            scratch_moves)
        for j in range(distinct):
            c_hi, c_lo = mul_small(w_hi, w_lo, scratch_moves[j])
            row = rows[written]
            row[0] = scratch_keys[j]
            row[1] = c_lo
            row[2] = m_lo[i]
            row[3] = c_hi
            row[4] = m_hi[i]
            dest[written] = shard_of(scratch_keys[j], shards)
            written += 1
    return keys.shape[0], written


@njit(cache=True)
def partition(rows: np.ndarray, dest: np.ndarray, count: int, shards: int, out: np.ndarray,
              offsets: np.ndarray) -> None:  # pragma: no cover
    """Counting sort of the first ``count`` rows by destination into ``out`` (keeping as
    many columns as ``out`` has), with ``offsets[s]:offsets[s + 1]`` the rows of shard s."""
    offsets[:] = 0
    for r in range(count):
        offsets[dest[r] + 1] += 1
    for s in range(shards):
        offsets[s + 1] += offsets[s]
    place = offsets[:shards].copy()
    width = out.shape[1]
    for r in range(count):
        at = place[dest[r]]
        place[dest[r]] += 1
        for c in range(width):
            out[at, c] = rows[r, c]


@njit(cache=True)
def any_wide(rows: np.ndarray, count: int) -> bool:  # pragma: no cover
    """Whether any of the first ``count`` rows has a nonzero high word."""
    for r in range(count):  # noqa: SIM110 - a loop that numba compiles
        if rows[r, 3] != ZERO or rows[r, 4] != ZERO:
            return True
    return False


@njit(cache=True)
def merge_rows(rows: np.ndarray, start: int, keys: np.ndarray, counts: np.ndarray, count: int,
               limit: int) -> tuple[int, int]:  # pragma: no cover
    """Add edge rows (three or five columns) from ``start`` on into a table until it holds
    ``limit`` entries; returns (the next row, the entries now in the table)."""
    wide = rows.shape[1] == 5
    for r in range(start, rows.shape[0]):
        if count >= limit:
            return r, count
        w_hi = rows[r, 3] if wide else ZERO
        m_hi = rows[r, 4] if wide else ZERO
        count += insert(keys, counts, rows[r, 0], w_hi, rows[r, 1], m_hi, rows[r, 2])
    return rows.shape[0], count
