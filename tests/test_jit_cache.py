"""The compiled path from the command line: used for 5x5k4 and the 4x4 census, its
``seconds`` leaving out JIT, and a second process loading the machine code from the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CODE = "from tictactoe.cli import main; main()"


def _run(args: list[str], cache: Path) -> tuple[dict[str, Any], float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CODE, *args], capture_output=True, text=True,
                          env=env, timeout=600, check=True)
    return json.loads(done.stdout), time.perf_counter() - started


def _cached(cache: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")}


@pytest.mark.parametrize(("args", "check"), [
    (["solve", "5x5k4", "--json"], lambda d: d["winner"] == "draw" and d["proven"]),
    (["count", "4x4", "--json"], lambda d: d["positions"] == 9_722_011),
])
def test_compiled_path_excludes_jit_and_reuses_the_cache(
        args: list[str], check: Callable[[dict[str, Any]], bool], tmp_path: Path) -> None:
    first, first_wall = _run(args, tmp_path)
    assert first["engine"] == "compiled" and check(first)
    compiled = _cached(tmp_path)
    assert compiled, "no machine code was cached"
    # the JIT took most of the first process's time, and none of its reported seconds
    assert float(first["seconds"]) < first_wall / 2
    second, second_wall = _run(args, tmp_path)
    assert second["engine"] == "compiled" and check(second)
    assert _cached(tmp_path) == compiled  # loaded, not compiled again
    assert second_wall < first_wall
