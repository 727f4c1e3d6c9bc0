"""The compiled core: numba kernels behind one small interface.

The rest of the package calls only this module. It answers on boards of up to 64 cells
(each side's marks are one ``uint64``); `fits` tells whether a variant qualifies.

>>> from tictactoe import Position
>>> result = solve_position(Position("x2/3/3 o"))  # after a corner, only the centre holds
>>> result.score, result.best, sorted(set(result.moves.values()))
(0, [4], [-994, 0])
>>> describe_score(-996), describe_score(0), describe_score(997)
('loss in 4', 'draw', 'win in 3')
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from typing import TYPE_CHECKING, Any

import numpy as np

from tictactoe.core import (
    BoardTooLargeError,
    IllegalMoveError,
    ImpossiblePositionError,
    Position,
    Variant,
    symmetries,
)
from tictactoe.core.symmetry import byte_tables
from tictactoe.engines.compiled import solver_kernels as _sk

if TYPE_CHECKING:
    from tictactoe.engines.score import Score
    from tictactoe.engines.solver import Solution

BIG = _sk.BIG
"""A win in ``d`` plies scores ``BIG - d``, a loss ``-(BIG - d)``, a draw 0."""

TABLE_BITS = int(os.environ.get("TICTACTOE_TABLE_BITS", "22"))
"""The solver's transposition table holds at most ``2 ** TABLE_BITS`` entries of 32 bytes
(2**22: 128 MB), in buckets of two. Set the environment variable ``TICTACTOE_TABLE_BITS`` to
change it; small boards use a table sized to their number of positions. Tables live in a
pool shared by all threads (one per search running at the same time, a bigger one made
when a bigger board needs it) and are emptied (in constant time, by a generation stamp)
before each solve."""

MAX_CELLS = 64

LIVE_LISTS_FROM = 16
"""Boards with at least this many lines keep, per depth, the list of lines still open (on
smaller boards the bookkeeping costs more than the scan it saves)."""

SYMMETRIC_PLIES = int(os.environ.get("TICTACTOE_SYMMETRIC_PLIES", "6"))
"""Positions within this many plies of the solved one share one table entry with all their
symmetric images (the table key is the least image)."""

FIRST_BUDGET = 1 << 14
"""Nodes for each question in the first round of a big search, which races deepening on
the distance against the plain win/draw/loss questions (doubled every round)."""

MERGED_SYMMETRIES = 1024
"""Symmetric positions share table entries only on boards with at most this many
symmetries (4x4x4 has 192); on degenerate boards such as 2x2x2k2, where every pair of cells
is a line and all 40,320 permutations are symmetries, the search skips it."""


PAIRING = os.environ.get("TICTACTOE_PAIRING", "1") != "0"
"""Whether the search cuts on pairing strategies (``TICTACTOE_PAIRING=0`` turns it off, to
measure what it saves)."""


def fits(variant: Variant) -> bool:
    """Whether the compiled kernels handle this variant (at most 64 cells).

    >>> fits(Variant.parse("8x8k5")), fits(Variant.parse("4x4x4"))
    (True, True)
    """
    return variant.cells <= MAX_CELLS and len(variant.lines) <= _sk.MAX_LINES


def describe_score(score: int) -> str:
    """A score in words: ``win in 3``, ``loss in 4`` or ``draw``."""
    if score > 0:
        return f"win in {BIG - score}"
    if score < 0:
        return f"loss in {BIG + score}"
    return "draw"


@dataclass(frozen=True)
class Tables:
    """A variant's constants, as the kernels take them."""

    lines: np.ndarray
    line_cells: np.ndarray
    order: np.ndarray
    full: np.uint64
    permutations: np.ndarray
    """Every symmetry, as a row of cell images."""
    symmetry_bytes: np.ndarray
    """Byte tables of the symmetries whose images share table entries (`MERGED_SYMMETRIES`)."""
    permutations_and_inverses: np.ndarray
    """Those symmetries, then their inverses (to map a table move back and forth)."""


