"""The measure of `scripts/bench_gomoku.py`'s table: fours spent without purpose."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_gomoku.py"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_gomoku", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_gomoku", module)
    spec.loader.exec_module(module)
    return module


EARLY = "h8 a1 i8 a2 j8 g8 k8 l8 h9 a3 h10 a4 h11 h12 h7"
"""X's four k8 is blocked at l8; X wins later with the h file, after a quiet move (h9)."""
IN_ATTACK = "h8 a1 i8 a2 j8 g8 h9 a3 h10 a4 k8 l8 h11 h12 h7"
"""The same moves, the four k8 played within X's final attack (after the open three h10)."""


def test_a_blocked_four_counts_as_spent_only_outside_the_winners_final_attack() -> None:
    blocked_fours = bench().blocked_fours
    assert blocked_fours(EARLY) == (1, 0)
    assert blocked_fours(IN_ATTACK) == (0, 0)
    assert blocked_fours(" ".join(EARLY.split()[:10])) == (1, 0)  # unfinished: all count
