"""A variant's constants as the compiled kernels take them: line masks, the lines through
each cell, and the symmetry group as permutations, hash tables and byte tables.

>>> from tictactoe.core import Variant
>>> t = tables(Variant.parse("4x4x4"))
>>> len(t.lines), t.k, t.permutations.shape, int(t.line_count.max())
(76, 4, (192, 64), 7)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from tictactoe.core import BoardTooLargeError, Variant, symmetries
from tictactoe.core.symmetry import byte_tables

MAX_SYMMETRIES = 1024
"""Symmetric positions share table entries only on boards with at most this many
symmetries (the cube has 192); degenerate boards whose group is larger use the identity."""


@dataclass(frozen=True)
class Tables:
    """The constants of one variant."""

    variant: Variant
    k: int
    full: np.uint64
    lines: np.ndarray
    """``uint64[lines]``: each line as a mask of cells."""
    line_cells: np.ndarray
    """``int64[lines, k]``: the cells of each line."""
    through: np.ndarray
    """``int64[cells, most]``: the lines through each cell (padded with -1)."""
    line_count: np.ndarray
    """``int64[cells]``: how many lines pass through each cell."""
    permutations: np.ndarray
    """``int64[symmetries, cells]``: the image of each cell; identity first."""
    inverses: np.ndarray
    """``int64[symmetries, cells]``: the inverse permutations."""
    zobrist: np.ndarray
    """``uint64[cells, 2, symmetries]``: hash words of an attacker's (0) and a defender's (1)
    mark on a cell, as seen through each symmetry (the word of the image cell); a cell's
    words under all the symmetries are contiguous, as the search reads them."""
    bytes: np.ndarray
    """``uint64[symmetries, chunks, 256]``: byte tables of the symmetries (exact images)."""


@cache
def tables(variant: Variant) -> Tables:
    """The kernels' constants for a variant (at most 64 cells)."""
    n = variant.cells
    if n > 64:
        raise BoardTooLargeError(f"{variant.name} has {n} cells; at most 64 are supported")
    lines = np.array(variant.line_masks, dtype=np.uint64)
    line_cells = np.array(variant.lines, dtype=np.int64).reshape(len(variant.lines), -1)
    most = max(len(t) for t in variant.lines_through)
    through = np.full((n, max(1, most)), -1, dtype=np.int64)
    for cell, ts in enumerate(variant.lines_through):
        through[cell, :len(ts)] = ts
    line_count = np.array([len(t) for t in variant.lines_through], dtype=np.int64)
    try:
        perms = symmetries(variant)
    except BoardTooLargeError:
        perms = (tuple(range(n)),)
    if len(perms) > MAX_SYMMETRIES:
        perms = perms[:1]
    permutations = np.array(perms, dtype=np.int64)
    inverses = np.argsort(permutations, axis=1).astype(np.int64)
    rng = np.random.default_rng(0x5EED + n)
    words = rng.integers(0, 1 << 63, size=(n, 2), dtype=np.int64).astype(np.uint64) << 1 \
        | rng.integers(0, 2, size=(n, 2), dtype=np.int64).astype(np.uint64)
    # by cell, side, then symmetry: a child's keys under every symmetry are one run of words
    zobrist = np.ascontiguousarray(words[permutations].transpose(1, 2, 0))
    return Tables(variant=variant, k=variant.k, full=np.uint64(variant.full_mask), lines=lines,
                  line_cells=line_cells, through=through, line_count=line_count,
                  permutations=permutations, inverses=inverses, zobrist=zobrist,
                  bytes=np.array(byte_tables(n, perms), dtype=np.uint64))
