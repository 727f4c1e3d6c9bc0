"""The compiled solver's entry points: `solve_position` scores every move, `solve_value`
proves the value and one best move, `solve` answers as a `Solution`.

>>> from tictactoe import Position
>>> result = solve_position(Position("x2/3/3 o"))  # after a corner, only the centre holds
>>> result.score, result.best, sorted(set(result.moves.values()))
(0, [4], [-994, 0])
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from tictactoe.core import IllegalMoveError, ImpossiblePositionError, Position
from tictactoe.search.compiled import kernels as _sk
from tictactoe.search.compiled import workspace as _workspace
from tictactoe.search.compiled.convert import CompiledSolution, as_solution
from tictactoe.search.compiled.runner import (
    INTERRUPTIBLE_EMPTY,
    drive,
    run_threads,
    start_job,
)
from tictactoe.search.compiled.workspace import (
    Tables,
    Workspace,
    borrow,
    fits,
    give_back,
    tables,
)
from tictactoe.search.solution import Solution, check_solvable


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
        ws = borrow(nempty)
        ws.reset(tab)
    if len(tab.symmetry_bytes) > 1:
        ws.misc[_sk.SYMMETRIC] = nempty - _workspace.SYMMETRIC_PLIES
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
            extras = [borrow(nempty) for _ in range(min(threads, len(cells)) - 1)]
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
                    give_back(extra)
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

        done, total = drive(_sk.solve_moves, args, lambda done: done == len(cells), ws.misc,
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
            give_back(ws)


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
            if not start_job(ws.misc, stop):
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
    run_threads(jobs, [ws.misc for ws in workspaces], stop, deadline)
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
        if not start_job(ws.misc, stop):
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
        run_threads(jobs, [ws.misc for ws in workspaces], stop, deadline)
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
    deepening on distance on two threads, sharing one table, and the first to finish
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
            racer = ws.companion()  # its own buffers, the same table
            started = time.perf_counter()
            deadline = None if seconds is None else started + seconds
            found, total = _value_race(tab, position, me, opp, order, [ws, racer], deadline)
            moves = {int(found[1]): int(found[0])} if len(found) else {}
            return CompiledSolution(score=int(found[0]) if len(found) else 0, moves=moves,
                                    proven=bool(len(found)), nodes=total,
                                    seconds=time.perf_counter() - started)
        started = time.perf_counter()
        out = np.zeros(2, dtype=np.int64)
        args = (np.uint64(me), np.uint64(opp), nempty, order, out, tab.lines, tab.line_cells,
                ws.tt, ws.buf, ws.misc, np.uint64(position.variant.full_mask),
                tab.symmetry_bytes, tab.permutations_and_inverses)
        done, total = drive(_sk.solve_value, lambda _: args, bool, ws.misc, nodes,
                             None if seconds is None else started + seconds,
                             nempty > INTERRUPTIBLE_EMPTY)
        moves = {int(out[1]): int(out[0])} if done else {}
        return CompiledSolution(score=int(out[0]) if done else 0, moves=moves, proven=bool(done),
                                nodes=total, seconds=time.perf_counter() - started)
    finally:
        if borrowed:
            give_back(ws)


_WARM = [False]


def warm_up() -> float:
    """Compile (or load from the on-disk cache) the solver's kernels once; returns the
    seconds taken.

    Solving calls it before it starts its clock, so its ``seconds`` exclude JIT. numba
    keeps the machine code in ``__pycache__`` next to these modules, so a second process
    only loads it.
    """
    if _WARM[0]:
        return 0.0
    _WARM[0] = True
    started = time.perf_counter()
    solve_position(Position("x1o/1o1/x2 x"), _warm=True)
    solve_value(Position("x1o/1o1/x2 x"))
    # the one-question kernel that `solve_outcome` splits its questions by
    tab, ws, me, opp, empty, borrowed = _prepare(Position("x1o/1o1/x2 x"), None, None, True)
    try:
        ws.misc[_sk.LIMIT] = 1 << 62
        _sk.question(np.uint64(me), np.uint64(opp), 0, 1, len(empty), tab.lines,
                     tab.line_cells, ws.tt, ws.buf, ws.misc, tab.full, tab.symmetry_bytes,
                     tab.permutations_and_inverses)
    finally:
        if borrowed:
            give_back(ws)
    return time.perf_counter() - started


def solve(position: Position, *, nodes: int | None = None,
          seconds: float | None = None, threads: int = 1) -> Solution | None:
    """Solve with the kernels as a `Solution`, or None if the
    board does not fit. Moves left unproven by a limit get the heuristic score the readable
    solver gives them."""
    if not fits(position.variant):
        return None
    check_solvable(position)
    warm_up()
    return as_solution(position, solve_position(position, nodes=nodes, seconds=seconds,
                                                threads=threads))
