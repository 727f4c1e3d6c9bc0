"""The compiled solver agrees exactly with plain minimax (value, distance, best moves)."""

from __future__ import annotations

import random
from functools import cache

import pytest

from tictactoe.core import IllegalMoveError, ImpossiblePositionError, Position, Variant
from tictactoe.search.compiled import BIG, Workspace, describe_score, solve_position, solve_value


@cache
def _minimax(variant: Variant) -> object:
    lines = variant.line_masks
    full = variant.full_mask

    @cache
    def score(me: int, opp: int) -> int:
        """Exact score for the side to move; no pruning at all."""
        best = -BIG * 2
        empty = full & ~(me | opp)
        for cell in range(variant.cells):
            if not empty >> cell & 1:
                continue
            mine = me | 1 << cell
            if any(mine & line == line for line in lines):
                value = BIG - 1
            elif mine | opp == full:
                value = 0
            else:
                child = score(opp, mine)
                value = -child + (child > 0) - (child < 0)
            best = max(best, value)
        return best

    return score


def _reference(position: Position) -> dict[int, int]:
    score = _minimax(position.variant)
    me, opp = (position.x, position.o) if position.turn.name == "X" else (position.o, position.x)
    out = {}
    for cell in position.legal_moves():
        mine = me | 1 << cell
        if any(mine & line == line for line in position.variant.line_masks):
            out[cell] = BIG - 1
        elif mine | opp == position.variant.full_mask:
            out[cell] = 0
        else:
            child = score(opp, mine)  # type: ignore[operator]
            out[cell] = -child + (child > 0) - (child < 0)
    return out


def _all_positions(name: str) -> list[Position]:
    seen: dict[tuple[int, int, object], Position] = {}
    stack = [Position(name)]
    while stack:
        p = stack.pop()
        if p.key() in seen:
            continue
        seen[p.key()] = p
        for cell in p.legal_moves():
            stack.append(p.play(cell).copy(stack=False))
    return [p for p in seen.values() if not p.is_game_over()]


