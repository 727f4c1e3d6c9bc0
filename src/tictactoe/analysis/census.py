"""The census: how many positions, terminal positions and games a board has.

Two routes compute the same figures:

- `census` walks the game ply by ply over a sorted array of positions (numpy), adding up the
  number of move orders that reach each one. Alongside it walks the quotient game, where
  positions equal under symmetry are one, to count canonical positions and the games with
  symmetric moves merged at each step.
- `brute_force_census` is plain recursion over the game tree with memoised dictionaries. It is
  slow, obvious, and serves as the check on small boards.

>>> c = census("3x3")
>>> c.positions, c.terminal, c.canonical_positions, c.canonical_games
(5478, {'x': 626, 'o': 316, 'draw': 16}, 765, 26830)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tictactoe.core import BoardTooLargeError, Position, Side, Variant, symmetries
from tictactoe.core.symmetry import byte_tables, canonical_masks, geometric_symmetries

CENSUS_MAX_CELLS = 16
"""Largest board the numpy census walks, and where the default backend becomes ``local``:
4x4 has 9.7 million positions; 4x5 has 675 million."""

Progress = Callable[[int, int], None]
"""Called as ``progress(plies_done, plies_total)``."""

U64 = npt.NDArray[np.uint64]
_NONE = np.uint64(np.iinfo(np.uint64).max)  # marks "no child here"
_SHIFT = np.uint64(32)
_LOW = np.uint64(0xFFFFFFFF)


@dataclass(frozen=True)
class Census:
    """Exact counts for the reachable positions of a variant (see `census`)."""

    variant: str
    positions: int
    by_ply: list[int]
    terminal: dict[str, int]
    canonical_positions: int | None
    """None (with the other canonical figures) where the symmetry group is too large to list."""
    canonical_by_ply: list[int] | None
    canonical_terminal: dict[str, int] | None
    games: dict[str, int]
    canonical_games: int | None
    symmetries: int | None = None
    """Size of the symmetry group derived from the lines (32 on 4x4)."""
    geometric_symmetries: int | None = None
    """Size of its subgroup of rotations and reflections (8 on 4x4)."""
    geometric_canonical_positions: int | None = None
    """Positions up to rotations and reflections only (1,217,977 on 4x4)."""
    seconds: float = 0.0
    engine: str = "numpy"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``ttt count --json``."""
        data = asdict(self)
        data.pop("extra")
        return data

    def figures(self) -> dict[str, Any]:
        """Every computed figure, without timing or engine: for comparing two routes."""
        data = self.to_json()
        for key in ("seconds", "engine"):
            data.pop(key)
        return data


QUICK_CELLS = 12
"""Boards of at most this many cells are counted soonest by the numpy route in a process that
has not loaded the compiled kernels (loading them costs more than the count)."""


def quickest_engine(variant: Variant) -> str:
    """The census engine that answers a single count soonest, loading included: ``numpy``
    on small boards while the compiled kernels are not loaded, else ``auto``.

    >>> quickest_engine(Variant.parse("4x4"))
    'auto'
    """
    loaded = "tictactoe.analysis.census_kernels" in sys.modules
    small = variant.cells <= QUICK_CELLS and variant.k >= 3  # k=2: huge symmetry groups
    return "numpy" if small and not loaded else "auto"


def check_census_size(variant: Variant) -> None:
    """Refuse at once a board that the numpy census cannot walk (it keeps every position)."""
    if variant.cells > CENSUS_MAX_CELLS:
        raise BoardTooLargeError(
            f"{variant.name} has {variant.cells} cells: the numpy census keeps every position "
            f"in memory, which is feasible up to {CENSUS_MAX_CELLS} cells (4x4 has 9,722,011 "
            "positions; each extra cell multiplies that by up to 3); the compiled census "
            "goes further")


