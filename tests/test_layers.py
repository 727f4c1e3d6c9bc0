"""Imports point downward: core <- engines <- web, tui <- cli; the core stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "tictactoe"
LAYERS = {"core": 0, "engines": 1, "web": 2, "tui": 2, "cli": 3}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_imports_only_point_downward() -> None:
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) < 2 or parts[0] not in LAYERS:
            continue
        level = LAYERS[parts[0]]
        for name in _imports(path):
            if not name.startswith("tictactoe."):
                continue
            target = name.split(".")[1]
            if target in LAYERS:
                assert LAYERS[target] <= level and (
                    LAYERS[target] < level or target == parts[0]), f"{path}: imports {name}"


def test_core_has_no_heavy_imports() -> None:
    code = ("import sys, tictactoe; tictactoe.Position('3x3').status(); "
            "heavy = {'numpy', 'numba', 'typer', 'rich', 'fastapi', 'textual'} & set(sys.modules);"
            "print(sorted(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
