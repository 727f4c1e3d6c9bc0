"""Where the work of a long run goes: a process pool on this machine (``local``), a Dask
cluster (``dask``), joined by address or started on 127.0.0.1, or this process (`InProcess`,
for small runs and doctests). The sharded census and the job-level prover both run on them.

An executor is a context manager with `submit` (one call, its future) and `run_all` (many
calls, their results as they finish). A call can run again without harm in both users, so
a worker that dies costs only its call: the pool starts new workers and runs the lost calls
again; Dask's scheduler does the same on its own (a nanny restarts the worker, the call is
rescheduled), and its ``retries`` run a call again after an error.

>>> with open_executor("local", 1) as pool:
...     sorted(pool.run_all(abs, [(-2,), (1,)]))
[1, 2]
"""

from __future__ import annotations

import importlib
import logging
import os
import queue
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from types import TracebackType
from typing import Any, Protocol

from tictactoe.core.errors import CensusBackendError
from tictactoe.extras import MissingExtraError, missing_modules
from tictactoe.pools import WorkerPool, interrupts_deferred, process_pool

EXECUTOR_BACKENDS = ("local", "dask")
"""The executors a backend name chooses (`open_executor`)."""

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a Dask scheduler given by address."""

POOL_RESTARTS = 3
"""How many times in a row the pool is started again after a worker died."""

WAIT_SLICE = 0.2
"""Seconds `LocalPool.run_all` waits for a result at a time: it takes a Ctrl-C (or SIGTERM)
only between these waits, so at the latest this long after it comes."""


def check_workers(workers: int | None) -> int:
    """The number of workers asked for (one per core if none), or a clear error.

    >>> check_workers(3)
    3
    >>> check_workers(0)
    Traceback (most recent call last):
    ...
    tictactoe.core.errors.CensusBackendError: --workers must be at least 1, not 0
    """
    chosen = default_workers() if workers is None else workers
    if chosen < 1:
        raise CensusBackendError(f"--workers must be at least 1, not {chosen}")
    return chosen


def dask_missing() -> str:
    """What to install when Dask's distributed scheduler cannot be imported."""
    absent = missing_modules(["dask", "distributed"]) or ["distributed"]
    return str(MissingExtraError("the dask backend", "dask", absent))


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


class Executor(Protocol):
    """Runs calls somewhere: `LocalPool`, `DaskCluster` or `InProcess` (used as context
    managers)."""

    @property
    def name(self) -> str:
        """The backend's name."""
        ...  # pragma: no cover

    @property
    def workers(self) -> int:
        """How many calls can run at once."""
        ...  # pragma: no cover

    def submit(self, function: Callable[..., Any], *args: Any, key: str = "",
               worker: int | None = None) -> Any:
        """Run one call; its future (`concurrent.futures` or Dask's)."""
        ...  # pragma: no cover

    def run_all(self, function: Callable[..., Any], calls: Sequence[tuple[Any, ...]], *,
                keys: Sequence[str] | None = None, what: str = "calls") -> Iterator[Any]:
        """Run `function` on every tuple of arguments (again where a worker died) and yield
        each result once, as they finish. `keys` name the calls on Dask; `what` names them
        in an error."""
        ...  # pragma: no cover

    def __enter__(self) -> Any:
        ...  # pragma: no cover

    def __exit__(self, *exc: Any) -> None:
        ...  # pragma: no cover


# --------------------------------------------------------------------------- in process
class InProcess:
    """Runs each call at once in this process (one worker): for small runs and doctests.

    >>> with InProcess() as here:
    ...     here.submit(abs, -3).result(), list(here.run_all(abs, [(-1,), (2,)]))
    (3, [1, 2])
    """

    name = "in-process"
    workers = 1

    def submit(self, function: Callable[..., Any], *args: Any, key: str = "",
               worker: int | None = None) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(function(*args))
        except Exception as err:
            future.set_exception(err)
        return future

    def run_all(self, function: Callable[..., Any], calls: Sequence[tuple[Any, ...]], *,
                keys: Sequence[str] | None = None, what: str = "calls") -> Iterator[Any]:
        for args in calls:
            yield function(*args)

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


