"""Boards past 64 cells: the compiled threat search, the players, whole games."""

from __future__ import annotations

import random

import pytest
from needs import needs

from tictactoe.core import Position, Side, Variant
from tictactoe.players.arena import play_game
from tictactoe.players.levels import make_player, player_for_level
from tictactoe.proof.threats import ThreatSearch, board_of, threat_cells


def near_centre_game(variant: Variant, plies: int, rng: random.Random) -> Position:
    """Random moves within four steps of the centre, stopping before a finished game."""
    p = Position(variant)
    middle = [(d - 1) // 2 for d in variant.shape]
    pool = [c for c in range(variant.cells)
            if all(abs(a - m) <= 4 for a, m in zip(variant.coordinates(c), middle, strict=True))]
    for _ in range(plies):
        moves = [c for c in pool if not (p.x | p.o) >> c & 1]
        if not moves:
            break
        p.push(rng.choice(moves))
        if p.outcome() is not None:
            p.pop()
            break
    return p


def sides(p: Position) -> tuple[int, int]:
    return (p.x, p.o) if p.turn is Side.X else (p.o, p.x)


def wins_by_fours(variant: Variant, prover: int, opponent: int, depth: int) -> bool:
    """An independent threat-sequence search: plain recursion over every empty cell (no
    candidate lists, no table), straight from the definition."""
    board = board_of(variant)
    if threat_cells(board, prover, opponent):
        return True
    blocks = threat_cells(board, opponent, prover)
    if blocks & (blocks - 1) or depth == 0:
        return False
    for c in range(variant.cells):
        if (prover | opponent) >> c & 1 or (blocks and blocks != 1 << c):
            continue
        made = threat_cells(board, prover | 1 << c, opponent)
        if made & (made - 1):
            return True
        if made and wins_by_fours(variant, prover | 1 << c, opponent | made, depth - 1):
            return True
    return False


@needs("fast")
def test_the_compiled_threat_search_agrees_with_the_readable_one_and_an_independent_one() -> None:
    from tictactoe.search.wide import WideThreats, replays

    rng = random.Random(5)
    for name, count in (("15x15k5", 150), ("19x19k5", 60), ("5x5x5k4", 60)):
        v = Variant.parse(name)
        wide, readable = WideThreats(v), ThreatSearch(v)
        won = 0
        for _ in range(count):
            p = near_centre_game(v, rng.randint(6, 30), rng)
            me, them = sides(p)
            found = wide.run(me, them)
            assert (found is None) == (readable.run(me, them) is None), p.to_string()
            if found is not None:
                won += 1
                assert replays(v, me, them, found)
        assert won >= count // 5, name  # the sample has wins to check


@needs("fast")
def test_found_sequences_are_wins_by_an_independent_search() -> None:
    from tictactoe.search.wide import WideThreats

    v = Variant.parse("9x9k5")  # small enough for the plain recursion
    wide = WideThreats(v)
    rng = random.Random(11)
    checked = 0
    for _ in range(300):
        p = near_centre_game(v, rng.randint(6, 16), rng)
        me, them = sides(p)
        found = wide.run(me, them)
        if found is not None and len(found) <= 3:
            assert wins_by_fours(v, me, them, len(found)), p.to_string()
            checked += 1
        elif found is None and not wide.exhausted:
            assert not wins_by_fours(v, me, them, 2), p.to_string()
    assert checked >= 10


def play_all(p: Position, moves: str) -> Position:
    for name in moves.split():
        p.push_name(name)
    return p


@pytest.mark.parametrize("level", ["medium", "hard", "perfect"])
def test_the_levels_play_a_double_open_four_and_a_four_three(level: str) -> None:
    player = player_for_level(level, seed=3)
    # X h8 i8 j8 with both ends open: X makes an open four (two threats) at once
    open_three = play_all(Position("15x15k5"), "h8 a1 i8 a3 j8 a5")
    choice = player.choose(open_three)
    assert open_three.move_name(choice.move) in ("g8", "k8")
    assert choice.score is not None and choice.score.winner(Side.X) is Side.X
    # X: g7 h7 i7 (a three) and j5 j6 (on column j): j7 makes a four and a three at once
    four_three = play_all(Position("15x15k5"), "g7 a1 h7 a3 i7 a5 j5 a7 j6 a9")
    choice = player.choose(four_three)
    assert choice.score is not None and choice.score.winner(Side.X) is Side.X


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "perfect"])
def test_the_levels_block_a_four_and_an_open_three(level: str) -> None:
    player = player_for_level(level, seed=4)
    four = play_all(Position("15x15k5"), "h8 g8 i8 a3 j8 a5 k8")  # g8 blocked: l8 it is
    assert four.move_name(player.choose(four).move) == "l8"
    if level != "easy":  # an open three: block an end, or lose to the open four
        three = play_all(Position("15x15k5"), "h8 a1 i8 a3 j8")
        assert three.move_name(player.choose(three).move) in ("g8", "k8", "f8", "l8")


