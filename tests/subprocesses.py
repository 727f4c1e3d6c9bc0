"""Helpers for tests that run a child process and send it Ctrl-C."""

from __future__ import annotations

import signal


def take_ctrl_c() -> None:
    """In the child: take Ctrl-C as on a terminal, even when this test run ignores it (a
    background job starts with SIGINT ignored, and Python keeps an ignored SIGINT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
