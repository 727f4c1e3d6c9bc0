"""Helpers for tests that run a child process and send it Ctrl-C (or SIGTERM)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time


def take_ctrl_c() -> None:
    """In the child: take Ctrl-C as on a terminal, even when this test run ignores it (a
    background job starts with SIGINT ignored, and Python keeps an ignored SIGINT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ttt_stopped(args: list[str], sent: signal.Signals, after: float) -> tuple[int, str, float]:
    """Run ``ttt ARGS``, send it `sent` once `after` seconds have passed (it must still be
    running), and return its exit status, its stderr and how long it took to stop."""
    code = "from tictactoe.cli import main; main()"
    with subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, preexec_fn=take_ctrl_c) as process:
        try:
            time.sleep(after)
            assert process.poll() is None, process.communicate()
            start = time.monotonic()
            process.send_signal(sent)
            _, err = process.communicate(timeout=20)
            stopped_after = time.monotonic() - start
        finally:
            process.kill()
    return process.returncode, err, stopped_after
