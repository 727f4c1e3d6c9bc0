"""The census in plain Python: the route for an install without numpy and numba.

It walks the quotient game ply by ply, as the compiled census does, in dictionaries: only
canonical positions (the least image under the symmetry group, as ``x | o << 32``) are kept.
Every position in an orbit is reached by the same number of move orders, so each canonical
position carries the paths to one member; a parent's paths times its orbit size, summed into
each child orbit and divided by the child's orbit size, gives the child's. Orbit sizes turn
the canonical counts back into plain counts, and Burnside's lemma over each orbit counts the
positions up to rotations and reflections alone.

About 0.05 s for 3x3 and 1 s for 3x4; 4x4 takes minutes here (the ``fast`` extra's compiled
route: 0.6 s).

>>> c = python_counts(Variant.parse("3x3"))
>>> c["positions"], c["canonical_positions"], c["games"]["draw"], c["canonical_games"]
(5478, 765, 46080, 26830)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tictactoe.core import BoardTooLargeError, Variant, symmetries
from tictactoe.core.symmetry import Permutation, byte_tables, geometric_symmetries

_LOW = 0xFFFFFFFF


def _group(variant: Variant) -> tuple[list[Permutation], list[Permutation], bool]:
    """The symmetries, the geometric subgroup, and whether the group could be listed (if not,
    the walk uses the identity alone and the canonical figures are None)."""
    try:
        return list(symmetries(variant)), list(geometric_symmetries(variant)), True
    except BoardTooLargeError:
        identity = tuple(range(variant.cells))
        return [identity], [identity], False


def _inverse(perm: Permutation) -> Permutation:
    out = [0] * len(perm)
    for cell, image in enumerate(perm):
        out[image] = cell
    return tuple(out)


def python_counts(variant: Variant,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The census figures of a variant, as the fields of a ``Census``.

    `tictactoe.analysis.census.census` checks the board's size first.
    """
    started = time.perf_counter()
    n = variant.cells
    perms, geometric, listed = _group(variant)
    tables = [tuple(tuple(chunk) for chunk in table) for table in byte_tables(n, perms)]
    chunks = range(len(tables[0]))
    group = len(perms)

    def image(x: int, o: int, table: tuple[tuple[int, ...], ...]) -> int:
        tx = to = 0
        for chunk in chunks:
            shift = 8 * chunk
            tx |= table[chunk][x >> shift & 0xFF]
            to |= table[chunk][o >> shift & 0xFF]
        return tx | to << 32

    def canonical(key: int) -> int:
        x, o = key & _LOW, key >> 32
        return min(image(x, o, table) for table in tables)

    index = {perm: i for i, perm in enumerate(perms)}
    inverse = [_inverse(p) for p in perms]
    # conj[h][g] is the index of g^-1 h g (first g, then h, then g^-1)
    conj = [[index[tuple(inverse[g][ph[pg[c]]] for c in range(n))]
             for g, pg in enumerate(perms)] for ph in geometric]
    lines = variant.line_masks
    full = variant.full_mask

    # each canonical key: [paths to one member, merged-game paths, orbit size, status, geo]
    level: dict[int, list[int]] = {0: [1, 1, 1, 0, len(geometric)]}
    by_ply: list[int] = []
    canonical_by_ply: list[int] = []
    terminal = {"x": 0, "o": 0, "draw": 0}
    canonical_terminal = {"x": 0, "o": 0, "draw": 0}
    games = {"x": 0, "o": 0, "draw": 0}
    canonical_games = 0
    geometric_total = 0
    for ply in range(n + 1):
        last = "o" if ply % 2 == 0 else "x"
        by_ply.append(sum(entry[2] for entry in level.values()))
        canonical_by_ply.append(len(level))
        going: list[tuple[int, list[int]]] = []
        for key, (paths, merged, orbit, status, geo) in level.items():
            geometric_total += geo
            if status == 0:
                going.append((key, [paths, merged, orbit]))
                continue
            result = last if status == 1 else "draw"
            terminal[result] += orbit
            canonical_terminal[result] += 1
            games[result] += paths * orbit
            canonical_games += merged
        if progress is not None:
            progress(ply + 1, n + 1)
        if not going:
            break
        shift = 0 if ply % 2 == 0 else 32
        into: dict[int, list[int]] = {}  # child: [paths into its whole orbit, merged paths]
        for key, (paths, merged, orbit) in going:
            empty = full & ~(key & _LOW | key >> 32)
            weight = paths * orbit
            distinct: set[int] = set()
            for cell in range(n):
                if not empty >> cell & 1:
                    continue
                child = canonical(key | 1 << (cell + shift))
                entry = into.setdefault(child, [0, 0])
                entry[0] += weight
                if child not in distinct:
                    distinct.add(child)
                    entry[1] += merged
        level = {}
        mover_shift = shift
        for key, (paths_in, merged) in into.items():
            x, o = key & _LOW, key >> 32
            stabiliser = {g for g, table in enumerate(tables) if image(x, o, table) == key}
            size = group // len(stabiliser)
            mover = key >> mover_shift & _LOW
            won = any(mover & line == line for line in lines)
            status = 1 if won else 2 if (x | o) == full else 0
            # Burnside over the orbit: orbits of H = (1/|H|) sum_h #{g: g^-1 h g in Stab}/|Stab|
            if len(stabiliser) == 1:
                geo = group
            else:
                geo = sum(1 for row in conj for g in range(group) if row[g] in stabiliser)
                geo //= len(stabiliser)
            level[key] = [paths_in // size, merged, size, status, geo]
    while by_ply and by_ply[-1] == 0:
        by_ply.pop()
    return {
        "variant": variant.name, "positions": sum(by_ply), "by_ply": by_ply,
        "terminal": terminal,
        "canonical_positions": sum(canonical_by_ply) if listed else None,
        "canonical_by_ply": canonical_by_ply if listed else None,
        "canonical_terminal": canonical_terminal if listed else None,
        "games": games, "canonical_games": canonical_games if listed else None,
        "symmetries": group if listed else None,
        "geometric_symmetries": len(geometric) if listed else None,
        "geometric_canonical_positions":
            geometric_total // len(geometric) if listed else None,
        "seconds": time.perf_counter() - started, "engine": "python",
    }
