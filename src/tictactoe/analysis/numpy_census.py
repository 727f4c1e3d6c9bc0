"""The census on numpy: every reachable position, ply by ply, over a sorted array.

It adds up the number of move orders that reach each position and, alongside, walks the
quotient game, where positions equal under symmetry are one, to count canonical positions and
the games with symmetric moves merged at each step. One of the routes of
`tictactoe.analysis.census.census` (``engine="numpy"``); it needs numpy, which the ``fast``,
``plot`` and ``envs`` extras bring.

>>> numpy_counts(Variant.parse("3x3"))["positions"]
5478
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from tictactoe.core import BoardTooLargeError, Side, Variant, symmetries
from tictactoe.core.symmetry import byte_tables, geometric_symmetries

U64 = npt.NDArray[np.uint64]
_NONE = np.uint64(np.iinfo(np.uint64).max)  # marks "no child here"
_SHIFT = np.uint64(32)
_LOW = np.uint64(0xFFFFFFFF)


def numpy_counts(v: Variant,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The census figures of a variant on the numpy route, as the fields of a ``Census``.

    `tictactoe.analysis.census.census` checks the board's size first.
    """
    started = time.perf_counter()
    masks = np.array(v.line_masks, dtype=np.uint64)
    full = np.uint64(v.full_mask)
    tables = _symmetry_tables(v, symmetries(v)) if _listed(v) else None
    geometric = _symmetry_tables(v, geometric_symmetries(v)) if tables is not None else None
    geometric_count = 0

    keys = np.zeros(1, dtype=np.uint64)
    paths = np.ones(1, dtype=np.uint64)
    canon_keys = np.zeros(1, dtype=np.uint64)
    canon_paths = np.ones(1, dtype=np.uint64)
    by_ply: list[int] = []
    canonical_by_ply: list[int] = []
    terminal = {"x": 0, "o": 0, "draw": 0}
    canonical_terminal = {"x": 0, "o": 0, "draw": 0}
    games = {"x": 0, "o": 0, "draw": 0}
    canonical_games = 0
    for ply in range(v.cells + 1):
        by_ply.append(len(keys))
        canonical_by_ply.append(len(canon_keys))
        mover = Side.X if ply % 2 == 0 else Side.O
        # The side that just moved is the only one that can have a line.
        last = mover.other
        done, won = _finished(keys, masks, full, last)
        cdone, cwon = _finished(canon_keys, masks, full, last)
        key = last.symbol if ply else "x"
        terminal[key] += int(np.count_nonzero(won))
        terminal["draw"] += int(np.count_nonzero(done & ~won))
        canonical_terminal[key] += int(np.count_nonzero(cwon))
        canonical_terminal["draw"] += int(np.count_nonzero(cdone & ~cwon))
        if geometric is not None:
            geometric_count += len(np.unique(_canonical(keys, geometric)))
        games[key] += int(paths[won].sum(dtype=np.uint64))
        games["draw"] += int(paths[done & ~won].sum(dtype=np.uint64))
        canonical_games += int(canon_paths[cdone].sum(dtype=np.uint64))
        keys, paths = _expand(keys[~done], paths[~done], v.cells, mover, None)
        if tables is not None:
            canon_keys, canon_paths = _expand(canon_keys[~cdone], canon_paths[~cdone], v.cells,
                                              mover, tables)
        if progress:
            progress(ply + 1, v.cells + 1)
        if len(keys) == 0:
            break
    by_ply = _trim(by_ply)
    canonical_by_ply = _trim(canonical_by_ply)
    if tables is None:
        return {
            "variant": v.name, "positions": sum(by_ply), "by_ply": by_ply, "terminal": terminal,
            "canonical_positions": None, "canonical_by_ply": None, "canonical_terminal": None,
            "games": games, "canonical_games": None,
            "seconds": time.perf_counter() - started, "engine": "numpy"}
    return {
        "variant": v.name, "positions": sum(by_ply), "by_ply": by_ply, "terminal": terminal,
        "canonical_positions": sum(canonical_by_ply), "canonical_by_ply": canonical_by_ply,
        "canonical_terminal": canonical_terminal, "games": games,
        "canonical_games": canonical_games, "symmetries": len(symmetries(v)),
        "geometric_symmetries": len(geometric_symmetries(v)),
        "geometric_canonical_positions": geometric_count,
        "seconds": time.perf_counter() - started, "engine": "numpy"}


