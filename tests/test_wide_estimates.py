"""The estimates past 64 cells read from the mover's side, whichever colour it plays, and
``ttt solve`` lists equal estimates nearest the centre first.

The levels' evaluation gives the side to move a bonus for having the move; a lone candidate
(the empty board's centre, a forced block) searched one ply handed it to the opponent, so
that X's centre on the empty 15x15 board read ``slightly better for O (estimate -1.7)``."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from needs import needs
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core import Position, Variant
from tictactoe.players.levels import player_for_level
from tictactoe.players.wide_levels import WIDE_LEVELS
from tictactoe.search.score import Draw, Heuristic, Score
from tictactoe.search.solution import best_moves
from tictactoe.search.solver import solve
from tictactoe.search.wide_settings import WideBounds

runner = CliRunner()

MOVER = ["h7", "g9", "i10", "f11"]
"""The marks of the side that must block: h7 closes the other side's four below."""
FOUR = ["h8", "h9", "h10", "h11"]
"""The other side's four on column h: h12 must be taken at once."""


def unclocked(level: str) -> WideBounds:
    """A level's bounds without its time cap: its node bounds decide, on any machine."""
    return replace(WIDE_LEVELS[level].bounds, seconds=None)


def block_position(mover: str) -> Position:
    """`MOVER` to move, `mover` (``x`` or ``o``) playing them, against `FOUR`; with O to
    move X has one more mark, in the far corner a1."""
    xs, os = (MOVER, FOUR) if mover == "x" else ([*FOUR, "a1"], MOVER)
    p = Position("15x15k5")
    for i in range(len(xs)):
        p.push_name(xs[i])
        if i < len(os):
            p.push_name(os[i])
    assert p.turn.name.lower() == mover
    return p


def estimate(score: Score) -> float:
    assert isinstance(score, Heuristic), score  # nothing here is proven: an estimate
    return score.value


@needs("fast")
@pytest.mark.parametrize("level", ["medium", "hard", "perfect"])
def test_the_first_move_on_the_empty_board_is_rated_for_x(level: str) -> None:
    p = Position("15x15k5")
    choice = player_for_level(level, seed=1).choose(p)
    assert p.move_name(choice.move) == "h8"
    assert choice.score is not None and not choice.score.is_proven
    assert estimate(choice.score) >= 0  # the first player's move, in its favour or even


@needs("fast")
def test_ttt_move_says_the_centre_is_not_better_for_o() -> None:
    result = runner.invoke(app, ["move", "15x15k5", "--level", "perfect"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("h8, unproven: ")
    assert "for O" not in result.output and "estimate -" not in result.output
    result = runner.invoke(app, ["move", "15x15k5", "--level", "perfect", "--json"])
    found = json.loads(result.output)
    assert found["score"]["kind"] == "heuristic" and not found["proven"]
    assert found["score"]["value"] >= 0


@needs("fast")
def test_the_hints_rate_the_centre_for_x() -> None:
    from tictactoe.search.wide.analysis import HINT_BOUNDS, wide_solution

    p = Position("15x15k5")
    hints = wide_solution(p, bounds=replace(HINT_BOUNDS, seconds=None))
    assert [p.move_name(c) for c in hints.best] == ["h8"]
    assert not hints.proven and estimate(hints.score) >= 0


@needs("fast")
def test_x_and_o_rate_the_opening_from_their_own_sides() -> None:
    from tictactoe.search.wide.analysis import WideAnalyst

    p = Position("15x15k5")
    analyst = WideAnalyst(p.variant)
    bounds = unclocked("perfect")
    first = analyst.analyse(p, bounds)
    reply = analyst.analyse(p.play(first.best[0]), bounds)
    # X's estimate of its move and O's of its answer: each for its own side, so the first
    # player's edge reads positive for X and negative for O
    assert estimate(first.score) > 0 > estimate(reply.score)


@needs("fast")
@pytest.mark.parametrize("mover", ["x", "o"])
def test_a_forced_block_is_rated_as_the_opponent_rates_its_reply(mover: str) -> None:
    from tictactoe.search.wide.analysis import WideAnalyst

    p = block_position(mover)
    analyst = WideAnalyst(p.variant)
    bounds = unclocked("hard")
    block = analyst.analyse(p, bounds)
    assert block.reason == "block" and [p.move_name(c) for c in block.best] == ["h12"]
    reply = analyst.analyse(p.play(block.best[0]), bounds)
    assert reply.reason == "search"
    # one side's estimate is the other's with the sign turned: they may not both say that
    # the other side is better
    assert estimate(block.score) * estimate(reply.score) < 0


@needs("fast")
def test_swapping_the_colours_keeps_the_movers_estimate() -> None:
    from tictactoe.search.wide.analysis import WideAnalyst

    scores = {}
    for mover in ("x", "o"):
        p = block_position(mover)
        scores[mover] = estimate(WideAnalyst(p.variant).analyse(p, unclocked("hard")).score)
    # the same position for the side to move, but for X's extra mark in the far corner
    assert scores["x"] > 0 and scores["o"] > 0
    assert abs(scores["x"] - scores["o"]) <= 0.5


def test_best_moves_lists_equal_estimates_nearest_the_centre_first() -> None:
    v = Variant.parse("3x3x3")
    ranked = best_moves(v, {c: Heuristic(1.0) for c in range(v.cells)})
    assert ranked[0] == 13  # the cube's centre
    assert [v.off_centre(c) for c in ranked] == sorted(v.off_centre(c) for c in ranked)
    assert sorted(ranked) == list(range(v.cells))
    # a better estimate comes alone; proven equals keep board order
    assert best_moves(v, {0: Heuristic(2.0), 13: Heuristic(1.0)}) == [0]
    assert best_moves(v, {26: Draw(), 13: Draw(), 0: Draw()}) == [0, 13, 26]


def test_proven_equal_moves_stay_in_board_order() -> None:
    assert solve("3x3").best == list(range(9))


def test_solve_ranks_equal_estimates_on_a_big_board_centre_first() -> None:
    p = Position("15x15k5")
    solution = solve(p, seconds=0.5, engine="python")
    assert not solution.proven and len(solution.best) > 1
    assert p.move_name(solution.best[0]) == "h8"
    distances = [p.variant.off_centre(c) for c in solution.best]
    assert distances == sorted(distances)


def test_ttt_solve_lists_the_centre_first() -> None:
    result = runner.invoke(app, ["solve", "15x15k5", "--seconds", "0.5"])
    assert result.exit_code == 0, result.output
    assert "an estimate, not a proof" in result.output
    assert "; best: h8 " in result.output
    result = runner.invoke(app, ["solve", "15x15k5", "--seconds", "0.5", "--json"])
    found = json.loads(result.output)
    assert found["best"][0] == "h8" and not found["proven"]
