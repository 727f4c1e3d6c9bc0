"""Scores: ordering, text, JSON, and the one-ply shift used by negamax."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tictactoe.core import Side, TicTacToeError
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Loss, Score, Win
from tictactoe.search.words import HINT_CODES, hint_code

scores = st.one_of(
    st.builds(Win, st.integers(1, 64)),
    st.builds(Loss, st.integers(0, 64)),
    st.just(Draw()),
    st.builds(Heuristic, st.floats(-1e6, 1e6, allow_nan=False)),
)


def test_faster_wins_and_slower_losses_are_better() -> None:
    assert Win(1) > Win(3) > Win(9)
    assert Loss(9) > Loss(2) > Loss(0)
    assert Win(63) > Heuristic(1e9) > Draw() > Heuristic(-1e9) > Loss(63)
    assert max([Loss(4), Draw(), Win(7), Win(5)]) == Win(5)


@given(scores, scores, scores)
def test_order_is_total_and_consistent(a: Score, b: Score, c: Score) -> None:
    assert (a < b) + (a == b) + (a > b) == 1
    assert (a <= b) == (a < b or a == b)
    if a <= b <= c:
        assert a <= c
    if a == b:
        assert hash(a) == hash(b)


@given(scores)
def test_after_move_reverses_the_order_and_round_trips(a: Score) -> None:
    back = a.after_move().after_move()
    if isinstance(a, Win | Loss):
        assert type(back) is type(a) and back.plies == a.plies + 2
    else:
        assert back == a


@given(scores, scores)
def test_after_move_is_order_reversing(a: Score, b: Score) -> None:
    if a < b and not (isinstance(a, Draw) or isinstance(b, Draw)):
        assert a.after_move() > b.after_move()


@given(scores)
def test_json_and_text_round_trip(a: Score) -> None:
    assert Score.from_json(a.to_json()) == a
    if not isinstance(a, Heuristic):
        assert Score.parse(str(a)) == a


def test_text_and_winner() -> None:
    assert [str(s) for s in (Win(5), Loss(4), Draw(), Heuristic(1.5))] == [
        "win in 5", "loss in 4", "draw", "estimate +1.5"]
    assert Score.parse("estimate +1.5") == Score.parse("heuristic 1.5") == Heuristic(1.5)
    for mover in Side:
        assert Win(3).winner(mover) is mover
        assert Loss(2).winner(mover) is mover.other
        assert Draw().winner(mover) is None
        assert Heuristic(5).winner(mover) is None
    assert [s.is_proven for s in (Win(1), Loss(1), Draw(), Heuristic(0))] == [
        True, True, True, False]
    assert [s.plies for s in (Win(1), Loss(2), Draw(), Heuristic(0))] == [1, 2, None, None]
    assert Win(5).to_json() == {"kind": "win", "plies": 5}
    assert Heuristic(1.5).to_json() == {"kind": "heuristic", "value": 1.5}


def test_scores_are_frozen_and_hashable() -> None:
    assert len({Win(3), Win(3), Loss(3), Draw(), Draw()}) == 3
    with pytest.raises(AttributeError):
        Win(3).plies = 4  # type: ignore[misc]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Win(0), "Win(plies=0): a win takes at least 1 ply, the winning move itself"),
    (lambda: Win(-3), "Win(plies=-3): a win takes at least 1 ply"),
    (lambda: ForcedWin(within=0), "ForcedWin(within=0): a win takes at least 1 ply"),
    (lambda: Loss(-1), "Loss(plies=-1): a loss takes at least 0 plies"),
    (lambda: ForcedLoss(within=-2), "ForcedLoss(within=-2): a loss takes at least 0 plies"),
    (lambda: Score.parse("win in 0"), "cannot read a score from 'win in 0': Win(plies=0)"),
    (lambda: Score.parse("win within 0"), "'win within 0': ForcedWin(within=0)"),
    (lambda: Score.from_json({"kind": "win", "plies": 0}), "Win(plies=0)"),
])
def test_a_length_no_score_has_is_refused(make: Callable[[], Score], message: str) -> None:
    """A win in 0 plies (or fewer) means nothing, nor does a loss in fewer than 0."""
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


def test_a_loss_in_0_is_the_game_already_lost() -> None:
    assert Loss(0).after_move() == Win(1) and ForcedLoss(within=0).after_move() == \
        ForcedWin(within=1)
    assert Score.parse("loss in 0") == Loss(0) < Loss(2)


@given(st.one_of(scores, st.builds(ForcedWin, st.none() | st.integers(1, 64)),
                 st.builds(ForcedLoss, st.none() | st.integers(0, 64))))
def test_repr_pastes_back_exactly(a: Score) -> None:
    namespace = {kind.__name__: kind for kind in Score.__subclasses__()}
    assert eval(repr(a), namespace) == a


def test_str_is_for_people_and_rounds_an_estimate() -> None:
    """`str` prints an estimate as the front ends do, so it comes back rounded; `repr` and
    the JSON form keep every digit."""
    assert str(Heuristic(1.25)) == "estimate +1.2"
    assert Score.parse(str(Heuristic(1.25))) == Heuristic(1.2)
    assert repr(Heuristic(1.25)) == "Heuristic(value=1.25)"
    assert Score.from_json(Heuristic(1.25).to_json()) == Heuristic(1.25)


def test_bad_text_and_json_are_refused() -> None:
    for text in ("win", "won in 3", "loss in x", ""):
        with pytest.raises(TicTacToeError):
            Score.parse(text)
    with pytest.raises(TicTacToeError):
        Score.from_json({"kind": "mate"})


def test_sorting_matches_pairwise_comparison() -> None:
    sample = [Win(1), Win(4), Loss(2), Loss(7), Draw(), Heuristic(-2.0), Heuristic(3.0)]
    ordered = sorted(sample)
    for a, b in itertools.combinations(ordered, 2):
        assert a < b


@given(st.one_of(
    st.builds(Win, st.integers(1, 400)), st.builds(Loss, st.integers(1, 400)),
    st.builds(ForcedWin, st.none() | st.integers(1, 400)),
    st.builds(ForcedLoss, st.none() | st.integers(1, 400)), st.just(Draw()),
    st.builds(Heuristic, st.floats(-100, 100, allow_nan=False))))
def test_every_hint_has_exactly_one_legend_entry(score: Score) -> None:
    """A hint's short code and its words each match one entry of `HINT_CODES` in full, the
    same one: a legend built from the list explains every hint a board can show."""
    kinds = {type(s).__name__ for s in (Win(1), Loss(1), ForcedWin(), ForcedLoss(), Draw(),
                                        Heuristic(0.0))}
    assert kinds == {kind.__name__ for kind in Score.__subclasses__()}  # all drawn above
    by_code = [entry for entry in HINT_CODES if entry.matches(hint_code(score))]
    by_text = [entry for entry in HINT_CODES if entry.matches(str(score))]
    assert len(by_code) == 1 and by_code == by_text, (score, by_code, by_text)


def test_each_legend_entry_shows_its_own_kind() -> None:
    """Each entry's example code and words are what a score of its kind shows."""
    examples = (Win(3), ForcedWin(within=7), ForcedWin(), Loss(2), ForcedLoss(within=8),
                ForcedLoss(), Draw(), Heuristic(7.0))
    assert [(entry.code, entry.text) for entry in HINT_CODES] == \
        [(hint_code(score), str(score)) for score in examples]
    for entry in HINT_CODES:
        assert [other.code for other in HINT_CODES if other.matches(entry.code)] == [entry.code]
