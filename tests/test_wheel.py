"""The wheel holds the package and no test code: no tests, no test helpers (such as the web
server's harness, `tests/reliability.py`), no scripts.

The wheel is built with uv (the dev extra's, next to this Python) from a copy of what the build
reads, so that a `build/` folder left in the project by an earlier build cannot add stale
files to it. uv gets the build backend from its cache when it can (``--offline``), else from
the index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parent.parent
UV = Path(sys.executable).parent / ("uv.exe" if os.name == "nt" else "uv")
BUILD_INPUTS = ["pyproject.toml", "README.md", "src"]
"""What the build reads: the settings, the readme (the long description) and the sources."""
TEST_FOLDERS = {"tests", "test", "scripts"}


def _test_code(name: str) -> bool:
    path = PurePosixPath(name)
    if TEST_FOLDERS & set(path.parts[:-1]):
        return True
    stem = path.name.split(".", 1)[0]
    return (stem in {"conftest", "reliability"} or stem.startswith("test_")
            or stem.endswith("_test"))


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    source = tmp_path_factory.mktemp("source")
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns(
                "__pycache__", "*.egg-info", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    command = [str(UV), "build", "--wheel", "--quiet", "--out-dir", str(out), str(source)]
    built = subprocess.run([*command, "--offline"], capture_output=True, text=True, env=env)
    if built.returncode != 0:  # the build backend is not in uv's cache yet
        built = subprocess.run(command, capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_the_wheel_holds_the_package(wheel_files: list[str]) -> None:
    for name in ("tictactoe/__init__.py", "tictactoe/web/app.py", "tictactoe/py.typed",
                 "tictactoe/web/static/index.html"):
        assert name in wheel_files
    others = {PurePosixPath(name).parts[0] for name in wheel_files} - {"tictactoe"}
    assert len(others) == 1 and others.pop().endswith(".dist-info")  # nothing else at the top


def test_the_wheel_holds_no_test_code(wheel_files: list[str]) -> None:
    assert [name for name in wheel_files if _test_code(name)] == []


@pytest.mark.parametrize("name", ["tests/reliability.py", "tictactoe/tests/x.py",
                                  "scripts/bench_web.py", "tictactoe/web/reliability.py",
                                  "tictactoe/test_app.py", "conftest.py", "tictactoe/a_test.py"])
def test_the_check_finds_test_code(name: str) -> None:
    assert _test_code(name)


@pytest.mark.parametrize("name", ["tictactoe/web/app.py", "tictactoe/testing_aid.py",
                                  "tictactoe-0.1.0.dist-info/entry_points.txt"])
def test_the_check_passes_package_files(name: str) -> None:
    assert not _test_code(name)
