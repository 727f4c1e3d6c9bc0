"""A real core install: ``pip install .`` without extras into a fresh venv (done with uv, from
the project's own wheel and the lock's versions), then the core tests, ``ttt solve 3x3`` and
``ttt count 3x3`` there, with no numba, numpy or other extra in sight."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UV = Path(sys.executable).parent / ("uv.exe" if os.name == "nt" else "uv")
CORE_TESTS = ["test_position.py", "test_variant_and_symmetry.py", "test_score.py",
              "test_solver.py", "test_plain_census.py", "test_svg.py", "test_players.py",
              "test_plain.py", "test_layers.py", "test_extras.py"]
"""The test files that need no extra (in test_svg.py and test_extras.py, the tests that do
are skipped in this run)."""
EXTRA_MODULES = ["numba", "numpy", "textual", "fastapi", "uvicorn", "matplotlib", "resvg_py",
                 "gymnasium", "pettingzoo", "pyspiel"]


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding tictactoe without extras, and the test tools (pytest, its asyncio
    plugin, which the shared pytest settings name, and hypothesis)."""
    where = tmp_path_factory.mktemp("core") / "venv"
    env = {**os.environ, "VIRTUAL_ENV": str(where)}
    subprocess.run([str(UV), "venv", "--quiet", "--python", sys.executable, str(where)],
                   check=True, env=env)
    python = where / ("Scripts" if os.name == "nt" else "bin") / "python"
    subprocess.run([str(UV), "pip", "install", "--quiet", "--python", str(python),
                    "--constraint", str(ROOT / "requirements-dev.lock"),
                    str(ROOT), "pytest", "pytest-asyncio", "hypothesis"], check=True, env=env)
    return python


def _run(program: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    return subprocess.run([str(program), *args], capture_output=True, text=True, cwd=ROOT,
                          env={**env, "TICTACTOE_CORE_ONLY": "1"}, check=check)


@pytest.mark.slow
def test_the_core_installs_without_the_extras(core_venv: Path) -> None:
    code = ("import importlib.util, json, tictactoe; print(json.dumps([tictactoe.__file__, "
            f"[m for m in {EXTRA_MODULES!r} if importlib.util.find_spec(m)]]))")
    where, found = json.loads(_run(core_venv, "-c", code).stdout)
    assert found == []
    assert Path(where).is_relative_to(core_venv.parent.parent)  # the installed copy, not src/


@pytest.mark.slow
def test_ttt_solves_and_counts_3x3_on_the_core_install(core_venv: Path) -> None:
    ttt = core_venv.parent / ("ttt.exe" if os.name == "nt" else "ttt")
    solved = json.loads(_run(ttt, "solve", "3x3", "--json").stdout)
    assert (solved["winner"], solved["plies"], solved["engine"]) == ("draw", 9, "python")
    assert _run(ttt, "solve", "4x4k3").stdout.startswith("X wins in 5 plies")
    counted = json.loads(_run(ttt, "count", "3x3", "--json").stdout)
    assert (counted["positions"], counted["canonical_positions"]) == (5478, 765)
    assert counted["engine"] == "python"
    served = _run(ttt, "serve", check=False)
    assert served.returncode == 2
    assert "pip install 'tictactoe[web]'" in served.stderr and "Traceback" not in served.stderr


@pytest.mark.slow
def test_the_core_tests_pass_on_the_core_install(core_venv: Path) -> None:
    result = _run(core_venv, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                  *(f"tests/{name}" for name in CORE_TESTS), check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout
