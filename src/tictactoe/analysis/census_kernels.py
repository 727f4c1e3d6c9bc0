"""Numba kernels of the census, shared by the in-memory route and the sharded route.

Only canonical positions (the least image under the symmetry group, as ``x | o << 32``) are
kept. Every position in an orbit is reached by the same number of move orders, so each
canonical position carries the paths to one member; a parent's paths times its orbit size,
summed into each child orbit and divided by the child's orbit size, gives the child's.

Counts are exact 128-bit integers, each held as two ``uint64`` words (``hi``, ``lo``): 5x5
has up to 25! (about 2**84) move orders. `add_wide`, `mul_small` and `div_small` carry
between the words; 128 bits hold every count of a board of up to 32 cells (32! < 2**118).

Tables are open-addressing hash tables of preallocated arrays: ``keys`` (`EMPTY` marks a free
slot) and a row of four count words per slot, the move orders into the slot's orbit (``in``)
and the merged-game paths (``m``), each as (hi, lo). A kernel that fills a table stops at a
given load and says where, so the caller can grow the table (`rehash`) and go on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tictactoe.search.compiled.kernels import transform

EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)
ZERO = np.uint64(0)
ONE = np.uint64(1)
LOW = np.uint64(0xFFFFFFFF)
SHIFT = np.uint64(32)
_MUL = np.uint64(0x9E3779B97F4A7C15)
_S31 = np.uint64(31)

GOING, WON, DRAWN = 0, 1, 2
"""Status of a settled position: game going on, won by the side that just moved, drawn."""

TALLY_COUNTS = ("canonical", "positions", "canonical_won", "canonical_drawn", "won", "drawn",
                "geometric")
"""The order of the plain counts `tally` returns."""
TALLY_WIDE = ("games_won", "games_drawn", "canonical_games")
"""The order of the 128-bit sums `tally` returns (as hi, lo pairs)."""


# --------------------------------------------------------------------------- 128-bit words
@njit(cache=True)
def add_wide(hi: np.uint64, lo: np.uint64, add_hi: np.uint64,
             add_lo: np.uint64) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """(hi, lo) + (add_hi, add_lo), carrying from the low word into the high one."""
    new_lo = lo + add_lo
    carry = ONE if new_lo < lo else ZERO
    return hi + add_hi + carry, new_lo


@njit(cache=True)
def mul_small(hi: np.uint64, lo: np.uint64,
              factor: np.uint64) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """(hi, lo) times a factor below 2**32: the low word in two halves, each product exact."""
    low_part = (lo & LOW) * factor
    high_part = (lo >> SHIFT) * factor
    new_lo = low_part + (high_part << SHIFT)
    carry = ONE if new_lo < low_part else ZERO
    return hi * factor + (high_part >> SHIFT) + carry, new_lo


@njit(cache=True)
def div_small(hi: np.uint64, lo: np.uint64,
              divisor: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """(hi, lo) divided by a divisor below 2**32: quotient words and remainder, by long
    division over 32-bit digits (each partial dividend stays below 2**64)."""
    q_hi = hi // divisor
    rest = hi % divisor
    part = (rest << SHIFT) | (lo >> SHIFT)
    q_mid = part // divisor
    rest = part % divisor
    part = (rest << SHIFT) | (lo & LOW)
    q_low = part // divisor
    return q_hi, (q_mid << SHIFT) | q_low, part % divisor


# --------------------------------------------------------------------------- symmetry
@njit(cache=True)
def image(x: np.uint64, o: np.uint64, tables: np.ndarray, g: int) -> np.uint64:  # pragma: no cover
    """The key of symmetry ``g``'s image of (x, o)."""
    return transform(x, tables, g) | (transform(o, tables, g) << SHIFT)


@njit(cache=True)
def canonical(x: np.uint64, o: np.uint64, tables: np.ndarray) -> np.uint64:  # pragma: no cover
    """The least key over every symmetric image of (x, o)."""
    best = EMPTY
    for g in range(tables.shape[0]):
        key = image(x, o, tables, g)
        if key < best:
            best = key
    return best


