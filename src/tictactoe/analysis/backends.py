"""Where the tasks of a sharded census run: a process pool on this machine (``local``) or a
Dask cluster (``dask``), joined by address or started on this machine.

Both take a list of tasks (one shard of one ply each) and hand back results as they finish.
A task can run again without harm (see `tictactoe.analysis.sharded`), so a worker that dies
costs only its task: the pool starts new workers and runs the lost tasks again; Dask's
scheduler does the same on its own (a nanny restarts the worker, the task is rescheduled),
and its ``retries`` run a task again after an error.
"""

from __future__ import annotations

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import MissingExtraError, missing_modules, require

require("fast", "the sharded census")

import importlib
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import TracebackType
from typing import Any

from tictactoe.analysis.sharded import Job, PlyProgress, Task, TaskResult, run_task, sharded_census
from tictactoe.core import BoardTooLargeError, Variant
from tictactoe.core.errors import CensusBackendError, SpillError
from tictactoe.pools import WorkerPool, process_pool

BACKENDS = ("memory", "local", "dask")
"""Where a census can run: in this process's memory, on a local process pool, on Dask."""

def dask_missing() -> str:
    """What to install when Dask's distributed scheduler cannot be imported."""
    absent = missing_modules(["dask", "distributed"]) or ["distributed"]
    return str(MissingExtraError("the dask backend", "dask", absent))

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a Dask scheduler given by address."""

POOL_RESTARTS = 3
"""How many times in a row the pool is started again after a worker died."""


def check_backend(name: str) -> str:
    """The backend's name, or a clear error.

    >>> check_backend("local")
    'local'
    """
    if name not in BACKENDS:
        raise CensusBackendError(f"unknown backend {name!r}: choose one of "
                                 f"{', '.join(BACKENDS)}")
    return name


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1



# --------------------------------------------------------------------------- local
class LocalPool:
    """A pool of worker processes on this machine (`concurrent.futures`).

    >>> with LocalPool(1) as pool:
    ...     pool.workers
    1
    """

    name = "local"

    def __init__(self, workers: int | None = None, *,
                 preload: tuple[str, ...] = ("tictactoe.analysis.sharded",)) -> None:
        self.workers = workers or default_workers()
        self.preload = preload
        if self.workers < 1:
            raise CensusBackendError(f"--workers must be at least 1, not {self.workers}")
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
        if self._pool is not None:
            if error is not None:
                self._kill()
            # wait even after an error: the workers are dead, so the pool's manager thread
            # ends at once; leaving it running lets the interpreter's exit hook write to the
            # pool's closed wake-up pipe (an OSError traceback after Ctrl-C)
            for pool in [self._pool, *self._pinned.values()]:
                pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
            self._pinned.clear()

    def _kill(self) -> None:
        """Stop the workers now (their unfinished tasks leave nothing half-written)."""
        assert self._pool is not None
        for pool in [self._pool, *self._pinned.values()]:
            pool.kill()

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

    def run(self, job: Job, tasks: list[Task]) -> Iterator[TaskResult]:
        """Run the tasks on the pool; if a worker dies, start a new pool and run again the
        tasks that had not finished."""
        pending = list(tasks)
        failures = 0
        while pending:
            assert self._pool is not None, "use LocalPool as a context manager"
            futures: dict[Future[TaskResult], Task] = {
                self._pool.submit(run_task, job, task): task for task in pending}
            try:
                while futures:
                    done, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for future in done:
                        result = future.result()
                        pending.remove(futures.pop(future))
                        failures = 0
                        yield result
            except BrokenProcessPool:
                failures += 1
                self.restarts += 1
                if failures > POOL_RESTARTS:
                    raise CensusBackendError(
                        f"a worker process died {failures} times in a row (tasks of ply "
                        f"{pending[0].ply} left: {len(pending)})") from None
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = self._start()


# --------------------------------------------------------------------------- dask
class DaskCluster:
    """Tasks on Dask distributed: an existing cluster by `address`, or a `LocalCluster` on
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
        self._requested = workers or default_workers()
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
                                        dashboard_address=None, silence_logs=logging.ERROR)
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

    def run(self, job: Job, tasks: list[Task]) -> Iterator[TaskResult]:
        """Submit every task as a future (with `retries`) and yield results as they come."""
        dask = _distributed()
        killed = importlib.import_module("distributed.scheduler").KilledWorker
        assert self.client is not None, "use DaskCluster as a context manager"
        run_id = uuid.uuid4().hex[:8]
        futures = [self.client.submit(run_task, job, task, retries=self.retries, pure=False,
                                      key=f"census-{job.variant}-{task.ply}-{task.shard}-"
                                          f"{run_id}")
                   for task in tasks]
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