# --------------------------------------------------------------------------- local
class LocalPool:
    """A pool of worker processes on this machine (`concurrent.futures`), forked from a
    server that has imported the modules in `preload`.

    >>> with LocalPool(1) as pool:
    ...     pool.workers
    1
    """

    name = "local"

    def __init__(self, workers: int | None = None, *,
                 preload: tuple[str, ...] = ("tictactoe.analysis.sharded",)) -> None:
        self.workers = check_workers(workers)
        self.preload = preload
        self._pool: WorkerPool | None = None
        self._pinned: dict[int, WorkerPool] = {}
        """Pools of one process each, for calls sent to one worker (`submit`'s `worker`)."""
        self.restarts = 0
        """How often the pool was started again after a worker died."""
        self._failures = 0

    def _start(self, size: int | None = None) -> WorkerPool:
        return process_pool(size or self.workers, self.preload)

    def __enter__(self) -> LocalPool:
        self._pool = self._start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._pool is None:
            return
        pools = [self._pool, *self._pinned.values()]
        self._pool = None
        self._pinned.clear()
        if error is None:
            for pool in pools:
                pool.shutdown(wait=True, cancel_futures=True)
            return
        # after an error (Ctrl-C too) the workers are stopped at once, and a second Ctrl-C
        # is taken only once the pools are shut down: one raised inside `shutdown` could
        # leave a lock of the pool held, and its manager thread waiting for it for ever
        with interrupts_deferred():
            for pool in pools:
                pool.kill()
            # wait even after an error: the workers are dead, so the pool's manager thread
            # ends at once; leaving it running lets the interpreter's exit hook write to the
            # pool's closed wake-up pipe (an OSError traceback after Ctrl-C)
            for pool in pools:
                pool.shutdown(wait=True, cancel_futures=True)

    def submit(self, function: Callable[..., Any], *args: Any, key: str = "",
               worker: int | None = None) -> Future[Any]:
        """Run one call on the pool (`key` names it on Dask only); its future. With
        `worker` (0 to `workers` - 1), on that worker process, which keeps what earlier calls
        sent to it left in memory (a job's tables, for its children's jobs)."""
        assert self._pool is not None, "use LocalPool as a context manager"
        if worker is None:
            return self._pool.submit(function, *args)
        pool = self._pinned.get(worker)
        if pool is None:
            pool = self._pinned[worker] = self._start(1)
        return pool.submit(function, *args)

    def restart(self) -> None:
        """Start a new pool after a worker died (its futures all failed; with workers
        chosen, those of the dead worker's), or give up after `POOL_RESTARTS` times in a row
        (`note_success` resets the count)."""
        assert self._pool is not None, "use LocalPool as a context manager"
        self.restarts += 1
        self._failures += 1
        if self._failures > POOL_RESTARTS:
            raise CensusBackendError(f"a worker process died {self._failures} times in a row")
        if getattr(self._pool, "_broken", False):
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = self._start()
        for index, pool in list(self._pinned.items()):
            if getattr(pool, "_broken", False):
                pool.shutdown(wait=True, cancel_futures=True)
                self._pinned[index] = self._start(1)

    def note_success(self) -> None:
        """A call finished: the count of restarts in a row starts again."""
        self._failures = 0

    def run_all(self, function: Callable[..., Any], calls: Sequence[tuple[Any, ...]], *,
                keys: Sequence[str] | None = None, what: str = "calls") -> Iterator[Any]:
        """Run the calls on the pool; if a worker dies, start a new pool and run again the
        calls that had not finished.

        A Ctrl-C (or SIGTERM taken as one) is taken only between the steps below, never
        inside a method of `concurrent.futures` that holds a future's lock (as `wait` does,
        for every pending future in turn): raised there, it would leave the lock held, and
        the pool's manager thread, which takes it to fail or cancel the future when the pool
        is shut down, would wait for it for ever (the command hung after Ctrl-C)."""
        pending = list(range(len(calls)))
        failures = 0
        while pending:
            assert self._pool is not None, "use LocalPool as a context manager"
            finished: queue.SimpleQueue[Future[Any]] = queue.SimpleQueue()
            futures: dict[Future[Any], int] = {}
            try:
                for index in pending:
                    with interrupts_deferred():
                        future = self._pool.submit(function, *calls[index])
                        futures[future] = index
                        future.add_done_callback(finished.put)
                while futures:
                    done = _next_result(finished, futures)
                    if done is None:
                        continue
                    index, result = done
                    pending.remove(index)
                    failures = 0
                    yield result
            except BrokenProcessPool:
                failures += 1
                self.restarts += 1
                if failures > POOL_RESTARTS:
                    raise CensusBackendError(
                        f"a worker process died {failures} times in a row ({what} left: "
                        f"{len(pending)})") from None
                with interrupts_deferred():
                    self._pool.shutdown(wait=True, cancel_futures=True)
                    self._pool = self._start()


