"""The tactical floor: every fact it states is checked against the exact solver, the
compiled threat search against the readable one, and the floor under every bounded answer
(the library's solve, the players, the hints) holds for any thread count."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from needs import needs

from tictactoe.core import Position, Side, Variant
from tictactoe.players.base import Limit
from tictactoe.players.levels import make_player, player_for_level
from tictactoe.players.tactical import GreedyPlayer, LineBoard
from tictactoe.search.knowledge import analyse
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Loss, Score, Win
from tictactoe.search.solver import solve, solve_value
from tictactoe.search.tactics import (
    ThreatSearcher,
    quiet_refutation,
    tactical_scores,
    with_tactics,
)
from tictactoe.tui.engine import hint_scores

CUBE_THREAT = "o3/4/4/x2o:4/2o1/1o2/x3:4/2x1/4/4:3x/4/4/x3 o"
"""X threatens only 3:a4 (the pillar a4); O must block it."""
CUBE_ROW = "xxx1/4/4/4:4/1o2/4/4:4/2o1/4/4:4/4/4/4 o"
"""X threatens 1:d1; every other move of O's loses at once."""


def agrees(fact: Score, exact: Score) -> bool:
    """Whether a tactical fact is true of the exact score: equal where it is exact, the
    same winner within the bound where it bounds the length."""
    if isinstance(fact, ForcedWin):
        return isinstance(exact, Win) and fact.within is not None and exact.plies <= fact.within
    if isinstance(fact, ForcedLoss):
        return isinstance(exact, Loss) and fact.within is not None and \
            exact.plies <= fact.within
    return fact == exact


def consistent(a: Score, b: Score) -> bool:
    """Whether two proven scores of one move can both be true: equal if both are exact,
    else the same winner, an exact length within the other's bound."""
    if a.winner(Side.X) != b.winner(Side.X):
        return False
    exact = [s for s in (a, b) if isinstance(s, Win | Loss | Draw)]
    if len(exact) == 2:
        return a == b
    bounds = [getattr(s, "within", None) for s in (a, b) if s not in exact]
    return all(w is None or not exact or (exact[0].plies or 0) <= w for w in bounds)


def random_position(variant: str, rng: random.Random, most: int | None = None) -> Position:
    """A position reached by random play, not over (the empty board if every try ends)."""
    v = Variant.parse(variant)
    for _ in range(20):
        p = Position(v)
        for _ in range(rng.randrange(0, most or v.cells - 1)):
            p.push(rng.choice(p.legal_moves()))
            if p.is_game_over():
                break
        if not p.is_game_over():
            return p
    return Position(v)


# ---------------------------------------------------------------------------------------
# one-ply checks written here, independent of the library


def threat_cells(position: Position, side: Side) -> set[int]:
    """The empty cells where `side` completes a line, by brute force over the lines."""
    taken = position.x | position.o
    mine = position.marks(side)
    out = set()
    for line in position.variant.lines:
        empty = [c for c in line if not taken >> c & 1]
        if len(empty) == 1 and all(mine >> c & 1 for c in line if c != empty[0]):
            out.add(empty[0])
    return out


def single_threat_positions(variant: str, count: int, seed: int) -> list[Position]:
    """Random positions where the side to move has no line to complete and the opponent
    has exactly one cell that completes a line."""
    rng = random.Random(seed)
    found: list[Position] = []
    v = Variant.parse(variant)
    while len(found) < count:
        p = Position(v)
        while not p.is_game_over():
            mover = p.turn
            if not threat_cells(p, mover) and len(threat_cells(p, mover.other)) == 1 \
                    and p.ply >= 4:
                found.append(p.copy(stack=False))
                break
            p.push(rng.choice(p.legal_moves()))
    return found


def winning_positions(variant: str, count: int, seed: int) -> list[Position]:
    """Random positions where the side to move can complete a line."""
    rng = random.Random(seed)
    found: list[Position] = []
    v = Variant.parse(variant)
    while len(found) < count:
        p = Position(v)
        while not p.is_game_over():
            if threat_cells(p, p.turn) and p.ply >= 4:
                found.append(p.copy(stack=False))
                break
            p.push(rng.choice(p.legal_moves()))
    return found


# ---------------------------------------------------------------------------------------
# the facts are true


