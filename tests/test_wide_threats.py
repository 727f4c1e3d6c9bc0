"""The compiled threat search with threes (`tictactoe.search.wide.vct`) against an independent
plain-Python search of the same definition, and every claimed win checked against every
defence by the rules alone."""

from __future__ import annotations

import random

import pytest
from needs import needs
from test_large_boards import near_centre_game, play_all, sides
from threat_reference import ReferenceThreats, verify_win

from tictactoe.core import Position, Variant

pytestmark = needs("fast")


@pytest.mark.parametrize(("name", "threes", "count", "seed"), [
    ("9x9k5", 1, 60, 1), ("9x9k5", 2, 30, 2), ("15x15k5", 1, 30, 3), ("7x7k4", 2, 40, 4),
    ("5x5x5k4", 1, 30, 5),
])
def test_wins_by_threats_agree_with_an_independent_search(name: str, threes: int, count: int,
                                                          seed: int) -> None:
    from tictactoe.search.wide import WideThreats

    v = Variant.parse(name)
    rng = random.Random(seed)
    won = lost = 0
    for _ in range(count):
        p = near_centre_game(v, rng.randint(4, 24), rng)
        me, them = sides(p)
        found = WideThreats(v).threes(me, them, threes, 2_000_000)
        expected = ReferenceThreats(v).wins(me, them, threes)
        assert (found is not None) == expected, p.to_string()
        won += expected
        lost += not expected
    assert won >= count // 8 and lost >= count // 8  # both kinds were checked


def test_every_claimed_win_holds_against_every_defence() -> None:
    from tictactoe.search.wide import WideThreats

    v = Variant.parse("15x15k5")
    search = WideThreats(v)

    def suggest(mine: int, theirs: int) -> int | None:
        win = search.threes(mine, theirs, 2, 2_000_000)
        return None if win is None else win.move

    rng = random.Random(7)
    checked = 0
    while checked < 12:
        p = near_centre_game(v, rng.randint(6, 20), rng)
        me, them = sides(p)
        if search.run(me, them) is not None:
            continue  # a win by fours alone: the checker's own search covers those
        win = search.threes(me, them, 2, 2_000_000)
        if win is None:
            continue
        assert verify_win(v, me, them, suggest), p.to_string()
        checked += 1


def test_a_three_three_is_found_where_fours_alone_fail() -> None:
    from tictactoe.search.wide import WideThreats

    # X g8 h8 (a row) and i9 i10 (a column): i8 makes two open threes at once
    p = play_all(Position("15x15k5"), "g8 a1 h8 a15 i9 o1 i10 o15")
    search = WideThreats(p.variant)
    assert search.run(p.x, p.o) is None
    win = search.threes(p.x, p.o)
    assert win is not None and win.plies >= 5
    assert ReferenceThreats(p.variant).wins(p.x, p.o, 1)


def test_a_search_stopped_by_its_bound_says_so() -> None:
    from tictactoe.search.wide import WideThreats

    p = play_all(Position("15x15k5"), "h8 h6 f6 g7 f8 g8 g9 f7 e7 d6 i7 j6 g5 h4")
    search = WideThreats(p.variant)
    assert search.threes(p.x, p.o, 2, 50) is None and search.exhausted
    assert search.threes(p.x, p.o, 2, 2_000_000) is not None and not search.exhausted