def _next_result(finished: queue.SimpleQueue[Future[Any]],
                 futures: dict[Future[Any], int]) -> tuple[int, Any] | None:
    """The index and result of the next call to finish (its error raised), or None if none
    finished within `WAIT_SLICE`; a Ctrl-C that comes meanwhile is taken on the way out."""
    with interrupts_deferred():
        try:
            future = finished.get(timeout=WAIT_SLICE)
        except queue.Empty:
            return None
        return futures.pop(future), future.result()


# --------------------------------------------------------------------------- dask
class DaskCluster:
    """Calls on Dask distributed: an existing cluster by `address`, or a `LocalCluster` on
    127.0.0.1 with no dashboard."""

    name = "dask"

    def __init__(self, workers: int | None = None, address: str | None = None, *,
                 retries: int = 2, connect_timeout: float | None = None) -> None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise CensusBackendError(dask_missing()) from None
        if address is not None and workers is not None:
            raise CensusBackendError("--workers sets the size of a cluster started here; with "
                                     "--address the cluster's own workers run the tasks")
        self.address = address
        self._requested = check_workers(workers)
        self.retries = retries
        self.connect_timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self.client: Any = None
        self.cluster: Any = None

    @property
    def workers(self) -> int:
        if self.client is None:
            return self._requested
        return len(self.client.scheduler_info()["workers"])

    def __enter__(self) -> DaskCluster:
        dask = _distributed()
        if self.address is None:
            self.cluster = dask.LocalCluster(n_workers=self._requested, threads_per_worker=1,
                                             processes=True, host="127.0.0.1",
                                             dashboard_address=None,
                                             silence_logs=logging.ERROR)
            self.client = dask.Client(self.cluster)
            return self
        try:
            self.client = dask.Client(self.address, timeout=self.connect_timeout)
        except (OSError, TimeoutError, ValueError) as err:
            raise CensusBackendError(
                f"cannot reach the Dask scheduler at {self.address}: {err}; start one with "
                "`dask scheduler` and workers with `dask worker ADDRESS`") from None
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = None

    def submit(self, function: Callable[..., Any], *args: Any, key: str = "",
               worker: int | None = None) -> Any:
        """Run one call on the cluster as a Dask future (with `retries`; a worker that dies
        has its call run again elsewhere by the scheduler). With `worker`, preferably on the
        cluster's worker of that rank (its addresses in order; any worker if it is gone)."""
        assert self.client is not None, "use DaskCluster as a context manager"
        where: dict[str, Any] = {}
        if worker is not None:
            addresses = sorted(self.client.scheduler_info()["workers"])
            if addresses:
                where = {"workers": [addresses[worker % len(addresses)]],
                         "allow_other_workers": True}
        return self.client.submit(function, *args, retries=self.retries, pure=False,
                                  key=key or None, **where)

    def run_all(self, function: Callable[..., Any], calls: Sequence[tuple[Any, ...]], *,
                keys: Sequence[str] | None = None, what: str = "calls") -> Iterator[Any]:
        """Submit every call as a future (with `retries`) and yield results as they come."""
        dask = _distributed()
        killed = importlib.import_module("distributed.scheduler").KilledWorker
        assert self.client is not None, "use DaskCluster as a context manager"
        run_id = uuid.uuid4().hex[:8]
        names = keys or [f"call-{index}" for index in range(len(calls))]
        futures = [self.client.submit(function, *args, retries=self.retries, pure=False,
                                      key=f"{name}-{run_id}")
                   for name, args in zip(names, calls, strict=True)]
        try:
            for future in dask.as_completed(futures):
                try:
                    yield future.result()
                except killed as err:
                    raise CensusBackendError(f"Dask gave up on a task after its workers "
                                             f"died: {err}") from None
        finally:
            self.client.cancel([f for f in futures if not f.done()])


def _distributed() -> Any:
    """The `distributed` package (untyped, so typed here as Any)."""
    return importlib.import_module("distributed")


def open_executor(backend: str, workers: int | None = None, address: str | None = None, *,
                  preload: tuple[str, ...] = ("tictactoe.analysis.sharded",),
                  ) -> LocalPool | DaskCluster:
    """The executor of a backend name, ``local`` (a process pool whose workers have imported
    `preload`) or ``dask`` (use it as a context manager)."""
    if backend not in EXECUTOR_BACKENDS:
        raise CensusBackendError(f"unknown backend {backend!r}: choose local or dask")
    if address is not None and backend != "dask":
        raise CensusBackendError("--address names a Dask scheduler: use it with --backend dask")
    if backend == "local":
        return LocalPool(workers, preload=preload)
    return DaskCluster(workers, address)
