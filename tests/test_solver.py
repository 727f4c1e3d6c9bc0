"""The solver against a plain minimax written independently (no pruning, no tables)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from reference import Result, minimax_for, preference, reachable

from tictactoe.core import IllegalMoveError, ImpossiblePositionError, Position, Variant
from tictactoe.search.readable import clear_tables, solve_python
from tictactoe.search.score import Draw, Loss, Score, Win
from tictactoe.search.solution import solution_json
from tictactoe.search.solver import solve


def as_result(score: Score) -> Result:
    if isinstance(score, Win):
        return (1, score.plies)
    if isinstance(score, Loss):
        return (-1, score.plies)
    assert isinstance(score, Draw)
    return (0, score.plies if score.plies is not None else -1)


def check_against_minimax(position: Position,
                          moves_by_minimax: Callable[[Position], dict[int, Result]]) -> None:
    solution = solve(position)
    expected = moves_by_minimax(position)
    assert solution.proven
    assert set(solution.moves) == set(expected)
    for cell, score in solution.moves.items():
        outcome, plies = expected[cell]
        if outcome == 0:
            assert score == Draw(), (position, cell, score)
        else:
            assert as_result(score) == (outcome, plies), (position, cell, score)
    best = max(expected.values(), key=preference)
    assert set(solution.best) == {c for c, r in expected.items() if r == best}
    outcome, plies = best
    mover = position.turn
    assert solution.winner == (None if outcome == 0 else mover if outcome > 0 else mover.other)
    if outcome != 0:
        assert solution.plies == plies


@pytest.mark.slow
def test_every_open_3x3_position_matches_minimax() -> None:
    positions = reachable(Position("3x3"))
    assert len(positions) == 4520
    moves = minimax_for(Variant.parse("3x3"))
    clear_tables()
    for position in positions:
        check_against_minimax(position, moves)


@pytest.mark.parametrize("name", ["3x4", "4x3", "3x4k2", "4x4k3", "3x5k3"])
def test_random_small_boards_match_minimax(name: str) -> None:
    rng = random.Random(20240611)
    variant = Variant.parse(name)
    moves = minimax_for(variant)
    marks = 6 if name in ("4x4k3", "3x5k3") else 3
    checked = 0
    while checked < 25:
        position = Position(variant)
        for _ in range(marks + rng.randrange(3)):
            legal = position.legal_moves()
            if not legal:
                break
            position.push(rng.choice(legal))
        if position.is_game_over():
            continue
        clear_tables()  # each check starts cold, then warm tables are checked by the next ones
        check_against_minimax(position.copy(stack=False), moves)
        checked += 1


def test_known_values() -> None:
    assert solve("3x3").score == Draw()
    assert len(solve("3x3").best) == 9
    assert solve("4x4k3").score == Win(5)
    assert solve("3/1x1/3 o").best == [0, 2, 6, 8]  # only the corners hold against the centre
    assert solve("xx1/oo1/x2 o").score == Win(1)


def test_bad_input_is_refused() -> None:
    with pytest.raises(IllegalMoveError, match="game is over"):
        solve("xxx/oo1/3 o")
    with pytest.raises(IllegalMoveError, match="draw"):
        solve("xox/xoo/oxx o")
    with pytest.raises(ImpossiblePositionError, match="cannot arise"):
        solve("xx1/3/3 o")


def test_node_limit_gives_an_honest_guess() -> None:
    clear_tables()
    solution = solve_python("5x5k4", nodes=200)
    assert not solution.proven
    assert solution.nodes <= 201
    assert len(solution.moves) == 25
    assert not solution.score.is_proven
    assert solution.best == [12]  # the centre has the most open lines


def test_time_limit_stops_the_search() -> None:
    clear_tables()
    solution = solve_python("6x6k4", seconds=0.2)
    assert not solution.proven
    assert solution.seconds < 5


def test_json_form() -> None:
    position = Position("x2/3/3 o")
    data = solution_json(position, solve(position))
    assert set(data) == {"position", "winner", "plies", "best", "moves", "nodes", "seconds",
                         "proven", "engine", "every_move", "estimate", "text"}
    assert data["engine"] in ("compiled", "python")
    assert data["winner"] == "draw" and data["best"] == ["b2"] and data["proven"] is True
    assert data["plies"] == 8 and data["moves"]["b2"] == {"winner": "draw", "plies": 8}  # type: ignore[index]
    assert data["moves"]["a2"] == {"winner": "x", "plies": 6}  # type: ignore[index]