@cache
def tables(variant: Variant) -> Tables:
    """Line masks, the static move order and the symmetries of a variant."""
    if not fits(variant):
        raise BoardTooLargeError(f"{variant.name} has {variant.cells} cells and "
                                 f"{len(variant.lines)} lines; the compiled core handles at "
                                 f"most {MAX_CELLS} cells and {_sk.MAX_LINES} lines")
    n = variant.cells
    lines = np.array(variant.line_masks, dtype=np.uint64)
    centre = [(d - 1) / 2 for d in variant.shape]

    def rank(cell: int) -> tuple[int, float, int]:
        spread = sum((a - b) ** 2 for a, b in zip(variant.coordinates(cell), centre,
                                                   strict=True))
        return (-len(variant.lines_through[cell]), spread, cell)

    order = np.array(sorted(range(n), key=rank), dtype=np.int64)
    try:
        perms = symmetries(variant)
    except BoardTooLargeError:
        perms = (tuple(range(n)),)
    line_cells = np.array(variant.lines, dtype=np.int64).reshape(len(variant.lines), -1)
    perm_array = np.array(perms, dtype=np.int64)
    merged = perms if len(perms) <= MERGED_SYMMETRIES else perms[:1]
    merged_array = np.array(merged, dtype=np.int64)
    inverses = np.argsort(merged_array, axis=1).astype(np.int64)
    return Tables(lines, line_cells, order, np.uint64(variant.full_mask), perm_array,
                  np.array(byte_tables(n, merged), dtype=np.uint64),
                  np.ascontiguousarray(np.concatenate([merged_array, inverses])))


_GENERATIONS = (1 << 15) - 1


@dataclass(eq=False)
class Workspace:
    """A transposition table and search buffers, preallocated and touched before use.

    The table is ``2 ** table_bits`` entries in rows of two (see `solver_kernels`).
    `reset` empties it in constant time by moving to a new generation.
    """

    tt: np.ndarray
    buf: np.ndarray
    misc: np.ndarray
    table_bits: int

    @staticmethod
    def bits_for(empty: int, table_bits: int | None = None) -> int:
        """The table size (log2 of entries) for a search of ``empty`` empty cells."""
        if table_bits is not None:
            return max(2, table_bits)
        wanted = math.ceil(empty * math.log2(3)) + 1
        return max(10, min(TABLE_BITS, wanted))

    @staticmethod
    def new(cells: int, empty: int, table_bits: int | None = None) -> Workspace:
        """Room for a search of ``empty`` empty cells on a board of ``cells`` cells."""
        bits = Workspace.bits_for(empty, table_bits)
        ws = Workspace(tt=np.zeros((1 << (bits - 1), _sk.ROW), dtype=np.int64),
                       buf=np.zeros((MAX_CELLS + 2, _sk.BUF_WIDTH), dtype=np.int64),
                       misc=np.zeros(_sk.MISC_SIZE, dtype=np.int64), table_bits=bits)
        ws.clear()
        return ws

    def clear(self) -> None:
        """Empty the table, writing every page (so no timing pays for first touches); the
        kernel that writes it lets other threads run meanwhile."""
        _sk.zero_rows(self.tt)
        self.misc.fill(0)
        self.misc[_sk.GENERATION] = 1

    def reset(self, tables: Tables) -> None:
        """Forget every entry (a new generation) and the history; load a variant's order."""
        generation = int(self.misc[_sk.GENERATION]) + 1
        if generation >= _GENERATIONS:
            self.clear()
            generation = 1
        self.misc.fill(0)
        self.misc[_sk.GENERATION] = generation
        self.load(tables)

    def load(self, tables: Tables) -> None:
        """Set the variant's static move order (keeping the table and history)."""
        n = len(tables.order)
        self.misc[_sk.CELLS] = n
        self.misc[_sk.SYMMETRIC] = MAX_CELLS + 1  # no symmetric merging unless asked
        self.misc[_sk.PAIRING] = int(PAIRING)
        self.misc[_sk.BUDGET] = 1 << 62
        self.misc[_sk.FIRST_BUDGET] = FIRST_BUDGET
        self.misc[_sk.PLAN] = _sk.PLAN_RACE
        lines = len(tables.lines)
        if lines >= LIVE_LISTS_FROM:
            self.misc[_sk.LIVE_LISTS] = 1
        else:  # every row lists every line
            self.misc[_sk.LIVE_LISTS] = 0
            self.buf[:, _sk.LIVE:_sk.LIVE + lines] = np.arange(lines)
        self.misc[_sk.ORDER:_sk.ORDER + n] = tables.order


_POOL: list[Workspace] = []
_POOL_LOCK = threading.Lock()


