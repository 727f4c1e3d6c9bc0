"""Process pools start and stop cleanly: a Ctrl-C while a worker is starting (its
forkserver still importing the modules it preloads) is taken once the worker has started,
so the driver can stop it, and nothing is printed after the command has ended."""

from __future__ import annotations

import os
import subprocess
import sys
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