@pytest.mark.parametrize(("name", "x", "o"), [
    ("15x15k5", "hard", "medium"), ("19x19k5", "medium", "easy"), ("5x5x5k4", "hard", "easy"),
])
def test_whole_games_on_large_boards(name: str, x: str, o: str) -> None:
    game = play_game(make_player(x, seed=1), make_player(o, seed=2), name)
    final = Position(name)
    for move in game.moves:
        final.push(move)
    assert final.is_valid()
    outcome = final.outcome()
    assert outcome is not None and game.result == outcome.result()


@pytest.mark.parametrize("name", ["26x26", "32x32k26", "30x30k30"])
def test_the_levels_play_boards_with_long_lines(name: str) -> None:
    """Lines of 26 or more: the shape weights once overflowed 64 bits there."""
    from tictactoe.search.wide.engine import TOP_WEIGHT, shape_weights

    k = Variant.parse(name).k
    weights = shape_weights(k).tolist()
    assert weights[1:] == sorted(weights[1:]) and weights[-1] <= TOP_WEIGHT
    p = near_centre_game(Variant.parse(name), 6, random.Random(name))
    for level in ("medium", "hard", "perfect"):
        move = player_for_level(level, seed=1).choose(p).move
        assert not (p.x | p.o) >> move & 1


def test_perfect_says_its_move_on_a_large_board_is_an_estimate() -> None:
    p = play_all(Position("19x19k5"), "j10 k11")
    choice = player_for_level("perfect", seed=1).choose(p)
    assert choice.score is not None and not choice.score.is_proven


def test_proofs_on_a_large_board_are_checked() -> None:
    import io

    from tictactoe.proof.check import check_proof
    from tictactoe.proof.errors import ProofCheckError
    from tictactoe.proof.format import ProofWriter

    def proof(start: Position, moves: list[str]) -> bytes:
        buffer = io.BytesIO()
        with ProofWriter(buffer, position=start.to_string(), value="x") as writer:
            writer.section("x", "win")
            writer.forced([start.variant.parse_cell(m) for m in moves])
        return buffer.getvalue()

    three = play_all(Position("15x15k5"), "h8 a1 i8 a3 j8 a5")  # X makes an open four
    stats = check_proof(proof(three, ["g8"]))
    assert stats.value == "x" and stats.positions == 1
    assert check_proof(proof(three, [])).value == "x"  # the checker finds the move itself
    two = play_all(Position("15x15k5"), "h8 a1 i8 a3")  # two in a row: no forced win yet
    with pytest.raises(ProofCheckError, match="finds no forced win for X"):
        check_proof(proof(two, ["j8"]))
    wide = play_all(Position("30x30k5"), "z8 a1 aa8 a3 ab8 a5")  # columns past z
    assert check_proof(proof(wide, ["ac8"])).value == "x"
