"""One scale for estimates: every engine's unproven value lies on `Heuristic`'s scale (-100
to +100 for the side to move), and the command line, the terminal app and the web page say
it in the same words (`tictactoe.search.words`)."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core import Position, Side
from tictactoe.players.base import Limit
from tictactoe.players.heuristic import HeuristicPlayer, depth_limited_scores
from tictactoe.players.levels import player_for_level
from tictactoe.players.mcts import mcts_search
from tictactoe.search.evaluation import open_lines
from tictactoe.search.score import ESTIMATE_BOUNDS, Heuristic, Score
from tictactoe.search.solver import solve
from tictactoe.search.words import estimate_words, hint_words, reply_words, side_words
from tictactoe.tui.engine import value_label
from tictactoe.tui.plain import _hint_text

runner = CliRunner()


def _random_position(variant: str, marks: int, seed: int) -> Position:
    rng = random.Random(seed)
    while True:
        board = Position(variant)
        for _ in range(marks):
            board.push(rng.choice(board.legal_moves()))
            if board.is_game_over():
                break
        if not board.is_game_over():
            return board


def _on_scale(score: Score | None) -> bool:
    return not isinstance(score, Heuristic) or -100.0 <= score.value <= 100.0


@pytest.mark.parametrize("seed", range(4))
def test_every_engine_estimates_on_one_scale(seed: int) -> None:
    # a 7x7 board with many open lines: the evaluation-function player's raw count of open
    # lines runs past 90 there, and Monte Carlo's win rate is 2w - 1 before the scale
    board = _random_position("7x7k4", 6, seed)
    scores, _ = depth_limited_scores(board, 1, open_lines)
    assert all(map(_on_scale, scores.values()))
    assert _on_scale(HeuristicPlayer(depth=1, seed=seed).choose(board).score)
    assert _on_scale(mcts_search(board, random.Random(seed), iterations=300).score)
    for level in ("easy", "medium", "hard"):
        choice = player_for_level(level, seed).choose(board.copy(), Limit(seconds=0.5))
        assert _on_scale(choice.score), (level, choice.score)
    solution = solve(board, nodes=2_000)
    assert all(map(_on_scale, [solution.score, *solution.moves.values()]))


def test_monte_carlo_gives_its_win_rate_on_the_scale() -> None:
    values = [found.score.value for seed in range(6)
              if isinstance((found := mcts_search(_random_position("4x4k3", 3, seed),
                                                  random.Random(seed), iterations=200)).score,
                            Heuristic)]
    assert values and all(-100 <= v <= 100 for v in values)
    assert max(map(abs, values)) > 1.0, values  # 100 × (2w - 1), not the bare 2w - 1


def test_the_bands_read_the_same_everywhere() -> None:
    bands = {0.0: 0, 0.3: 0, -1.2: -1, 4.0: 2, -25.0: -3, 95.0: 4, -3.0: -2}
    assert ESTIMATE_BOUNDS == (0.5, 3.0, 20.0, 90.0)
    for value, band in bands.items():
        score = Heuristic(value)
        assert score.band == band, value
        assert value_label(score) == f"not proven: {reply_words(score)}"
        assert _hint_text(score) == hint_words(score)
        assert side_words(score, Side.X) == estimate_words(score, "X", "O")
        number = str(score).removeprefix("estimate ")
        for text in (reply_words(score), hint_words(score), side_words(score, Side.O)):
            assert text.endswith(f"estimate {number})"), text


def test_the_command_line_says_an_estimate_in_the_library_words() -> None:
    # the evaluation-function player at a fixed depth answers the same twice: the line the
    # command prints is the JSON's score in `side_words`
    position = "7x7k5"
    asked = ["move", position, "--player", "heuristic", "--depth", "2", "--seed", "3"]
    as_json = runner.invoke(app, [*asked, "--json"])
    assert as_json.exit_code == 0, as_json.output
    answer = json.loads(as_json.stdout)
    score = Score.from_json(answer["score"])
    assert isinstance(score, Heuristic) and answer["proven"] is False
    plain = runner.invoke(app, asked)
    assert plain.stdout == f"{answer['move']}, unproven: {side_words(score, Side.X)}\n"
    solved = runner.invoke(app, ["solve", position, "--seconds", "0.3", "--json"])
    data = json.loads(solved.stdout)
    assert data["proven"] is False and -100 <= data["estimate"] <= 100
    assert data["text"] == side_words(Heuristic(data["estimate"]), Side.X)
