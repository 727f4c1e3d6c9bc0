#!/usr/bin/env python3
"""Set up the virtual environment, then run the app or the test suite.

    python3 scripts/dev.py run [ARGS...]   # the main job: `ttt ARGS` (default `ttt serve`)
    python3 scripts/dev.py test [ARGS...]  # ruff, mypy --strict, then pytest

The environment lives in `.venv` next to this project. It is created on first use and
reinstalled whenever `pyproject.toml` changes. Only the standard library is used here.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed"
DEFAULT_RUN = ["serve"]


def _fingerprint() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def ensure_venv() -> None:
    """Create or update `.venv` so that it matches `pyproject.toml`."""
    if not (BIN / "python").exists():
        print("creating virtual environment in .venv", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    if STAMP.exists() and STAMP.read_text() == _fingerprint():
        return
    print("installing tictactoe and its dependencies into .venv", file=sys.stderr)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-e", f"{ROOT}[dev]"], check=True)
    STAMP.write_text(_fingerprint())


def run(argv: list[str]) -> int:
    return subprocess.call([str(BIN / "ttt"), *(argv or DEFAULT_RUN)])


def test(argv: list[str]) -> int:
    steps = [
        [str(BIN / "ruff"), "check", "src", "tests", "scripts"],
        [str(BIN / "mypy")],
        [str(BIN / "python"), "-m", "pytest", *argv],
    ]
    for step in steps:
        print("$", " ".join(Path(step[0]).name if i == 0 else a for i, a in enumerate(step)),
              file=sys.stderr, flush=True)
        code = subprocess.call(step, cwd=ROOT)
        if code:
            return code
    return 0


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in {"run", "test"}:
        print(__doc__, file=sys.stderr)
        return 2
    ensure_venv()
    command, rest = sys.argv[1], sys.argv[2:]
    return run(rest) if command == "run" else test(rest)


if __name__ == "__main__":
    sys.exit(main())
