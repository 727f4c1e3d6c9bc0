"""Who wins, proven without the distance: `solve_outcome`.

It answers what proof-number search answers (a win, a draw or a loss for the side to
move, and a move that keeps it) with the α-β kernels, by null-window questions:

* "a win within d plies?" for d = 5, 11, 17, ... up to two thirds of the empty cells (small
  proofs first: a long first-found win can take far more nodes than a short one), then the
  plain "is this a win?";
* without a win, "is this a loss?": no means a draw.

The first yes ends it, so the distance is only bounded (`ProvenOutcome.plies`); `solve_value`
proves it exactly, at the price of a "no" just below it, which on big boards costs as much as
the rest together.

With two threads or more, a question that is not answered within `SPLIT_BUDGET` nodes on one
thread is split at the root. The move the table prefers is asked first, its replies shared
out to the threads (all must still lose for the opponent); if one refutes it, the other
moves are shared out (one is enough). Each thread keeps its own table, the second starting
from a copy of the first.

>>> from tictactoe import Position
>>> found = solve_outcome(Position("x2/3/3 o"))  # after a corner, only the centre holds
>>> found.value, found.move, found.plies
('draw', 4, None)
>>> solve_outcome(Position("xx1/oo1/3 x")).plies  # X completes the top row
(1, 1)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from tictactoe.core import Position
from tictactoe.search.compiled import kernels as _sk
from tictactoe.search.compiled.driver import _prepare, warm_up
from tictactoe.search.compiled.runner import run_kernel, run_threads, start_job
from tictactoe.search.compiled.workspace import Tables, Workspace, borrow, give_back

BIG = _sk.BIG
INF = _sk.INF

SPLIT_BUDGET = 1 << 20
"""Nodes a question gets on one thread before it is split over the others."""

SPLIT_FROM = 16
"""Only positions with more empty cells than this are split (smaller ones take less than
the threads cost)."""

JUMP = 6
"""The distance questions ask "a win within d?" for d = 5, 5 + JUMP, ..."""


@dataclass(frozen=True)
class ProvenOutcome:
    """Who wins with perfect play, as `solve_outcome` proved it.

    ``value`` is ``"x"`` or ``"o"`` (the winner), ``"draw"``, or ``"unknown"`` if a limit
    stopped the search first. For a win, ``plies`` bounds the plies to its end (the fewest
    and the most the proof allows); ``move`` keeps the value (None if unknown).
    """

    value: str
    plies: tuple[int, int] | None
    move: int | None
    nodes: int
    seconds: float

    @property
    def proven(self) -> bool:
        return self.value != "unknown"


class _Stopped(Exception):
    """The deadline or Ctrl-C stopped a question."""


class _Asker:
    """Null-window questions about one position, on one thread or split over several."""

    def __init__(self, tab: Tables, position: Position, workspaces: list[Workspace],
                 deadline: float | None, budget: int | None) -> None:
        self.tab = tab
        self.variant = position.variant
        self.x, self.o = position.x, position.o
        self.x_to_move = position.ply % 2 == 0
        self.me, self.opp = (self.x, self.o) if self.x_to_move else (self.o, self.x)
        self.full = np.uint64(position.variant.full_mask)
        self.nempty = bin(position.variant.full_mask & ~(self.x | self.o)).count("1")
        self.workspaces = workspaces
        self.deadline = deadline
        self.budget = budget
        self.nodes = 0
        self.certain = False
        """Whether the last answer's move is proven to reach its bound."""
        order = tab.order.tolist()
        self.rank = {c: i for i, c in enumerate(order)}

    # -- helpers
    def _args(self, ws: Workspace, me: int, opp: int, alpha: int, beta: int,
              nempty: int) -> tuple[Any, ...]:
        tab = self.tab
        return (np.uint64(me), np.uint64(opp), alpha, beta, nempty, tab.lines,
                tab.line_cells, ws.tt, ws.buf, ws.misc, self.full, tab.symmetry_bytes,
                tab.permutations_and_inverses)

    def _completes(self, marks: int) -> bool:
        return bool(_sk.completes_line(np.uint64(marks), self.tab.lines))

    def _moves(self, me: int, opp: int, x_to_move: bool) -> list[int]:
        """The empty cells, one per class under the symmetries that fix the position, in the
        static order."""
        classes = self._classes(me, opp, x_to_move)
        return sorted((c for c, r in classes.items() if c == r), key=self.rank.__getitem__)

    def _classes(self, me: int, opp: int, x_to_move: bool) -> dict[int, int]:
        """Each empty cell's class representative under the symmetries that fix the
        position (equal moves: they have the same value)."""
        empty = np.array([c for c in range(self.variant.cells) if not (me | opp) >> c & 1],
                         dtype=np.int64)
        x, o = (me, opp) if x_to_move else (opp, me)
        if len(self.tab.permutations) > 1:
            rep = _sk.orbit_representatives(self.tab.permutations, np.uint64(x),
                                            np.uint64(o), empty)
            return {int(c): int(rep[c]) for c in empty}
        return {int(c): int(c) for c in empty}

    def _past_deadline(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def _left(self) -> int:
        """Nodes left under the node limit (all of them without one)."""
        return 1 << 62 if self.budget is None else max(0, self.budget - self.nodes)

    # -- one question
    def ask(self, alpha: int, beta: int, threads: int, hint: int) -> tuple[int, int]:
        """The root's fail-soft value for the window (alpha, beta) and a move: the one that
        reaches beta, else the one with the best bound. ``hint``: the last answer's move
        (the table's, if it has one, goes first)."""
        split = threads > 1 and self.nempty > SPLIT_FROM
        r, move, finished = self._attempt(self.me, self.opp, self.nempty, alpha, beta,
                                          SPLIT_BUDGET if split else 1 << 62, hint)
        if finished:
            self.certain = False  # the table's move: `keeping_move` checks it
            return r, move
        self.certain = True  # the split's move is the one it proved
        ws = self.workspaces[0]
        for other in self.workspaces[1:]:  # the others start from what the first learnt
            if other.tt.shape == ws.tt.shape:
                np.copyto(other.tt, ws.tt)
                other.misc[:] = ws.misc
        return self._split(self.me, self.opp, self.nempty, self.x_to_move, alpha, beta, move)

    def _attempt(self, me: int, opp: int, nempty: int, alpha: int, beta: int, limit: int,
                 hint: int) -> tuple[int, int, bool]:
        """The question on the first thread within ``limit`` nodes: the fail-soft value,
        the table's move (else ``hint``), and whether it finished."""
        ws = self.workspaces[0]
        r, searched = run_kernel(_sk.question, self._args(ws, me, opp, alpha, beta, nempty),
                                 ws.misc, min(limit, self._left()), self.deadline, True)
        self.nodes += searched
        if self._past_deadline() or (ws.misc[_sk.ABORTED] and self._left() == 0):
            raise _Stopped
        table = int(_sk.table_move(np.uint64(me), np.uint64(opp), nempty, ws.tt, ws.misc,
                                   self.tab.symmetry_bytes, self.tab.permutations_and_inverses))
        return int(r), table if table >= 0 else hint, not ws.misc[_sk.ABORTED]

    def _split(self, me: int, opp: int, nempty: int, x_to_move: bool, alpha: int, beta: int,
               hint: int) -> tuple[int, int]:
        """The question split: the hint's replies first, then the other moves."""
        moves = self._moves(me, opp, x_to_move)
        first = self._classes(me, opp, x_to_move).get(hint, moves[0])  # the hint's class
        # the preferred move first: every reply must still lose for the opponent
        value = self._move_value(me, opp, nempty, x_to_move, first, alpha, beta)
        if value >= beta:
            return value, first
        best, best_move = value, first
        # then the other moves: one reaching beta is enough
        rest = [m for m in moves if m != first]
        lower_b, lower_a = _sk.lower(beta), _sk.lower(alpha)
        jobs: list[tuple[int, int, int, int]] = []
        values: dict[int, int] = {}
        for m in rest:
            mine = me | 1 << m
            if self._completes(mine):
                values[m] = BIG - 1
            elif nempty == 1:
                values[m] = 0
            else:
                jobs.append((m, opp, mine, nempty - 1))
        if not any(v >= beta for v in values.values()):
            found = self._run(jobs, lower_b, lower_a, lambda v: _sk.lift(v) >= beta)
            values.update({m: _sk.lift(v) for m, v in found.items()})
        for m in rest:
            if m in values and values[m] >= beta:
                return values[m], m
        for m in rest:
            if values[m] > best:
                best, best_move = values[m], m
        return best, best_move

    def _move_value(self, me: int, opp: int, nempty: int, x_to_move: bool, move: int,
                    alpha: int, beta: int) -> int:
        """The value through ``move``, bounded as the window asks: the least over the
        replies, shared out to the threads, and the first that holds (below beta) decides."""
        mine = me | 1 << move
        if self._completes(mine):
            return BIG - 1
        if nempty == 1:
            return 0
        replies = self._moves(opp, mine, not x_to_move)
        worst = INF  # the value through the move: the least over the replies
        jobs: list[tuple[int, int, int, int]] = []
        for r in replies:
            theirs = opp | 1 << r
            if self._completes(theirs):
                worst = min(worst, _sk.lift(BIG - 1))
            elif nempty == 2:
                worst = min(worst, 0)
            else:
                jobs.append((r, mine, theirs, nempty - 2))
        if worst < beta:
            return worst
        window = (_sk.lower(_sk.lower(alpha)), _sk.lower(_sk.lower(beta)))
        found = self._run(jobs, window[0], window[1],
                          lambda v: _sk.lift(_sk.lift(v)) < beta)
        for v in found.values():
            worst = min(worst, _sk.lift(_sk.lift(v)))
        return worst

    def keeping_move(self, threshold: int, hint: int) -> int:
        """A move whose value reaches ``threshold`` (1: it keeps a win, 0: a draw), the
        hint first, each asked one question on the first thread."""
        me, opp, nempty = self.me, self.opp, self.nempty
        ws = self.workspaces[0]
        moves = self._moves(me, opp, self.x_to_move)
        for m in sorted(moves, key=lambda m: m != hint):
            mine = me | 1 << m
            if self._completes(mine):
                value = BIG - 1
            elif nempty == 1:
                value = 0
            else:
                r, searched = run_kernel(
                    _sk.question, self._args(ws, opp, mine, _sk.lower(threshold),
                                             _sk.lower(threshold - 1), nempty - 1),
                    ws.misc, self._left(), self.deadline, True)
                self.nodes += searched
                if ws.misc[_sk.ABORTED]:
                    raise _Stopped
                value = _sk.lift(int(r))
            if value >= threshold:
                return m
        raise AssertionError("no move keeps the value")  # pragma: no cover - unreachable

    def _run(self, jobs: list[tuple[int, int, int, int]], alpha: int, beta: int,
             decisive: Callable[[int], bool]) -> dict[int, int]:
        """Ask each job's position (mover's marks, other marks, empty cells) the window
        question on the threads, until all are answered or one answer is decisive (the
        others are then halted and left out)."""
        queue = list(reversed(jobs))
        lock = threading.Lock()
        stop = threading.Event()
        found: dict[int, int] = {}

        def work(ws: Workspace) -> None:
            while True:
                with lock:
                    if not queue or stop.is_set():
                        return
                    key, me, opp, nempty = queue.pop()
                if not start_job(ws.misc, stop):
                    return
                ws.misc[_sk.LIMIT] = self._left()  # each thread may use what is left
                r = _sk.question(*self._args(ws, me, opp, alpha, beta, nempty))
                with lock:
                    self.nodes += int(min(ws.misc[_sk.NODES], 1 << 62))
                    if ws.misc[_sk.ABORTED]:
                        return
                    found[key] = int(r)
                    if decisive(int(r)):
                        stop.set()
                        return

        workers: list[Callable[[], None]] = [partial(work, ws) for ws in self.workspaces]
        run_threads(workers, [ws.misc for ws in self.workspaces], stop, self.deadline)
        if self._past_deadline() or (len(found) < len(jobs)
                                     and not any(decisive(v) for v in found.values())):
            raise _Stopped
        return found


def _fewest_marks(mine: int, theirs: int, position: Position) -> int:
    """The fewest marks ``mine`` still needs on a line free of ``theirs`` (a win takes at
    least twice as many plies, less one for the side to move).

    >>> _fewest_marks(0b11, 0b1000, Position("xx1/o2/3 x"))
    1
    """
    return min(((line & ~mine).bit_count() for line in position.variant.line_masks
                if not line & theirs), default=position.variant.cells)


def solve_outcome(position: Position, *, nodes: int | None = None,
                  seconds: float | None = None, threads: int = 1) -> ProvenOutcome:
    """Who wins from ``position`` with perfect play, proven, and a move that keeps it; the
    distance only bounded (see the module). With ``threads`` above 1, a big question is
    split over that many threads, each with its own table. A node or time limit reached
    first leaves the value ``"unknown"`` (with threads, the nodes may pass the limit by
    what one thread searches)."""
    warm_up()
    tab, ws, _me, _opp, empty, borrowed = _prepare(position, None, None, True)
    nempty = len(empty)
    extras: list[Workspace] = []
    if threads > 1 and nempty > SPLIT_FROM:
        extras = [borrow(nempty) for _ in range(threads - 1)]
        for extra in extras:  # ready before the clock starts
            extra.reset(tab)
            extra.misc[_sk.SYMMETRIC] = ws.misc[_sk.SYMMETRIC]
    started = time.perf_counter()
    asker = _Asker(tab, position, [ws, *extras],
                   None if seconds is None else started + seconds, nodes)
    mover_is_x = position.ply % 2 == 0
    lo, hi = -INF, INF
    move = -1
    try:
        d = 5
        won = False
        while d < nempty and 3 * d <= 2 * nempty:
            t = BIG - d
            r, move = asker.ask(t - 1, t, threads, move)
            if r >= t:
                lo, won = r, True
                break
            hi = min(hi, r)
            d += JUMP
        if not won:
            r, move = asker.ask(0, 1, threads, move)
            if r >= 1:
                lo, won = r, True
            else:
                hi = min(hi, r)
        if not won:
            r, move = asker.ask(-1, 0, threads, move)
            if r >= 0:
                lo = max(lo, r)
            else:
                hi = min(hi, r)
        if lo >= 0 and not asker.certain:
            move = asker.keeping_move(min(lo, 1), move)
    except _Stopped:
        return ProvenOutcome("unknown", None, None, asker.nodes,
                             time.perf_counter() - started)
    finally:
        for extra in extras:
            give_back(extra)
        if borrowed:
            give_back(ws)
    last = nempty if nempty % 2 else nempty - 1  # the mover's last possible ply
    plies: tuple[int, int] | None = None
    if lo >= 1:
        value = "x" if mover_is_x else "o"
        fastest = 2 * _fewest_marks(asker.me, asker.opp, position) - 1
        plies = (max(fastest, BIG - min(hi, BIG - 1)), min(last, BIG - lo))
    elif hi <= -1:
        value = "o" if mover_is_x else "x"
        longest = nempty if nempty % 2 == 0 else nempty - 1  # the opponent's last ply
        fastest = 2 * _fewest_marks(asker.opp, asker.me, position)
        plies = (max(fastest, BIG + max(lo, -(BIG - 2))), min(longest, BIG + hi))
    else:
        value = "draw"
    return ProvenOutcome(value, plies, move if move >= 0 else None, asker.nodes,
                         time.perf_counter() - started)
