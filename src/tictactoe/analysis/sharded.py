"""The sharded census: breadth-first, ply by ply, with each ply's canonical positions split
by a hash of their key into shards that live on disk, so a board can be counted with more
positions than fit in memory, on a process pool or on a Dask cluster.

One task is one shard of one ply. It reads the edge rows that the tasks of the previous ply
wrote for its shard (``.npy`` files, sorted by destination shard, with an index of offsets),
adds them up in a hash table (the same key from many parents becomes one position, its
move orders summed), settles the table (orbit sizes, per-member paths, terminal status),
tallies its figures, and writes the edge rows of its children, each to the part of a file
for the child's shard. The tasks of a ply share nothing but the spill folder, so any
executor of `tictactoe.executors` can run them.

Everything a task writes appears at once (written beside, then renamed), a task writes the
same files however often it runs, and a ply's inputs are deleted only once every task of
the ply has finished. So a task that dies can simply run again, and an interrupted census
started again with the same spill folder goes on from the tasks it had not finished.

Layout of the spill folder::

    census.json              what is being counted (variant, shards): refuses another census
    ply-07/inputs.json       the edge files into ply 7 (written when ply 6 is complete)
    ply-07/e-00012-000.npy   edge rows from task (6, 12), first chunk; its .idx.npy: offsets
    ply-07/done-00003.json   task (7, 3) finished: its tally and the files it wrote into ply 8
    ply-07/complete.json     every task of ply 7 finished: the ply's tally
    result.json              the finished census
"""

from __future__ import annotations

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "the sharded census")

import errno
import functools
import json
import os
import shutil
import signal
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tictactoe.analysis import sharded_kernels as _sk
from tictactoe.analysis.compiled_census import (
    Group,
    PlyTally,
    Table,
    census_fields,
    census_group,
    check_cells,
    check_root_paths,
    settle,
    split_wide,
    tally,
    warm_up,
)
from tictactoe.core import Variant
from tictactoe.core.errors import SpillError
from tictactoe.executors import Executor

FORMAT = 1
"""Version of the spill folder's layout."""

CHUNK_ROWS = 1 << 21
"""Edge rows a task holds in memory at once (40 bytes each, twice over while sorting)."""


@dataclass(frozen=True)
class Job:
    """Everything a task needs to know, sent with every task (small and picklable)."""

    variant: str
    shards: int
    spill: str
    root_paths: int = 1
    chunk_rows: int = CHUNK_ROWS
    fault: str | None = None
    """Fault injection for the tests: a file holding "ply shard"; the task it names claims it
    (renames it away) and kills its own process halfway through writing its edges."""


@dataclass(frozen=True)
class Task:
    """One shard of one ply."""

    ply: int
    shard: int


@dataclass
class TaskResult:
    """What a task reports back (also kept in its ``done`` file)."""

    ply: int
    shard: int
    tally: dict[str, int]
    files: list[str]
    """Edge files written into the next ply, relative to the spill folder."""
    rows: int
    bytes: int
    seconds: float
    worker: int = 0
    """Process id of the worker that ran it."""


# --------------------------------------------------------------------------- files
def _ply_dir(spill: Path, ply: int) -> Path:
    return spill / f"ply-{ply:02d}"


def _done_path(spill: Path, task: Task) -> Path:
    return _ply_dir(spill, task.ply) / f"done-{task.shard:05d}.json"


def _spill_errors(spill: Path, what: str) -> Callable[[OSError], SpillError]:
    def convert(err: OSError) -> SpillError:
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            return SpillError(f"the spill folder {spill} is full (no space left on device) "
                              f"while {what}: free some space or choose another --spill, then "
                              "run the same command again to go on from where it stopped")
        return SpillError(f"cannot write to the spill folder {spill} while {what}: "
                          f"{err.strerror or err}")
    return convert


class _Writer:
    """A file's ``write`` alone: numpy then writes arrays through it in blocks, so a full
    disk surfaces as the system's own error (ENOSPC), not as a short count."""

    def __init__(self, handle: Any) -> None:
        self.write = handle.write


