"""A local pool busy with many calls stops on Ctrl-C or SIGTERM, every time.

The driver of `LocalPool.run_all` used to wait with `concurrent.futures.wait`, which takes
the lock of every pending future in turn; a Ctrl-C raised there left some held, and the
pool's manager thread, failing or cancelling those futures at shutdown, waited for them
for ever (``ttt count --backend local --shards 4096`` hung in about one Ctrl-C in ten, the
bare pool below in one in two). The stop is a race, so each test tries several times.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from needs import needs
from subprocesses import take_ctrl_c
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core.errors import CensusBackendError
from tictactoe.executors import LocalPool

STOPPED_WITHIN = 30.0
"""Seconds a run may take to stop after the signal (it takes well under one)."""

DRIVER = """
import sys, time
from tictactoe.executors import LocalPool
from tictactoe.pools import stop_on_terminate
stop_on_terminate()
try:
    with LocalPool(2, preload=()) as pool:
        for done, _ in enumerate(pool.run_all(time.sleep, [(0.001,)] * 20000)):
            if done == 20:
                print("running", flush=True)
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    sys.exit(130)
"""


def _alive(group: int) -> list[int]:
    """The processes of a process group still running (zombies, which no one reaps here,
    left out)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":
                alive.append(int(stat.parent.name))
    return alive


def _stop(process: subprocess.Popen[str], sent: signal.Signals) -> tuple[int | None, str]:
    """Send `sent` to a running child (the leader of its own process group), and return its
    exit status and stderr, or None if it has not stopped within `STOPPED_WITHIN` seconds
    (then its whole group is killed). Also checks that no worker outlives it."""
    assert process.poll() is None, process.communicate()
    process.send_signal(sent)
    try:
        _, err = process.communicate(timeout=STOPPED_WITHIN)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate()
        return None, err
    left = time.monotonic() + 10
    while _alive(process.pid) and time.monotonic() < left:
        time.sleep(0.1)
    assert _alive(process.pid) == [], "a worker outlived its pool"
    return process.returncode, err


def _interrupted(process: subprocess.Popen[str], sent: signal.Signals, attempt: int) -> str:
    """`_stop`, which must find the child stopped with status 130; its stderr."""
    code, err = _stop(process, sent)
    assert code is not None, f"attempt {attempt + 1}: hung after {sent.name}\n{err}"
    assert code == 130, err
    return err


@contextlib.contextmanager
def _group_killed_after(process: subprocess.Popen[str]) -> Iterator[None]:
    """Whatever happens in the block, the child's process group is gone after it."""
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=take_ctrl_c)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="signals, reads /proc")
def test_a_busy_pool_stops_on_every_interrupt(tmp_path: Path) -> None:
    """Thousands of short calls keep the driver waiting on thousands of pending futures:
    a signal at any moment stops it at once, with nothing left running."""
    chance = random.Random(7)
    for attempt, sent in enumerate([signal.SIGINT, signal.SIGTERM] * 3):
        process = _start(["-c", DRIVER], tmp_path)
        with _group_killed_after(process):
            assert process.stdout is not None
            assert process.stdout.readline() == "running\n", process.communicate()
            time.sleep(chance.uniform(0.1, 1.0))
            err = _interrupted(process, sent, attempt)
        assert err == "interrupted\n"  # no traceback, no leaked semaphores


@needs("fast")
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="signals, reads /proc")
def test_a_sharded_count_with_many_shards_stops_on_every_interrupt(tmp_path: Path) -> None:
    """``ttt count --backend local`` with 4096 shards a ply, stopped mid-ply by Ctrl-C or
    ``kill``: it exits at once with the hint to go on."""
    chance = random.Random(11)
    code_ = "from tictactoe.cli import main; main()"
    for attempt, sent in enumerate([signal.SIGINT, signal.SIGTERM, signal.SIGINT]):
        spill = tmp_path / f"spill-{attempt}"
        process = _start(["-c", code_, "count", "4x4", "--backend", "local", "--shards",
                          "4096", "--spill", str(spill)], tmp_path)
        with _group_killed_after(process):
            started = time.monotonic()
            while not (spill / "ply-01").exists():  # the tasks of ply 0 are running
                assert process.poll() is None, process.communicate()
                assert time.monotonic() - started < 60, "the count did not start"
                time.sleep(0.1)
            time.sleep(chance.uniform(0.2, 2.0))
            err = _interrupted(process, sent, attempt)
        assert f"interrupted; run the same command with --spill {spill} to go on" in err
        assert "Traceback" not in err and "leaked" not in err


@needs("fast")
@pytest.mark.parametrize("backend", ["local", pytest.param("dask", marks=needs("dask"))])
@pytest.mark.parametrize("workers", ["0", "-1"])
def test_workers_below_one_are_refused(backend: str, workers: str) -> None:
    refused = CliRunner().invoke(app, ["count", "3x3", "--backend", backend, "--workers",
                                       workers])
    assert refused.exit_code == 2
    assert f"--workers must be at least 1, not {workers}" in refused.output


def test_a_pool_of_no_workers_is_refused() -> None:
    with pytest.raises(CensusBackendError, match="at least 1, not 0"):
        LocalPool(0)
