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
moves are shared out (one is enough). The threads share one table: its entries carry a
check word, so a read that mixes two unlocked writes is a miss (`kernels.check_word`). A
thread left idle at the end splits the job another is still running (`_Pool`).

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
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from tictactoe.core import Position
from tictactoe.search.compiled import kernels as _sk
from tictactoe.search.compiled.driver import _prepare, warm_up
from tictactoe.search.compiled.runner import run_kernel, run_threads, start_job
from tictactoe.search.compiled.workspace import Tables, Workspace, give_back

BIG = _sk.BIG
INF = _sk.INF

SPLIT_BUDGET = 1 << 14
"""Nodes a question gets on one thread before it is split over the others."""

SPLIT_FROM = 16
"""Only positions with more empty cells than this are split (smaller ones take less than
the threads cost)."""

STEAL_AFTER = 0.05
"""A thread left with nothing to do splits a job another has run this long (seconds)."""

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
        for other in self.workspaces[1:]:  # the same history and order as the first
            other.misc[:] = self.workspaces[0].misc
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
        jobs: list[tuple[int, int, int, int, bool]] = []
        values: dict[int, int] = {}
        for m in rest:
            mine = me | 1 << m
            if self._completes(mine):
                values[m] = BIG - 1
            elif nempty == 1:
                values[m] = 0
            else:
                jobs.append((m, opp, mine, nempty - 1, not x_to_move))
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
        worst, jobs = self._through(me, opp, nempty, x_to_move, move)
        if worst < beta or not jobs:
            return worst
        found = self._run(jobs, _sk.lower(_sk.lower(alpha)), _sk.lower(_sk.lower(beta)),
                          lambda v: _sk.lift(_sk.lift(v)) < beta)
        for v in found.values():
            worst = min(worst, _sk.lift(_sk.lift(v)))
        return worst

    def _through(self, me: int, opp: int, nempty: int, x_to_move: bool,
                 move: int) -> tuple[int, list[tuple[int, int, int, int, bool]]]:
        """The value through ``move`` as far as it is settled at once (a line completed, the
        board full; INF if none), and a job for each other reply (one per class): the
        value is the least of both."""
        mine = me | 1 << move
        if self._completes(mine):
            return BIG - 1, []
        if nempty == 1:
            return 0, []
        worst = INF
        jobs: list[tuple[int, int, int, int, bool]] = []
        for r in self._moves(opp, mine, not x_to_move):
            theirs = opp | 1 << r
            if self._completes(theirs):
                worst = min(worst, _sk.lift(BIG - 1))
            elif nempty == 2:
                worst = min(worst, 0)
            else:
                jobs.append((r, mine, theirs, nempty - 2, x_to_move))
        return worst, jobs

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

    def _run(self, jobs: list[tuple[int, int, int, int, bool]], alpha: int, beta: int,
             decisive: Callable[[int], bool]) -> dict[int, int]:
        """Ask each job's position (key, mover's marks, other marks, empty cells, whether X
        moves) the window question on the threads, until all are answered or one answer is
        decisive (the others are then halted and left out). A thread left idle takes over
        half of a long job (`_Pool`)."""
        pool = _Pool(self, decisive)
        pool.queue = [_Job(me, opp, n, x, alpha, beta, key=key)
                      for key, me, opp, n, x in reversed(jobs)]
        workers: list[Callable[[], None]] = [partial(pool.work, i)
                                             for i in range(len(self.workspaces))]
        run_threads(workers, [ws.misc for ws in self.workspaces], pool.stop, self.deadline)
        found = pool.found
        if self._past_deadline() or (len(found) < len(jobs)
                                     and not any(decisive(v) for v in found.values())):
            raise _Stopped
        return found


@dataclass(eq=False)
class _Job:
    """A null-window question to one position, on some thread: its mover hopes to reach
    ``beta``. Once split, it waits for the replies to one move (``children``)."""

    me: int
    opp: int
    nempty: int
    x_to_move: bool
    alpha: int
    beta: int
    key: int = -1
    """The caller's name for a job of its own (one with no parent)."""
    parent: _Job | None = None
    children: list[_Job] = field(default_factory=list)
    worst: int = INF
    """Once split: the least value through the move over the replies answered so far."""
    pending: int = 0
    cancelled: bool = False


