"""The census: how many positions, terminal positions and games a board has.

`census` picks one of three routes that compute the same figures:

- ``compiled``: numba kernels that walk canonical positions only
  (`tictactoe.analysis.compiled_census`; needs the ``fast`` extra);
- ``numpy``: every position, ply by ply, over a sorted array, alongside the quotient game where
  positions equal under symmetry are one (`tictactoe.analysis.numpy_census`; needs numpy);
- ``python``: the canonical walk of the compiled route in plain Python dictionaries
  (`tictactoe.analysis.plain_census`), for an install without the extras.

`brute_force_census` is plain recursion over the game tree with memoised dictionaries. It is
slow, obvious, and serves as the check on small boards.

>>> c = census("3x3")
>>> c.positions, c.terminal, c.canonical_positions, c.canonical_games
(5478, {'x': 626, 'o': 316, 'draw': 16}, 765, 26830)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tictactoe.core import BoardTooLargeError, Position, Side, Variant, symmetries
from tictactoe.core.symmetry import canonical_masks, geometric_symmetries
from tictactoe.extras import MissingExtraError, available, missing_modules

ENGINES = ("auto", "compiled", "numpy", "python")
"""The census routes `census` can take."""

CENSUS_MAX_CELLS = 16
"""Largest board the numpy and plain-Python censuses walk, and where the default backend
becomes ``local``: 4x4 has 9.7 million positions; 4x5 has 675 million."""

CENSUS_LIMIT = 32
"""Largest board the census counts at all (`compiled_census.MAX_CELLS`: each side's marks are
kept in 32 bits), named here, where nothing heavy is loaded, for the command line and the
routes that choose the census."""

Progress = Callable[[int, int], None]
"""Called as ``progress(plies_done, plies_total)``."""



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
    on small boards while the compiled kernels are not loaded (if numpy is installed), else
    ``auto``.

    >>> quickest_engine(Variant.parse("4x4"))
    'auto'
    """
    loaded = "tictactoe.analysis.census_kernels" in sys.modules
    small = variant.cells <= QUICK_CELLS and variant.k >= 3  # k=2: huge symmetry groups
    return "numpy" if small and not loaded and not missing_modules(["numpy"]) else "auto"


def check_census_size(variant: Variant) -> None:
    """Refuse at once a board that the numpy or plain-Python census cannot walk (they keep
    every position)."""
    if variant.cells > CENSUS_MAX_CELLS:
        raise BoardTooLargeError(
            f"{variant.name} has {variant.cells} cells: the numpy and plain-Python censuses "
            f"keep every position in memory, which is feasible up to {CENSUS_MAX_CELLS} cells "
            "(4x4 has 9,722,011 positions; each extra cell multiplies that by up to 3); the "
            "compiled census (the fast extra) goes further")


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

    In memory, `engine` is ``compiled``, ``numpy`` or ``python`` (see the module's
    docstring), or ``auto``: the compiled route if the ``fast`` extra is installed, else numpy
    if it is installed, else plain Python. A route whose packages are missing raises
    `tictactoe.extras.MissingExtraError`. `Census.engine` says which one ran. A board that
    would not fit in memory is refused at once, with the estimate.
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: expected {', '.join(ENGINES)}")
    if backend == "auto":  # the backends module loads the kernels: imported when needed
        small = v.cells <= CENSUS_MAX_CELLS or engine in ("numpy", "python")
        chosen = "memory" if small or not available("fast") else "local"
    elif backend == "memory":
        chosen = backend
    else:
        if not available("fast"):
            raise MissingExtraError("the sharded census", "fast", missing_modules(["numba"]))
        from tictactoe.analysis.backends import check_backend

        chosen = check_backend(backend)
    if engine == "auto":
        engine = ("compiled" if available("fast") else
                  "numpy" if not missing_modules(["numpy"]) else "python")
    if chosen != "memory":
        from tictactoe.analysis.backends import count_sharded

        fields_, extra = count_sharded(v, chosen, workers=workers, address=address,
                                       spill=Path(spill) if spill is not None else None,
                                       shards=shards, progress=ply_progress,
                                       root_paths=root_paths)
        return Census(**fields_, extra=extra)
    if engine == "compiled":
        from tictactoe.analysis.backends import check_memory
        from tictactoe.analysis.compiled_census import census_counts

        check_memory(v)

        return Census(**census_counts(v, progress, root_paths=root_paths))
    check_census_size(v)
    if engine == "numpy":
        if missing_modules(["numpy"]):
            raise MissingExtraError("the numpy census", "fast", ["numpy"])
        from tictactoe.analysis.numpy_census import numpy_counts

        return Census(**numpy_counts(v, progress))
    from tictactoe.analysis.plain_census import python_counts

    return Census(**python_counts(v, progress))


def trim(counts: list[int]) -> list[int]:
    """Drop the zero counts at the end (the plies no game reaches)."""
    while counts and counts[-1] == 0:
        counts.pop()
    return counts


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

    by_ply = trim(by_ply)
    canonical_by_ply = trim([len(canonical.get(ply, ())) for ply in range(v.cells + 1)])
    return Census(
        variant=v.name, positions=len(seen), by_ply=by_ply, terminal=terminal,
        canonical_positions=sum(canonical_by_ply), canonical_by_ply=canonical_by_ply,
        canonical_terminal=canonical_terminal, games=games,
        canonical_games=merged_games(root), symmetries=len(symmetries(v)),
        geometric_symmetries=len(geometric_perms), geometric_canonical_positions=len(geometric),
        seconds=time.perf_counter() - started, engine="brute force")


def has_symmetries(v: Variant) -> bool:
    """False on degenerate boards whose symmetry group is too large to list."""
    try:
        symmetries(v)
    except BoardTooLargeError:
        return False
    return True


