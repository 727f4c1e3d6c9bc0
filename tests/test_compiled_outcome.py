"""`solve_outcome` (who wins, the distance bounded) agrees with plain minimax and with the
exact value, on one thread and split over two, and stops at its limits."""

from __future__ import annotations

import random
import time
from typing import Any

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


def _drive_stopped_splits(asker: object, job: object, rng: random.Random,
                          seen: dict[str, int]) -> int:
    """Answer ``job`` the way a thread of `_Pool` does, on one thread and in order: each
    question is stopped at random after a few nodes and split where its search was (as an
    idle thread would have it). ``seen`` counts the splits, those deeper than one level,
    and the moves refuted."""
    from tictactoe.search.compiled import kernels
    from tictactoe.search.compiled.outcome import _Asker, _Job, _Pool

    assert isinstance(asker, _Asker) and isinstance(job, _Job)
    pool = _Pool(asker, lambda v: False)
    ws = asker.workspaces[0]
    pool.queue = [job]
    again: _Job | None = None
    while again is not None or pool.queue:
        whole = again is not None  # asked again after a refuted split: let it finish
        current = again if again is not None else pool.queue.pop()
        again = None
        if current.cancelled:
            continue
        ws.misc[kernels.NODES] = 0
        ws.misc[kernels.ABORTED] = 0
        stop_after = rng.choice([0, 10, 100, 1000] + [1 << 40] * 6)
        ws.misc[kernels.LIMIT] = 1 << 40 if whole else stop_after
        r = kernels.question(*asker._args(ws, current.me, current.opp, current.alpha,
                                          current.beta, current.nempty))
        if ws.misc[kernels.ABORTED]:
            seen["splits"] += 1
            seen["deep"] += len(pool._path(current, ws)) > 1
            again = pool._split(current, 0)
        else:
            again = pool._answer(current, int(r))
            seen["refuted"] += again is not None
    return pool.found[job.key]


def test_jobs_split_where_their_search_stopped_answer_as_minimax() -> None:
    """`_Pool`'s split of a running job (through the moves its search was on, the replies
    as jobs, the job asked whole again when a reply refutes the move), driven by hand with
    the question stopped at random: every window's answer and fail-soft bound hold."""
    from tictactoe.search.compiled import outcome, tables
    from tictactoe.search.compiled.workspace import Workspace

    rng = random.Random(31)
    asked = 0
    seen = {"splits": 0, "deep": 0, "refuted": 0}
    boards = [("5x5k4", 0, 9), ("6x5k4", 3, 9), ("4x4k3", 0, 4)]  # some with symmetries
    for p in _openings(boards, 40, seed=32):
        true = solve_value(p).score  # the exact solver, unsplit
        nempty = p.variant.cells - p.ply
        tab = tables(p.variant)
        ws = Workspace.new(p.variant.cells, nempty, table_bits=14)
        windows = [(0, 1), (-1, 0)] + [
            (BIG - d - 1, BIG - d) if d % 2 else (-(BIG - d), -(BIG - d) + 1)
            for d in range(1 + rng.randint(0, 2), nempty + 1, 3)]
        for alpha, beta in windows:
            ws.reset(tab)
            asker = outcome._Asker(tab, p, [ws], None, None)
            job = outcome._Job(asker.me, asker.opp, nempty, asker.x_to_move, alpha, beta,
                               key=7)
            r = _drive_stopped_splits(asker, job, rng, seen)
            assert (r >= beta) == (true >= beta), (p.to_string(), alpha, r, true)
            assert true >= r if r >= beta else true <= r, (p.to_string(), alpha, r, true)
            asked += 1
    assert asked > 300 and seen["splits"] > 1000, (asked, seen)
    assert seen["refuted"] > 50 and seen["deep"] > 10, seen


def test_threads_that_split_each_others_jobs_agree_with_minimax(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The real threads, with every question split after two nodes and an idle thread
    splitting the other's job as soon as it is idle (for the first thousand jobs, each
    slowed so that it is caught), on one shared table."""
    from tictactoe.search.compiled import kernels

    globals_ = solve_outcome.__globals__
    monkeypatch.setitem(globals_, "SPLIT_FROM", 0)
    monkeypatch.setitem(globals_, "SPLIT_BUDGET", 2)
    monkeypatch.setitem(globals_, "STEAL_AFTER", 0.0)
    from tictactoe.search.compiled.outcome import _Job, _Pool

    split = _Pool._split
    splits = []

    def counted(pool: _Pool, job: _Job, w: int) -> _Job | None:
        splits.append(job.nempty)
        return split(pool, job, w)

    monkeypatch.setattr(_Pool, "_split", counted)
    question = kernels.question
    calls = [0]

    def slow(*args: Any) -> int:  # long enough for the idle thread to stop it
        calls[0] += 1
        if calls[0] <= 1000:
            time.sleep(0.002)
        else:  # then as usual, or the splits would unfold whole trees, one job at a time
            globals_["STEAL_AFTER"] = 0.05
        return int(question(*args))

    monkeypatch.setattr(kernels, "question", slow)
    values = {_check(p, 2) for p in
              _random_positions("4x4", 15, 4, seed=41) + _random_positions("4x4k3", 15, 3,
                                                                           seed=42)}
    assert values == {"x", "o", "draw"}
    assert len(splits) > 50, splits


def test_a_table_entry_mixed_from_two_writes_is_a_miss() -> None:
    """Threads share one table unlocked: an entry whose words come from two writes fails
    its check word and reads as absent."""
    import numpy as np

    from tictactoe.search.compiled import kernels, outcome, tables
    from tictactoe.search.compiled.workspace import Workspace

    p = Position("5x5k4")
    tab = tables(p.variant)
    ws = Workspace.new(p.variant.cells, 25, table_bits=16)
    ws.reset(tab)
    ws.misc[kernels.LIMIT] = 1 << 40
    asker = outcome._Asker(tab, p, [ws], None, None)
    kernels.question(*asker._args(ws, asker.me, asker.opp, 0, 1, asker.nempty))
    generation = np.int64(ws.misc[kernels.GENERATION])
    live = [(np.int64(row), e) for row in range(ws.tt.shape[0]) for e in (0, kernels.ENTRY)
            if ws.tt[row, e + 2] >> 48 == generation]
    assert len(live) > 1000
    for row, e in live[:1000]:
        key_me, key_opp = ws.tt[row, e], ws.tt[row, e + 1]
        found, data = kernels.probe(ws.tt, row, key_me, key_opp, generation)
        assert found == e and data == ws.tt[row, e + 2]
        ws.tt[row, e + 2] ^= 1 << 33  # another write's move, with this one's check word
        assert kernels.probe(ws.tt, row, key_me, key_opp, generation)[0] == -1
        ws.tt[row, e + 2] ^= 1 << 33
        ws.tt[row, e + 1] ^= 1 << 5  # another position's key
        assert kernels.probe(ws.tt, row, key_me, ws.tt[row, e + 1], generation)[0] == -1
