"""``ttt bench`` on its smallest cases: the table, the JSON, and a wrong value failing."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.cli import bench as bench_module

runner = CliRunner()
SMALL = ["--case", "3x3", "--case", "3x3-strong", "--repeat", "2"]


def test_json_shape() -> None:
    result = runner.invoke(app, ["bench", "--json", *SMALL])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["cores"] >= 1 and report["jit_seconds"] >= 0
    assert [c["key"] for c in report["cases"]] == ["3x3", "3x3-strong"]
    for case in report["cases"]:
        assert case["ok"] and case["proven"] and case["result"] == "draw"
        assert case["seconds"] > 0 and case["nodes"] > 0 and case["python_seconds"] > 0
        compiled = case["every_move_seconds"] or case["seconds"]
        assert case["ratio"] == pytest.approx(case["python_seconds"] / compiled)
        assert case["met"] == (case["seconds"] <= case["target"])
    assert report["cases"][0]["every_move_seconds"] > 0  # like with like against Python
    assert report["cases"][1]["name"] == "3x3 strong solution (4,520 positions)"


def test_table() -> None:
    result = runner.invoke(app, ["bench", "--case", "3x3", "--repeat", "1"])
    assert result.exit_code == 0, result.output
    assert "3x3 solved" in result.output and "draw" in result.output
    assert "nodes/s" in result.output and "vs Python" in result.output


def test_wrong_known_value_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(bench_module.EXPECTED, "3x3", "first player wins")
    result = runner.invoke(app, ["bench", "--case", "3x3", "--repeat", "1"])
    assert result.exit_code == 1
    assert "expected first player wins" in result.output
    assert "WRONG" in result.output


def test_every_move_disagreeing_with_the_value_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from tictactoe.search import compiled

    real = compiled.solve_position

    def wrong(*args: object, **kwargs: object) -> compiled.CompiledSolution:
        r = real(*args, **kwargs)  # type: ignore[arg-type]
        return compiled.CompiledSolution(compiled.BIG - 5, r.moves, r.proven, r.nodes,
                                         r.seconds)

    monkeypatch.setattr(compiled, "solve_position", wrong)
    result = runner.invoke(app, ["bench", "--case", "3x3", "--repeat", "1"])
    assert result.exit_code == 1
    assert "every move: win in 5" in result.output


def test_unknown_case_is_a_clear_error() -> None:
    result = runner.invoke(app, ["bench", "--case", "7x7"])
    assert result.exit_code == 2
    assert "unknown case '7x7'" in result.output


def test_the_cube_strategy_case_plays_and_times_the_proofs_moves() -> None:
    result = runner.invoke(app, ["bench", "--json", "--case", "qubic-strategy"])
    assert result.exit_code == 0, result.output
    (case,) = json.loads(result.stdout)["cases"]
    assert case["ok"] and case["result"] == "X wins 20 of 20" and case["seconds"] > 0


def test_a_compile_is_never_timed() -> None:
    """A case's first call may compile its kernels (seconds on a fresh cache): the warm-up
    call takes it, untimed, and the median is of warm runs only."""
    import time

    calls: list[str] = []

    def run() -> tuple[int, str, bool]:
        calls.append("run")
        return 1, "draw", True

    def compile_first() -> None:
        calls.append("warm")
        time.sleep(0.3)

    seconds, *_ = bench_module._median(run, 3, 10.0, warm=compile_first)
    assert calls == ["warm", "run", "run", "run"] and seconds < 0.1
