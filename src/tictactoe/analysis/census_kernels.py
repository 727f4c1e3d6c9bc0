"""Numba kernels of the census, walking the quotient game ply by ply.

Only canonical positions (the least image under the symmetry group, as ``x | o << 32``) are
kept, in open-addressing hash tables of preallocated arrays. Every position in an orbit is
reached by the same number of move orders, so each canonical position carries the paths to
one member; a parent's paths times its orbit size, summed into each child orbit and divided
by the child's orbit size, gives the child's. The whole census follows from the canonical
positions, their orbit sizes and those path counts. Game counts are ``uint64`` and wrap
silently past 2**64 (4x4 has 1.5e13 games, far below).
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
def _slot(key: np.uint64, mask: np.uint64) -> np.int64:  # pragma: no cover
    h = key * _MUL
    return np.int64((h ^ (h >> _S31)) & mask)


@njit(cache=True)
def expand(keys: np.ndarray, paths: np.ndarray, merged: np.ndarray, orbit: np.ndarray,
           mover_shift: np.uint64, full: np.uint64, bits: np.ndarray, tables: np.ndarray,
           out_keys: np.ndarray, out_in: np.ndarray, out_merged: np.ndarray,
           seen: np.ndarray) -> int:  # pragma: no cover - compiled
    """Add every child of the (non-terminal) canonical positions into the ``out`` table.

    ``out_in`` sums parent paths times parent orbit size (the move orders into the child's
    whole orbit); ``out_merged`` sums the parents' merged-game paths, once per distinct
    canonical child of each parent. Returns the number of distinct children.
    """
    mask = np.uint64(out_keys.shape[0] - 1)
    count = 0
    for i in range(keys.shape[0]):
        key = keys[i]
        x = key & LOW
        o = key >> SHIFT
        empty = full & ~(x | o)
        weight = paths[i] * np.uint64(orbit[i])
        distinct = 0
        for cell in range(bits.shape[0]):
            bit = bits[cell]
            if empty & bit == ZERO:
                continue
            child = key | (bit << mover_shift)
            ckey = canonical(child & LOW, child >> SHIFT, tables)
            fresh = True
            for j in range(distinct):
                if seen[j] == ckey:
                    fresh = False
                    break
            if fresh:
                seen[distinct] = ckey
                distinct += 1
            slot = _slot(ckey, mask)
            while out_keys[slot] != ckey and out_keys[slot] != EMPTY:
                slot = (slot + 1) & np.int64(mask)
            if out_keys[slot] == EMPTY:
                out_keys[slot] = ckey
                out_in[slot] = ZERO
                out_merged[slot] = ZERO
                count += 1
            out_in[slot] += weight
            if fresh:
                out_merged[slot] += merged[i]
    return count


@njit(cache=True)
def settle(out_keys: np.ndarray, out_in: np.ndarray, out_merged: np.ndarray, count: int,
           last_shift: np.uint64, full: np.uint64, lines: np.ndarray, tables: np.ndarray,
           conj: np.ndarray, geometric: np.ndarray, keys: np.ndarray, paths: np.ndarray,
           merged: np.ndarray, orbit: np.ndarray, status: np.ndarray,
           geometric_orbits: np.ndarray) -> None:  # pragma: no cover - compiled
    """Compact a table into arrays, with orbit sizes, per-member paths and status.

    ``status`` is 0 for a game going on, 1 for a win of the side that just moved, 2 for a
    draw. ``geometric_orbits[i]`` is ``len(geometric)`` times the number of orbits of the
    geometric subgroup (given by index in ``geometric``; ``conj[h, g]`` is the index of
    g^-1 h g) that the position's orbit splits into.
    """
    group = tables.shape[0]
    n = 0
    stab = np.zeros(group, dtype=np.bool_)
    for slot in range(out_keys.shape[0]):
        key = out_keys[slot]
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
        paths[n] = out_in[slot] // np.uint64(size)
        merged[n] = out_merged[slot]
        last = key >> last_shift & LOW
        won = False
        for line in lines:
            if last & line == line:
                won = True
                break
        if won:
            status[n] = 1
        elif (x | o) == full:
            status[n] = 2
        else:
            status[n] = 0
        # Burnside over the orbit: orbits of H = (1/|H|) sum_h #{g: g^-1 h g in Stab} / |Stab|
        total = 0
        for hi in range(geometric.shape[0]):
            h = geometric[hi]
            for g in range(group):
                if stab[conj[h, g]]:
                    total += 1
        geometric_orbits[n] = total // fixed
        n += 1
