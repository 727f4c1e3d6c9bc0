"""`ttt count` and `ttt enumerate` from the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tictactoe import Position, Status, Variant
from tictactoe.analysis.census import CENSUS_LIMIT
from tictactoe.analysis.enumerate import legal_positions
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


@pytest.fixture
def small_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every folder has 20 GB free, whatever this machine has."""
    from tictactoe.analysis import estimate

    monkeypatch.setattr(estimate, "free_disk", lambda folder: 20 * 10**9)


@pytest.mark.usefixtures("small_disk")
def test_count_refuses_a_board_that_needs_a_cluster_at_once() -> None:
    result = runner.invoke(app, ["count", "5x5k4"])
    assert result.exit_code == 2, result.output
    assert "5x5k4 needs about" in result.output and "it needs a cluster" in result.output
    assert "Traceback" not in result.output


def test_count_on_the_local_backend_prints_the_same_json() -> None:
    local = runner.invoke(app, ["count", "3x4", "--json", "--backend", "local", "--workers",
                                "2", "--shards", "3"])
    memory = runner.invoke(app, ["count", "3x4", "--json"])
    assert local.exit_code == memory.exit_code == 0, local.output
    a, b = json.loads(local.stdout), json.loads(memory.stdout)
    assert a["engine"] == "local" and b["engine"] == "compiled"
    assert set(a) == set(b)
    assert {k: v for k, v in a.items() if k not in ("seconds", "engine")} == \
        {k: v for k, v in b.items() if k not in ("seconds", "engine")}


@pytest.mark.usefixtures("small_disk")
def test_estimate_says_where_a_board_fits() -> None:
    result = runner.invoke(app, ["count", "4x5", "--estimate"])
    assert result.exit_code == 0, result.output
    assert "4x5: about 6." in result.output and "local backend" in result.output
    assert "fits" in result.output
    big = runner.invoke(app, ["count", "5x5k4", "--estimate"])
    assert "it needs a cluster" in big.output
    for flag in (["--json"], ["--plot", "e.png"], ["--backend", "local"],  # once ignored
                 ["--address", "tcp://127.0.0.1:8786"], ["--shards", "4"],  # without a word
                 ["--engine", "numpy"]):
        refused = runner.invoke(app, ["count", "3x3", "--estimate", *flag])
        assert refused.exit_code == 2 and f"{flag[0]} is for a count, not for --estimate" \
            in refused.output


def test_sharded_options_do_not_go_with_the_memory_backend() -> None:
    result = runner.invoke(app, ["count", "3x3", "--backend", "memory", "--shards", "4"])
    assert result.exit_code == 2 and "--shards is for the sharded backends" in result.output
    bad = runner.invoke(app, ["count", "3x3", "--backend", "spark"])
    assert bad.exit_code == 2 and bad.output.count("\n") == 1
    assert "unknown backend 'spark'" in bad.output


@pytest.mark.usefixtures("small_disk")
def test_count_help_names_the_limit_and_boards_it_can_count() -> None:
    """The help's examples are boards the census counts on one machine, and its limit is the
    census's own: a bigger board is refused at once."""
    from tictactoe.analysis.compiled_census import MAX_CELLS

    assert CENSUS_LIMIT == MAX_CELLS
    text = " ".join(runner.invoke(app, ["count", "--help"], env={"COLUMNS": "300"}).output
                    .replace("│", " ").split())
    found = re.search(rf"A board of at most {MAX_CELLS} cells: ([^.]+)\.", text)
    assert found is not None, text
    for example in found.group(1).split(", "):
        assert Variant.parse(example).cells <= MAX_CELLS
        estimate = runner.invoke(app, ["count", example, "--estimate"])
        assert estimate.exit_code == 0 and "needs a cluster" not in estimate.output, example
    refused = runner.invoke(app, ["count", "4x4x4"])
    assert refused.exit_code == 2
    assert f"4x4x4 has 64 cells; the census handles at most {MAX_CELLS}" in refused.output


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


@pytest.mark.parametrize(("args", "message"), [
    (["--workers", "2"],
     "--workers is for --count (where the census runs), not for listing positions"),
    (["--backend", "local", "--limit", "1"], "--backend is for --count"),
    (["--address", "tcp://127.0.0.1:8786", "--spill", ".", "--shards", "3"],
     "--address, --spill and --shards are for --count"),
    (["--count", "--limit", "3"], "--limit is for listing positions, not for --count"),
    (["--count", "--format", "csv"], "--format is for listing positions, not for --count"),
    (["--count", "--format", "text", "--limit", "0"],
     "--format and --limit are for listing positions, not for --count"),
])
def test_enumerate_refuses_options_that_do_not_apply(args: list[str], message: str) -> None:
    """An option given where it does not apply (even with its default value) is one error
    line and exit status 2, before any listing or count: never silently ignored."""
    result = runner.invoke(app, ["enumerate", "3x3", "--won", *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and message in result.output
    assert result.output.startswith("error:") and result.output.count("\n") == 1


def test_enumerate_count_by_the_lines_refuses_the_census_options() -> None:
    """Past the census's cells the count runs here, by the lines: where the census would run
    does not apply."""
    result = runner.invoke(app, ["enumerate", "7x7", "--won", "--count", "--workers", "2"])
    assert result.exit_code == 2 and result.stdout == ""
    assert ("--workers is for the census, and 7x7 has 49 cells, past its 32: it is counted by "
            "inclusion-exclusion over its lines" in result.output)


def test_enumerate_takes_the_options_that_apply() -> None:
    """Each option where it applies: --format and --limit with a listing, the census's
    options with --count."""
    listed = runner.invoke(app, ["enumerate", "3x3", "--won", "--format", "text",
                                 "--limit", "2"])
    assert listed.exit_code == 0 and len(listed.stdout.splitlines()) == 2
    counted = runner.invoke(app, ["enumerate", "3x3", "--won", "--count", "--backend",
                                  "memory"])
    assert counted.exit_code == 0 and counted.stdout.strip() == "942"



@pytest.mark.usefixtures("small_disk")
def test_enumerate_count_takes_the_sharded_route() -> None:
    local = runner.invoke(app, ["enumerate", "3x4", "--won", "--count", "--backend", "local"])
    memory = runner.invoke(app, ["enumerate", "3x4", "--won", "--count"])
    assert local.exit_code == 0 and local.stdout == memory.stdout
    assert int(local.stdout) == sum(1 for _ in legal_positions("3x4", "won"))
    too_big = runner.invoke(app, ["enumerate", "5x5k4", "--won", "--count"])
    assert too_big.exit_code == 2 and "it needs a cluster" in too_big.output
