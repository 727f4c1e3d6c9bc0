"""One-shot commands take the path that answers soonest, loading included: the readable
search and the numpy census on small boards, without loading the compiled kernels; the
kernels where they pay."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tictactoe.analysis.census import quickest_engine as quickest_census
from tictactoe.core import Position, Variant
from tictactoe.search.solver import quickest_engine

RUN = """
import json, sys
from tictactoe.cli import main
sys.argv = ["ttt", *{args!r}]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(m for m in ("numpy", "numba") if m in sys.modules)))
"""


def run(args: list[str]) -> tuple[dict[str, object], list[str]]:
    """The command's JSON answer and which of numpy and numba it imported."""
    done = subprocess.run([sys.executable, "-c", RUN.format(args=args)], capture_output=True,
                          text=True, timeout=300, check=True)
    answer, loaded = done.stdout.strip().splitlines()
    return json.loads(answer), json.loads(loaded)


@pytest.mark.parametrize(("args", "engine", "loaded"), [
    (["solve", "3x3", "--json"], "python", []),
    (["solve", "x2/1o1/2x o", "--json"], "python", []),
    (["solve", "4x4k3", "--json", "--value"], "python", []),
    (["solve", "4x4", "--json"], "compiled", ["numba", "numpy"]),
    (["count", "3x3", "--json"], "numpy", ["numpy"]),
    (["count", "4x4k3", "--json"], "compiled", ["numba", "numpy"]),
])
def test_one_shot_commands_take_the_quickest_path(args: list[str], engine: str,
                                                   loaded: list[str]) -> None:
    answer, modules = run(args)
    assert answer["engine"] == engine
    assert modules == loaded


def test_move_on_a_small_board_does_not_load_the_kernels() -> None:
    answer, modules = run(["move", "xx1/oo1/3 x", "--json"])
    assert answer["move"] == "c1" and modules == []


def test_the_quick_paths_give_the_same_answers() -> None:
    from tictactoe.analysis.census import census
    from tictactoe.search.solver import solve

    for name in ("3x3", "x2/1o1/2x o", "4x4k3", "3x4k3"):
        position = Position(name)
        quick, kernels = solve(position, engine="python"), solve(position, engine="compiled")
        assert (quick.moves, quick.best) == (kernels.moves, kernels.best)
    for name in ("3x3", "3x4"):
        quick_census, kernel_census = census(name, engine="numpy"), census(name)
        for field in ("positions", "by_ply", "terminal", "games", "canonical_positions",
                      "canonical_games"):
            assert getattr(quick_census, field) == getattr(kernel_census, field)


def test_once_the_kernels_are_loaded_they_answer() -> None:
    from tictactoe.analysis import census_kernels  # noqa: F401
    from tictactoe.search.compiled import kernels  # noqa: F401

    assert quickest_engine(Position("3x3")) == "auto"
    assert quickest_census(Variant.parse("3x3")) == "auto"
