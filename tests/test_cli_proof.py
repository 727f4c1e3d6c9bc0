"""``ttt check-proof`` from the command line: a valid proof, a corrupted one, bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.proof.small import write_small_proof

runner = CliRunner()


def test_check_proof_accepts_a_valid_proof_and_reports_figures(tmp_path: Path) -> None:
    path = tmp_path / "4x3.proof.gz"
    write_small_proof("4x3", path)
    result = runner.invoke(app, ["check-proof", str(path), "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["value"] == "x" and figures["variant"] == "4x3"
    assert figures["positions"] > 1 and figures["forced_derived"] == figures["leaves"]["F"]
    result = runner.invoke(app, ["check-proof", str(path)])
    assert "valid" in result.stdout


def test_check_proof_names_the_first_failure(tmp_path: Path) -> None:
    path = tmp_path / "3x3.proof"
    write_small_proof("3x3", path)
    lines = path.read_text().splitlines()
    first_move = next(i for i, line in enumerate(lines) if line.startswith("M "))
    cell = int(lines[first_move].split()[1])
    lines[first_move] = f"M {(cell + 1) % 9}"  # another opening: the tree no longer fits it
    path.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["check-proof", str(path)])
    assert result.exit_code == 1
    assert "invalid proof: line" in result.output and "Traceback" not in result.output


def test_check_proof_bad_input(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check-proof", str(tmp_path / "missing.proof")])
    assert result.exit_code == 2 and "no proof file" in result.output
    junk = tmp_path / "junk.proof"
    junk.write_text("not a proof\n")
    result = runner.invoke(app, ["check-proof", str(junk)])
    assert result.exit_code == 1 and "invalid proof" in result.output
    assert "Traceback" not in result.output


def test_prove_refuses_a_position_that_cannot_arise_and_writes_nothing(tmp_path: Path) -> None:
    """As `ttt solve` does: a proof of such a position would fail the checker's first line."""
    out = tmp_path / "p.proof"
    for text, why in [("x2/3/3 x", "cannot arise in play: with 1 X and 0 O it is O's turn"),
                      ("xxx/xo1/3 o", "cannot arise in play: X has 4 marks and O has 1"),
                      ("xxx/oo1/3 o", "the game is over (won by X)"),
                      ("8/8/8/8/8/8/8/7x x 5", "cannot arise in play"),
                      ("9/9/9/9/9/9/9/9/8x x 4", "cannot arise in play")]:
        for extra in ([], ["--jobs", str(tmp_path / "jobs")]):
            result = runner.invoke(app, ["prove", text, "--out", str(out), *extra])
            assert result.exit_code == 2, result.output
            assert why in result.output and "Traceback" not in result.output
            assert not out.exists()


def test_prove_out_json_stopped_by_a_limit_still_prints_its_figures(tmp_path: Path) -> None:
    out = tmp_path / "p.proof"
    result = runner.invoke(app, ["prove", "4x8k4", "--nodes", "2000", "--out", str(out),
                                 "--json"])
    assert result.exit_code == 1 and not out.exists()
    figures = json.loads(result.stdout.strip().splitlines()[0])
    assert figures["value"] == "unknown" and figures["written"] is False
    assert figures["nodes"] >= 2000
