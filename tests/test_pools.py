"""Process pools start and stop cleanly: a Ctrl-C while a worker is starting (its
forkserver still importing the modules it preloads) is taken once the worker has started,
so the driver can stop it, and nothing is printed after the command has ended."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

DRIVER = """
import os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from tictactoe.pools import process_pool
pool = process_pool(1, ["slow_to_import"])
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
started = time.perf_counter()
try:
    pool.submit(os.getpid)
    time.sleep(5)
except KeyboardInterrupt:
    print(f"interrupted after {time.perf_counter() - started:.1f} s")
    for process in list(pool._processes.values()):
        process.kill()
    pool.shutdown(wait=True, cancel_futures=True)
    sys.exit(130)
"""


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_while_a_worker_starts_leaves_nothing_behind(tmp_path: Path) -> None:
    (tmp_path / "slow_to_import.py").write_text("import time\ntime.sleep(2)\n")
    environment = {**os.environ,
                   "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    result = subprocess.run([sys.executable, "-c", DRIVER], capture_output=True, text=True,
                            timeout=120, env=environment)
    assert result.returncode == 130, result.stderr
    assert result.stdout.startswith("interrupted after ")
    assert float(result.stdout.split()[2]) >= 1.5  # once the worker had started
    assert result.stderr == ""  # no traceback from a worker whose parent had gone



def _alive(group: int) -> list[int]:
    """The processes of a process group that still run (not zombies, which no one reaps
    here)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sigterm_stops_a_job_run_and_its_workers(tmp_path: Path) -> None:
    """``kill`` (SIGTERM) to a ``ttt prove --jobs`` run alone is taken as Ctrl-C: it exits
    with the interrupted message, and its workers, mid-job, stop with it. (By default the
    process ended at once and its workers ran on for their jobs, 30 s or more here.)"""
    log = tmp_path / "err.txt"
    code = "from tictactoe.cli import main; main()"
    with log.open("w") as err, subprocess.Popen(
            [sys.executable, "-c", code, "prove", "8x8k5", "--jobs", str(tmp_path / "jobs"),
             "--workers", "2", "--job-nodes", "1000000", "--table-mb", "64"],
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True) as process:
        try:
            started = time.perf_counter()
            while "2 running" not in log.read_text():  # the first progress line
                assert process.poll() is None, log.read_text()
                assert time.perf_counter() - started < 120, "the run did not start"
                time.sleep(0.2)
            time.sleep(1)
            process.terminate()
            process.wait(timeout=30)
            left = time.perf_counter() + 15
            while _alive(process.pid) and time.perf_counter() < left:
                time.sleep(0.2)
            assert _alive(process.pid) == []
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, log.read_text()
    assert "interrupted: the finished jobs are kept" in log.read_text()
