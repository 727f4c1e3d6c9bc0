"""`solve_outcome` (who wins, the distance bounded) agrees with plain minimax and with the
exact value, on one thread and split over two, and stops at its limits."""

from __future__ import annotations

import random

import pytest
from test_compiled_solver import _openings, _random_positions, _reference

from tictactoe.core import IllegalMoveError, ImpossiblePositionError, Position
from tictactoe.search.compiled import BIG, solve_outcome, solve_value


def _winner(position: Position, score: int) -> str:
    if score == 0:
        return "draw"
    mover_wins = score > 0
    x_moves = position.ply % 2 == 0
    return "x" if mover_wins == x_moves else "o"


def _check(position: Position, threads: int) -> str:
    scores = _reference(position)
    true = max(scores.values())
    found = solve_outcome(position, threads=threads)
    assert found.proven and found.value == _winner(position, true), position.to_string()
    if true == 0:
        assert found.plies is None
    else:
        low, high = found.plies or (0, 0)
        assert low <= BIG - abs(true) <= high, (position.to_string(), found.plies, true)
    if true >= 0:  # a win or a draw: the move keeps it
        assert found.move is not None and scores[found.move] * true >= 0, position.to_string()
        assert (scores[found.move] > 0) == (true > 0), position.to_string()
    return found.value


@pytest.fixture
def split_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Split every question after a few nodes, even on small boards (the module the
    function reads, whatever copy of it a doctest collection imported)."""
    globals_ = solve_outcome.__globals__
    monkeypatch.setitem(globals_, "SPLIT_FROM", 0)
    monkeypatch.setitem(globals_, "SPLIT_BUDGET", 8)


@pytest.mark.parametrize("threads", [1, 2])
def test_agrees_with_minimax_on_random_positions(threads: int) -> None:
    values = {_check(p, threads) for p in
              _random_positions("4x4", 30, 4, seed=5) + _random_positions("4x4k3", 30, 4, seed=6)}
    assert values == {"x", "o", "draw"}


def test_split_questions_agree_with_minimax(split_everything: None) -> None:
    """Every question split at the root: the preferred move's replies, then the other
    moves, on two threads (down to one or two empty cells)."""
    values = {_check(p, 2) for p in
              _random_positions("4x4", 40, 4, seed=8) + _random_positions("4x4k3", 40, 4, seed=9)
              + _random_positions("3x3", 20, 0, seed=10)}
    assert values == {"x", "o", "draw"}


def test_split_agrees_with_the_exact_value_on_bigger_boards() -> None:
    """Positions big enough to split with the real settings: the same winner as
    `solve_value`, the exact distance within the bounds, and a move that keeps it."""
    seen = set()
    for p in _openings([("5x5k4", 2, 6), ("6x5k4", 2, 6), ("4x4x4", 40, 46)], 12, seed=4):
        exact = solve_value(p)
        found = solve_outcome(p, threads=2)
        assert found.value == _winner(p, exact.score), p.to_string()
        if exact.score:
            low, high = found.plies or (0, 0)
            assert low <= BIG - abs(exact.score) <= high, p.to_string()
        if exact.score >= 0:
            assert found.move is not None
            child = p.play(found.move)
            if not child.is_game_over():
                after = solve_value(child)
                assert -after.score * exact.score > 0 or after.score == exact.score == 0, \
                    p.to_string()
        seen.add(found.value)
    assert len(seen) >= 2


def test_limits_leave_it_unknown() -> None:
    for threads in (1, 2):
        found = solve_outcome(Position("7x7k5"), seconds=0.3, threads=threads)
        assert found.value == "unknown" and not found.proven and found.seconds < 3
        found = solve_outcome(Position("7x7k5"), nodes=50_000, threads=threads)
        assert found.value == "unknown" and found.nodes >= 50_000


def test_refuses_finished_and_impossible_positions() -> None:
    with pytest.raises(IllegalMoveError):
        solve_outcome(Position("xxx/oo1/3 o"))
    with pytest.raises(ImpossiblePositionError):
        solve_outcome(Position("xxx/ooo/3 x"))


def test_random_split_budgets_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Splitting after any number of nodes gives the same answer (the tables differ)."""
    rng = random.Random(12)
    monkeypatch.setitem(solve_outcome.__globals__, "SPLIT_FROM", 0)
    for p in _random_positions("4x4", 12, 3, seed=13):
        monkeypatch.setitem(solve_outcome.__globals__, "SPLIT_BUDGET", 1 << rng.randint(0, 12))
        _check(p, 2)


def test_split_answers_and_bounds_hold_for_every_window_and_first_move() -> None:
    """The split itself, asked straight: every window "a win within d?" / "alive after d?"
    and the plain ones, with each legal move tried first. The answer, its fail-soft bound
    and its move hold against minimax."""
    from tictactoe.search.compiled import outcome, tables
    from tictactoe.search.compiled.workspace import Workspace

    asked = 0
    for p in _random_positions("4x4", 12, 5, seed=21) + _random_positions("4x4k3", 12, 3,
                                                                          seed=22):
        scores = _reference(p)
        true = max(scores.values())
        nempty = p.variant.cells - p.ply
        tab = tables(p.variant)
        workspaces = [Workspace.new(p.variant.cells, nempty, table_bits=12) for _ in range(2)]
        windows = [(0, 1), (-1, 0)] + [
            (BIG - d - 1, BIG - d) if d % 2 else (-(BIG - d), -(BIG - d) + 1)
            for d in range(1, nempty + 1)]
        for alpha, beta in windows:
            for first in p.legal_moves():
                for ws in workspaces:
                    ws.reset(tab)
                asker = outcome._Asker(tab, p, workspaces, None, None)
                r, move = asker._split(asker.me, asker.opp, asker.nempty, asker.x_to_move,
                                       alpha, beta, first)
                assert (r >= beta) == (true >= beta), (p.to_string(), alpha, first)
                assert true >= r if r >= beta else true <= r, (p.to_string(), alpha, first, r)
                if r >= beta:
                    assert scores[move] >= beta, (p.to_string(), alpha, first, move)
                asked += 1
    assert asked > 1500
