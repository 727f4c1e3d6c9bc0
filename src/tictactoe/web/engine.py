"""The web app's solver: bounded solves, proven answers remembered by symmetry class.

`WebSolver.solve` gives the same answer as `tictactoe.search.solver.solve` with the same
bounds, only faster when the server has seen the position, or an equivalent one, before:

- a proven solution is stored once per symmetry class (the position's least image under the
  board's symmetries), in the frame of that image; a position of the same class reads it
  back through its own permutation. Symmetries map lines onto lines, so every move's value
  carries over exactly;
- on small boards (at most `PERSISTENT_CELLS` cells) the compiled search keeps one
  transposition table per variant between calls. Its entries are exact bounds of positions
  (the kernels never store a stopped search), so they stay true for every later search,
  and a new position near an old one costs a fraction of a fresh search.

>>> solver = WebSolver(cache_size=100)
>>> first = solver.solve(Position("x2/3/3 o"), nodes=10_000, seconds=1.0)
>>> mirrored = solver.solve(Position("2x/3/3 o"), nodes=10_000, seconds=1.0)  # from the cache
>>> first.best, mirrored.best, str(mirrored.moves[4]), solver.hits
([4], [4], 'draw', 1)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

from tictactoe.core import BoardTooLargeError, Position, Variant, symmetries
from tictactoe.core.symmetry import byte_tables, group_size
from tictactoe.search import compiled
from tictactoe.search.score import Draw, Loss, Score, Win
from tictactoe.search.solution import Solution, check_solvable
from tictactoe.search.solver import solve

T = TypeVar("T")

PERSISTENT_CELLS = 16
"""Boards of at most this many cells keep their compiled transposition table between calls."""

PERSISTENT_TABLE_BITS = 20
"""Size of a kept table: 2**20 entries (about 21 MB) per variant."""

KEPT_TABLES = 4
"""Kept tables at most (the boards used least recently lose theirs first)."""

SYMMETRY_VARIANTS = 64
"""Boards whose symmetry lookup tables are kept at most (least recently used go first)."""

SYMMETRY_CELLS = 36
"""Boards of at most this many cells (and flat) share cached answers across symmetries; on
bigger boards a proof is rare and listing the symmetries costs more than it saves."""

SYMMETRY_LIMIT = 1024
"""Boards with more symmetries than this (degenerate ones such as 2x9 with k=2) use the
identity alone: their lookup tables would take megabytes, and finding a position's least
image would cost more than a search."""


def entry_bytes(value: object) -> int:
    """About how much memory a cached value holds, in bytes: a bytes object's length, a
    tuple's items, a dict's items (ints and short strings at 40 bytes), plus object headers.

    >>> entry_bytes(b"x" * 1000), entry_bytes((1, {2: 3, 4: 5}, "abc"))
    (1033, 428)
    """
    if isinstance(value, bytes | str):
        return 33 + len(value)
    if isinstance(value, tuple | list):
        return 56 + 8 * len(value) + sum(entry_bytes(item) for item in value)
    if isinstance(value, dict):
        return 64 + sum(24 + entry_bytes(k) + entry_bytes(v) for k, v in value.items())
    return 40


class LruCache(Generic[T]):
    """A thread-safe least-recently-used map, bounded by entries and by their total size (see
    `entry_bytes`, key included); the least recently used entries go first.

    >>> cache: LruCache[int] = LruCache(2)
    >>> cache.put(("a",), 1); cache.put(("b",), 2); cache.put(("c",), 3)
    >>> cache.get(("a",)), cache.get(("c",)), len(cache)
    (None, 3, 2)
    >>> sized: LruCache[bytes] = LruCache(100, max_bytes=3000)
    >>> for n in range(5): sized.put((n,), bytes(1000))
    >>> len(sized), sized.bytes <= 3000
    (2, True)
    """

    def __init__(self, size: int, *, max_bytes: int | None = None) -> None:
        self.max_entries = size
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._data: OrderedDict[tuple[object, ...], tuple[T, int]] = OrderedDict()
        self.bytes = 0
        """The total size of the entries now, by `entry_bytes`."""

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: tuple[object, ...]) -> T | None:
        with self._lock:
            found = self._data.get(key)
            if found is None:
                return None
            self._data.move_to_end(key)
            return found[0]

    def put(self, key: tuple[object, ...], value: T) -> None:
        size = entry_bytes(key) + entry_bytes(value) + 100  # the map's own slot and tuple
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._data[key] = (value, size)
            self.bytes += size
            while len(self._data) > self.max_entries or (
                    self.max_bytes is not None and self.bytes > self.max_bytes
                    and len(self._data) > 1):
                self.bytes -= self._data.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = 0


class Symmetry:
    """A variant's symmetries as byte lookup tables, to find a position's least image fast.

    >>> sym = Symmetry.of(Variant.parse("3x3"))
    >>> x, o = 0b000000001, 0b000010000          # X on a1, O on b2
    >>> key, perm = sym.canonical(0b000000100, o)  # X on c1 instead: the same class
    >>> key == sym.canonical(x, o)[0], perm[2] == sym.canonical(x, o)[1][0]
    (True, True)
    """

    def __init__(self, perms: tuple[tuple[int, ...], ...], cells: int) -> None:
        self.perms = perms
        self.tables = byte_tables(cells, perms)

    @staticmethod
    def of(variant: Variant) -> Symmetry:
        """The variant's symmetry group, or only the identity where it is not used (see
        `SYMMETRY_CELLS` and `SYMMETRY_LIMIT`). A few hundredths of a second for a new board
        at most, but not for the event loop: see `WebSolver.prepare`."""
        identity = (tuple(range(variant.cells)),)
        if variant.cells > SYMMETRY_CELLS or variant.is_3d:
            return Symmetry(identity, variant.cells)
        try:
            if group_size(variant) <= SYMMETRY_LIMIT:
                return Symmetry(symmetries(variant), variant.cells)
        except BoardTooLargeError:
            pass
        return Symmetry(identity, variant.cells)

    @staticmethod
    def _image(tables: list[list[int]], mask: int) -> int:
        image = 0
        for table in tables:
            image |= table[mask & 255]
            mask >>= 8
        return image

    def canonical(self, x: int, o: int) -> tuple[tuple[int, int], tuple[int, ...]]:
        """The least image ``(x', o')`` of the marks and a permutation that gives it."""
        best_key: tuple[int, int] | None = None
        best_perm = self.perms[0]
        for perm, tables in zip(self.perms, self.tables, strict=True):
            key = (self._image(tables, x), self._image(tables, o))
            if best_key is None or key < best_key:
                best_key, best_perm = key, perm
        assert best_key is not None
        return best_key, best_perm


_Stored = tuple[int, dict[int, int], int, float, str]
"""A proven solution in the frame of its class's least image: its score, each move's score
(cell of the image -> score), nodes, seconds and engine. Scores are coded as integers (see
`score_code`), so a stored entry holds no objects the garbage collector has to visit."""


class WebSolver:
    """Bounded solves with a cache of proven answers per symmetry class (thread-safe): at most
    ``cache_size`` of them, and at most ``cache_bytes`` (by `entry_bytes`) if given; the least
    recently used are forgotten first."""

    def __init__(self, cache_size: int, *, cache_bytes: int | None = None) -> None:
        self.cache: LruCache[_Stored] = LruCache(cache_size, max_bytes=cache_bytes)
        self.hits = 0
        self._lock = threading.Lock()
        self._symmetry: LruCache[Symmetry] = LruCache(SYMMETRY_VARIANTS)
        self._workspaces: LruCache[tuple[threading.Lock, compiled.Workspace]] = \
            LruCache(KEPT_TABLES)
        self.loaded = False
        """Whether the compiled search is loaded; until then `solve_quickly` declines."""

    def load(self) -> None:
        """Load (or compile) the compiled search: a second or more, so call it in a worker."""
        compiled.warm_up()
        self.loaded = True

    def symmetry(self, variant: Variant) -> Symmetry:
        """The board's `Symmetry`, made on first use (see `prepare`)."""
        found = self._symmetry.get((variant,))
        if found is None:
            found = Symmetry.of(variant)
            self._symmetry.put((variant,), found)
        return found

    def prepared(self, variant: Variant) -> bool:
        """Whether the board has what `cached`, `solve_quickly` and `remember` need, so that
        they take a millisecond or two."""
        if self._symmetry.get((variant,)) is None:
            return False
        return not self._quick(variant) or self._workspaces.get((variant,)) is not None

    def prepare(self, variant: Variant) -> None:
        """Make what a board needs before its first answer: its `Symmetry`, and on a small
        board (once the compiled search is loaded) its kept table and the search's tables.
        Up to a few tenths of a second the first time, so the server calls it on a thread
        of its own, never on the event loop (`tictactoe.web.service.Engine`)."""
        self.symmetry(variant)
        if self._quick(variant):
            compiled.tables(variant)
            self._workspace(variant)

    def _quick(self, variant: Variant) -> bool:
        """Whether `solve_quickly` searches this board (and so needs its kept table)."""
        return self.loaded and variant.cells <= PERSISTENT_CELLS and compiled.fits(variant)

    def cached(self, position: Position) -> Solution | None:
        """The solution from the cache, if this position's class was proven before."""
        key, perm = self.symmetry(position.variant).canonical(position.x, position.o)
        stored = self.cache.get((position.variant, position.turn, *key))
        if stored is None:
            return None
        self.hits += 1
        best, coded, nodes, seconds, engine = stored
        moves: dict[int, Score] = {}
        for cell in range(len(perm)):
            value = coded.get(perm[cell])
            if value is not None:
                moves[cell] = code_score(value)
        return Solution(score=code_score(best), moves=moves,
                        best=[cell for cell in moves if coded[perm[cell]] == best],
                        proven=True, nodes=nodes, seconds=seconds, mover=position.turn,
                        engine=engine)

    def solve(self, position: Position, *, nodes: int, seconds: float) -> Solution:
        """The position's solution within the bounds: cached if its class was proven, else
        searched (and remembered if proven)."""
        found = self.cached(position)
        if found is not None:
            return found
        solution = self.search(position, nodes=nodes, seconds=seconds)
        if solution.proven:
            self.remember(position, solution)
        return solution

    def solve_quickly(self, position: Position, nodes: int) -> Solution | None:
        """A proof within ``nodes`` nodes on a small board, on the calling thread, or None
        (a bigger board, the board's table not made yet (see `prepare`) or in use by another
        search, or not proven within the nodes). What the search learns stays in the kept
        table for the next search."""
        if not self.loaded:
            return None
        workspace = self._workspaces.get((position.variant,))  # never made here: 21 MB
        if workspace is None or not workspace[0].acquire(blocking=False):
            return None
        try:
            check_solvable(position)
            result = compiled.solve_position(position, nodes=nodes, workspace=workspace[1])
        finally:
            workspace[0].release()
        if not result.proven:
            return None
        solution = compiled.as_solution(position, result)
        self.remember(position, solution)
        return solution

    def remember(self, position: Position, solution: Solution) -> None:
        """Keep a proven solution for every position of its class."""
        key, perm = self.symmetry(position.variant).canonical(position.x, position.o)
        coded = {perm[cell]: score_code(score) for cell, score in solution.moves.items()}
        self.cache.put((position.variant, position.turn, *key),
                       (score_code(solution.score), coded, solution.nodes, solution.seconds,
                        solution.engine))

    def search(self, position: Position, *, nodes: int, seconds: float) -> Solution:
        """A fresh bounded search (no cache): on small boards with the kept table."""
        workspace = self._workspace(position.variant)
        if workspace is None:
            return solve(position.copy(stack=False), nodes=nodes, seconds=seconds)
        check_solvable(position)
        with workspace[0]:
            result = compiled.solve_position(position, nodes=nodes, seconds=seconds,
                                             workspace=workspace[1])
        return compiled.as_solution(position, result)

    def _workspace(self, variant: Variant) -> tuple[threading.Lock, compiled.Workspace] | None:
        """The kept table of a small board (made on first use), or None for a big one."""
        if variant.cells > PERSISTENT_CELLS or not compiled.fits(variant):
            return None
        found = self._workspaces.get((variant,))
        if found is None:
            self.load()
            with self._lock:  # one table per board, even when two threads ask at once
                found = self._workspaces.get((variant,))
                if found is None:
                    bits = min(PERSISTENT_TABLE_BITS, 2 * variant.cells)
                    found = (threading.Lock(),
                             compiled.Workspace.new(variant.cells, variant.cells, bits))
                    self._workspaces.put((variant,), found)
        return found


code_score = compiled.score_of
"""A `Score` from the kernels' integer (a win in ``d`` plies is ``BIG - d``)."""


def score_code(score: Score) -> int:
    """The kernels' integer for a proven score (the inverse of `code_score`).

    >>> [code_score(score_code(s)) == s for s in (Win(3), Loss(4), Draw())]
    [True, True, True]
    """
    if isinstance(score, Win):
        return compiled.BIG - score.plies
    if isinstance(score, Loss):
        return -(compiled.BIG - score.plies)
    if isinstance(score, Draw):
        return 0
    raise ValueError(f"only a proven score has a code, not {score}")


__all__ = ["LruCache", "Symmetry", "WebSolver", "code_score", "entry_bytes", "score_code"]
