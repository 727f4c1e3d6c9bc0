#!/usr/bin/env python3
"""Set up the virtual environment, then run the app or the test suite.

    python3 scripts/dev.py run [ARGS...]   # the main job: `ttt ARGS` (default `ttt serve`)
    python3 scripts/dev.py test [ARGS...]  # ruff, mypy --strict, the docs site, then pytest
    python3 scripts/dev.py lock            # refresh requirements-dev.lock from pyproject.toml

The environment lives in `.venv` next to this project. It is created on first use and
reinstalled whenever `pyproject.toml` or the lock changes. Its packages are the exact versions
pinned in `requirements-dev.lock` (every extra and the test tools), installed with uv (itself
pinned there, installed by pip), or with pip if uv cannot be installed. Only the standard
library is used here.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / ".installed"
LOCK = ROOT / "requirements-dev.lock"
DEFAULT_RUN = ["serve"]
LOCK_COMMAND = ["pip", "compile", "pyproject.toml", "--extra", "dev", "--universal",
                "--python-version", "3.11", "--quiet", "--output-file", LOCK.name]
"""The uv command that writes the lock: every extra and the test tools, for Python 3.11 and
newer on every platform."""


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in (ROOT / "pyproject.toml", LOCK, Path(__file__)):
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def _pinned(name: str) -> str | None:
    """The version the lock pins for a package, if it pins one."""
    if not LOCK.exists():
        return None
    found = re.search(rf"^{re.escape(name)}==(\S+)", LOCK.read_text(), re.MULTILINE)
    return found.group(1) if found else None


def _pip(*args: str) -> None:
    subprocess.run([str(PYTHON), "-m", "pip", "--disable-pip-version-check", "-q", *args],
                   check=True)


def _uv() -> Path | None:
    """uv inside `.venv`, installed at the version the lock pins; None if pip cannot get it."""
    uv = BIN / ("uv.exe" if os.name == "nt" else "uv")
    version = _pinned("uv")
    if uv.exists() and version:
        found = subprocess.run([str(uv), "--version"], capture_output=True, text=True)
        if found.stdout.split()[1:2] == [version]:
            return uv
    want = f"uv=={version}" if version else "uv"
    try:
        _pip("install", want)
    except subprocess.CalledProcessError:
        print("uv could not be installed; using pip instead", file=sys.stderr)
        return None
    return uv


def _create() -> None:
    if not PYTHON.exists():
        print("creating virtual environment in .venv", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)


def ensure_venv() -> None:
    """Create or update `.venv` so that it matches `pyproject.toml` and the lock."""
    _create()
    if STAMP.exists() and STAMP.read_text() == _fingerprint():
        return
    print("installing tictactoe and the locked versions of its dependencies into .venv",
          file=sys.stderr, flush=True)
    uv = _uv()
    if uv is not None:
        env = {**os.environ, "VIRTUAL_ENV": str(VENV)}
        # bytecode compiled now: importing numba and numpy from source every time (where
        # PYTHONDONTWRITEBYTECODE is set) costs seconds at the start of every command
        quiet = ["--quiet", "--compile-bytecode", "--python", str(PYTHON)]
        subprocess.run([str(uv), "pip", "sync", *quiet, str(LOCK)], check=True, env=env)
        subprocess.run([str(uv), "pip", "install", *quiet, "--no-deps", "-e", str(ROOT)],
                       check=True, env=env)
    else:
        _pip("install", "-r", str(LOCK))
        _pip("install", "--no-deps", "-e", str(ROOT))
    subprocess.run([str(PYTHON), "-m", "compileall", "-q", str(ROOT / "src")],
                   stdout=subprocess.DEVNULL, check=False)
    STAMP.write_text(_fingerprint())


def lock() -> int:
    """Write `requirements-dev.lock` afresh from `pyproject.toml` (newest versions that fit)."""
    _create()
    uv = _uv()
    if uv is None:
        return 1
    code = subprocess.call([str(uv), *LOCK_COMMAND], cwd=ROOT)
    if code == 0:
        print(f"wrote {LOCK.name}; the next run or test installs from it", file=sys.stderr)
    return code


def run(argv: list[str]) -> int:
    return subprocess.call([str(BIN / "ttt"), *(argv or DEFAULT_RUN)])


def test(argv: list[str]) -> int:
    steps = [
        [str(BIN / "ruff"), "check", "src", "tests", "scripts", "docs"],
        [str(BIN / "mypy")],
        # no --quiet: it hides the warnings from the count that --strict fails on
        [str(BIN / "mkdocs"), "build", "--strict", "--site-dir", str(VENV / "site")],
        [str(PYTHON), "-m", "pytest", *argv],
    ]
    for step in steps:
        print("$", " ".join(Path(step[0]).name if i == 0 else a for i, a in enumerate(step)),
              file=sys.stderr, flush=True)
        code = subprocess.call(step, cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        if code:
            return code
    return 0


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in {"run", "test", "lock"}:
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = sys.argv[1], sys.argv[2:]
    if command == "lock":
        return lock()
    ensure_venv()
    return run(rest) if command == "run" else test(rest)


if __name__ == "__main__":
    sys.exit(main())
