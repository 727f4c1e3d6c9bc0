"""Matches, and golden playthroughs: fixed seeded games replayed move by move.

The transcripts in ``tests/golden`` are compared, never rewritten, by the tests. After an
intended change of behaviour, regenerate them with::

    python tests/test_arena.py --regenerate

and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tictactoe.core import Position
from tictactoe.players.arena import Game, play_game, play_match, record_game
from tictactoe.players.levels import make_player
from tictactoe.search.score import Score

GOLDEN = Path(__file__).parent / "golden"

GOLDEN_GAMES = [
    # (variant, x player, x seed, o player, o seed)
    ("3x3", "mcts", 1, "heuristic", 2),
    ("3x3", "rules", 3, "random", 4),
    ("3x3", "random", 5, "perfect", 6),
    ("3x3", "easy", 7, "medium", 8),
    ("4x4k3", "perfect", 9, "mcts", 10),
    ("4x4k3", "heuristic", 11, "rules", 12),
]


def golden_path(variant: str, x: str, o: str) -> Path:
    return GOLDEN / f"{x}_vs_{o}_{variant}.txt"


@pytest.mark.parametrize(("variant", "x", "x_seed", "o", "o_seed"), GOLDEN_GAMES)
def test_golden_playthrough(variant: str, x: str, x_seed: int, o: str, o_seed: int) -> None:
    lines = golden_path(variant, x, o).read_text().splitlines()
    assert lines[:3] == [f"variant {variant}", f"x {x} {x_seed}", f"o {o} {o_seed}"]
    players = {"x": make_player(x, seed=x_seed), "o": make_player(o, seed=o_seed)}
    position = Position(variant)
    for ply, line in enumerate(lines[3:-1], start=1):
        number, move, recorded = line.split(" ", 2)
        assert int(number) == ply
        choice = players[position.turn.symbol].choose(position)
        assert position.move_name(choice.move) == move, f"ply {ply}: {line}"
        if recorded == "-":
            assert choice.score is None, f"ply {ply}"
        else:
            assert choice.score is not None
            assert str(choice.score) == recorded, f"ply {ply}"
            if choice.score.is_proven:
                assert choice.score == Score.parse(recorded)
        position.push(choice.move)
    outcome = position.outcome()
    assert outcome is not None and lines[-1] == f"result {outcome.result()}"
    # The whole transcript, recorded in one go, is the same too.
    assert record_game(variant, x, x_seed, o, o_seed) == "\n".join(lines)


def test_rules_and_perfect_always_draw_in_the_arena() -> None:
    match = play_match("rules", "perfect", variant="3x3", games=20, seed=3)
    assert [(s.wins, s.draws, s.losses) for s in match.standings] == [(0, 20, 0), (0, 20, 0)]
    assert match.average_length == 9.0
    twins = play_match("perfect", "perfect", games=6, seed=8)
    assert twins.standings[0].name == "perfect (1)" and twins.standings[0].draws == 6


def test_match_bookkeeping() -> None:
    seen: list[Game] = []
    match = play_match("perfect", "random", variant="4x4k3", games=10, seed=1,
                       on_game=seen.append)
    assert len(seen) == 10 and match.games == seen
    perfect, chaos = match.standings
    assert perfect.wins_as_x == 5  # a first-player win, taken every time
    assert perfect.wins + perfect.draws + perfect.losses == 10
    assert chaos.losses == perfect.wins and chaos.wins == perfect.losses
    assert [g.x_name for g in match.games[:2]] == ["perfect", "random"]
    assert match.average_length == sum(g.length for g in seen) / 10
    again = play_match("perfect", "random", variant="4x4k3", games=10, seed=1)
    assert [g.moves for g in again.games] == [g.moves for g in match.games]


def test_a_game_ends_at_its_first_line() -> None:
    game = play_game(make_player("perfect", seed=1), make_player("random", seed=1), "4x4k3")
    position = Position("4x4k3")
    for move in game.moves[:-1]:
        position.push(move)
        assert not position.is_game_over()
    position.push(game.moves[-1])
    assert position.outcome() is not None and position.outcome().result() == game.result  # type: ignore[union-attr]


def regenerate() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for variant, x, x_seed, o, o_seed in GOLDEN_GAMES:
        path = golden_path(variant, x, o)
        path.write_text(record_game(variant, x, x_seed, o, o_seed) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit("usage: python tests/test_arena.py --regenerate")
    regenerate()