def _write_atomic(path: Path, write: Callable[[Any], None]) -> int:
    """Write a file beside its name, then rename it into place; returns its size."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(temporary, "wb") as handle:
            write(_Writer(handle))
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path.stat().st_size


def _write_json(path: Path, data: Any) -> int:
    return _write_atomic(path, lambda h: h.write(json.dumps(data).encode()))


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def check_spill(spill: Path) -> None:
    """Make the spill folder if needed and prove it takes a file, or say why not."""
    convert = _spill_errors(spill, "checking it")
    if spill.exists() and not spill.is_dir():
        raise SpillError(f"the spill folder {spill} is not a folder")
    try:
        spill.mkdir(parents=True, exist_ok=True)
        probe = spill / f".probe-{uuid.uuid4().hex}"
        probe.write_bytes(b"0" * 4096)
        probe.unlink()
    except OSError as err:
        raise convert(err) from None


def _manifest(job: Job) -> dict[str, Any]:
    return {"format": FORMAT, "variant": job.variant, "shards": job.shards,
            "root_paths": str(job.root_paths)}


def _claim_spill(job: Job) -> None:
    """Record what this spill folder counts, or check it is the same census."""
    spill = Path(job.spill)
    path = spill / "census.json"
    wanted = _manifest(job)
    if path.exists():
        found = _read_json(path)
        if found != wanted:
            raise SpillError(
                f"the spill folder {spill} holds a census of {found.get('variant')} in "
                f"{found.get('shards')} shards; use another folder, or the same variant and "
                "--shards to go on with it")
        return
    try:
        _write_json(path, wanted)
    except OSError as err:
        raise _spill_errors(spill, "starting")(err) from None


# --------------------------------------------------------------------------- the task
def run_task(job: Job, task: Task) -> TaskResult:
    """Merge, settle, tally and expand one shard of one ply (see the module's docstring)."""
    spill = Path(job.spill)
    try:
        return _run_task(job, task, spill)
    except OSError as err:
        raise _spill_errors(spill, f"counting ply {task.ply}, shard {task.shard}")(
            err) from None


def _run_task(job: Job, task: Task, spill: Path) -> TaskResult:
    warm_up()
    started = time.perf_counter()
    variant, group, lines = _board(job.variant)
    n = variant.cells
    here = _ply_dir(spill, task.ply)
    inputs: list[str] = _read_json(here / "inputs.json")["files"]
    table = _merge(spill, inputs, task.shard)
    settled = settle(table, task.ply, variant, group, lines)
    del table
    figures = tally(settled)
    files: list[str] = []
    rows = written = 0
    if task.ply < n:
        after = _ply_dir(spill, task.ply + 1)
        after.mkdir(exist_ok=True)
        bits = np.array([1 << c for c in range(n)], dtype=np.uint64)
        buffer = np.empty((job.chunk_rows, _sk.COLUMNS), dtype=np.uint64)
        dest = np.empty(job.chunk_rows, dtype=np.int64)
        scratch_keys = np.zeros(n, dtype=np.uint64)
        scratch_moves = np.zeros(n, dtype=np.uint64)
        start = chunk = 0
        mover_shift = np.uint64(0 if task.ply % 2 == 0 else 32)
        while start < len(settled):
            start, count = _sk.expand_edges(
                settled.keys, settled.p_hi, settled.p_lo, settled.m_hi, settled.m_lo,
                settled.orbit, settled.status, start, mover_shift,
                np.uint64(variant.full_mask), bits, group.tables, job.shards, buffer, dest,
                scratch_keys, scratch_moves)
            if count == 0:
                continue
            name = f"ply-{task.ply + 1:02d}/e-{task.shard:05d}-{chunk:03d}.npy"
            written += _write_edges(spill / name, buffer, dest, count, job.shards)
            files.append(name)
            rows += count
            chunk += 1
            _maybe_fail(job, task)
    result = TaskResult(task.ply, task.shard, figures.to_json(), files, rows, written,
                        time.perf_counter() - started, os.getpid())
    _write_json(_done_path(spill, task), asdict(result))
    return result


@functools.cache
def _board(name: str) -> tuple[Variant, Group, np.ndarray]:
    """The variant, its symmetry group's tables and its lines, once per worker process."""
    variant = Variant.parse(name)
    return variant, census_group(variant), np.array(variant.line_masks, dtype=np.uint64)


def _merge(spill: Path, inputs: list[str], shard: int) -> Table:
    """Every edge row into this shard, summed per key in a table."""
    slices = []
    total = 0
    for name in inputs:
        offsets = np.load(spill / (name[:-4] + ".idx.npy"))
        low, high = int(offsets[shard]), int(offsets[shard + 1])
        if high > low:
            slices.append((name, low, high))
            total += high - low
    table = Table.empty(max(total // 2, 1))
    for name, low, high in slices:
        rows = np.array(np.load(spill / name, mmap_mode="r")[low:high])
        start = 0
        while start < len(rows):
            if table.count >= table.limit - 1:
                table = table.grown()
            start, table.count = _sk.merge_rows(rows, start, table.keys, table.counts,
                                                table.count, table.limit - 1)
    return table


def _write_edges(path: Path, buffer: np.ndarray, dest: np.ndarray, count: int,
                 shards: int) -> int:
    """Sort rows by destination shard and write them (three columns if no high word is
    used), with their offsets beside them. Returns the bytes written."""
    width = _sk.COLUMNS if _sk.any_wide(buffer, count) else 3
    out = np.empty((count, width), dtype=np.uint64)
    offsets = np.zeros(shards + 1, dtype=np.int64)
    _sk.partition(buffer, dest, count, shards, out, offsets)
    size = _write_atomic(path, lambda h: np.save(h, out))
    index = path.with_name(path.name[:-4] + ".idx.npy")
    return size + _write_atomic(index, lambda h: np.save(h, offsets))


def _maybe_fail(job: Job, task: Task) -> None:
    if job.fault is None:
        return
    fault = Path(job.fault)
    try:
        if fault.read_text().split() != [str(task.ply), str(task.shard)]:
            return
        fault.rename(fault.with_name(fault.name + ".claimed"))
    except OSError:  # already claimed by an earlier run of this task
        return
    os.kill(os.getpid(), signal.SIGKILL)


# --------------------------------------------------------------------------- the driver
@dataclass
class PlyProgress:
    """How a sharded census stands, after each task."""

    ply: int
    plies: int
    shards_done: int
    shards: int
    positions: int
    """Positions of this ply counted so far (orbit sizes added up)."""
    disk_bytes: int
    rate: float
    """Positions per second over this ply."""


@dataclass
class ShardedRun:
    """What a sharded census did, besides its figures."""

    tallies: list[PlyTally] = field(default_factory=list)
    resumed_from_ply: int | None = None
    tasks_run: int = 0
    peak_disk_bytes: int = 0
    seconds_by_ply: list[float] = field(default_factory=list)
    disk_by_ply: list[int] = field(default_factory=list)
    """Bytes of edge rows written into each ply (the ply's input)."""
    rows_by_ply: list[int] = field(default_factory=list)
    """Edge rows the tasks of each ply wrote (into the next ply)."""
    workers_seen: set[int] = field(default_factory=set)
    complete: bool = False


def sharded_census(variant: Variant, executor: Executor, spill: Path, shards: int, *,
                   progress: Callable[[PlyProgress], None] | None = None,
                   root_paths: int = 1, max_ply: int | None = None, keep: bool = False,
                   fault: Path | None = None) -> tuple[dict[str, Any], ShardedRun]:
    """Count a variant with the sharded census: the fields of a ``Census`` and a record of
    the run. With `max_ply`, stop after that ply (the figures then cover plies 0 to
    `max_ply` only, and the run can be continued later with the same spill folder)."""
    check_cells(variant)
    check_root_paths(variant, root_paths)
    if shards < 1:
        raise SpillError(f"--shards must be at least 1, not {shards}")
    check_spill(spill)
    job = Job(variant.name, shards, str(spill), root_paths,
              fault=str(fault) if fault is not None else None)
    _claim_spill(job)
    started = time.perf_counter()
    run = ShardedRun()
    group = _board(variant.name)[1]
    stored = spill / "result.json"
    if stored.exists():
        fields_ = _read_json(stored)
        fields_["seconds"] = time.perf_counter() - started
        run.resumed_from_ply, run.complete = variant.cells + 1, True
        return _fields_from_json(fields_), run
    n = variant.cells
    last = n if max_ply is None else min(n, max_ply)
    disk = _existing_bytes(spill)
    computed = False  # a ply counted by this run (before it, the plies found were kept)
    try:
        for ply in range(last + 1):
            here = _ply_dir(spill, ply)
            complete = here / "complete.json"
            if complete.exists():
                record = _read_json(complete)
                run.tallies.append(PlyTally(**record["tally"]))
                run.seconds_by_ply.append(record["seconds"])
                run.disk_by_ply.append(record["input_bytes"])
                run.rows_by_ply.append(record["next_rows"])
                if record["next_rows"] == 0:
                    run.complete = True
                    break
                continue
            if ply == 0:
                disk += _write_root(spill, shards, root_paths)
            if not computed and ply > 0:
                run.resumed_from_ply = ply  # the plies before it were counted by an earlier run
            computed = True
            ply_started = time.perf_counter()
            results, disk = _run_ply(job, executor, ply, n, shards, run, disk, progress)
            total = PlyTally()
            for r in results:
                total = total + PlyTally(**r.tally)
            next_files = sorted(f for r in results for f in r.files)
            next_rows = sum(r.rows for r in results)
            input_bytes = _read_json(here / "inputs.json")["bytes"]
            seconds = time.perf_counter() - ply_started
            if ply < n:
                after = _ply_dir(spill, ply + 1)
                after.mkdir(exist_ok=True)
                _write_json(after / "inputs.json",
                            {"files": next_files, "rows": next_rows,
                             "bytes": sum(r.bytes for r in results)})
            _write_json(complete, {"tally": total.to_json(), "next_rows": next_rows,
                                   "seconds": seconds, "input_bytes": input_bytes})
            disk -= _delete_inputs(here)
            run.tallies.append(total)
            run.seconds_by_ply.append(seconds)
            run.disk_by_ply.append(input_bytes)
            run.rows_by_ply.append(next_rows)
            if next_rows == 0:
                run.complete = True
                break
    except OSError as err:
        raise _spill_errors(spill, "recording a finished ply")(err) from None
    fields_ = census_fields(variant, group, run.tallies, time.perf_counter() - started,
                            executor.name)
    if run.complete:
        _write_json(stored, {**fields_, "games": _stringify(fields_["games"]),
                             "canonical_games": _stringify(fields_["canonical_games"])})
        if not keep:
            for ply_dir in spill.glob("ply-*"):
                shutil.rmtree(ply_dir, ignore_errors=True)
    return fields_, run


def _stringify(value: Any) -> Any:
    """Game counts as decimal strings in the stored result (exact whatever reads them)."""
    if isinstance(value, dict):
        return {k: str(v) for k, v in value.items()}
    return None if value is None else str(value)


def _fields_from_json(data: dict[str, Any]) -> dict[str, Any]:
    data["games"] = {k: int(v) for k, v in data["games"].items()}
    if data["canonical_games"] is not None:
        data["canonical_games"] = int(data["canonical_games"])
    return data


def _write_root(spill: Path, shards: int, root_paths: int) -> int:
    """The input of ply 0: one edge row for the empty board."""
    here = _ply_dir(spill, 0)
    here.mkdir(exist_ok=True)
    hi, lo = split_wide(root_paths)
    buffer = np.array([[0, lo, lo, hi, hi]], dtype=np.uint64)
    dest = np.array([_sk.shard_of(np.uint64(0), shards)], dtype=np.int64)
    size = _write_edges(here / "e-root.npy", buffer, dest, 1, shards)
    _write_json(here / "inputs.json", {"files": ["ply-00/e-root.npy"], "rows": 1,
                                       "bytes": size})
    return size


def _run_ply(job: Job, executor: Executor, ply: int, n: int, shards: int, run: ShardedRun,
             disk: int, progress: Callable[[PlyProgress], None] | None,
             ) -> tuple[list[TaskResult], int]:
    """Run the tasks of a ply not yet done; returns every task's result and the disk in use."""
    spill = Path(job.spill)
    results: list[TaskResult] = []
    todo: list[Task] = []
    for shard in range(shards):
        task = Task(ply, shard)
        done = _done_path(spill, task)
        if done.exists():
            results.append(TaskResult(**_read_json(done)))
        else:
            todo.append(task)
    started = time.perf_counter()
    positions = sum(r.tally["positions"] for r in results)

    def report() -> None:
        if progress is not None:
            rate = positions / max(time.perf_counter() - started, 1e-9)
            progress(PlyProgress(ply, n, len(results), shards, positions, disk, rate))

    report()
    calls = [(job, task) for task in todo]
    keys = [f"census-{job.variant}-{task.ply}-{task.shard}" for task in todo]
    for result in executor.run_all(run_task, calls, keys=keys, what=f"tasks of ply {ply}"):
        results.append(result)
        run.tasks_run += 1
        run.workers_seen.add(result.worker)
        positions += result.tally["positions"]
        disk += result.bytes
        run.peak_disk_bytes = max(run.peak_disk_bytes, disk)
        report()
    return results, disk


def _delete_inputs(here: Path) -> int:
    """Delete a finished ply's edge files; returns the bytes freed."""
    freed = 0
    for path in here.glob("e-*.npy"):
        freed += path.stat().st_size
        path.unlink()
    for path in here.glob(".*.tmp"):
        path.unlink(missing_ok=True)
    return freed


def _existing_bytes(spill: Path) -> int:
    return sum(p.stat().st_size for p in spill.glob("ply-*/e-*.npy"))