def _borrow(empty: int) -> Workspace:
    """A free workspace for a search of ``empty`` empty cells from the pool that every
    thread shares (a new one if none is free and big enough); `_give_back` returns it.

    Threads come and go (the terminal app and the web server search on short-lived worker
    threads), so tables are pooled rather than kept per thread: each is allocated and
    written once per process, not once per search.
    """
    bits = Workspace.bits_for(empty)
    with _POOL_LOCK:
        fitting = [i for i, ws in enumerate(_POOL) if ws.table_bits >= bits]
        if fitting:
            return _POOL.pop(min(fitting, key=lambda i: _POOL[i].table_bits))
    return Workspace.new(MAX_CELLS, empty)


def _give_back(ws: Workspace) -> None:
    with _POOL_LOCK:
        _POOL.append(ws)


@dataclass(frozen=True)
class CompiledSolution:
    """Scores (see `BIG`) of a position and of each legal move, for the side that moves."""

    score: int
    moves: dict[int, int]
    proven: bool
    nodes: int
    seconds: float

    @property
    def best(self) -> list[int]:
        """Every move with the best score."""
        return sorted(m for m, s in self.moves.items() if s == self.score)


INTERRUPTIBLE_EMPTY = 16
"""An unlimited search with more empty cells than this runs where Ctrl-C can stop it."""


