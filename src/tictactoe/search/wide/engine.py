"""The α-β search of `tictactoe.search.wide.alphabeta` from Python: its tables, a position
loaded into them, and iterative deepening within a node limit and a deadline.

>>> from tictactoe.core import Position
>>> p = Position("15x15k5")
>>> for name in ("h8", "a1", "i8", "a3", "j8", "a5"):
...     p.push_name(name)
>>> search = ShapeSearch(p.variant)
>>> search.load(p)
>>> found = search.deepen(p.legal_moves(), depth=3, nodes=200_000)
>>> p.move_name(found.best) in ("g8", "k8"), found.values[found.best] > ab.WON  # open four
(True, True)
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from tictactoe.core import Position, Side, Variant
from tictactoe.search.wide import alphabeta as ab
from tictactoe.search.wide import kernels, wide_tables
from tictactoe.search.wide_settings import ShapeSettings

NEAR = 2
"""The moves searched are the empty cells at most this many steps (along every axis) from
a mark."""

TABLE_BITS = 20
"""The transposition table has 2**20 entries (16 MB)."""

FOURS_BITS = 16
"""The table of failed wins by fours at the horizon has 2**16 entries."""


TOP_WEIGHT = 6.0 ** 5
"""The most a line's weight may reach (six in a row's, with the base of 6): past it the base
shrinks, so that the sums over a board's lines stay far below the search's win scores
(`alphabeta.MATE`) and inside 64 bits (6 ** 25 does not fit)."""


def shape_weights(k: int, base: float = 6.0) -> np.ndarray:
    """The weight of a line open for one side by the number of its marks: 0 for none, then
    ``base ** (n - 1)``, the base lowered where the full line would weigh more than
    `TOP_WEIGHT`.

    >>> shape_weights(5).tolist()
    [0, 1, 6, 36, 216, 1296]
    >>> shape_weights(26).tolist()[-3:]
    [3797, 5434, 7776]
    """
    if k > 1 and base ** (k - 1) > TOP_WEIGHT:
        base = TOP_WEIGHT ** (1 / (k - 1))
    return np.array([0] + [round(base ** (n - 1)) for n in range(1, k + 1)], dtype=np.int64)


def move_weights(k: int, settings: ShapeSettings = ShapeSettings()
                 ) -> tuple[np.ndarray, np.ndarray]:
    """What a move is worth by the lines through it (`alphabeta.move_score`): ``attack[n]``
    for a line open for the mover with n of its marks (the weight it adds), ``defend[n]``
    for a line of the opponent's with n marks that it blocks.

    >>> [w.tolist() for w in move_weights(5)]
    [[1, 5, 30, 180, 1080, 0], [0, 1, 5, 32, 194, 0]]
    """
    w = shape_weights(k, settings.base)
    attack = np.array([w[i + 1] - w[i] for i in range(k)] + [0], dtype=np.int64)
    defend = np.array([round(settings.defend * w[i]) for i in range(k)] + [0], dtype=np.int64)
    return attack, defend


@cache
def _box(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """For each cell, the cells at most `NEAR` steps from it along every axis (itself
    excluded), as a compressed list."""
    steps = [s for s in itertools.product(range(-NEAR, NEAR + 1), repeat=len(variant.shape))
             if any(s)]
    ptr = np.zeros(variant.cells + 1, dtype=np.int64)
    out: list[int] = []
    for cell in range(variant.cells):
        here = variant.coordinates(cell)
        for step in steps:
            there = tuple(a + b for a, b in zip(here, step, strict=True))
            if all(0 <= t < d for t, d in zip(there, variant.shape, strict=True)):
                out.append(variant.index(there))
        ptr[cell + 1] = len(out)
    return ptr, np.array(out, dtype=np.int64)


@dataclass
class Deepened:
    """What `ShapeSearch.deepen` found: the best move, each searched move's value (exact for
    the best, an upper bound for the others unless asked for exact values), the depth of
    the last finished pass and the nodes searched."""

    best: int
    values: dict[int, int]
    depth: int
    nodes: int
    finished: bool = True
    """False if the limits stopped the first pass (the values are then the static order)."""
    passes: list[tuple[int, int, int]] = field(default_factory=list)
    """(depth, best move, its value) of each finished pass."""


class ShapeSearch:
    """The α-β search on one variant: load a position, then `deepen`."""

    def __init__(self, variant: Variant, settings: ShapeSettings = ShapeSettings(), *,
                 table_bits: int = TABLE_BITS) -> None:
        self.variant = variant
        self.settings = settings
        t = wide_tables(variant)
        self.tables = t
        n, lines = variant.cells, len(variant.lines)
        self.box_ptr, self.box = _box(variant)
        self.weights = shape_weights(variant.k, settings.base)
        self.attack, self.defend = move_weights(variant.k, settings)
        self.state = np.zeros(n, dtype=np.int8)
        self.counts = np.zeros((lines, 2), dtype=np.int32)
        self.near = np.zeros(n, dtype=np.int64)
        self.seen = np.zeros(n, dtype=np.int64)
        self.partner = np.zeros(n, dtype=np.int64)
        self.members = np.zeros((4, lines + 1), dtype=np.int64)
        self.where = np.zeros((lines, 4), dtype=np.int64)
        self.misc = np.zeros(ab.MISC, dtype=np.int64)
        self.misc[ab.QUIET] = settings.quiet
        self.misc[ab.BEAM] = settings.beam
        self.misc[ab.TEMPO] = settings.tempo
        self.misc[ab.ANSWERS] = settings.answers
        self.misc[ab.LEAF_FOURS] = settings.leaf_fours
        self.misc[ab.FOURS_DEPTH] = settings.fours_depth
        self.fkeys = np.zeros(1 << FOURS_BITS, dtype=np.uint64)
        self.fdepth = np.zeros(1 << FOURS_BITS, dtype=np.int64)
        self.seq = np.zeros(settings.fours_depth + 2, dtype=np.int64)
        self.buf = np.zeros((settings.fours_depth + 2, 3 * n + kernels.FRAME), dtype=np.int64)
        self.tt_keys = np.zeros(1 << table_bits, dtype=np.uint64)
        self.tt_data = np.zeros(1 << table_bits, dtype=np.int64)
        self.moves = np.zeros((ab.MAX_PLY + 2, n + 2), dtype=np.int64)
        self.scores = np.zeros((ab.MAX_PLY + 2, n + 2), dtype=np.int64)
        self.side = 0

    def load(self, position: Position) -> None:
        """Load a position (the side to move searches)."""
        self.state[:] = 0
        for c in range(self.variant.cells):
            if position.x >> c & 1:
                self.state[c] = 1
            elif position.o >> c & 1:
                self.state[c] = 2
        t = self.tables
        kernels.load(self.state, self.counts, t.line_cells, t.zobrist, self.misc)
        ab.prepare(self.state, self.counts, self.weights, self.misc, self.near, self.box_ptr,
                   self.box, self.members, self.where)
        self.side = 0 if position.turn is Side.X else 1

    def clear(self) -> None:
        """Empty the transposition tables."""
        self.tt_keys[:] = 0
        self.tt_data[:] = 0
        self.fkeys[:] = 0
        self.fdepth[:] = 0

    def order(self, cells: list[int]) -> list[int]:
        """`cells` by what each builds and blocks for the side to move, best first."""
        arr = np.array(cells, dtype=np.int64)
        out = np.zeros(len(cells), dtype=np.int64)
        t = self.tables
        ab.order(self.side, arr, self.counts, t.through_ptr, t.through, self.attack,
                 self.defend, out)
        ranked = sorted(range(len(cells)), key=lambda i: (-int(out[i]), cells[i]))
        return [cells[i] for i in ranked]

    def _root(self, cells: list[int], depth: int, exact: bool) -> tuple[int, np.ndarray]:
        t = self.tables
        arr = np.array(cells, dtype=np.int64)
        values = np.zeros(len(cells), dtype=np.int64)
        best = ab.root(self.side, depth, arr, values, self.state, self.counts, t.line_cells,
                       t.through_ptr, t.through, t.zobrist, self.misc, self.weights,
                       self.attack, self.defend, self.near, self.box_ptr, self.box,
                       self.seen, self.tt_keys, self.tt_data, self.moves, self.scores,
                       self.partner, self.members, self.where, self.fkeys, self.fdepth,
                       self.seq, self.buf, 1 if exact else 0)
        return int(best), values

    def values(self, cells: list[int], depth: int) -> dict[int, int]:
        """Each of `cells`' exact value for the side to move, searched to `depth` plies with
        a full window (no limit)."""
        self.misc[kernels.NODES] = 0
        self.misc[kernels.LIMIT] = 1 << 62
        _, values = self._root(cells, depth, True)
        return {c: int(v) for c, v in zip(cells, values, strict=True)}

    def deepen(self, cells: list[int], *, depth: int, nodes: int | None = None,
               deadline: float | None = None, exact: bool = False) -> Deepened:
        """Iterative deepening over `cells` (the moves to compare, legal in the loaded
        position) from one ply to `depth`, within `nodes` in all and until `deadline` (a
        `time.perf_counter` reading); each pass starts with the last pass's best."""
        order = self.order(cells)
        total = 0
        done: Deepened | None = None
        self.misc[kernels.NODES] = 0
        budget = nodes if nodes is not None else 1 << 62
        for plies in range(1, depth + 1):
            self.misc[kernels.LIMIT] = budget
            best, values = _run(self._root, (order, plies, exact), self.misc, deadline)
            total = int(min(self.misc[kernels.NODES], budget))
            if best < 0:
                break
            found = {c: int(v) for c, v in zip(order, values, strict=True)}
            move = order[best]
            passes = [] if done is None else done.passes
            done = Deepened(move, found, plies, total, passes=[*passes,
                                                                (plies, move, found[move])])
            if found[move] > ab.WON or (found[move] < -ab.WON and all(
                    v < -ab.WON for v in found.values())):
                break  # a win, or every move loses: deeper passes add nothing
            rest = sorted((c for c in order if c != move), key=lambda c: -found[c])
            order = [move, *rest]
            if deadline is not None and time.perf_counter() > deadline:
                break
        if done is None:
            return Deepened(order[0], {c: 0 for c in order}, 0, total, finished=False)
        done.nodes = total
        return done


def _run(kernel: Any, args: tuple[Any, ...], misc: np.ndarray,
         deadline: float | None) -> Any:
    """Call a ``nogil`` kernel, in a worker thread when there is a deadline (or a Ctrl-C
    to honour), so that this thread can stop it by dropping its node limit to zero."""
    if deadline is None:
        return kernel(*args)
    result: list[Any] = []
    failure: list[BaseException] = []

    def go() -> None:
        try:
            result.append(kernel(*args))
        except BaseException as err:  # handed to the caller below
            failure.append(err)

    worker = threading.Thread(target=go, name="tictactoe-wide", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(max(0.0, min(0.01, deadline - time.perf_counter())))
            if time.perf_counter() > deadline:
                misc[kernels.LIMIT] = 0
    except KeyboardInterrupt:
        misc[kernels.LIMIT] = 0
        worker.join()
        raise
    if failure:
        raise failure[0]
    return result[0]


__all__ = ["NEAR", "Deepened", "ShapeSearch", "ShapeSettings", "move_weights", "shape_weights"]