@njit(cache=True)
def children(key: np.uint64, mover_shift: np.uint64, full: np.uint64, bits: np.ndarray,
             tables: np.ndarray, out_keys: np.ndarray,
             out_moves: np.ndarray) -> int:  # pragma: no cover
    """The distinct canonical children of a position, and how many moves lead to each.

    Returns how many there are; they fill the first slots of ``out_keys``/``out_moves``.
    """
    x = key & LOW
    o = key >> SHIFT
    empty = full & ~(x | o)
    distinct = 0
    for cell in range(bits.shape[0]):
        bit = bits[cell]
        if empty & bit == ZERO:
            continue
        child = key | (bit << mover_shift)
        ckey = canonical(child & LOW, child >> SHIFT, tables)
        found = -1
        for j in range(distinct):
            if out_keys[j] == ckey:
                found = j
                break
        if found < 0:
            out_keys[distinct] = ckey
            out_moves[distinct] = ONE
            distinct += 1
        else:
            out_moves[found] += ONE
    return distinct


# --------------------------------------------------------------------------- hash tables
@njit(cache=True)
def slot_of(key: np.uint64, mask: np.uint64) -> np.int64:  # pragma: no cover
    """A key's home slot in a table of ``mask + 1`` slots (low bits of a mixed product)."""
    h = key * _MUL
    return np.int64((h ^ (h >> _S31)) & mask)


@njit(cache=True)
def insert(keys: np.ndarray, counts: np.ndarray, key: np.uint64, w_hi: np.uint64,
           w_lo: np.uint64, add_m_hi: np.uint64, add_m_lo: np.uint64) -> int:  # pragma: no cover
    """Add (w, m) into the key's slot, claiming a free slot if the key is new (returns 1).

    ``counts[slot]`` holds the words ``in_hi, in_lo, m_hi, m_lo`` side by side, so an
    insertion touches the keys and one 32-byte row.
    """
    mask = np.uint64(keys.shape[0] - 1)
    slot = slot_of(key, mask)
    while keys[slot] != key and keys[slot] != EMPTY:
        slot = (slot + 1) & np.int64(mask)
    fresh = 0
    row = counts[slot]
    if keys[slot] == EMPTY:
        keys[slot] = key
        row[0] = ZERO
        row[1] = ZERO
        row[2] = ZERO
        row[3] = ZERO
        fresh = 1
    row[0], row[1] = add_wide(row[0], row[1], w_hi, w_lo)
    row[2], row[3] = add_wide(row[2], row[3], add_m_hi, add_m_lo)
    return fresh


@njit(cache=True)
def rehash(keys: np.ndarray, counts: np.ndarray, new_keys: np.ndarray,
           new_counts: np.ndarray) -> int:  # pragma: no cover
    """Move every entry of a table into a larger (empty) one; returns the entry count."""
    count = 0
    for slot in range(keys.shape[0]):
        if keys[slot] != EMPTY:
            row = counts[slot]
            count += insert(new_keys, new_counts, keys[slot], row[0], row[1], row[2], row[3])
    return count


@njit(cache=True)
def expand(keys: np.ndarray, p_hi: np.ndarray, p_lo: np.ndarray, merged_hi: np.ndarray,
           merged_lo: np.ndarray, orbit: np.ndarray, start: int, mover_shift: np.uint64,
           full: np.uint64, bits: np.ndarray, tables: np.ndarray, out_keys: np.ndarray,
           out_counts: np.ndarray, count: int, limit: int,
           scratch_keys: np.ndarray,
           scratch_moves: np.ndarray) -> tuple[int, int]:  # pragma: no cover
    """Add the children of the (non-terminal) positions from ``start`` on into the table.

    ``in`` sums parent paths times parent orbit size times the moves into the child (the
    move orders into the child's whole orbit); ``m`` sums the parents' merged-game paths,
    once per distinct canonical child of each parent. Stops before a parent once the table
    holds ``limit`` entries; returns (the next parent, the entries now in the table).
    """
    for i in range(start, keys.shape[0]):
        if count >= limit:
            return i, count
        w_hi, w_lo = mul_small(p_hi[i], p_lo[i], np.uint64(orbit[i]))
        distinct = children(keys[i], mover_shift, full, bits, tables, scratch_keys,
                            scratch_moves)
        for j in range(distinct):
            c_hi, c_lo = mul_small(w_hi, w_lo, scratch_moves[j])
            count += insert(out_keys, out_counts, scratch_keys[j], c_hi, c_lo, merged_hi[i],
                            merged_lo[i])
    return keys.shape[0], count