def _interruptible(kernel: Any, args: tuple[Any, ...], misc: np.ndarray,
                   deadline: float | None) -> Any:
    """Run a ``nogil`` kernel in a worker thread, so that the calling thread can stop it at
    the deadline or on Ctrl-C: the node limit drops to zero, which the kernel checks at
    every node. A `KeyboardInterrupt` goes on once the worker has returned."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(kernel(*args))
        except BaseException as err:  # handed to the caller below
            failure.append(err)

    worker = threading.Thread(target=run, name="tictactoe-solve", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.02)
            if deadline is not None and time.perf_counter() > deadline:
                misc[_sk.LIMIT] = 0
    except KeyboardInterrupt:
        misc[_sk.LIMIT] = 0
        worker.join()
        raise
    if failure:
        raise failure[0]
    return result[0]


def _run(kernel: Any, args: tuple[Any, ...], misc: np.ndarray, limit: int,
         deadline: float | None, threaded: bool) -> tuple[Any, int]:
    """Call a kernel with a node limit (in a worker thread if ``threaded``); returns its
    result and the nodes it searched."""
    misc[_sk.NODES] = 0
    misc[_sk.ABORTED] = 0
    misc[_sk.LIMIT] = limit
    result = _interruptible(kernel, args, misc, deadline) if threaded else kernel(*args)
    return result, int(min(misc[_sk.NODES], limit))


def _drive(kernel: Any, args: Callable[[Any], tuple[Any, ...]], finished: Callable[[Any], bool],
           misc: np.ndarray, nodes: int | None, deadline: float | None,
           threaded: bool) -> tuple[Any, int]:
    """Call a kernel (``args(last result)`` gives its arguments) until ``finished(result)``,
    the node limit or the deadline; returns the last result and the nodes searched. A
    threaded call is stopped at the deadline; otherwise, with a deadline, the kernel hands
    back every 2**19 nodes to look at the clock, and the next call resumes."""
    budget = nodes if nodes is not None else 1 << 62
    chunk = 1 << 62 if deadline is None or threaded else 1 << 19
    result: Any = None
    total = 0
    while True:
        result, searched = _run(kernel, args(result), misc, min(chunk, budget - total),
                                deadline, threaded)
        total += searched
        if finished(result) or total >= budget or (
                deadline is not None and time.perf_counter() > deadline):
            return result, total


def _prepare(position: Position, table_bits: int | None, workspace: Workspace | None,
             _warm: bool) -> tuple[Tables, Workspace, int, int, np.ndarray, bool]:
    """Check the position, pick the workspace; returns the tables, the workspace, the masks
    of the mover and the opponent, the empty cells, and whether the workspace was borrowed
    from the pool (to be given back)."""
    variant = position.variant
    if not position.is_valid():
        raise ImpossiblePositionError(
            f"{position.to_string()} cannot arise in play: {'; '.join(position.problems())}")
    if position.is_game_over():
        raise IllegalMoveError(f"{position.to_string()}: the game is over; nothing to solve")
    if not _warm:
        warm_up()
    tab = tables(variant)
    x, o = position.x, position.o
    me, opp = (x, o) if position.ply % 2 == 0 else (o, x)
    empty = np.array([c for c in range(variant.cells) if not (x | o) >> c & 1], dtype=np.int64)
    nempty = len(empty)
    if workspace is not None:
        ws = workspace
        ws.load(tab)
    elif table_bits is not None:
        ws = Workspace.new(variant.cells, nempty, table_bits)
        ws.load(tab)
    else:
        ws = _borrow(nempty)
        ws.reset(tab)
    if len(tab.symmetry_bytes) > 1:
        ws.misc[_sk.SYMMETRIC] = nempty - SYMMETRIC_PLIES
    return tab, ws, me, opp, empty, workspace is None and table_bits is None


def solve_position(position: Position, *, nodes: int | None = None,
                   seconds: float | None = None, table_bits: int | None = None,
                   workspace: Workspace | None = None, threads: int = 1,
                   _warm: bool = False) -> CompiledSolution:
    """Solve a position exactly: its score and the score of every legal move.

    With ``nodes`` or ``seconds``, the search stops at the limit; moves not proven by then
    are left out and ``proven`` is False. A given ``workspace`` keeps its table (its entries
    stay valid for every position of the variant); otherwise this thread's table starts
    empty. With ``threads`` above 1, a big search (over `INTERRUPTIBLE_EMPTY` empty cells,
    no node limit) scores the moves on that many threads, each with its own table.
    """
    tab, ws, me, opp, empty, borrowed = _prepare(position, table_bits, workspace, _warm)
    try:
        nempty = len(empty)
        if len(tab.permutations) > 1:
            rep = _sk.orbit_representatives(tab.permutations, np.uint64(position.x),
                                            np.uint64(position.o), empty)
            cells = empty[rep[empty] == empty]
        else:
            rep = np.arange(position.variant.cells)
            cells = empty
        if threads > 1 and nodes is None and workspace is None and table_bits is None \
                and nempty > INTERRUPTIBLE_EMPTY and len(cells) > 1:
            # every thread's table is ready (allocated and written) before the clock starts
            extras = [_borrow(nempty) for _ in range(min(threads, len(cells)) - 1)]
            for extra in extras:
                extra.reset(tab)
                extra.misc[_sk.SYMMETRIC] = ws.misc[_sk.SYMMETRIC]
            started = time.perf_counter()
            deadline = None if seconds is None else started + seconds
            try:
                scores, total = _parallel_moves(tab, position, me, opp, cells, [ws, *extras],
                                                deadline)
            finally:
                for extra in extras:
                    _give_back(extra)
            moves = {c: scores[r] for c, r in zip(empty.tolist(), rep[empty].tolist(),
                                                  strict=True) if r in scores}
            return CompiledSolution(score=max(moves.values()) if moves else 0, moves=moves,
                                    proven=len(scores) == len(cells), nodes=total,
                                    seconds=time.perf_counter() - started)
        started = time.perf_counter()
        out = np.zeros(len(cells), dtype=np.int64)

        def args(done: int | None) -> tuple[Any, ...]:  # resumes after the moves done
            return (np.uint64(me), np.uint64(opp), nempty, cells, out, done or 0, tab.lines,
                    tab.line_cells, ws.tt, ws.buf, ws.misc,
                    np.uint64(position.variant.full_mask), tab.symmetry_bytes,
                    tab.permutations_and_inverses)

        done, total = _drive(_sk.solve_moves, args, lambda done: done == len(cells), ws.misc,
                             nodes, None if seconds is None else started + seconds,
                             nempty > INTERRUPTIBLE_EMPTY)
        proven = done == len(cells)
        scores = dict(zip(cells[:done].tolist(), out[:done].tolist(), strict=True))
        moves = {c: scores[r] for c, r in zip(empty.tolist(), rep[empty].tolist(), strict=True)
                 if r in scores}
        best = max(moves.values()) if moves else 0
        return CompiledSolution(score=best, moves=moves, proven=proven, nodes=total,
                                seconds=time.perf_counter() - started)
    finally:
        if borrowed:
            _give_back(ws)


def _run_threads(jobs: list[Callable[[], None]], miscs: list[np.ndarray],
                 stop: threading.Event, deadline: float | None) -> None:
    """Run each job on its own thread until all return. The deadline, Ctrl-C or ``stop``
    (set by a job) halts the others: their node limits drop to zero, which the kernels check
    at every node. A job sets its limit before it looks at ``stop``, so none is missed."""
    failure: list[BaseException] = []

    def run(job: Callable[[], None]) -> None:
        try:
            job()
        except BaseException as err:  # handed to the caller below
            failure.append(err)
            stop.set()

    def halt() -> None:
        stop.set()
        for misc in miscs:
            misc[_sk.LIMIT] = 0

    workers = [threading.Thread(target=run, args=(job,), name=f"tictactoe-solve-{i}",
                                daemon=True) for i, job in enumerate(jobs)]
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            while worker.is_alive():
                worker.join(0.02)
                if stop.is_set() or (deadline is not None and time.perf_counter() > deadline):
                    halt()
    except KeyboardInterrupt:
        halt()
        for worker in workers:
            worker.join()
        raise
    if failure:
        raise failure[0]


def _start(misc: np.ndarray, stop: threading.Event) -> bool:
    """Ready a workspace for one kernel call under `_run_threads`; False if halted."""
    misc[_sk.NODES] = 0
    misc[_sk.ABORTED] = 0
    misc[_sk.LIMIT] = 1 << 62
    return not stop.is_set()


def _parallel_moves(tab: Tables, position: Position, me: int, opp: int, cells: np.ndarray,
                    workspaces: list[Workspace],
                    deadline: float | None) -> tuple[dict[int, int], int]:
    """Score each move of ``cells`` on one worker thread per workspace (each move one
    ``nogil`` kernel call), until done, the deadline or Ctrl-C. Returns the proven scores by
    move and the nodes searched."""
    nempty = bin(position.variant.full_mask & ~(position.x | position.o)).count("1")
    full = np.uint64(position.variant.full_mask)
    scores: dict[int, int] = {}
    lock = threading.Lock()
    queue = list(reversed(cells.tolist()))
    stop = threading.Event()
    total = [0]

    def work(ws: Workspace) -> None:
        out = np.zeros(1, dtype=np.int64)
        while True:
            with lock:
                if not queue:
                    return
                cell = queue.pop()
            if not _start(ws.misc, stop):
                return
            done = _sk.solve_moves(np.uint64(me), np.uint64(opp), nempty,
                                   np.array([cell], dtype=np.int64), out, 0, tab.lines,
                                   tab.line_cells, ws.tt, ws.buf, ws.misc, full,
                                   tab.symmetry_bytes, tab.permutations_and_inverses)
            with lock:
                total[0] += int(ws.misc[_sk.NODES])
                if done == 1:
                    scores[cell] = int(out[0])
            if done != 1:
                return

    jobs: list[Callable[[], None]] = [partial(work, ws) for ws in workspaces]
    _run_threads(jobs, [ws.misc for ws in workspaces], stop, deadline)
    return scores, total[0]


def _value_race(tab: Tables, position: Position, me: int, opp: int, order: np.ndarray,
                workspaces: list[Workspace], deadline: float | None) -> tuple[np.ndarray, int]:
    """`solve_value` on two threads, the first asking only the plain win/draw/loss
    questions and the second only deepening on the distance; the first to finish wins and
    halts the other. Returns the winner's (score, move), or an empty array, and the nodes."""
    nempty = bin(position.variant.full_mask & ~(position.x | position.o)).count("1")
    full = np.uint64(position.variant.full_mask)
    lock = threading.Lock()
    stop = threading.Event()
    found: list[np.ndarray] = []
    total = [0]

    def work(ws: Workspace, plan: int) -> None:
        ws.misc[_sk.PLAN] = plan
        out = np.zeros(2, dtype=np.int64)
        if not _start(ws.misc, stop):
            return
        done = _sk.solve_value(np.uint64(me), np.uint64(opp), nempty, order, out, tab.lines,
                               tab.line_cells, ws.tt, ws.buf, ws.misc, full,
                               tab.symmetry_bytes, tab.permutations_and_inverses)
        with lock:
            total[0] += int(min(ws.misc[_sk.NODES], 1 << 62))
            if done and not found:
                found.append(out)
                stop.set()

    plans = (_sk.PLAN_PLAIN, _sk.PLAN_DEEPENING)
    jobs: list[Callable[[], None]] = [partial(work, ws, plan)
                                      for ws, plan in zip(workspaces, plans, strict=False)]
    try:
        _run_threads(jobs, [ws.misc for ws in workspaces], stop, deadline)
    finally:
        for ws in workspaces:
            ws.misc[_sk.PLAN] = _sk.PLAN_RACE
    return (found[0] if found else np.zeros(0, dtype=np.int64)), total[0]


