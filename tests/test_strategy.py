"""Strategies read from win proofs, and the perfect player built on them and on proof-number
search: it follows a proof to a win against every defence, falls back to search off it, and
labels every move it could not prove."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from tictactoe.core import Position, Side, Variant
from tictactoe.players import make_player
from tictactoe.players.base import Limit
from tictactoe.players.perfect import PerfectPlayer
from tictactoe.proof import ProofFormatError, ProofWriter
from tictactoe.proof.strategy import Strategy, shipped, shipped_path
from tictactoe.search import ForcedLoss, ForcedWin, Heuristic, Loss, Win, solve
from tictactoe.search.pn.proofs import write_pn_proof

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def proof_bytes(position: str) -> bytes:
    buffer = io.BytesIO()
    write_pn_proof(position, buffer, table_mb=16)
    return buffer.getvalue()


def every_defence(strategy: Strategy, position: Position) -> tuple[int, int]:
    """Play the strategy against every defence from `position`: (games, positions seen).
    Fails if the strategy has no move, or if a game ends in anything but its win."""
    games = seen = 0
    stack = [position]
    while stack:
        board = stack.pop()
        outcome = board.outcome()
        if outcome is not None:
            assert outcome.winner is strategy.side, board.to_string()
            games += 1
            continue
        seen += 1
        if board.turn is strategy.side:
            move = strategy.move(board)
            assert move is not None, f"no move in {board.to_string()}"
            assert move in board.legal_moves()
            stack.append(board.play(move))
        else:
            stack.extend(board.play(reply) for reply in board.legal_moves())
    return games, seen


@pytest.mark.parametrize("variant", ["4x3", "3x4k3", "5x3k3"])
def test_a_small_proofs_strategy_wins_against_every_defence(variant: str) -> None:
    strategy = Strategy(proof_bytes(variant))
    assert strategy.side is Side.X and strategy.variant == Variant.parse(variant)
    games, seen = every_defence(strategy, Position(variant))
    assert games > 10 and seen > len(strategy.moves)


def test_a_strategys_moves_keep_the_win_by_the_solver() -> None:
    """Cross-check by an independent route: the α-β solver scores every move the strategy
    plays, along random defences, as a win."""
    strategy = Strategy(proof_bytes("4x4k3"))
    rng = random.Random(5)
    checked = 0
    for _ in range(30):
        board = Position("4x4k3")
        while not board.is_game_over():
            if board.turn is Side.X:
                move = strategy.move(board)
                assert move is not None
                assert isinstance(solve(board).moves[move], Win), board.to_string()
                checked += 1
            else:
                move = rng.choice(board.legal_moves())
            board.push(move)
        assert board.outcome().winner is Side.X  # type: ignore[union-attr]
    assert checked >= 60


def test_the_shipped_cube_strategy_beats_random_and_rules_players() -> None:
    strategy = shipped("4x4x4")
    assert strategy is not None and strategy.side is Side.X and len(strategy.moves) > 10_000
    assert shipped("4x4x4") is strategy  # read once
    for name, seed in [("random", 1), ("random", 2), ("rules", 3), ("rules", 4)]:
        opponent = make_player(name, seed=seed)
        board = Position("4x4x4")
        while not board.is_game_over():
            move = (strategy.move(board) if board.turn is Side.X
                    else opponent.choose(board).move)
            assert move is not None, board.to_string()
            board.push(move)
        assert board.outcome().winner is Side.X  # type: ignore[union-attr]


def test_the_cube_strategy_answers_up_to_symmetry() -> None:
    """X's first move in the centre is the image of a corner under a symmetry of the cube
    (the 192 include the 'inside-out' ones): the strategy covers it too."""
    strategy = shipped("4x4x4")
    assert strategy is not None
    board = Position("4x4x4").play(21).play(0)  # X at b2B, O at a1A
    move = strategy.move(board)
    assert move is not None and move in board.legal_moves()


def test_a_strategy_says_what_it_does_not_cover() -> None:
    strategy = shipped("4x4x4")
    assert strategy is not None
    empty = Position("4x4x4")
    assert strategy.move(empty.play(0)) is None  # O to move
    assert strategy.move(empty.play(1).play(0)) is None  # X opened on an edge: off the proof
    assert strategy.move(Position("4x4")) is None  # another board
    assert shipped("3x3") is None and shipped_path("5x5k4") is None


def test_a_strategy_needs_a_win_proof() -> None:
    draw = proof_bytes("3x3")
    with pytest.raises(ProofFormatError, match="needs a win proof"):
        Strategy(draw)
    with pytest.raises(ProofFormatError):
        Strategy(b"not a proof\n")
    with pytest.raises(ProofFormatError, match="cannot open"):
        Strategy(Path("no-such.proof"))
    buffer = io.BytesIO()
    with ProofWriter(buffer, position="xx1/oo1/3 x", value="x") as writer:
        writer.section("x", "win")
        writer.win(2)
    assert Strategy(buffer.getvalue()).move(Position("xx1/oo1/3 x")) == 2


def test_perfect_plays_x_on_the_cube_from_the_proof_at_once() -> None:
    choice = PerfectPlayer(seed=1).choose(Position("4x4x4"), Limit(seconds=0.001))
    assert choice.score == ForcedWin() and choice.score.is_proven
    assert choice.move in (0, 3, 12, 15, 21, 22, 25, 26, 37, 38, 41, 42, 48, 51, 60, 63)


def test_perfect_off_the_proof_proves_by_proof_numbers() -> None:
    """Where the solver stops short, proof-number search gives a proven move: a draw that
    holds on 5x5 k=4, a win on 6x5 k=4; where every move loses, a proven loss."""
    player = PerfectPlayer(seed=1)
    for variant, expected in [("5x5k4", "draw"), ("6x5k4", "forced win")]:
        board = Position(variant)
        estimate = solve(board, nodes=50)
        assert not estimate.proven
        choice = player.by_proof_numbers(board, Limit(seconds=60), estimate)
        assert str(choice.score) == expected
        if expected == "forced win":
            assert isinstance(solve(board.play(choice.move), seconds=60).score, Loss)
    lost = Position("xxx2/x1oo1/x1oo1/5 o 4")  # X threatens d1 and a4: O cannot stop both
    estimate = solve(lost, nodes=1)
    assert estimate.proven and estimate.score == Loss(2)  # the tactical floor says so
    choice = player.by_proof_numbers(lost, Limit(seconds=60), estimate)
    assert isinstance(choice.score, ForcedLoss | Loss)


def test_perfect_labels_what_it_cannot_prove() -> None:
    board = Position("x3/4/4/4:4/4/4/4:4/4/4/4:4/4/4/4 o")  # O's first reply on the cube
    choice = PerfectPlayer(seed=2).choose(board, Limit(seconds=1.0))
    assert choice.move in board.legal_moves()
    assert isinstance(choice.score, Heuristic) and not choice.score.is_proven


def test_the_web_worker_warms_the_cubes_proof_number_searches() -> None:
    """The large worker's warm-up makes perfect's two cube searches and runs them once (the
    kernels load then, not on the first move off the strategy)."""
    from tictactoe.players import perfect
    from tictactoe.search.pn import dfpn
    from tictactoe.search.pn.shared import shared_searches
    from tictactoe.web import worker

    cube = Variant.parse("4x4x4")
    assert worker.load("4x4x4") > 0
    searches = shared_searches(cube)
    for side in (Side.X, Side.O):
        search = searches.of(side)
        assert search._attacker is side and search.misc[dfpn.NODES] >= 1  # it searched
    before = {side: searches.of(side) for side in (Side.X, Side.O)}
    perfect.warm_proof_numbers(cube)  # a second warm-up keeps the same searches
    assert {side: searches.of(side) for side in (Side.X, Side.O)} == before
