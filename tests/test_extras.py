"""The extras: pyproject.toml, `tictactoe.extras` and the lock agree; a missing extra gives a
clear error that names it; without numba (and numpy) the readable routes answer.

Missing packages are simulated in a subprocess by blocking their import
(``sys.modules[name] = None``), so these run in the full environment;
test_core_install.py checks a real install without the extras.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from needs import needs

from tictactoe.extras import (
    EXTRAS,
    MissingExtraError,
    available,
    missing,
    missing_modules,
    packages,
    require,
)

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
OPTIONAL = PYPROJECT["project"]["optional-dependencies"]


def test_every_extra_is_declared_and_part_of_all() -> None:
    assert set(EXTRAS) <= set(OPTIONAL)
    (everything,) = OPTIONAL["all"]
    assert everything == f"tictactoe[{','.join(EXTRAS)}]"


def test_the_core_needs_only_light_packages() -> None:
    names = {re.split(r"[<>=!~\[ ;]", req)[0].lower() for req in PYPROJECT["project"]
             ["dependencies"]}
    assert names == {"typer", "rich"}


@needs("fast")
def test_every_extra_is_installed_in_the_full_environment() -> None:
    assert {extra: missing(extra) for extra in EXTRAS} == {extra: [] for extra in EXTRAS}


def test_require_names_the_extra() -> None:
    with pytest.raises(MissingExtraError) as caught:
        raise MissingExtraError("ttt serve", "web", ["fastapi", "uvicorn"])
    assert isinstance(caught.value, ImportError)
    assert str(caught.value) == ("ttt serve needs the packages fastapi, uvicorn, but they are "
                                 "not installed: pip install 'tictactoe[web]'")
    with pytest.raises(KeyError, match="unknown extra 'turbo'"):
        require("turbo", "warp speed")
    assert available("fast") == (missing("fast") == [])


def test_the_message_names_what_pip_installs_not_the_module() -> None:
    message = str(MissingExtraError("ttt show --png", "plot", ["resvg_py"]))
    assert message == ("ttt show --png needs the package resvg-py, but it is not installed: "
                       "pip install 'tictactoe[plot]'")
    message = str(MissingExtraError("the envs", "envs", ["resvg_py", "PIL"]))
    assert "the packages resvg-py, pillow, but they are" in message
    assert str(MissingExtraError("it", "openspiel", ["pyspiel", "open_spiel"])).startswith(
        "it needs the package open-spiel, but it is not installed")


def _requirement_names(extra: str) -> set[str]:
    """The packages an extra of pyproject.toml installs, through the extras it includes."""
    names: set[str] = set()
    for text in OPTIONAL[extra]:
        name, _, rest = re.split(r"[<>=!~ ;]", text)[0].partition("[")
        included = rest.rstrip("]").split(",") if rest else []
        if name == "tictactoe":
            names |= {n for e in included for n in _requirement_names(e)}
        else:
            names |= {name.lower(), *included}  # dask[distributed] installs distributed
    return names


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_each_module_is_named_by_a_package_its_extra_installs(extra: str) -> None:
    assert set(packages(EXTRAS[extra])) <= _requirement_names(extra)


def _lock() -> dict[str, str]:
    from packaging.markers import Marker

    pins = {}
    for line in (ROOT / "requirements-dev.lock").read_text().splitlines():
        if not line or line.startswith((" ", "#")):
            continue
        requirement, _, marker = line.partition(";")
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        name, _, version = requirement.strip().partition("==")
        pins[name.lower().replace("_", "-")] = version
    return pins


@needs("fast")
def test_the_lock_satisfies_pyproject() -> None:
    """Every requirement of the core, the extras and the test tools is pinned, at a version
    that fits; otherwise run ``python3 scripts/dev.py lock``."""
    from packaging.requirements import Requirement

    pins = _lock()
    requirements = [*PYPROJECT["project"]["dependencies"],
                    *(r for group in OPTIONAL.values() for r in group)]
    unpinned, unfit = [], []
    for text in requirements:
        requirement = Requirement(text)
        name = requirement.name.lower().replace("_", "-")
        if name == "tictactoe":
            continue
        if name not in pins:
            unpinned.append(name)
        elif not requirement.specifier.contains(pins[name], prereleases=True):
            unfit.append(f"{name}=={pins[name]} ({requirement.specifier})")
    assert (unpinned, unfit) == ([], [])
    assert "tictactoe" not in pins


BLOCKING = """
import json, sys
for name in {blocked!r}:
    sys.modules[name] = None
