"""The beginner: a newcomer (`NewcomerPlayer`: takes a win, blocks, else the centre or any
cell) beats ``easy``, the default level, in at least a third of 3×3 games, and the levels
above it hardly ever."""

from __future__ import annotations

import pytest

from tictactoe.core import Position
from tictactoe.players.arena import play_match
from tictactoe.players.levels import DEFAULT_LEVEL, LEVEL_DESCRIPTIONS, make_player


def test_the_newcomer_takes_a_win_then_blocks_then_the_centre() -> None:
    newcomer = make_player("newcomer", seed=3)
    assert newcomer.choose(Position("xx1/oo1/3 x")).move == 2  # the win, not the block
    assert newcomer.choose(Position("xx1/o2/3 o")).move == 2  # the block
    assert newcomer.choose(Position("x2/3/3 o")).move == 4  # the centre
    assert newcomer.choose(Position("4x4")).move in (5, 6, 9, 10)  # a centre cell of four
    assert newcomer.choose(Position("3x3x3")).move == 13
    moves = {make_player("newcomer", seed=s).choose(Position("1o1/1x1/3 x")).move
             for s in range(30)}
    assert len(moves) > 3  # otherwise any cell


def test_a_newcomer_beats_the_default_level_in_a_third_of_the_games_or_more() -> None:
    assert DEFAULT_LEVEL == "easy" and "beginner" in LEVEL_DESCRIPTIONS["easy"]
    match = play_match("newcomer", "easy", games=150, seed=11)
    newcomer = match.standings[0]
    assert newcomer.wins >= newcomer.games / 3, newcomer
    assert newcomer.wins_as_x > 0 and newcomer.wins_as_o > 0, newcomer


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_the_levels_above_it_are_beaten_far_less(level: str) -> None:
    easy = play_match("newcomer", "easy", games=60, seed=5).standings[0]
    harder = play_match("newcomer", level, games=60, seed=5).standings[0]
    assert harder.wins < easy.wins / 2, (easy, harder)
