"""Engine workers with queues: heavy searches run apart from the server and from each other.

A `Lane` is one worker (a process of its own by default, or a thread) and a queue in front
of it. Jobs run one at a time, the most urgent first (`Priority`: a move in a game before a
computer move asked for alone, before an analysis, before the startup warm-up). At most
``queue_limit`` jobs wait; one more is refused at once with `EngineBusyError`, and a job
that waits more than ``wait_seconds`` is refused then. The server answers both with 503.

The server keeps two lanes (`tictactoe.web.service.Engine`): one for the small boards and one
for the big ones, so a queue of cube searches never delays a 3×3 game. A worker process that
dies is replaced, and one that grows past ``memory_limit`` bytes is replaced after its job.

>>> import asyncio, operator
>>> async def demo() -> int:
...     lane = Lane("demo", processes=False, queue_limit=4, wait_seconds=5.0)
...     try:
...         return await lane.run(Priority.ANALYSIS, operator.add, 2, 3)
...     finally:
...         lane.close()
>>> asyncio.run(demo())
5
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import math
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from enum import IntEnum
from typing import TypeVar

from tictactoe.pools import WorkerPool
from tictactoe.web import worker

log = logging.getLogger("tictactoe.web")

T = TypeVar("T")


class Priority(IntEnum):
    """Which job goes first when several wait: the lowest value."""

    GAME = 0
    """The computer's reply in a game: a player waits for it."""
    MOVE = 1
    """A computer move asked for on its own (``POST /api/move``)."""
    ANALYSIS = 2
    """The values of every move (hints)."""
    WARM = 3
    """The startup warm-up."""


OVERRUN_SECONDS = 2.0
"""How long past its limit a job may run (at least; as long again as the limit if that is
more) before its worker is stopped and replaced. The players keep to their limits on their
own (within a few tenths of a second); this catches a job that does not, with room for a
worker that waits for a core on a busy machine."""


STARVED_SECONDS = 60.0
"""Wall seconds after which a job is stopped however little CPU time it had."""


