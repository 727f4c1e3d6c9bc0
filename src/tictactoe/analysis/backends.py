"""Where a census runs: in this process's memory (``memory``), or sharded on a process pool
on this machine (``local``) or a Dask cluster (``dask``), the executors of
`tictactoe.executors`; the checks of memory and disk made before a census starts.

A task (one shard of one ply) can run again without harm (see `tictactoe.analysis.sharded`),
so a worker that dies costs only its task.
"""

from __future__ import annotations

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "the sharded census")

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tictactoe import executors
from tictactoe.analysis.sharded import PlyProgress, sharded_census
from tictactoe.core import BoardTooLargeError, Variant
from tictactoe.core.errors import CensusBackendError, SpillError
from tictactoe.executors import DaskCluster, LocalPool

BACKENDS = ("memory", "local", "dask")
"""Where a census can run: in this process's memory, on a local process pool, on Dask."""


def check_backend(name: str) -> str:
    """The backend's name, or a clear error.

    >>> check_backend("local")
    'local'
    """
    if name not in BACKENDS:
        raise CensusBackendError(f"unknown backend {name!r}: choose one of "
                                 f"{', '.join(BACKENDS)}")
    return name


def open_executor(backend: str, workers: int | None = None,
                  address: str | None = None) -> LocalPool | DaskCluster:
    """The executor for a backend name (use it as a context manager)."""
    check_backend(backend)
    if backend == "memory":
        raise CensusBackendError("the memory backend runs in this process, with no executor")
    return executors.open_executor(backend, workers, address)


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