def solve_value(position: Position, *, nodes: int | None = None,
                seconds: float | None = None, table_bits: int | None = None,
                workspace: Workspace | None = None, threads: int = 1) -> CompiledSolution:
    """The game value of a position and one best move, proven, without scoring the others.

    Much faster than `solve_position` on big boards: the other moves need no exact score.
    ``moves`` holds the best move only (empty if a limit stopped the search first). With
    ``threads`` above 1, a big search (no node limit) runs the plain questions and the
    deepening on distance on two threads, each with its own table, and the first to finish
    answers (see `solver_kernels.exact`).

    >>> result = solve_value(Position("x2/3/3 o"))
    >>> result.score, result.moves
    (0, {4: 0})
    """
    tab, ws, me, opp, empty, borrowed = _prepare(position, table_bits, workspace, False)
    try:
        nempty = len(empty)
        empty_set = set(empty.tolist())
        order = np.array([c for c in tab.order.tolist() if c in empty_set], dtype=np.int64)
        deadline: float | None
        if threads > 1 and nodes is None and workspace is None and table_bits is None \
                and nempty > _sk.RACE_FROM:
            other = _borrow(nempty)  # ready before the clock starts
            other.reset(tab)
            other.misc[_sk.SYMMETRIC] = ws.misc[_sk.SYMMETRIC]
            started = time.perf_counter()
            deadline = None if seconds is None else started + seconds
            try:
                found, total = _value_race(tab, position, me, opp, order, [ws, other], deadline)
            finally:
                _give_back(other)
            moves = {int(found[1]): int(found[0])} if len(found) else {}
            return CompiledSolution(score=int(found[0]) if len(found) else 0, moves=moves,
                                    proven=bool(len(found)), nodes=total,
                                    seconds=time.perf_counter() - started)
        started = time.perf_counter()
        out = np.zeros(2, dtype=np.int64)
        args = (np.uint64(me), np.uint64(opp), nempty, order, out, tab.lines, tab.line_cells,
                ws.tt, ws.buf, ws.misc, np.uint64(position.variant.full_mask),
                tab.symmetry_bytes, tab.permutations_and_inverses)
        done, total = _drive(_sk.solve_value, lambda _: args, bool, ws.misc, nodes,
                             None if seconds is None else started + seconds,
                             nempty > INTERRUPTIBLE_EMPTY)
        moves = {int(out[1]): int(out[0])} if done else {}
        return CompiledSolution(score=int(out[0]) if done else 0, moves=moves, proven=bool(done),
                                nodes=total, seconds=time.perf_counter() - started)
    finally:
        if borrowed:
            _give_back(ws)