def _random_positions(name: str, count: int, min_marks: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        p = Position(name)
        target = rng.randint(min_marks, p.variant.cells - 1)
        while p.ply < target and not p.is_game_over():
            p.push(rng.choice(p.legal_moves()))
        if not p.is_game_over():
            out.append(p.copy(stack=False))
    return out


def _openings(boards: list[tuple[str, int, int]], count: int, seed: int) -> list[Position]:
    """``count`` positions not over, the boards taken in turn, each played at random to a
    number of marks between its two bounds."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        name, low, high = boards[len(out) % len(boards)]
        p = Position(name)
        target = rng.randint(low, high)
        while p.ply < target and not p.is_game_over():
            p.push(rng.choice(p.legal_moves()))
        if not p.is_game_over():
            out.append(p.copy(stack=False))
    return out


def _check(position: Position, workspace: Workspace | None = None) -> None:
    result = solve_position(position, workspace=workspace)
    expected = _reference(position)
    assert result.proven
    assert result.moves == expected, position.to_string()
    assert result.score == max(expected.values())
    assert result.best == sorted(c for c, s in expected.items() if s == result.score)


def test_every_3x3_position() -> None:
    positions = _all_positions("3x3")
    assert len(positions) == 5478 - 958  # every position not over
    for p in positions:
        _check(p)


@pytest.mark.parametrize(("name", "count", "min_marks"),
                         [("4x4k3", 200, 6), ("4x4", 200, 7), ("5x5k4", 200, 14),
                          ("3x5k3", 100, 3), ("2x2x2k2", 20, 0)])
def test_random_positions(name: str, count: int, min_marks: int) -> None:
    workspace = Workspace.new(Variant.parse(name).cells, 25, table_bits=16)
    for i, p in enumerate(_random_positions(name, count, min_marks, seed=count + min_marks)):
        # a shared table stays valid across positions of one variant; alternate to test both
        _check(p, workspace if i % 2 else None)


def _check_value(position: Position, workspace: Workspace | None = None) -> None:
    result = solve_value(position, workspace=workspace)
    expected = _reference(position)
    assert result.proven
    assert result.score == max(expected.values()), position.to_string()
    [(move, score)] = result.moves.items()
    assert score == result.score
    assert expected[move] == result.score, position.to_string()


def test_value_of_every_3x3_position() -> None:
    for p in _all_positions("3x3"):
        _check_value(p)


@pytest.mark.parametrize(("name", "count", "min_marks"),
                         [("4x4k3", 200, 6), ("4x4", 200, 7), ("5x5k4", 200, 14),
                          ("3x5k3", 100, 3), ("3x4k3", 150, 1)])
def test_value_of_random_positions(name: str, count: int, min_marks: int) -> None:
    workspace = Workspace.new(Variant.parse(name).cells, 25, table_bits=16)
    for i, p in enumerate(_random_positions(name, count, min_marks, seed=count + min_marks)):
        _check_value(p, workspace if i % 2 else None)


def test_value_agrees_with_every_move_on_bigger_positions() -> None:
    """Beyond minimax: the value and its move against the all-moves solve."""
    for p in _random_positions("6x5k4", 30, 12, seed=5) + _random_positions("4x4x4", 10, 30,
                                                                              seed=6):
        every = solve_position(p)
        value = solve_value(p)
        assert value.score == every.score, p.to_string()
        [move] = value.moves
        assert move in every.best, p.to_string()


def test_value_limits_leave_it_unproven() -> None:
    result = solve_value(Position("7x7k5"), nodes=1000)
    assert not result.proven and result.moves == {}
    assert result.nodes <= 1000
    result = solve_value(Position("7x7k5"), seconds=0.05)
    assert not result.proven and result.seconds < 2


def test_known_values() -> None:
    assert describe_score(solve_position(Position("3x3")).score) == "draw"
    assert solve_position(Position("4x4")).score == 0


def test_node_limit_stops_unproven() -> None:
    result = solve_position(Position("5x5k4"), nodes=1000)
    assert not result.proven
    assert result.nodes <= 1000


def test_refuses_finished_and_impossible_positions() -> None:
    with pytest.raises(IllegalMoveError):
        solve_position(Position("xxx/oo1/3 o"))
    with pytest.raises(ImpossiblePositionError):
        solve_position(Position("xxx/3/3 o"))


# --------------------------------------------------------------------------- the readable solver
def _same_as_readable(position: Position) -> None:
    from tictactoe.search.readable import solve_python
    from tictactoe.search.solver import solve

    compiled = solve(position, engine="compiled")
    readable = solve_python(position)
    assert compiled.engine == "compiled"
    assert readable.proven and compiled.proven
    assert compiled.moves == readable.moves, position.to_string()
    assert compiled.score == readable.score
    assert compiled.best == readable.best


def test_every_3x3_position_matches_readable_solver() -> None:
    for p in _all_positions("3x3"):
        _same_as_readable(p)


@pytest.mark.parametrize(("name", "count", "min_marks"),
                         [("4x4k3", 200, 3), ("4x4", 200, 4), ("5x5k4", 200, 12)])
def test_random_positions_match_readable_solver(name: str, count: int, min_marks: int) -> None:
    for p in _random_positions(name, count, min_marks, seed=7 * count + min_marks):
        _same_as_readable(p)


def test_solve_dispatches_by_board_size() -> None:
    from tictactoe.search.solver import solve

    assert solve("3x3").engine == "compiled"
    assert solve("3x3", engine="python").engine == "python"
    limited = solve("5x5k4", nodes=5000)
    assert limited.engine == "compiled" and not limited.proven
    assert len(limited.moves) == 25


# --------------------------------------------------------------------------- one-call paths
def test_strong_solution_matches_minimax() -> None:
    from tictactoe.search.compiled import strong_solution

    solution = strong_solution("3x3")
    positions = {(p.x, p.o): p for p in _all_positions("3x3")}
    assert len(solution.scores) == len(positions)
    score = _minimax(Variant.parse("3x3"))
    for x, o, value in zip(solution.x.tolist(), solution.o.tolist(), solution.scores.tolist(),
                           strict=True):
        p = positions[(x, o)]
        me, opp = (p.x, p.o) if p.turn.name == "X" else (p.o, p.x)
        assert value == score(me, opp), p.to_string()  # type: ignore[operator]


def test_reused_table_across_variants_and_generations() -> None:
    from tictactoe.search.compiled import workspace as compiled

    # pooled tables serve every variant in turn; stale entries never leak
    for name in ("4x4k3", "3x3", "4x4k3", "3x4k3"):
        _check(Position(name).play(0).play(5))
    for workspace in compiled._POOL:
        workspace.misc[3] = (1 << 15) - 2  # the last generation: the next reset clears it
    _check(Position("3x3"))
    assert any(workspace.misc[3] == 1 for workspace in compiled._POOL)


def test_tables_are_pooled_across_threads() -> None:
    """Each short-lived thread (as in the terminal app) reuses a pooled table."""
    import threading

    from tictactoe.search.compiled import workspace as compiled

    solve_position(Position("5x5k4").play(12))
    before = sorted(id(ws) for ws in compiled._POOL)
    for _ in range(3):
        worker = threading.Thread(target=solve_position, args=(Position("5x5k4").play(6),))
        worker.start()
        worker.join()
    assert sorted(id(ws) for ws in compiled._POOL) == before  # no new table


# --------------------------------------------------------------------------- symmetric table
@pytest.mark.parametrize(("name", "plies"), [("4x4k3", 64), ("4x4", 64), ("3x3", 64),
                                             ("3x4k3", 3), ("5x5k4", 64)])
def test_symmetric_table_entries_stay_exact(name: str, plies: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import tictactoe.search.compiled.workspace as compiled

    # every node (or the first few plies) keyed by its least symmetric image
    monkeypatch.setattr(compiled, "SYMMETRIC_PLIES", plies)
    min_marks = {"5x5k4": 14, "4x4": 7, "4x4k3": 5}.get(name, 1)
    workspace = Workspace.new(Variant.parse(name).cells, 25, table_bits=14)
    for i, p in enumerate(_random_positions(name, 40, min_marks, seed=plies)):
        _check(p, workspace if i % 2 else None)


def test_parallel_moves_give_the_same_scores() -> None:
    """Scoring the moves on two threads, each with its own table, changes no score."""
    for p in _openings([("6x5k4", 9, 12)] * 3 + [("4x4x4", 40, 46)], 8, seed=11):
        assert p.variant.cells - p.ply > 16  # big enough for the threads
        one = solve_position(p)
        two = solve_position(p, threads=2)
        assert two.proven and two.moves == one.moves, p.to_string()


def test_parallel_moves_stop_at_the_deadline() -> None:
    result = solve_position(Position("7x7k5"), seconds=0.3, threads=2)
    assert not result.proven
    assert result.seconds < 3
    assert result.nodes > 0


def test_racing_exact_agrees_with_the_plain_questions() -> None:
    """`exact` (distance deepening racing the plain questions, over 16 empty cells), its
    deepening alone, and `exact_plain` give the same score, position by position."""
    import numpy as np

    from tictactoe.search import compiled
    from tictactoe.search.compiled import kernels as sk

    rng = random.Random(3)
    outcomes: set[int] = set()
    for p in _openings([("5x5k4", 4, 8), ("6x5k4", 4, 8)], 16, seed=3):
        tab = compiled.tables(p.variant)
        me, opp = (p.x, p.o) if p.ply % 2 == 0 else (p.o, p.x)
        nempty = p.variant.cells - p.ply
        scores = []
        for kernel, plan in ((sk.exact, sk.PLAN_RACE), (sk.exact, sk.PLAN_DEEPENING),
                             (sk.exact_plain, sk.PLAN_RACE)):
            ws = Workspace.new(p.variant.cells, nempty, table_bits=18)
            ws.load(tab)
            ws.misc[sk.LIMIT] = 1 << 62
            ws.misc[sk.FIRST_BUDGET] = 1 << rng.randint(3, 9)  # many rounds, many stops
            ws.misc[sk.PLAN] = plan
            scores.append(int(kernel(np.uint64(me), np.uint64(opp), nempty, tab.lines,
                                     tab.line_cells, ws.tt, ws.buf, ws.misc,
                                     np.uint64(p.variant.full_mask), tab.symmetry_bytes,
                                     tab.permutations_and_inverses)))
        assert scores[0] == scores[1] == scores[2], p.to_string()
        outcomes.add((scores[0] > 0) - (scores[0] < 0))
    assert outcomes == {-1, 0, 1}


def test_value_race_on_two_threads_agrees() -> None:
    """The plain questions and the deepening, raced on two threads: the same value, and a
    move that keeps it."""
    for p in _openings([("5x5k4", 2, 7), ("6x5k4", 2, 7)], 8, seed=21):
        one = solve_value(p)
        two = solve_value(p, threads=2)
        assert two.proven and two.score == one.score, p.to_string()
        [move] = two.moves
        assert move in solve_position(p, threads=2).best, p.to_string()
    result = solve_value(Position("7x7k5"), seconds=0.3, threads=2)
    assert not result.proven and result.moves == {} and result.seconds < 3


def test_distance_questions_agree_with_minimax() -> None:
    """Every null-window question "a win within d plies?" and "a loss within d?" the
    deepening asks, straight to the kernel with a fresh table: the answer, and the fail-soft
    bound it returns, hold against minimax (these questions trigger the cuts that depend on
    the window, such as playing only on the lines that need the fewest marks)."""
    import numpy as np

    from tictactoe.search import compiled
    from tictactoe.search.compiled import kernels as sk

    asked = 0
    for p in _random_positions("4x4", 60, 3, seed=11):
        tab = compiled.tables(p.variant)
        me, opp = (p.x, p.o) if p.ply % 2 == 0 else (p.o, p.x)
        nempty = p.variant.cells - p.ply
        true = max(_reference(p).values())
        ws = Workspace.new(p.variant.cells, nempty, table_bits=14)
        for d in range(1, nempty + 1):
            t = BIG - d if d % 2 else -(BIG - d) + 1  # a win within d, or alive after d
            ws.reset(tab)  # a fresh table: empty, by a new generation stamp
            ws.misc[sk.LIMIT] = 1 << 62
            ws.buf[nempty + 1, sk.LIVE:sk.LIVE + len(tab.lines)] = np.arange(len(tab.lines))
            ws.buf[nempty + 1, sk.LIVE_COUNT] = len(tab.lines)
            r = int(sk.search(np.uint64(me), np.uint64(opp), t - 1, t, nempty, tab.lines,
                              tab.line_cells, ws.tt, ws.buf, ws.misc,
                              np.uint64(p.variant.full_mask), tab.symmetry_bytes,
                              tab.permutations_and_inverses))
            assert (r >= t) == (true >= t), (p.to_string(), d)
            assert true >= r if r >= t else true <= r, (p.to_string(), d, r, true)
            asked += 1
    assert asked > 300


def test_fork_bound_never_passes_the_true_distance() -> None:
    """`kernels.fork_moves` (every win ends with a fork: two lines nearly filled) bounds how
    soon each side can win. Plain minimax's distance never beats it, and it is mostly
    exact. The rows of 1x9 and 1x10 k=3 (and 3x5 k=3, 5x5 k=4) are lines that overlap in
    more than one cell."""
    import numpy as np

    from tictactoe.search.compiled import kernels

    buf = np.zeros((1, 64), dtype=np.int64)

    def fewest(theirs: int, empty: int, lines: tuple[int, ...]) -> int:
        """The fork bound on the moves of the side whose opponent holds ``theirs``."""
        short = [line & empty for line in lines if not line & theirs]
        for i, cells in enumerate(short):
            buf[0, i] = np.uint64(cells).astype(np.int64)
        m, _ = kernels.fork_moves(buf, 0, 0, len(short), -1)
        return int(m)

    checked = exact = 0
    for name, low, high in [("1x9k3", 0, 3), ("1x10k3", 0, 4), ("3x5k3", 6, 8),
                            ("5x5k4", 17, 19)]:
        score = _minimax(Variant.parse(name))
        for p in _openings([(name, low, high)], 300, seed=low):
            me, opp = (p.x, p.o) if p.turn.name == "X" else (p.o, p.x)
            lines = p.variant.line_masks
            empty = p.variant.full_mask & ~(me | opp)
            if any(bin(line & empty).count("1") == 1 and not line & side
                   for line in lines for side in (me, opp)):
                continue  # a threat: the search answers it before it bounds anything
            value = score(me, opp)  # type: ignore[operator]
            if value == 0:
                continue
            # the winner's m-th move is its last: ply 2m - 1 for the mover, 2m for the other
            m = fewest(opp, empty, lines) if value > 0 else fewest(me, empty, lines)
            late = 1 if value > 0 else 0
            assert 2 * m - late <= BIG - abs(value), (p.to_string(), m, value)
            checked += 1
            exact += 2 * m - late == BIG - abs(value)
    assert checked > 100 and exact > 100, (checked, exact)