def open_executor(backend: str, workers: int | None = None,
                  address: str | None = None) -> LocalPool | DaskCluster:
    """The executor for a backend name (use it as a context manager)."""
    check_backend(backend)
    if backend == "memory":
        raise CensusBackendError("the memory backend runs in this process, with no executor")
    if address is not None and backend != "dask":
        raise CensusBackendError("--address names a Dask scheduler: use it with --backend dask")
    if backend == "local":
        return LocalPool(workers)
    return DaskCluster(workers, address)


# --------------------------------------------------------------------------- census
def check_memory(variant: Variant) -> None:
    """Refuse at once an in-memory census that would not fit in this machine's memory."""
    if variant.cells <= 16:
        return
    from tictactoe.analysis.estimate import available_memory, estimate, human_bytes

    guess = estimate(variant)
    have = available_memory()
    if guess.memory_bytes > 0.9 * have:
        raise BoardTooLargeError(
            f"{variant.name}: the in-memory census would need about "
            f"{human_bytes(guess.memory_bytes)} of memory, and {human_bytes(have)} is "
            f"available; count it with --backend local (about {human_bytes(guess.disk_bytes)} "
            "of disk) or on a cluster with --backend dask")


def check_disk(variant: Variant, spill: Path, workers: int, backend: str) -> None:
    """Refuse at once a sharded census whose shards would not fit in the spill folder."""
    if variant.cells <= 16:
        return
    from tictactoe.analysis.estimate import estimate, free_disk, human_bytes, human_seconds

    guess = estimate(variant)
    free = free_disk(spill)
    if guess.disk_bytes > free:
        hint = ("it needs a cluster: several machines sharing a larger folder (see "
                "docs/counting.md, --backend dask --address)") if backend == "local" else \
            "choose a larger shared folder with --spill"
        raise SpillError(
            f"{variant.name} needs about {human_bytes(guess.disk_bytes)} of disk for its "
            f"shards at the widest ply, and {spill} has {human_bytes(free)} free "
            f"(about {guess.positions:.2g} positions; "
            f"{human_seconds(guess.seconds(workers, sharded=True))} on {workers} workers): "
            f"{hint}")


def count_sharded(variant: Variant, backend: str, *, workers: int | None = None,
                  address: str | None = None, spill: Path | None = None,
                  shards: int | None = None,
                  progress: Callable[[PlyProgress], None] | None = None,
                  root_paths: int = 1, fault: Path | None = None,
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The census of a variant on the ``local`` or ``dask`` backend: the fields of a
    ``Census`` and what the run did (backend, workers, shards, disk...).

    Without `spill`, shards go to a new temporary folder, deleted when the census is done
    (and kept, named in the error, if it stops before). With `spill`, the finished figures
    stay there (``result.json``), so the same call answers at once; an unfinished census
    goes on from where it stopped.
    """
    from tictactoe.analysis.estimate import estimate

    check_backend(backend)
    if backend == "dask" and address is not None and spill is None:
        raise CensusBackendError("--address needs --spill: a folder that every worker of the "
                                 "cluster can reach (a shared file system)")
    temporary = spill is None
    folder = Path(tempfile.mkdtemp(prefix="ttt-census-")) if spill is None else spill
    executor = open_executor(backend, workers, address)
    try:
        check_disk(variant, folder, executor.workers if address is None else 1, backend)
        if shards is None:
            shards = estimate(variant).shards(workers=executor.workers) \
                if variant.cells > 12 else 2 * executor.workers
        with executor:
            used = executor.workers
            fields_, run = sharded_census(variant, executor, folder, shards, progress=progress,
                                          root_paths=root_paths, fault=fault)
    except BaseException:
        if temporary and not any(folder.glob("ply-*/complete.json")):
            shutil.rmtree(folder, ignore_errors=True)
        raise
    if temporary:
        shutil.rmtree(folder, ignore_errors=True)
    return fields_, dict(backend=backend, workers=used, shards=shards,
                        spill=None if temporary else str(folder),
                        peak_disk_bytes=run.peak_disk_bytes,
                        resumed_from_ply=run.resumed_from_ply, tasks_run=run.tasks_run,
                        workers_seen=len(run.workers_seen))