def census(variant: Variant | str, *, progress: Progress | None = None,
           engine: str = "auto", backend: str = "auto", workers: int | None = None,
           address: str | None = None, spill: str | Path | None = None,
           shards: int | None = None, ply_progress: Callable[[Any], None] | None = None,
           root_paths: int = 1) -> Census:
    """Count the reachable positions, terminal positions and games of a variant.

    `backend` says where: ``memory`` (in this process, the default up to 16 cells), ``local``
    (the sharded census of `tictactoe.analysis.sharded` on a process pool of `workers`, the
    default past 16 cells), ``dask`` (the same on Dask: a cluster at `address`, or one
    started here), or ``auto``. The sharded backends keep their shards in `spill` (a new
    temporary folder if None) split into `shards` parts (sized to the board if None), and
    report to `ply_progress`. See `tictactoe.analysis.backends.count_sharded`.

    In memory, `engine` is ``auto`` or ``compiled`` (the numba kernels of
    `tictactoe.analysis.compiled_census`, which walk canonical positions only) or ``numpy``
    (the sorted-frontier reference below, up to 16 cells). A board that would not fit in
    memory is refused at once, with the estimate.
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    if backend == "auto":  # the backends module loads the kernels: imported when needed
        chosen = "memory" if v.cells <= CENSUS_MAX_CELLS or engine == "numpy" else "local"
    elif backend == "memory":
        chosen = backend
    else:
        from tictactoe.analysis.backends import check_backend

        chosen = check_backend(backend)
    if engine not in ("auto", "compiled", "numpy"):
        raise ValueError(f"unknown engine {engine!r}: expected auto, compiled or numpy")
    if chosen != "memory":
        from tictactoe.analysis.backends import count_sharded

        fields_, extra = count_sharded(v, chosen, workers=workers, address=address,
                                       spill=Path(spill) if spill is not None else None,
                                       shards=shards, progress=ply_progress,
                                       root_paths=root_paths)
        return Census(**fields_, extra=extra)
    if engine != "numpy":
        from tictactoe.analysis.backends import check_memory

        check_memory(v)
        from tictactoe.analysis.compiled_census import census_counts

        return Census(**census_counts(v, progress, root_paths=root_paths))
    check_census_size(v)
    started = time.perf_counter()
    masks = np.array(v.line_masks, dtype=np.uint64)
    full = np.uint64(v.full_mask)
    tables = _symmetry_tables(v, symmetries(v)) if has_symmetries(v) else None
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
        return Census(
            variant=v.name, positions=sum(by_ply), by_ply=by_ply, terminal=terminal,
            canonical_positions=None, canonical_by_ply=None, canonical_terminal=None,
            games=games, canonical_games=None, seconds=time.perf_counter() - started)
    return Census(
        variant=v.name, positions=sum(by_ply), by_ply=by_ply, terminal=terminal,
        canonical_positions=sum(canonical_by_ply), canonical_by_ply=canonical_by_ply,
        canonical_terminal=canonical_terminal, games=games, canonical_games=canonical_games,
        symmetries=len(symmetries(v)), geometric_symmetries=len(geometric_symmetries(v)),
        geometric_canonical_positions=geometric_count, seconds=time.perf_counter() - started)


def _trim(counts: list[int]) -> list[int]:
    while counts and counts[-1] == 0:
        counts.pop()
    return counts


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


# --------------------------------------------------------------------------- brute force
def brute_force_census(variant: Variant | str) -> Census:
    """The same figures by plain recursion over positions. Slow; for checking small boards.

    >>> brute_force_census("3x3").games
    {'x': 131184, 'o': 77904, 'draw': 46080}
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    check_census_size(v)
    started = time.perf_counter()
    seen: dict[tuple[int, int, Side], dict[str, int]] = {}

    def games_from(p: Position) -> dict[str, int]:
        key = p.key()
        if key in seen:
            return seen[key]
        outcome = p.outcome()
        if outcome is not None:
            result = {"x": 0, "o": 0, "draw": 0}
            result[outcome.result()] = 1
        else:
            result = {"x": 0, "o": 0, "draw": 0}
            for _, child in p.children():
                for name, n in games_from(child).items():
                    result[name] += n
        seen[key] = result
        return result

    root = Position(v)
    games = games_from(root)
    by_ply = [0] * (v.cells + 1)
    terminal = {"x": 0, "o": 0, "draw": 0}
    canonical: dict[int, set[tuple[int, int, Side]]] = {}
    geometric: set[tuple[int, ...]] = set()
    geometric_perms = geometric_symmetries(v)
    canonical_terminal = {"x": 0, "o": 0, "draw": 0}
    for x, o, turn in seen:
        ply = (x | o).bit_count()
        by_ply[ply] += 1
        position = Position(v)
        position.x, position.o, position.turn = x, o, turn
        outcome = position.outcome()
        ckey = (*canonical_masks(v, x, o), turn)
        geometric.add(min(
            (sum(1 << p[c] for c in range(v.cells) if x >> c & 1),
             sum(1 << p[c] for c in range(v.cells) if o >> c & 1)) for p in geometric_perms))
        fresh = ckey not in canonical.setdefault(ply, set())
        canonical[ply].add(ckey)
        if outcome is not None:
            terminal[outcome.result()] += 1
            if fresh:
                canonical_terminal[outcome.result()] += 1

    merged: dict[tuple[int, int, Side], int] = {}

    def merged_games(p: Position) -> int:
        key = p.canonical_key()
        if key in merged:
            return merged[key]
        if p.is_game_over():
            merged[key] = 1
            return 1
        distinct: dict[tuple[int, int, Side], Position] = {}
        for _, child in p.children():
            distinct.setdefault(child.canonical_key(), child)
        merged[key] = total = sum(merged_games(child) for child in distinct.values())
        return total

    by_ply = _trim(by_ply)
    canonical_by_ply = _trim([len(canonical.get(ply, ())) for ply in range(v.cells + 1)])
    return Census(
        variant=v.name, positions=len(seen), by_ply=by_ply, terminal=terminal,
        canonical_positions=sum(canonical_by_ply), canonical_by_ply=canonical_by_ply,
        canonical_terminal=canonical_terminal, games=games,
        canonical_games=merged_games(root), symmetries=len(symmetries(v)),
        geometric_symmetries=len(geometric_perms), geometric_canonical_positions=len(geometric),
        seconds=time.perf_counter() - started, engine="python")


def has_symmetries(v: Variant) -> bool:
    """False on degenerate boards whose symmetry group is too large to list."""
    try:
        symmetries(v)
    except BoardTooLargeError:
        return False
    return True


def reachable_keys(variant: Variant | str) -> Iterator[tuple[int, U64]]:
    """Every reachable position by ply, as sorted keys ``x | o << 32``, found by search.

    >>> [len(keys) for _, keys in reachable_keys("3x3")][:4]
    [1, 9, 72, 252]
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    check_census_size(v)
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