results = {{}}
def attempt(label, action):
    try:
        results[label] = ["ok", repr(action())]
    except Exception as err:
        results[label] = [type(err).__name__, str(err), isinstance(err, ImportError)]
{body}
print(json.dumps(results))
"""


def _blocked(modules: list[str], body: str) -> dict[str, list[object]]:
    code = BLOCKING.format(blocked=modules, body=body)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _cli(args: list[str], modules: list[str]) -> subprocess.CompletedProcess[str]:
    code = (f"import sys\nfor name in {modules!r}:\n    sys.modules[name] = None\n"
            f"sys.argv = ['ttt', *{args!r}]\nfrom tictactoe.cli import main\nmain()")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_without_numba_the_readable_routes_answer() -> None:
    results = _blocked(["numba"], """
from tictactoe.search import solve, solve_value
from tictactoe.analysis import census
attempt("solve", lambda: (solve("3x3").engine, str(solve("3x3").score)))
attempt("value", lambda: (solve_value("4x4k3").engine, str(solve_value("4x4k3").score)))
attempt("census", lambda: census("3x3").engine)
attempt("compiled", lambda: solve("3x3", engine="compiled"))
attempt("import", lambda: __import__("tictactoe.search.compiled"))
attempt("compiled census", lambda: census("3x3", engine="compiled"))
""")
    assert results["solve"] == ["ok", repr(("python", "draw"))]
    assert results["value"] == ["ok", repr(("python", "win in 5"))]
    with_numpy = not missing_modules(["numpy"])  # the core-only run has none
    assert results["census"] == ["ok", repr("numpy" if with_numpy else "python")]
    fast = "pip install 'tictactoe[fast]'"
    for label in ("compiled", "import", "compiled census"):
        kind, message, is_import_error = results[label]
        assert kind == "MissingExtraError" and is_import_error
        assert str(message).endswith(fast) and "numba" in str(message)


def test_without_numpy_either_the_census_is_plain_python() -> None:
    results = _blocked(["numba", "numpy"], """
from tictactoe.analysis import census
attempt("census", lambda: (census("3x3").engine, census("3x3").positions))
attempt("numpy", lambda: census("3x3", engine="numpy"))
""")
    assert results["census"] == ["ok", repr(("python", 5478))]
    assert results["numpy"][0] == "MissingExtraError"


def test_the_command_line_without_the_extras() -> None:
    heavy = ["numba", "numpy", "textual", "fastapi", "uvicorn", "matplotlib", "resvg_py"]
    solved = _cli(["solve", "3x3", "--json"], heavy)
    assert json.loads(solved.stdout)["engine"] == "python"
    counted = _cli(["count", "3x3", "--json"], heavy)
    assert json.loads(counted.stdout)["positions"] == 5478
    for args, extra in ((["serve"], "web"), (["bench", "--quick"], "fast"),
                        (["count", "3x3", "--plot", "chart.png"], "plot"),
                        (["show", "3x3", "--png", "board.png"], "plot")):
        result = _cli(args, heavy)
        assert result.returncode == 2, (args, result.stderr)
        assert f"pip install 'tictactoe[{extra}]'" in result.stderr
        assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) <= 3
    png = _cli(["show", "3x3", "--png", "board.png"], ["resvg_py"])
    # the package pip installs, not the module (matplotlib is named too where it is missing)
    assert "resvg-py" in png.stderr and "not installed" in png.stderr
    assert "resvg_py" not in png.stderr


def test_the_terminal_app_environments_and_openspiel_name_their_extras() -> None:
    results = _blocked(["textual", "gymnasium", "pyspiel"], """
attempt("tui", lambda: __import__("tictactoe.tui.app"))
attempt("envs", lambda: __import__("tictactoe.envs").envs.gymnasium_env)
attempt("openspiel", lambda: __import__("tictactoe.envs.openspiel"))
attempt("plain", lambda: __import__("tictactoe.tui.plain") and "plain mode")
""")
    for label, extra in (("tui", "tui"), ("envs", "envs"), ("openspiel", "openspiel")):
        kind, message, _ = results[label]
        assert kind == "MissingExtraError"
        assert str(message).endswith(f"pip install 'tictactoe[{extra}]'")
    assert results["plain"] == ["ok", repr("plain mode")]
