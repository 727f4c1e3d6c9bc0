"""The compiled census: canonical positions walked ply by ply in open-addressing hash tables
(numba kernels in `census_kernels`), each carrying its number of move orders.

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
from typing import Any

import numpy as np

from tictactoe.analysis import census_kernels as _ck
from tictactoe.core import BoardTooLargeError, Variant, symmetries
from tictactoe.core.symmetry import byte_tables, geometric_symmetries

_WARM = [False]


def warm_up() -> None:
    """Compile (or load from the on-disk cache) the census kernels, before a clock starts."""
    if not _WARM[0]:
        _WARM[0] = True
        census_counts(Variant.parse("2x2"))


def _census_group(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
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
    index = {perm: i for i, perm in enumerate(perms)}

    def compose(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(a[b[c]] for c in range(n))  # first b, then a

    def inverse(a: tuple[int, ...]) -> tuple[int, ...]:
        out = [0] * n
        for c, image in enumerate(a):
            out[image] = c
        return tuple(out)

    conj = np.zeros((len(perms), len(perms)), dtype=np.int64)
    for h, ph in enumerate(perms):
        for g, pg in enumerate(perms):
            conj[h, g] = index[compose(inverse(pg), compose(ph, pg))]
    geometric_index = np.array([index[p] for p in geometric], dtype=np.int64)
    return tables_of_bytes, conj, geometric_index, listed


def census_counts(variant: Variant,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The census figures of a variant (at most 32 cells), as the fields of a ``Census``.

    >>> c = census_counts(Variant.parse("3x3"))
    >>> c["positions"], c["canonical_positions"], c["games"], c["canonical_games"]
    (5478, 765, {'x': 131184, 'o': 77904, 'draw': 46080}, 26830)
    """
    n = variant.cells
    if n > 32:
        raise BoardTooLargeError(f"{variant.name} has {n} cells; the compiled census handles "
                                 "at most 32")
    warm_up()
    started = time.perf_counter()
    byte_tables, conj, geometric, listed = _census_group(variant)
    group = byte_tables.shape[0]
    lines = np.array(variant.line_masks, dtype=np.uint64)
    bits = np.array([1 << c for c in range(n)], dtype=np.uint64)
    full = np.uint64(variant.full_mask)
    keys = np.zeros(1, dtype=np.uint64)
    paths = np.ones(1, dtype=np.uint64)
    merged = np.ones(1, dtype=np.uint64)
    orbit = np.ones(1, dtype=np.int64)
    status = np.zeros(1, dtype=np.int64)
    geo = np.array([len(geometric)], dtype=np.int64)  # the empty board: one orbit
    by_ply: list[int] = []
    canonical_by_ply: list[int] = []
    terminal = {"x": 0, "o": 0, "draw": 0}
    canonical_terminal = {"x": 0, "o": 0, "draw": 0}
    games = {"x": 0, "o": 0, "draw": 0}
    canonical_games = 0
    geometric_total = 0
    seen = np.zeros(n, dtype=np.uint64)
    for ply in range(n + 1):
        by_ply.append(int(orbit.sum()))
        canonical_by_ply.append(len(keys))
        geometric_total += int(geo.sum())
        last = "o" if ply % 2 == 0 else "x"
        won = status == 1
        drawn = status == 2
        weights = paths * orbit.astype(np.uint64)
        terminal[last] += int(orbit[won].sum())
        terminal["draw"] += int(orbit[drawn].sum())
        canonical_terminal[last] += int(won.sum())
        canonical_terminal["draw"] += int(drawn.sum())
        games[last] += int(weights[won].sum(dtype=np.uint64))
        games["draw"] += int(weights[drawn].sum(dtype=np.uint64))
        canonical_games += int(merged[status != 0].sum(dtype=np.uint64))
        if progress is not None:
            progress(ply + 1, n + 1)
        going = status == 0
        if not going.any():
            break
        keys, paths, merged, orbit = keys[going], paths[going], merged[going], orbit[going]
        capacity = 1 << max(10, (2 * len(keys) * (n - ply)).bit_length())
        out_keys = np.full(capacity, _ck.EMPTY, dtype=np.uint64)
        out_in = np.zeros(capacity, dtype=np.uint64)
        out_merged = np.zeros(capacity, dtype=np.uint64)
        mover_shift = np.uint64(0 if ply % 2 == 0 else 32)
        count = _ck.expand(keys, paths, merged, orbit, mover_shift, full, bits, byte_tables,
                           out_keys, out_in, out_merged, seen)
        keys = np.empty(count, dtype=np.uint64)
        paths = np.empty(count, dtype=np.uint64)
        merged = np.empty(count, dtype=np.uint64)
        orbit = np.empty(count, dtype=np.int64)
        status = np.empty(count, dtype=np.int64)
        geo = np.empty(count, dtype=np.int64)
        _ck.settle(out_keys, out_in, out_merged, count, mover_shift, full, lines, byte_tables,
                   conj, geometric, keys, paths, merged, orbit, status, geo)
    while by_ply and by_ply[-1] == 0:
        by_ply.pop()
    if geometric_total % len(geometric):
        raise AssertionError("geometric orbit count is not whole")  # pragma: no cover
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
        "seconds": time.perf_counter() - started, "engine": "compiled",
    }