# --------------------------------------------------------------------------- census
def _census_group(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Byte tables of the symmetries, the conjugation table and the geometric subgroup."""
    from tictactoe.core.symmetry import geometric_symmetries

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
    from tictactoe.engines.compiled import census_kernels as _ck

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


# --------------------------------------------------------------------------- the interface
_WARM = [False]


def warm_up() -> float:
    """Compile (or load from the on-disk cache) every kernel once; returns the seconds taken.

    Solving and counting call it before they start their clocks, so their ``seconds``
    exclude JIT. numba keeps the machine code in ``__pycache__`` next to these modules, so
    a second process only loads it.
    """
    if _WARM[0]:
        return 0.0
    _WARM[0] = True
    started = time.perf_counter()
    solve_position(Position("x1o/1o1/x2 x"), _warm=True)
    solve_value(Position("x1o/1o1/x2 x"))
    census_counts(Variant.parse("2x2"))
    strong_solution(Variant.parse("2x2"))
    return time.perf_counter() - started


def solve(position: Position, *, nodes: int | None = None,
          seconds: float | None = None, threads: int = 1) -> Solution | None:
    """Solve with the kernels as a `tictactoe.engines.solver.Solution`, or None if the
    board does not fit. Moves left unproven by a limit get the heuristic score the readable
    solver gives them."""
    from tictactoe.engines.solver import check_solvable

    if not fits(position.variant):
        return None
    check_solvable(position)
    warm_up()
    return as_solution(position, solve_position(position, nodes=nodes, seconds=seconds,
                                                threads=threads))


def score_of(value: int) -> Score:
    """The `Score` of a kernel score (a win in ``d`` plies is ``BIG - d``)."""
    from tictactoe.engines.score import Draw, Loss, Win

    if value > 0:
        return Win(BIG - value)
    if value < 0:
        return Loss(BIG + value)
    return Draw()


def as_solution(position: Position, result: CompiledSolution) -> Solution:
    """The kernels' answer as a `Solution`, exactly as the readable solver builds it: moves
    left unproven by a limit get its heuristic score."""
    from tictactoe.engines.heuristic import open_line_counts
    from tictactoe.engines.score import Heuristic
    from tictactoe.engines.solver import Solution

    mover = position.turn
    me, opp = position.marks(mover), position.marks(mover.other)
    lines = position.variant.line_masks
    moves: dict[int, Score] = {}
    for cell in position.legal_moves():
        if cell in result.moves:
            moves[cell] = score_of(result.moves[cell])
        else:
            mine, theirs = open_line_counts(lines, me | 1 << cell, opp)
            moves[cell] = Heuristic(float(mine - theirs))
    score = max(moves.values())
    return Solution(score=score, moves=moves, best=[c for c, s in moves.items() if s == score],
                    proven=result.proven, nodes=result.nodes, seconds=result.seconds,
                    mover=mover, engine="compiled")


def reachable_positions(variant: Variant) -> list[Position]:
    """Every position reachable in play that is not over (for a strong solution)."""
    seen: dict[tuple[int, int], Position] = {}
    stack = [Position(variant)]
    while stack:
        p = stack.pop()
        if (p.x, p.o) in seen:
            continue
        seen[(p.x, p.o)] = p
        if not p.is_game_over():
            stack.extend(p.play(c).copy(stack=False) for c in p.legal_moves())
    return [p for p in seen.values() if not p.is_game_over()]


@dataclass(frozen=True)
class StrongSolution:
    """The exact score of every reachable position that is not over, for the side to move."""

    x: np.ndarray
    o: np.ndarray
    scores: np.ndarray
    nodes: int
    seconds: float

    def score(self, x: int, o: int) -> int:
        """The score of the position with these marks (KeyError if not listed)."""
        found = np.flatnonzero((self.x == np.uint64(x)) & (self.o == np.uint64(o)))
        if not len(found):
            raise KeyError((x, o))
        return int(self.scores[found[0]])


def strong_solution(variant: Variant | str) -> StrongSolution:
    """Solve every position reachable in play that is not over, in one kernel call.

    >>> s = strong_solution("3x3")
    >>> len(s.scores), s.score(0, 0), describe_score(s.score(0b1, 0b10))
    (4520, 0, 'win in 5')
    """
    warm_up()
    variant = variant if isinstance(variant, Variant) else Variant.parse(variant)
    tab = tables(variant)
    n = variant.cells
    if n > 12:
        raise BoardTooLargeError(f"a strong solution of {variant.name} ({n} cells) is too big; "
                                 "at most 12 cells")
    capacity = 3 ** n
    ws = _borrow(n)
    try:
        started = time.perf_counter()
        ws.reset(tab)
        ws.misc[_sk.LIMIT] = 1 << 62
        seen = np.full((1 << (2 * capacity).bit_length(), 2), _sk.ALL, dtype=np.uint64)
        mes = np.empty(capacity, dtype=np.uint64)
        opps = np.empty(capacity, dtype=np.uint64)
        scores = np.empty(capacity, dtype=np.int64)
        count = _sk.strong(np.uint64(variant.full_mask), n, tab.lines, tab.line_cells, ws.tt,
                           ws.buf, ws.misc, seen, mes, opps, scores, tab.symmetry_bytes,
                           tab.permutations_and_inverses)
        nodes = int(ws.misc[_sk.NODES])
    finally:
        _give_back(ws)
    mes, opps, scores = mes[:count], opps[:count], scores[:count]
    x_to_move = _bit_count(mes) == _bit_count(opps)
    xs = np.where(x_to_move, mes, opps)
    os_ = np.where(x_to_move, opps, mes)
    seconds = time.perf_counter() - started
    return StrongSolution(xs, os_, scores, nodes, seconds)


def _bit_count(masks: np.ndarray) -> np.ndarray:
    """Set bits of each ``uint64``."""
    counts: np.ndarray = np.unpackbits(masks.view(np.uint8)).reshape(len(masks), 64).sum(axis=1)
    return counts
