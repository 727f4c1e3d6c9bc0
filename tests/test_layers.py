"""The package's shape: imports point downward, no module imports itself in a circle, and
the rules core stays light.

Layers, from the bottom: core, extras (which optional packages are installed) and pools
(process pools that start and stop cleanly, on the standard library); proof (the proof
format and its checker, on the core alone) and executors (where long runs go: the pool,
Dask or this process); search; analysis, players and svg (pictures);
web, tui and envs (environments for PettingZoo, Gymnasium and OpenSpiel); cli. A module may
import its own package and any lower layer, never a sibling layer or a higher one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "tictactoe"
LAYERS = {"core": 0, "extras": 0, "pools": 0, "executors": 1, "proof": 1, "search": 2,
          "analysis": 3, "players": 3, "svg": 3, "web": 4, "tui": 4, "envs": 4, "cli": 5}


def _module_name(path: Path) -> str:
    parts = ["tictactoe", *path.relative_to(PACKAGE).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, tree: ast.Module | None = None) -> set[str]:
    """Every module a file imports, at the top or inside functions (or only those of `tree`,
    part of the file); ``from a import b`` counts as an import of ``a.b`` when that is a
    module of the package."""
    tree = tree or ast.parse(path.read_text())
    package = _module_name(path) if path.name == "__init__.py" else \
        _module_name(path).rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                names.add(child if child in MODULES else base)
    return names


def _with_packages(module: str, imported: set[str]) -> set[str]:
    """The modules `module` imports, with the packages each import runs first: importing
    ``a.b.c`` runs ``a/b/__init__.py`` too (its own packages are already being imported)."""
    own = {module.rsplit(".", depth)[0] for depth in range(module.count(".") + 1)}
    found = set(imported)
    for name in imported:
        parts = name.split(".")
        found.update(parent for parent in (".".join(parts[:i]) for i in range(1, len(parts)))
                     if parent in MODULES and parent not in own)
    return found


GRAPH = {name: {m for m in _imports(path) if m in MODULES} for name, path in MODULES.items()}


def _module_level(path: Path) -> ast.Module:
    """The statements that run when the module is imported: its body, with the bodies of
    its top-level ``try``, ``with`` and ``if`` blocks (but not ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text())
    kept: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                todo[:0] = [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            todo[:0] = [*node.body, *node.orelse, *node.finalbody,
                        *(s for h in node.handlers for s in h.body)]
        elif isinstance(node, ast.With):
            todo[:0] = node.body
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            kept.append(node)
    return ast.Module(body=kept, type_ignores=[])


def _imported_at_load(path: Path) -> set[str]:
    """The package's modules that importing `path` imports at once (packages included)."""
    names = _imports(path, _module_level(path))
    return _with_packages(_module_name(path), {m for m in names if m in MODULES})


LOAD_GRAPH = {name: _imported_at_load(path) for name, path in MODULES.items()}
"""What each module imports when it is imported (not inside functions)."""


def _layer(module: str) -> tuple[str, int] | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in LAYERS:
        return None
    return parts[1], LAYERS[parts[1]]


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a sibling layer or a higher one, as ``module -> target``."""
    found = []
    for name in sorted(graph):
        own = _layer(name)
        if own is None:
            continue
        for target in sorted(graph[name]):
            other = _layer(target)
            if other is not None and other[0] != own[0] and other[1] >= own[1]:
                found.append(f"{name} -> {target}")
    return found


def test_imports_only_point_downward() -> None:
    assert _upward(GRAPH) == []


def test_the_layer_check_finds_upward_and_sideways_imports() -> None:
    graph = {"tictactoe.core.x": {"tictactoe.search.y"}, "tictactoe.search.y": {"tictactoe.core.x"},
             "tictactoe.players.z": {"tictactoe.analysis.w", "tictactoe.players.v"},
             "tictactoe.analysis.w": set(), "tictactoe.players.v": set()}
    assert _upward(graph) == ["tictactoe.core.x -> tictactoe.search.y",
                              "tictactoe.players.z -> tictactoe.analysis.w"]


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module, or a module that imports
    itself (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles() -> None:
    assert _circles(GRAPH) == []


def test_no_circles_when_the_modules_load() -> None:
    # a circle here breaks an import in a fresh process, whichever module comes first
    assert _circles(LOAD_GRAPH) == []


def test_a_circle_through_a_package_init_is_found() -> None:
    # importing a.b.c runs a/b/__init__.py: a circle through it is a circle
    imported = _with_packages("tictactoe.search.compiled.kernels", {"tictactoe.search.pn.tss"})
    assert "tictactoe.search.pn" in imported
    assert "tictactoe.search" not in imported  # its own package, already being imported


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert sorted(_circles(graph)) == [["a", "b", "c"], ["e"]]


def test_layer_check_sees_function_level_imports() -> None:
    # `tictactoe.search.solver` loads the compiled kernels inside a function
    assert "tictactoe.search.compiled" in GRAPH["tictactoe.search.solver"]


def test_core_has_no_heavy_imports() -> None:
    code = ("import sys, tictactoe; tictactoe.Position('3x3').status(); "
            "heavy = {'numpy', 'numba', 'typer', 'rich', 'fastapi', 'textual'} & set(sys.modules);"
            "print(sorted(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
