"""The levels past 64 cells (gomoku): one player per level in the library and the web API,
``perfect`` at least as strong as ``hard``, and hints that label every move that loses to a
threat sequence as a loss."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from needs import needs
from starlette.exceptions import StarletteDeprecationWarning
from test_large_boards import near_centre_game, play_all

from tictactoe.core import Position, Side, Variant
from tictactoe.players.base import Limit
from tictactoe.players.levels import player_for_level
from tictactoe.players.wide_levels import WIDE_LEVELS
from tictactoe.proof.threats import ThreatSearch, threat_cells
from tictactoe.search.score import Loss

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

pytestmark = needs("fast")

THREE = "h8 a1 i8 a3 j8"
"""X's open three on row 8: O must answer it."""
QUIET = "h8 i9 j8 i8 i7 g9 h6"
"""A quiet middle game, O to move."""
WON = "h8 h6 f6 g7 f8 g8 g9 f7 e7 d6 i7 j6 g5 h4"
"""X to move wins by threats with two threes."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    from tictactoe.web.app import create_app

    app = create_app(tmp_path, warm=False, seconds=1.5, processes=False)
    with TestClient(app) as test_client:
        yield test_client


@pytest.mark.parametrize(("level", "moves"), [
    ("medium", THREE), ("medium", QUIET), ("hard", THREE), ("hard", QUIET),
    ("perfect", THREE), ("perfect", WON),
])
def test_the_web_api_and_the_library_play_the_same_move(
        client: TestClient, level: str, moves: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The level's own bounds with its clock taken away, so that its node bound decides where
    # each search stops, on this machine as on any other.
    wide = WIDE_LEVELS[level]
    monkeypatch.setitem(WIDE_LEVELS, level,
                        replace(wide, bounds=replace(wide.bounds, seconds=None)))
    position = play_all(Position("15x15k5"), moves)
    for seed in (3, 11):
        expected = player_for_level(level, seed=seed).choose(position.copy(stack=False))
        answer = client.post("/api/move", json={"position": position.to_string(),
                                                "player": level, "seed": seed})
        assert answer.status_code == 200, answer.text
        assert answer.json()["move"] == position.move_name(expected.move), (level, seed)


def test_perfect_is_at_least_as_strong_as_hard_on_15x15() -> None:
    score = 0.0
    for opening in ("h8 i9 g7", "h8 h9 j8"):
        for perfect_is_x in (True, False):
            p = play_all(Position("15x15k5"), opening)  # O to move after three stones
            perfect = player_for_level("perfect", seed=1)
            hard = player_for_level("hard", seed=2)
            while p.outcome() is None:
                player = perfect if (p.turn is Side.X) == perfect_is_x else hard
                p.push(player.choose(p, Limit()).move)
            outcome = p.outcome()
            assert outcome is not None
            winner = outcome.winner
            score += 0.5 if winner is None else float(
                (winner is Side.X) == perfect_is_x)
    assert score >= 2.0, f"perfect scored {score} of 4 against hard"


def test_hints_label_every_move_that_loses_to_fours_as_a_loss() -> None:
    from tictactoe.search.knowledge import analyse

    v = Variant.parse("15x15k5")
    fours = ThreatSearch(v)
    rng = random.Random(5)
    checked = 0
    while checked < 6:
        p = near_centre_game(v, rng.randint(8, 20), rng)
        me, them = (p.x, p.o) if p.turn is Side.X else (p.o, p.x)
        if p.is_game_over() or threat_cells(fours.board, me, them):
            continue
        solution = analyse(p, seconds=2.0)
        near = _near(p)
        losing = [c for c in near if fours.run(them, me | 1 << c) is not None]
        if not losing or len(losing) == len(near):
            continue
        for c in losing:  # the independent search says the opponent wins by fours after c
            score = solution.moves.get(c)
            assert score is not None and score.winner(p.turn) is p.turn.other, \
                (p.to_string(), p.move_name(c), score)
        checked += 1
        assert not solution.every_move  # a short list: not a badge on every cell
        estimates = [s for s in solution.moves.values() if not s.is_proven]
        assert len(estimates) <= 5


def _near(p: Position) -> set[int]:
    """The empty cells at most two steps from a mark along every axis."""
    v = p.variant
    marked = [v.coordinates(c) for c in range(v.cells) if (p.x | p.o) >> c & 1]
    return {c for c in p.legal_moves() if any(
        all(abs(a - b) <= 2 for a, b in zip(v.coordinates(c), m, strict=True))
        for m in marked)}


def test_a_lost_position_is_played_out_with_the_slowest_loss() -> None:
    # O faces X's open four (two threat cells): every move loses, but O still blocks one
    p = play_all(Position("15x15k5"), "h8 a1 i8 a3 j8 a5 k8")
    for level in ("medium", "hard", "perfect"):
        choice = player_for_level(level, seed=1).choose(p)
        assert p.move_name(choice.move) in ("g8", "l8"), level
        assert choice.score == Loss(2)
