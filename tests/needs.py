"""Tests that need an extra.

The whole suite runs with every extra installed, and there a missing extra fails the test.
The core-only run (``tests/test_core_install.py``, a venv without the extras) sets
``TICTACTOE_CORE_ONLY=1``; there such a test is skipped.
"""

from __future__ import annotations

import os

import pytest

from tictactoe.extras import available


def needs(extra: str) -> pytest.MarkDecorator:
    """Mark a test that needs an extra: skipped in the core-only run if it is missing."""
    core_only = os.environ.get("TICTACTOE_CORE_ONLY") == "1"
    return pytest.mark.skipif(core_only and not available(extra),
                              reason=f"core-only run: the {extra} extra is not installed")
