"""`ttt count` and `ttt enumerate` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tictactoe import Position, Status
from tictactoe.cli import app

runner = CliRunner()


def test_count_json_has_the_documented_keys() -> None:
    result = runner.invoke(app, ["count", "tictactoe", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("variant", "positions", "by_ply", "terminal", "canonical_positions",
                "canonical_terminal", "games", "canonical_games", "seconds"):
        assert key in data
    assert data["variant"] == "3x3"
    assert data["positions"] == 5478 and data["canonical_games"] == 26830
    assert set(data["terminal"]) == set(data["games"]) == {"x", "o", "draw"}


def test_count_text_and_plot(tmp_path: Path) -> None:
    chart = tmp_path / "counts.png"
    result = runner.invoke(app, ["count", "3x4", "--plot", str(chart)])
    assert result.exit_code == 0, result.output
    assert "111,973 reachable positions" in result.stdout
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_count_refuses_a_board_too_big_at_once() -> None:
    result = runner.invoke(app, ["count", "5x5k4"])
    assert result.exit_code == 2
    assert "feasible up to 16 cells" in result.output
    assert "Traceback" not in result.output


def test_unknown_variant_is_one_line_error() -> None:
    result = runner.invoke(app, ["count", "3x3x"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "unknown variant" in result.output


def test_enumerate_streams_legal_won_positions_on_big_boards() -> None:
    for variant in ("5x5k4", "4x4x4"):
        result = runner.invoke(app, ["enumerate", variant, "--won", "--limit", "1000"])
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert len(lines) == 1000 and len(set(lines)) == 1000
        for line in lines:
            p = Position(line)
            assert p.status() == Status.VALID and p.winner() is not None


def test_enumerate_count_and_formats() -> None:
    counted = runner.invoke(app, ["enumerate", "3x3", "--won", "--count"])
    assert counted.stdout.strip() == "942"
    listed = runner.invoke(app, ["enumerate", "3x3", "--won"])
    assert len(listed.stdout.splitlines()) == 942
    terminal = runner.invoke(app, ["enumerate", "3x3", "--terminal", "--format", "jsonl"])
    rows = [json.loads(line) for line in terminal.stdout.splitlines()]
    assert len(rows) == 958 and sum(r["result"] == "draw" for r in rows) == 16
    csv_out = runner.invoke(app, ["enumerate", "3x3", "--all", "--format", "csv", "--limit", "5"])
    assert csv_out.stdout.splitlines()[0] == "position,result,ply"
    assert len(csv_out.stdout.splitlines()) == 6


def test_enumerate_needs_exactly_one_kind() -> None:
    result = runner.invoke(app, ["enumerate", "3x3"])
    assert result.exit_code == 2 and "exactly one" in result.output
    too_big = runner.invoke(app, ["enumerate", "5x5k4", "--won", "--count"])
    assert too_big.exit_code == 2 and "cells" in too_big.output