@pytest.mark.parametrize("variant", ["3x3", "4x4k3", "3x5k3", "4x4", "4x5k4", "5x5k4"])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_fact_agrees_with_the_exact_solver(variant: str, seed: int) -> None:
    p = random_position(variant, random.Random(seed))
    facts = tactical_scores(p)
    if not facts:
        return
    exact = solve(p).moves
    for cell, fact in facts.items():
        assert agrees(fact, exact[cell]), (p.to_string(), p.move_name(cell), fact,
                                           exact[cell])


def test_the_facts_cover_wins_blocks_and_forks() -> None:
    p = Position("xx1/oo1/x2 o")
    facts = tactical_scores(p)
    assert facts[p.parse_move("c2")] == Win(1)
    assert {p.move_name(c) for c, s in facts.items() if s == Loss(2)} == {"b3", "c3"}
    fork = Position("x1x/1o1/o2 x")  # X: b1 wins; c2 and c3 each make two threats
    facts = tactical_scores(fork)
    assert facts[fork.parse_move("b1")] == Win(1)
    assert facts[fork.parse_move("c2")] == facts[fork.parse_move("c3")] == Win(3)
    full = Position("xo1/xxo/oxo x")  # one cell left, no line can be made: a draw
    assert tactical_scores(full) == {2: Draw()}


@pytest.mark.parametrize("variant", ["4x4k3", "3x5k3", "5x5k4", "4x5k4"])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_quiet_refutations_are_true(variant: str, seed: int) -> None:
    p = random_position(variant, random.Random(seed), most=10)
    facts = tactical_scores(p)
    exact: dict[int, Score] | None = None
    for engine in ("python", "compiled"):
        searcher = ThreatSearcher(p.variant, engine=engine)
        for move in p.legal_moves():
            if move in facts:
                continue
            found = quiet_refutation(p, move, searcher)
            if found is not None:
                exact = exact or dict(solve(p).moves)
                assert agrees(found, exact[move]), (p.to_string(), p.move_name(move), found)


@needs("fast")
@pytest.mark.parametrize("variant", ["4x4x4", "7x7k5", "5x5k4", "3x3"])
def test_the_compiled_threat_search_agrees_with_the_readable_one(variant: str) -> None:
    rng = random.Random(11)
    v = Variant.parse(variant)
    for _ in range(150):
        p = random_position(variant, rng, most=24)
        readable = ThreatSearcher(v, engine="python", positions=200_000)
        compiled = ThreatSearcher(v, engine="compiled", positions=200_000)
        me, opp = p.marks(p.turn), p.marks(p.turn.other)
        found, other = readable.run(me, opp), compiled.run(me, opp)
        assert not readable.exhausted and not compiled.exhausted
        assert (found is None) == (other is None), p.to_string()


def test_line_board_counts_match_the_position() -> None:
    rng = random.Random(3)
    for variant in ("3x3", "5x5k4", "4x4x4", "7x7k5"):
        p = random_position(variant, rng)
        board = LineBoard(p.variant)
        board.load(p.x, p.o)
        for side, mark in ((0, Side.X), (1, Side.O)):
            assert {c for c in range(p.variant.cells) if board.threat_cells(side) >> c & 1} \
                == threat_cells(p, mark)
        for cell in p.legal_moves()[:5]:  # push and pop leave it as it was
            before = (board.evaluation, [list(c) for c in board.counts],
                      [set(t) for t in board.threats], [set(t) for t in board.twos])
            board.push(cell, p.ply % 2)
            board.pop(cell, p.ply % 2)
            assert before == (board.evaluation, [list(c) for c in board.counts],
                              [set(t) for t in board.threats], [set(t) for t in board.twos])


# ---------------------------------------------------------------------------------------
# the floor under every bounded answer


@needs("fast")
def test_the_cube_row_position_labels_every_losing_move_for_any_thread_count() -> None:
    p = Position(CUBE_ROW)
    answers = [solve(p, seconds=1.0, threads=threads) for threads in (1, 2)]
    for answer in answers:
        assert [p.move_name(c) for c in answer.best] == ["1:d1"]
        losing = {c for c, s in answer.moves.items() if s == Loss(2)}
        assert losing == set(p.legal_moves()) - {p.parse_move("1:d1")}
    proven = [{c: s for c, s in a.moves.items() if s.is_proven} for a in answers]
    for cell in proven[0].keys() & proven[1].keys():
        assert consistent(proven[0][cell], proven[1][cell])


