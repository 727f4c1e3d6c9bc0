"""`ttt solve`, `ttt move` and `ttt arena` from the command line."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from reference import minimax_for, reachable
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core import Position, Variant

runner = CliRunner()

JSON_KEYS = {"position", "winner", "plies", "best", "moves", "nodes", "seconds", "proven",
             "engine", "every_move", "estimate", "text"}


def test_solve_text() -> None:
    result = runner.invoke(app, ["solve", "3x3"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "draw (9 plies); best: a1 b1 c1 a2 b2 c2 a3 b3 c3\n"
    result = runner.invoke(app, ["solve", "4x4k3"])
    assert result.stdout.startswith("X wins in 5 plies; best: b2 c2 b3 c3")
    result = runner.invoke(app, ["solve", "x2/3/3 o", "--moves"])
    assert "best: b2; moves: b1 X wins in 6 plies" in result.stdout
    assert "b2 draw (8 plies)" in result.stdout
    result = runner.invoke(app, ["solve", "xx1/oo1/x2 o"])
    assert result.stdout == "O wins in 1 ply; best: c2\n"


def test_solve_json() -> None:
    result = runner.invoke(app, ["solve", "x2/1o1/2x o", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == JSON_KEYS
    assert data["position"] == "x2/1o1/2x o"
    assert (data["winner"], data["plies"], data["best"]) == ("draw", 6, ["b1", "a2", "c2", "b3"])
    assert data["moves"]["c1"] == {"winner": "x", "plies": 4}
    assert data["proven"] is True and data["nodes"] > 0


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_solve_value_only_agrees_with_every_move(engine: str) -> None:
    for position in ("x2/1o1/2x o", "3x3", "xo1/3/3 x", "4x4k3"):
        every = json.loads(runner.invoke(app, ["solve", position, "--json",
                                               "--engine", engine]).stdout)
        result = runner.invoke(app, ["solve", position, "--json", "--value",
                                     "--engine", engine])
        assert result.exit_code == 0, result.output
        value = json.loads(result.stdout)
        assert value["every_move"] is False and every["every_move"] is True
        assert (value["winner"], value["plies"]) == (every["winner"], every["plies"])
        [move] = value["best"]
        assert move in every["best"] and value["moves"] == {move: every["moves"][move]}


def test_solve_value_refuses_moves() -> None:
    result = runner.invoke(app, ["solve", "3x3", "--value", "--moves"])
    assert result.exit_code != 0
    assert "cannot go with --moves" in result.output


def test_solve_outcome_text_json_and_refusals() -> None:
    """``--outcome``: who wins and a move that keeps it, the distance bounded; the readable
    engine answers it with the exact value."""
    result = runner.invoke(app, ["solve", "4x4k3", "--outcome"])
    assert result.exit_code == 0, result.output
    # "a win within 5" proves at most 5 plies; X needs three marks, so at least 5
    assert result.stdout.startswith("X wins in 5 plies; keeps it: ")
    result = runner.invoke(app, ["solve", "xx1/oo1/3 x", "--outcome"])
    assert result.stdout == "X wins in 1 ply; keeps it: c1\n"
    result = runner.invoke(app, ["solve", "x2/3/3 o", "--outcome", "--json"])
    data = json.loads(result.stdout)
    assert data["winner"] == "draw" and data["move"] == "b2" and data["proven"]
    assert data["plies"] is None and data["method"] == "ab"
    result = runner.invoke(app, ["solve", "6x6k5", "--outcome", "--nodes", "1000", "--json"])
    data = json.loads(result.stdout)
    assert data["winner"] is None and not data["proven"] and data["nodes"] >= 1000
    result = runner.invoke(app, ["solve", "4x4k3", "--outcome", "--engine", "python"])
    assert result.stdout.startswith("X wins in 5 plies; best: ")
    for other in ("--value", "--moves"):
        result = runner.invoke(app, ["solve", "3x3", "--outcome", other])
        assert result.exit_code == 2
        assert "--outcome proves who wins only" in result.output


@pytest.mark.slow
def test_solve_every_open_3x3_position_from_stdin_matches_minimax() -> None:
    positions = reachable(Position("3x3"))
    moves_by_minimax = minimax_for(Variant.parse("3x3"))
    text = "\n".join(p.to_string() for p in positions) + "\n"
    result = runner.invoke(app, ["solve", "-", "--json"], input=text)
    assert result.exit_code == 0, result.output
    answers = result.stdout.splitlines()
    assert len(answers) == len(positions) == 4520
    for position, line in zip(positions, answers, strict=True):
        data = json.loads(line)
        assert data["position"] == position.to_string()
        expected = moves_by_minimax(position)
        best = max(expected.values(), key=lambda r: (r[0], -r[1] if r[0] > 0 else r[1]))
        winner = "draw" if best[0] == 0 else (
            position.turn.symbol if best[0] > 0 else position.turn.other.symbol)
        assert data["winner"] == winner
        empty = 9 - position.ply
        assert data["plies"] == (empty if best[0] == 0 else best[1])
        assert set(data["best"]) == {position.move_name(c) for c, r in expected.items()
                                     if r == best}
        assert data["proven"] is True


def test_solve_stdin_answers_one_line_each() -> None:
    result = runner.invoke(app, ["solve", "-"], input="3x3\n\nxx1/oo1/x2 o\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "3/3/3 x: draw (9 plies); best: a1 b1 c1 a2 b2 c2 a3 b3 c3",
        "xx1/oo1/x2 o: O wins in 1 ply; best: c2",
    ]
    # a bad line stops the batch after the lines before it, and the error names it
    for command, bad, why in [("solve", "foo", "unknown variant 'foo'"),
                              ("move", "x2/3/3 x", "cannot arise in play")]:
        result = runner.invoke(app, [command, "-"], input=f"3x3\n\n{bad}\n4x4k3\n")
        assert result.exit_code == 2
        assert len(result.stdout.splitlines()) == 1 and result.stdout.startswith("3/3/3 x: ")
        assert "error: line 3 of the input: " in result.output and why in result.output


def test_solve_stops_at_a_limit_and_says_so() -> None:
    result = runner.invoke(app, ["solve", "5x5k4", "--nodes", "300", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["proven"] is False and data["winner"] is None and data["best"] == ["c3"]
    result = runner.invoke(app, ["solve", "7x7k5", "--seconds", "0.3"])
    assert re.match(r"unproven: .+ \(estimate (0|[+-][\d.]+)\) \(stopped after", result.stdout), \
        result.stdout
    assert "stopped after" in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["solve", "3/3/2 x"], "row 3 has 2 cells"),
    (["solve", "xx1/3/3 o"], "cannot arise in play"),
    (["solve", "xxx/oo1/3 o"], "the game is over"),
    (["solve", "33x33"], "at most 32 are supported"),
    (["move", "3x3", "--player", "wizard"], "unknown player 'wizard'"),
    (["move", "3x3", "--level", "insane"],
     "unknown level 'insane': choose one of beginner, easy, medium, hard, perfect"),
    (["move", "3x3", "--player", "easy"], "unknown player 'easy': choose one of random, newcomer, "
     "greedy, rules, heuristic, mcts, perfect; --level easy chooses that level"),
    (["move", "xox/xoo/oxx o"], "the game is over"),
    (["move", "3x3", "--player", "heuristic", "--depth", "0"], "Invalid value"),
    (["arena", "rules", "wizard"], "unknown player 'wizard'"),
    (["arena", "rules", "random", "--variant", "3x3x3x3"], "3x3x3x3"),
])
def test_bad_input_gets_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    if "Invalid value" not in message:
        assert len(result.output.strip().splitlines()) == 1


def test_move() -> None:
    result = runner.invoke(app, ["move", "xx1/oo1/x2 o", "--player", "perfect", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"position": "xx1/oo1/x2 o", "move": "c2",
                                         "score": {"kind": "win", "plies": 1}, "proven": True}
    result = runner.invoke(app, ["move", "3x3", "--player", "rules"])
    assert result.stdout == "b2\n"
    result = runner.invoke(app, ["move", "-", "--player", "heuristic", "--depth", "2",
                                 "--seed", "1"], input="xx1/o2/3 o\n3x3\n")
    assert result.stdout.splitlines()[0] == \
        "xx1/o2/3 o: c1, unproven: slightly better for X (estimate -1)"
    assert len(result.stdout.splitlines()) == 2
    a = runner.invoke(app, ["move", "4x4k3", "--level", "easy", "--seed", "5", "--json"])
    b = runner.invoke(app, ["move", "4x4k3", "--level", "easy", "--seed", "5", "--json"])
    assert a.stdout == b.stdout and json.loads(a.stdout)["move"]


def test_move_is_bounded_on_every_board_and_says_when_unproven() -> None:
    started = time.perf_counter()
    o_first = "x3/4/4/4:4/4/4/4:4/4/4/4:4/4/4/4 o"  # O's first reply: out of reach
    result = runner.invoke(app, ["move", o_first, "--seconds", "0.5"])
    assert result.exit_code == 0, result.output
    assert time.perf_counter() - started < 30
    move, _, note = result.stdout.partition(", ")
    assert Position(o_first).parse_move(move) in Position(o_first).legal_moves()
    assert re.fullmatch(r"unproven: .+ \(estimate (0|[+-][\d.]+)\)\n", note), note
    # X on the empty cube plays from the shipped proof: a proven win, however short the limit
    result = runner.invoke(app, ["move", "4x4x4", "--seconds", "0.01", "--json"])
    answer = json.loads(result.stdout)
    assert answer["score"] == {"kind": "win", "plies": None} and answer["proven"] is True
    result = runner.invoke(app, ["move", "5x5k4", "--nodes", "2000", "--json"])
    answer = json.loads(result.stdout)
    assert answer["score"]["kind"] == "heuristic" and answer["proven"] is False
    result = runner.invoke(app, ["move", "xx1/oo1/3 x", "--seconds", "0.5"])
    assert result.stdout == "c1 (win in 1)\n"


def test_arena_table_and_plot(tmp_path: Path) -> None:
    chart = tmp_path / "arena.png"
    result = runner.invoke(app, ["arena", "rules", "perfect", "--games", "6", "--plot",
                                 str(chart)])
    assert result.exit_code == 0, result.output
    assert "3x3: 6 games, average length 9.0 plies" in result.stdout
    rows = [line for line in result.stdout.splitlines() if "rules" in line or "perfect" in line]
    assert [row.split("│")[1:6] for row in rows] == [
        [" rules   ", "    0 ", "     6 ", "      0 ", "         0 "],
        [" perfect ", "    0 ", "     6 ", "      0 ", "         0 "],
    ]
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    result = runner.invoke(app, ["arena", "perfect", "random", "--variant", "4x4k3", "--games",
                                 "4", "--seed", "2"])
    assert "4x4k3: 4 games" in result.stdout


def test_solve_engines_agree_from_the_command_line() -> None:
    answers = {}
    for engine in ("python", "compiled"):
        result = runner.invoke(app, ["solve", "-", "--json", "--engine", engine],
                               input="x2/1o1/2x o\n4x4k3\n3/1x1/3 o\n")
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        assert {row["engine"] for row in rows} == {engine}
        answers[engine] = [(r["winner"], r["plies"], r["best"], r["moves"]) for r in rows]
    assert answers["python"] == answers["compiled"]


def test_arena_on_the_cube_with_fixed_colours_and_a_limit() -> None:
    """``--no-alternate`` keeps the first player X; perfect as X wins from the proof."""
    result = runner.invoke(app, ["arena", "perfect", "random", "--variant", "4x4x4",
                                 "--games", "2", "--no-alternate", "--seconds", "0.5"])
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1:7] for line in result.stdout.splitlines()
            if "perfect" in line or "random" in line]
    assert [[cell.strip() for cell in row] for row in rows] == [
        ["perfect", "2", "0", "0", "2", "0"], ["random", "0", "0", "2", "0", "0"]]