class _Pool:
    """The threads of one `_Asker._run`: a queue of jobs, and sharing at the tail.

    A thread that finds the queue empty while another has run a job for `STEAL_AFTER`
    seconds stops that job and splits it where its search was: through the move it was
    searching, each reply becomes a job of its own (every one must still reach its bound),
    down the path to a node that had already refuted a reply. If a reply refutes the move,
    the job is asked whole again, on the thread that found it; the shared table keeps what
    was learnt, so nothing is lost but the threads' time.
    """

    def __init__(self, asker: _Asker, decisive: Callable[[int], bool]) -> None:
        self.asker = asker
        self.decisive = decisive
        self.queue: list[_Job] = []
        self.found: dict[int, int] = {}
        threads = len(asker.workspaces)
        self.running: list[_Job | None] = [None] * threads
        self.since = [0.0] * threads
        self.thief = [-1] * threads
        """For each thread, the idle thread that stopped its job to split it (or -1)."""
        self.cond = threading.Condition()
        self.stop = threading.Event()

    def work(self, i: int) -> None:
        """Thread ``i``: answer jobs until none is left, one is decisive, or a halt."""
        asker = self.asker
        ws = asker.workspaces[i]
        again: _Job | None = None  # a job to ask again here, where its refutation was found
        while True:
            with self.cond:
                job = self._take(i, again)
                if job is None:
                    return
                if not start_job(ws.misc, self.stop, asker._left()):  # what is left
                    return
            r = _sk.question(*asker._args(ws, job.me, job.opp, job.alpha, job.beta,
                                          job.nempty))
            with self.cond:
                self.running[i] = None
                asker.nodes += int(min(ws.misc[_sk.NODES], 1 << 62))
                thief, self.thief[i] = self.thief[i], -1
                if self.stop.is_set():
                    return
                again = None
                if job.cancelled:
                    pass
                elif not ws.misc[_sk.ABORTED]:
                    again = self._answer(job, int(r))
                elif thief >= 0 and asker._left() > 0:
                    again = self._split(job, i)
                else:
                    return  # the node limit
                self.cond.notify_all()

    def _take(self, i: int, again: _Job | None) -> _Job | None:
        """The next job for thread ``i`` (``again`` if given), None once all are answered
        or on a halt. While the queue is empty, ask for a long job to be split."""
        while not self.stop.is_set():
            if again is not None or self.queue:
                job = again if again is not None else self.queue.pop()
                self.running[i] = job
                self.since[i] = time.perf_counter()
                return job
            if all(j is None for j in self.running):
                return None
            if i not in self.thief:
                self._stop_longest(i)
            self.cond.wait(0.005)
        return None

    def _stop_longest(self, thief: int) -> None:
        """Stop the job that has run longest, if it may be split, for ``thief``."""
        now = time.perf_counter()
        chosen = -1
        for w, job in enumerate(self.running):
            if (job is not None and not job.cancelled and self.thief[w] < 0
                    and job.nempty > SPLIT_FROM
                    and now - self.since[w] >= STEAL_AFTER
                    and (chosen < 0 or self.since[w] < self.since[chosen])):
                chosen = w
        if chosen >= 0:
            self.thief[chosen] = thief
            self.asker.workspaces[chosen].misc[_sk.LIMIT] = 0

    def _split(self, job: _Job, w: int) -> _Job | None:
        """Split ``job``, stopped on thread ``w``, along the path its search was on (see
        `_path`): at each level the move searched, and a job per reply to it, the path's
        reply split on in turn. Returns the job if it must be asked whole again."""
        asker, tab = self.asker, self.asker.tab
        ws = asker.workspaces[w]
        path = self._path(job, ws)
        if not path:  # no move searched yet: the table's, else the first
            table = int(_sk.table_move(np.uint64(job.me), np.uint64(job.opp), job.nempty,
                                       ws.tt, ws.misc, tab.symmetry_bytes,
                                       tab.permutations_and_inverses))
            moves = asker._moves(job.me, job.opp, job.x_to_move)
            path = [(table if table in asker._classes(job.me, job.opp, job.x_to_move)
                     else moves[0], -1)]
        node = job
        settled: list[tuple[_Job, int]] = []
        for level, (move, reply) in enumerate(path):
            if (node.me | node.opp) >> move & 1:  # not this position's path: asked whole
                self.queue.append(node)
                break
            worst, replies = asker._through(node.me, node.opp, node.nempty, node.x_to_move,
                                            move)
            if worst < node.beta:  # the move fails at once: the node is asked whole
                if node is job:
                    return job
                self.queue.append(node)
                break
            if not replies:  # the move wins or draws at once
                settled.append((node, worst))
                break
            alpha, beta = _sk.lower(_sk.lower(node.alpha)), _sk.lower(_sk.lower(node.beta))
            node.children = [_Job(me, opp, n, x, alpha, beta, parent=node)
                             for _key, me, opp, n, x in replies]
            node.worst, node.pending = worst, len(node.children)
            # the path's reply (its class's job, on the very cell) goes last: popped first
            mine = node.me | 1 << move
            rep = asker._classes(node.opp, mine, not node.x_to_move).get(reply, -1)
            on_path = [c for c in node.children if rep >= 0 and c.opp == node.opp | 1 << rep]
            others = [c for c in node.children if c not in on_path]
            self.queue.extend(reversed(others))
            if not on_path:
                break
            on_path[0].opp = node.opp | 1 << reply
            if level == len(path) - 1:
                self.queue.append(on_path[0])
            node = on_path[0]
        for node, worst in settled:
            self._answer(node, worst)
        return None

    def _path(self, job: _Job, ws: Workspace) -> list[tuple[int, int]]:
        """The moves and replies the stopped search of ``job`` was on, down to the first
        reply node that had already refuted a move (one needing every reply refuted, most
        likely: a good place to split); only the first pair if none had."""
        stopped = int(ws.misc[_sk.STOPPED_AT])
        me, opp, n = job.me, job.opp, job.nempty
        full = int(self.asker.full)
        path: list[tuple[int, int]] = []
        while n - 1 > stopped and n >= 3:  # rows n and n - 1 are on the path
            move, reply = int(ws.buf[n, _sk.CURRENT]), int(ws.buf[n - 1, _sk.CURRENT])
            free = full & ~(me | opp)
            if move == reply or not (free >> move & 1 and free >> reply & 1):
                break
            path.append((move, reply))
            if ws.buf[n - 1, _sk.TRIED] >= 1:
                return path
            me, opp, n = me | 1 << move, opp | 1 << reply, n - 2
        return path[:1]

    def _answer(self, job: _Job, r: int) -> _Job | None:
        """Record a job's fail-soft value; a split job's once all its replies have one.
        Returns a split job whose move this answer refuted: it must be asked whole."""
        while job.parent is not None:
            split = job.parent
            if split.cancelled:
                return None
            value = _sk.lift(_sk.lift(r))
            if value < split.beta:  # this reply refutes the move
                self._cancel(split.children)
                split.children, split.pending, split.worst = [], 0, INF
                return split
            split.worst = min(split.worst, value)
            split.pending -= 1
            if split.pending:
                return None
            job, r = split, split.worst
        self.found[job.key] = r
        if self.decisive(r):
            self.stop.set()
        return None

    def _cancel(self, jobs: list[_Job]) -> None:
        """Drop ``jobs`` and theirs: out of the queue, and stopped where they run."""
        stack = list(jobs)
        while stack:
            job = stack.pop()
            job.cancelled = True
            stack.extend(job.children)
        self.queue = [j for j in self.queue if not j.cancelled]
        for w, running in enumerate(self.running):
            if running is not None and running.cancelled:
                self.asker.workspaces[w].misc[_sk.LIMIT] = 0


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
    split over that many threads, sharing one table. A node or time limit reached
    first leaves the value ``"unknown"`` (with threads, the nodes may pass the limit by
    what one thread searches)."""
    warm_up()
    tab, ws, _me, _opp, empty, borrowed = _prepare(position, None, None, True)
    nempty = len(empty)
    helpers: list[Workspace] = []
    if threads > 1 and nempty > SPLIT_FROM:
        helpers = [ws.companion() for _ in range(threads - 1)]
    started = time.perf_counter()
    asker = _Asker(tab, position, [ws, *helpers],
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