@needs("fast")
def test_the_cube_threat_position_is_blocked_by_every_answer() -> None:
    p = Position(CUBE_THREAT)
    block = p.parse_move("3:a4")
    assert solve(p, seconds=1.0).best == [block]
    assert max(hint_scores(p, seconds=1.0).items(), key=lambda item: item[1])[0] == block
    for seed in range(3):
        assert make_player("perfect", seed=seed).choose(p, _limit(1.5)).move == block
        assert player_for_level("hard", seed=seed).choose(p, _limit(1.5)).move == block


def test_a_search_stopped_at_once_still_wins_and_labels_the_losses() -> None:
    p = Position("xx1/oo1/x2 o")
    for engine in ("python", "compiled"):
        bounded = solve(p, nodes=1, engine=engine)
        assert bounded.best == [p.parse_move("c2")] and bounded.score == Win(1)
        assert {p.move_name(c) for c, s in bounded.moves.items() if s == Loss(2)} == \
            {"b3", "c3"}
        assert with_tactics(p, bounded) == bounded  # the floor is already there


def test_a_value_question_stopped_by_its_limit_is_settled_by_the_floor() -> None:
    p = Position("xx1/oo1/x2 o")
    found = solve_value(p, nodes=1, engine="python")
    assert found.proven and found.score == Win(1) and found.best == [p.parse_move("c2")]


@pytest.mark.parametrize("variant", ["4x4x4", "5x5k4", "6x6k4", "7x7k5"])
def test_hard_perfect_and_hints_block_a_single_threat(variant: str) -> None:
    for p in single_threat_positions(variant, 6, seed=hash(variant) % 1000):
        block = next(iter(threat_cells(p, p.turn.other)))
        for name in ("hard", "perfect"):
            choice = player_for_level(name, seed=1).choose(p, _limit(1.0))
            assert choice.move == block, (name, p.to_string())
        hints = hint_scores(p, seconds=0.3)
        for cell, score in hints.items():
            if cell != block:
                assert score == Loss(2), (p.to_string(), p.move_name(cell), score)
        assert max(hints, key=lambda c: hints[c]) == block
        one, two = (solve(p, seconds=0.2, threads=threads) for threads in (1, 2))
        for cell in p.legal_moves():  # the proven labels agree for any thread count
            a, b = one.moves[cell], two.moves[cell]
            if a.is_proven and b.is_proven:
                assert consistent(a, b), (p.to_string(), p.move_name(cell), a, b)
            assert (one.moves[cell] == Loss(2)) == (two.moves[cell] == Loss(2))


@pytest.mark.parametrize("variant", ["4x4x4", "5x5k4", "7x7k5"])
def test_every_level_and_greedy_take_an_immediate_win(variant: str) -> None:
    for p in winning_positions(variant, 5, seed=7):
        wins = threat_cells(p, p.turn)
        for name in ("hard", "perfect", "medium", "greedy"):
            player = GreedyPlayer(1) if name == "greedy" else player_for_level(name, seed=1)
            assert player.choose(p, _limit(1.0)).move in wins, (name, p.to_string())


def _limit(seconds: float) -> Limit:
    return Limit(seconds=seconds)


@needs("fast")
def test_analysis_labels_from_proof_numbers_are_true() -> None:
    """The analysis gives α-β a share of the time and proof-number search the rest: with
    α-β stopped after ten nodes, every label it gives on 5x5 k=4 must still be true."""
    rng = random.Random(5)
    labelled = 0
    for _ in range(12):
        p = random_position("5x5k4", rng, most=12)
        answer = analyse(p, nodes=10, seconds=1.0)
        exact = solve(p).moves
        for cell, score in answer.moves.items():
            if score.is_proven:
                labelled += isinstance(score, ForcedWin | ForcedLoss) or score == Draw()
                assert agrees(score, exact[cell]) or (
                    score in (ForcedWin(), ForcedLoss()) and
                    score.winner(p.turn) == exact[cell].winner(p.turn)), (
                    p.to_string(), p.move_name(cell), score, exact[cell])
    assert labelled  # proof-number search settled some moves