def _trim(counts: list[int]) -> list[int]:
    while counts and counts[-1] == 0:
        counts.pop()
    return counts


def _listed(v: Variant) -> bool:
    """False on degenerate boards whose symmetry group is too large to list."""
    try:
        symmetries(v)
    except BoardTooLargeError:
        return False
    return True


def _finished(keys: U64, masks: U64, full: np.uint64, last: Side) -> tuple[Any, Any]:
    """Which positions are over, and which of those the last mover won."""
    x = keys & _LOW
    o = keys >> _SHIFT
    marks = x if last is Side.X else o
    won = np.zeros(len(keys), dtype=bool)
    for m in masks:
        won |= (marks & m) == m
    return won | ((x | o) == full), won


def _expand(keys: U64, paths: U64, cells: int, mover: Side,
            tables: list[U64] | None) -> tuple[U64, U64]:
    """Every child of every position, merged, with the path counts added up.

    With symmetry `tables`, children are replaced by their canonical form, and children of
    one parent that are symmetric to each other count once: the quotient game.
    """
    if len(keys) == 0:
        return keys, paths
    x = keys & _LOW
    o = keys >> _SHIFT
    empty = ~(x | o)
    offset = 0 if mover is Side.X else 32
    children = np.full((len(keys), cells), _NONE, dtype=np.uint64)
    for cell in range(cells):
        bit = np.uint64(1) << np.uint64(cell)
        free = (empty & bit) != 0
        children[free, cell] = keys[free] | (np.uint64(1) << np.uint64(cell + offset))
    weights = np.broadcast_to(paths[:, None], children.shape)
    if tables is not None:
        children = _canonical(children.reshape(-1), tables).reshape(children.shape)
        children.sort(axis=1)
        repeat = np.zeros(children.shape, dtype=bool)
        repeat[:, 1:] = children[:, 1:] == children[:, :-1]
        children[repeat] = _NONE
    flat, flat_weights = children.reshape(-1), weights.reshape(-1)
    keep = flat != _NONE
    flat, flat_weights = flat[keep], flat_weights[keep]
    order = np.argsort(flat, kind="stable")
    flat, flat_weights = flat[order], flat_weights[order]
    starts = np.flatnonzero(np.r_[True, flat[1:] != flat[:-1]])
    return flat[starts], np.add.reduceat(flat_weights, starts).astype(np.uint64)


def _symmetry_tables(v: Variant, perms: tuple[tuple[int, ...], ...]) -> list[U64]:
    """For each permutation, a table (chunk, byte value) -> image bits."""
    return [np.array(table, dtype=np.uint64) for table in byte_tables(v.cells, perms)]


def _canonical(keys: U64, tables: list[U64]) -> U64:
    """The least symmetric image of each key (unused slots stay unused)."""
    unused = keys == _NONE
    x = keys & _LOW
    o = keys >> _SHIFT
    best = np.full(len(keys), _NONE, dtype=np.uint64)
    for table in tables:
        tx = np.zeros(len(keys), dtype=np.uint64)
        to = np.zeros(len(keys), dtype=np.uint64)
        for chunk in range(table.shape[0]):
            shift = np.uint64(8 * chunk)
            tx |= table[chunk][((x >> shift) & np.uint64(0xFF)).astype(np.intp)]
            to |= table[chunk][((o >> shift) & np.uint64(0xFF)).astype(np.intp)]
        np.minimum(best, tx | (to << _SHIFT), out=best)
    best[unused] = _NONE
    return best


def reachable_keys(variant: Variant | str) -> Iterator[tuple[int, U64]]:
    """Every reachable position by ply, as sorted keys ``x | o << 32``, found by search
    (for small boards: the census stops at 16 cells).

    >>> [len(keys) for _, keys in reachable_keys("3x3")][:4]
    [1, 9, 72, 252]
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    masks = np.array(v.line_masks, dtype=np.uint64)
    keys = np.zeros(1, dtype=np.uint64)
    paths = np.ones(1, dtype=np.uint64)
    for ply in range(v.cells + 1):
        if len(keys) == 0:
            return
        yield ply, keys
        mover = Side.X if ply % 2 == 0 else Side.O
        done, _ = _finished(keys, masks, np.uint64(v.full_mask), mover.other)
        keys, paths = _expand(keys[~done], paths[~done], v.cells, mover, None)