@njit(cache=True)
def settle(table_keys: np.ndarray, table_counts: np.ndarray, last_shift: np.uint64,
           full: np.uint64, lines: np.ndarray, tables: np.ndarray, conj: np.ndarray,
           geometric: np.ndarray, keys: np.ndarray,
           p_hi: np.ndarray, p_lo: np.ndarray, merged_hi: np.ndarray, merged_lo: np.ndarray,
           orbit: np.ndarray, status: np.ndarray,
           geometric_orbits: np.ndarray) -> int:  # pragma: no cover - compiled
    """Compact a table into arrays, with orbit sizes, per-member paths and status.

    ``status`` is `GOING`, `WON` (by the side that just moved) or `DRAWN`.
    ``geometric_orbits[i]`` is ``len(geometric)`` times the number of orbits of the
    geometric subgroup (given by index in ``geometric``; ``conj[i, g]`` is the index of
    g^-1 h g, h its i-th member) that the position's orbit splits into. Returns the number
    of entries whose move orders did not divide evenly among the orbit (always 0 for a
    correct census).
    """
    group = tables.shape[0]
    n = 0
    uneven = 0
    stab = np.zeros(group, dtype=np.bool_)
    for slot in range(table_keys.shape[0]):
        key = table_keys[slot]
        if key == EMPTY:
            continue
        x = key & LOW
        o = key >> SHIFT
        fixed = 0
        for g in range(group):
            stab[g] = image(x, o, tables, g) == key
            if stab[g]:
                fixed += 1
        size = group // fixed
        keys[n] = key
        orbit[n] = size
        row = table_counts[slot]
        p_hi[n], p_lo[n], rest = div_small(row[0], row[1], np.uint64(size))
        if rest != ZERO:
            uneven += 1
        merged_hi[n] = row[2]
        merged_lo[n] = row[3]
        last = key >> last_shift & LOW
        won = False
        for line in lines:
            if last & line == line:
                won = True
                break
        if won:
            status[n] = WON
        elif (x | o) == full:
            status[n] = DRAWN
        else:
            status[n] = GOING
        # Burnside over the orbit: orbits of H = (1/|H|) sum_h #{g: g^-1 h g in Stab} / |Stab|
        total = 0
        for index in range(geometric.shape[0]):
            for g in range(group):
                if stab[conj[index, g]]:
                    total += 1
        geometric_orbits[n] = total // fixed
        n += 1
    return uneven


@njit(cache=True)
def tally(p_hi: np.ndarray, p_lo: np.ndarray, merged_hi: np.ndarray, merged_lo: np.ndarray,
          orbit: np.ndarray, status: np.ndarray, geometric_orbits: np.ndarray,
          counts: np.ndarray, wide: np.ndarray) -> None:  # pragma: no cover - compiled
    """Add the census figures of settled positions into ``counts`` (in `TALLY_COUNTS` order)
    and ``wide`` (hi, lo pairs in `TALLY_WIDE` order)."""
    for i in range(orbit.shape[0]):
        size = orbit[i]
        counts[0] += 1
        counts[1] += size
        counts[6] += geometric_orbits[i]
        if status[i] == GOING:
            continue
        g_hi, g_lo = mul_small(p_hi[i], p_lo[i], np.uint64(size))
        if status[i] == WON:
            counts[2] += 1
            counts[4] += size
            wide[0], wide[1] = add_wide(wide[0], wide[1], g_hi, g_lo)
        else:
            counts[3] += 1
            counts[5] += size
            wide[2], wide[3] = add_wide(wide[2], wide[3], g_hi, g_lo)
        wide[4], wide[5] = add_wide(wide[4], wide[5], merged_hi[i], merged_lo[i])
