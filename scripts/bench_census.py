#!/usr/bin/env python3
"""Benchmarks of the sharded census (a benchmark, not a test: it prints ratios).

    python scripts/bench_census.py                  # 4x4: local vs memory, Dask vs local
    python scripts/bench_census.py --repeat 5
    python scripts/bench_census.py --first-plies 5x5k4 10   # measure, then extrapolate

Every case runs warm: the kernels are compiled (or loaded from the cache) and the pool or
cluster is started before the clock starts; their start-up is reported apart. Cases are
interleaved and repeated, and the median and the spread are printed, since the machine may
be shared. The task overhead of Dask is its time over the process pool's on the same tasks,
and also its wall time less the time the tasks themselves report, per worker.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tictactoe.analysis.compiled_census import census_counts, warm_up
from tictactoe.analysis.estimate import estimate, human_bytes, human_seconds
from tictactoe.analysis.sharded import ShardedRun, TaskResult, sharded_census
from tictactoe.core import Variant
from tictactoe.executors import DaskCluster, Executor, LocalPool


class Timed:
    """An executor that also adds up the seconds its tasks report."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.task_seconds = 0.0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def workers(self) -> int:
        return self.inner.workers

    def submit(self, function, *args, key="", worker=None):  # type: ignore[no-untyped-def]
        return self.inner.submit(function, *args, key=key, worker=worker)

    def run_all(self, function, calls, *, keys=None, what="calls"):  # type: ignore[no-untyped-def]
        result: TaskResult
        for result in self.inner.run_all(function, calls, keys=keys, what=what):
            self.task_seconds += result.seconds
            yield result

    def __enter__(self) -> Timed:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _sharded(variant: Variant, executor: Executor, shards: int,
             max_ply: int | None = None) -> tuple[float, ShardedRun]:
    with tempfile.TemporaryDirectory(prefix="ttt-bench-") as folder:
        started = time.perf_counter()
        _, run = sharded_census(variant, executor, Path(folder) / "spill", shards,
                                max_ply=max_ply)
        return time.perf_counter() - started, run


def _spread(times: list[float]) -> str:
    return (f"median {statistics.median(times):.2f} s "
            f"(min {min(times):.2f}, max {max(times):.2f}, n={len(times)})")


def compare(name: str, repeat: int, workers: int, shards: int) -> None:
    variant = Variant.parse(name)
    warm_up()
    census_counts(variant)
    started = time.perf_counter()
    with LocalPool(workers) as pool:
        _sharded(variant, pool, shards)  # the workers load the kernels
        print(f"local pool of {workers}: start-up and first run "
              f"{time.perf_counter() - started:.2f} s (not counted)")
        started = time.perf_counter()
        with DaskCluster(workers) as cluster:
            timed = Timed(cluster)
            _sharded(variant, timed, shards)
            print(f"Dask LocalCluster of {workers}: start-up and first run "
                  f"{time.perf_counter() - started:.2f} s (not counted)")
            memory: list[float] = []
            local: list[float] = []
            dask: list[float] = []
            overhead: list[float] = []
            for _ in range(repeat):
                memory.append(census_counts(variant)["seconds"])
                local.append(_sharded(variant, pool, shards)[0])
                timed.task_seconds = 0.0
                seconds, _ = _sharded(variant, timed, shards)
                dask.append(seconds)
                overhead.append(max(0.0, seconds - timed.task_seconds / workers) / seconds)
    ratios = [b / a for a, b in zip(memory, local, strict=True)]
    dask_ratios = [b / a for a, b in zip(local, dask, strict=True)]
    print(f"{name}, {shards} shards, {workers} workers, load {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"  memory          {_spread(memory)}")
    print(f"  local           {_spread(local)}")
    print(f"  dask            {_spread(dask)}")
    print(f"  local / memory  {statistics.median(ratios):.2f}x "
          f"(runs: {', '.join(f'{r:.2f}' for r in ratios)}; target <= 1.5x)")
    print(f"  dask / local    {statistics.median(dask_ratios):.2f}x "
          f"(runs: {', '.join(f'{r:.2f}' for r in dask_ratios)})")
    print(f"  dask overhead   {100 * statistics.median(overhead):.1f}% of the run beyond the "
          f"tasks' own time per worker (runs: "
          f"{', '.join(f'{100 * o:.0f}%' for o in overhead)}; target <= 10%)")


def first_plies(name: str, plies: int, workers: int) -> None:
    """Run the first plies for real, then scale the time and disk per edge row to the
    whole census with the sampled estimate."""
    variant = Variant.parse(name)
    guess = estimate(variant)
    shards = max(2 * workers, guess.shards(workers=workers) // 64)
    with LocalPool(workers) as pool:
        _, run = _sharded(variant, pool, shards, max_ply=plies)
    edges = guess.edges_by_ply
    print(f"{name}: plies 0-{plies} on {workers} workers, {shards} shards, load "
          f"{os.getloadavg()[0]:.1f}")
    print("ply  positions (exact)  estimated  edge rows out  estimated  seconds")
    for ply, t in enumerate(run.tallies):
        print(f"{ply:3d}  {t.positions:17,}  {guess.positions_by_ply[ply]:9.3g}  "
              f"{run.rows_by_ply[ply]:13,}  {edges[ply + 1]:9.3g}  "
              f"{run.seconds_by_ply[ply]:7.2f}")
    last = len(run.tallies) - 1
    per_edge = run.seconds_by_ply[last] / max(run.rows_by_ply[last], 1)
    total_edges = sum(edges)
    print(f"measured: {per_edge * 1e9:.0f} ns per edge row at ply {last} on {workers} workers")
    print(f"whole census: about {guess.positions:.3g} positions, {total_edges:.3g} edge rows "
          f"({human_bytes(guess.written_bytes)} written), {human_bytes(guess.disk_bytes)} "
          f"of disk at the widest ply, memory estimate {human_bytes(guess.memory_bytes)}")
    core_seconds = per_edge * total_edges * workers
    print(f"time: about {human_seconds(core_seconds)} on one worker; "
          f"{human_seconds(core_seconds / 2)} here on 2; "
          f"{human_seconds(core_seconds / 64)} on 64 workers, if the shared disk keeps up")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="4x4")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--first-plies", nargs=2, metavar=("VARIANT", "PLIES"))
    args = parser.parse_args()
    if args.first_plies:
        first_plies(args.first_plies[0], int(args.first_plies[1]), args.workers)
    else:
        compare(args.variant, args.repeat, args.workers, args.shards)
    return 0


if __name__ == "__main__":
    sys.exit(main())
