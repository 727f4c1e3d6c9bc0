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
import multiprocessing
import os
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


class EngineBusyError(RuntimeError):
    """No worker can take the job now (the message says why); try again later."""


class Lane:
    """One engine worker and its queue (see the module's description)."""

    def __init__(self, name: str, *, processes: bool, queue_limit: int, wait_seconds: float,
                 memory_limit: int = 2 * 1024**3, niceness: int = 0) -> None:
        self.name = name
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
        """Worker processes replaced (after a crash or for their memory)."""

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

    def _replace(self) -> None:
        """Let the worker go (it finishes nothing more) and start a new one on the next job."""
        executor, self._executor = self._executor, None
        if executor is not None:
            self.restarts += 1
            executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, priority: Priority, work: Callable[..., T], *args: object) -> T:
        """Run ``work(*args)`` on the worker once it is this job's turn (``priority`` orders
        the queue). Raises `EngineBusyError` if the job is refused."""
        await self._turn(priority)
        try:
            future = self._start().submit(work, *args)
            try:
                result = await asyncio.wrap_future(future)
            except BrokenProcessPool:
                self._replace()
                raise EngineBusyError(
                    f"the engine worker for {self.name} stopped and is being restarted; "
                    "try again in a moment") from None
            self.done += 1
            if self.processes and self.done % 16 == 0:
                await self._check_memory()
            return result
        finally:
            self._next()

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
                                  "searches waiting); try again in a moment")
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
                    f"{self.wait_seconds:g} s; try again in a moment") from None
            raise

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
