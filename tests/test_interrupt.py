"""Long jobs stop cleanly on Ctrl-C, even inside a compiled search with no time limit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from subprocesses import take_ctrl_c


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
@pytest.mark.parametrize("args", [["9x4k4", "--threads", "1"], ["9x4k4", "--threads", "2"],
                                  ["7x7k5", "--value", "--threads", "1"],
                                  ["7x7k5", "--value", "--threads", "2"],
                                  ["7x7k5", "--outcome", "--threads", "2"]])
def test_ctrl_c_stops_an_unlimited_compiled_solve(args: list[str]) -> None:
    code = "from tictactoe.cli import main; main()"
    with subprocess.Popen(
            [sys.executable, "-c", code, "solve", *args, "--seconds", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=take_ctrl_c) as process:
        try:
            time.sleep(5)  # past start-up and the kernel cache load: well into the search
            assert process.poll() is None, process.communicate()
            sent = time.monotonic()
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=20)
            stopped_after = time.monotonic() - sent
        finally:
            process.kill()
    assert process.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    assert stopped_after < 5