def cpu_seconds(pid: int) -> float | None:
    """The CPU time a process has used so far (user and system), or None where the system
    does not say (no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class EngineBusyError(RuntimeError):
    """No worker can take the job now (the message says why); try again in `retry_after`
    seconds (the API's ``Retry-After``)."""

    def __init__(self, message: str, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = max(1, math.ceil(retry_after))


class EngineOverrunError(EngineBusyError):
    """A job ran far past its limit (see `OVERRUN_SECONDS`): its worker was stopped."""


class Lane:
    """One engine worker and its queue (see the module's description)."""

    def __init__(self, name: str, *, processes: bool, queue_limit: int, wait_seconds: float,
                 memory_limit: int = 2 * 1024**3, niceness: int = 0,
                 reload: tuple[str, ...] | None = None) -> None:
        self.name = name
        self.reload = reload
        """What a new worker loads before its first job (``worker.load(*reload)``: the
        compiled search, not timed against any job's limit), or None for nothing."""
        self._fresh = True
        self.niceness = niceness
        self.processes = processes
        self.queue_limit = queue_limit
        self.wait_seconds = wait_seconds
        self.memory_limit = memory_limit
        self._executor: Executor | None = None
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._running = False
        self.done = 0
        """Jobs finished."""
        self.refused = 0
        """Jobs refused because the queue was full or the wait too long."""
        self.restarts = 0
        """Worker processes replaced (after a crash, an overrun or for their memory)."""
        self.overruns = 0
        """Jobs stopped for running past their limit."""
        self.mean_seconds = 0.5
        """A running mean of the jobs' durations (for an honest ``Retry-After``)."""

    @property
    def waiting(self) -> int:
        """Jobs in the queue now."""
        return sum(1 for *_, ticket in self._waiting if not ticket.done())

    def _start(self) -> Executor:
        if self._executor is None:
            if self.processes:
                self._executor = WorkerPool(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                    initializer=worker.start, initargs=(os.getpid(), self.niceness))
            else:
                self._executor = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix=f"engine-{self.name}")
        return self._executor

    def _replace(self, *, kill: bool = False) -> None:
        """Let the worker go (it finishes nothing more; with `kill`, its process is stopped
        at once) and start a new one on the next job."""
        executor, self._executor = self._executor, None
        if executor is not None:
            self.restarts += 1
            self._fresh = True
            if kill and isinstance(executor, WorkerPool):
                executor.kill()
            executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, priority: Priority, work: Callable[..., T], *args: object,
                  limit: float | None = None) -> T:
        """Run ``work(*args)`` on the worker once it is this job's turn (``priority`` orders
        the queue). Raises `EngineBusyError` if the job is refused, and
        `EngineOverrunError` if it runs more than `OVERRUN_SECONDS` (or ``limit``, if more)
        past ``limit`` seconds (its worker is then stopped and replaced)."""
        await self._turn(priority)
        try:
            if work is worker.load:
                self._fresh = False
            elif self._fresh and self.reload is not None:  # a new worker: load, no clock
                self._fresh = False
                with contextlib.suppress(BrokenProcessPool):
                    await asyncio.wrap_future(self._start().submit(worker.load, *self.reload))
            started = time.monotonic()
            try:
                future = self._start().submit(work, *args)
                result = await self._within(asyncio.wrap_future(future), limit)
            except TimeoutError:
                self.overruns += 1
                log.warning("a job on the engine worker for %s ran past its limit of %g s: "
                            "replacing the worker", self.name, limit)
                self._replace(kill=True)
                raise EngineOverrunError(
                    f"the engine took longer than its limit ({limit:g} s) on {self.name}; "
                    "its worker was restarted. Try a faster player or a smaller "
                    "board", retry_after=2.0) from None
            except BrokenProcessPool:
                self._replace()
                raise EngineBusyError(
                    f"the engine worker for {self.name} stopped and is being restarted; "
                    "try again in a moment", retry_after=2.0) from None
            self.done += 1
            self.mean_seconds += (time.monotonic() - started - self.mean_seconds) / 8
            if self.processes:
                await self._check_memory()
            return result
        finally:
            self._next()

    async def _within(self, job: asyncio.Future[T], limit: float | None) -> T:
        """The job's result; `TimeoutError` once it has used more than its limit and the
        margin (`OVERRUN_SECONDS`, or the limit if more) in CPU time of its worker process
        (where the system tells it; else in wall time), or `STARVED_SECONDS` in wall time.
        A worker that waits for a core on a busy machine is not an overrun."""
        if limit is None:
            return await job
        job.add_done_callback(lambda done: done.cancelled() or done.exception())
        budget = limit + max(OVERRUN_SECONDS, limit)
        pid = self._worker_pid()
        before = cpu_seconds(pid) if pid is not None else None
        started = time.monotonic()
        while True:
            try:
                async with asyncio.timeout(budget):
                    return await asyncio.shield(job)
            except TimeoutError:
                now = cpu_seconds(pid) if pid is not None else None
                used = time.monotonic() - started if before is None or now is None \
                    else now - before
                full = limit + max(OVERRUN_SECONDS, limit)
                if used >= full or time.monotonic() - started >= STARVED_SECONDS:
                    raise
                budget = max(0.25, full - used)

    def _worker_pid(self) -> int | None:
        """The worker process's id (None for a thread, or none started yet)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return next(iter(processes), None) if len(processes) == 1 else None

    async def _check_memory(self) -> None:
        executor = self._executor
        if executor is None:
            return
        with contextlib.suppress(Exception):
            used = await asyncio.wrap_future(executor.submit(worker.memory))
            if used > self.memory_limit:
                log.info("engine worker for %s holds %d MB: replacing it", self.name,
                         used // 2**20)
                self._replace()

    async def _turn(self, priority: int) -> None:
        """Wait until the worker is free and no more urgent job waits."""
        if not self._running and not self._waiting:
            self._running = True
            return
        if self.waiting >= self.queue_limit:
            self.refused += 1
            raise EngineBusyError(f"the engine is busy with {self.name} ({self.queue_limit} "
                                  "searches waiting); try again in a moment",
                                  retry_after=self.expected_wait())
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), ticket))
        try:
            async with asyncio.timeout(self.wait_seconds):
                await ticket
        except BaseException as err:
            if ticket.done() and not ticket.cancelled():  # the turn came just as we left
                self._next()
            else:
                ticket.cancel()
            if isinstance(err, TimeoutError):
                self.refused += 1
                raise EngineBusyError(
                    f"the engine is busy with {self.name}: no worker was free within "
                    f"{self.wait_seconds:g} s; try again in a moment",
                    retry_after=self.expected_wait()) from None
            raise

    def expected_wait(self) -> float:
        """Seconds until the jobs waiting now have run, by the running mean of a job's time."""
        return (self.waiting + 1) * self.mean_seconds

    def _next(self) -> None:
        """Hand the worker to the most urgent waiting job, or mark it free."""
        while self._waiting:
            *_, ticket = heapq.heappop(self._waiting)
            if not ticket.done():
                ticket.set_result(None)
                return
        self._running = False

    def close(self) -> None:
        """Stop the worker now: its running work (the start-up warm-up, say) is not waited
        for, here or when the server's process exits."""
        executor, self._executor = self._executor, None
        if isinstance(executor, WorkerPool):
            executor.kill()
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


__all__ = ["EngineBusyError", "Lane", "Priority"]
