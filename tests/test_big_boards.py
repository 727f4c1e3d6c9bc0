"""Boards past 64 cells (15x15 k5, 19x19 k5, 5x5x5, 30x30) through the non-app interfaces:
the CLI, plain mode, the environments, the proof checker and the readable solver."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core import Position, TicTacToeError, Variant
from tictactoe.proof import ProofCheckError, check_proof

runner = CliRunner()
BIG = ["15x15k5", "19x19k5", "5x5x5"]
FOUR = "o14/15/o14/15/o14/15/o14/6xxxx5/15/15/15/15/15/15/15 x 5"
"""15x15 k5, X to move with four in a row on row 8 (g8 to j8): f8 or k8 wins."""


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def random_game(name: str, seed: int) -> list[str]:
    """The moves of a whole game of random moves, named."""
    import random

    chooser = random.Random(seed)
    pos = Position(Variant.parse(name))
    names = []
    while not pos.is_game_over():
        cell = chooser.choice(pos.legal_moves())
        names.append(pos.move_name(cell))
        pos = pos.play(cell)
    return names


@pytest.mark.parametrize("name", BIG)
def test_ttt_move_answers_legal_moves_along_a_game(name: str) -> None:
    pos = Position(Variant.parse(name))
    for ply, move in enumerate(random_game(name, 5)):
        if ply % 10 == 0:  # the CLI's choice is legal at every tenth position on the way
            code, out = invoke("move", pos.to_string(), "--player", "random", "--seed", "1")
            assert code == 0, out
            assert pos.parse_move(out.strip()) in pos.legal_moves()
        pos = pos.play(pos.parse_move(move))
    assert pos.is_game_over()
    code, out = invoke("show", pos.to_string())
    winner = pos.winner()
    assert code == 0
    assert (f"{winner.name} won" if winner else "draw") in out


@pytest.mark.parametrize("name", BIG)
def test_plain_mode_plays_a_whole_game(name: str) -> None:
    moves = random_game(name, 6)
    result = runner.invoke(app, ["play", "--plain", "--player", "human", "--variant", name],
                           input="".join(m + "\n" for m in moves))
    assert result.exit_code == 0, result.output
    assert result.output.count("Result: ") == 1
    assert f"plays {moves[-1]}" in result.output or moves[-1] in result.output


@pytest.mark.parametrize("name", BIG)
def test_arena_plays_whole_games(name: str) -> None:
    code, out = invoke("arena", "random", "greedy", "--variant", name, "--games", "2")
    assert code == 0, out
    assert f"{name}: 2 games" in out.replace("5x5x5", "5x5x5")


def test_notation_past_z_on_30x30() -> None:
    code, out = invoke("show", "30x30k5")
    assert code == 0
    assert "y z aa ab ac ad 1 ." in " ".join(out.split())
    pos = Position(Variant.parse("30x30k5"))
    cell = pos.parse_move("ad30")
    assert cell == 30 * 30 - 1 and pos.move_name(cell) == "ad30"
    code, out = invoke("move", "30x30k5", "--player", "greedy")
    assert code == 0 and pos.parse_move(out.strip()) in pos.legal_moves()


@pytest.mark.parametrize(("name", "message"), [
    ("33x33k5", "at most 32"), ("7x7x7", "up to 6x6x6"), ("3x3k4", "k must be")])
def test_bad_sizes_exit_2_with_a_clear_error(name: str, message: str) -> None:
    for command in (["show", name], ["move", name, "--player", "random"],
                    ["solve", name]):
        code, out = invoke(*command)
        assert code == 2
        assert message in out


def test_legality_on_a_big_board() -> None:
    pos = Position(FOUR)
    code, out = invoke("move", FOUR, "--player", "random", "--seed", "3")
    assert code == 0 and pos.parse_move(out.strip()) in pos.legal_moves()
    with pytest.raises(TicTacToeError, match="a1 is already taken"):
        pos.parse_move("a1")  # O's
    code, out = invoke("move", "o14/15 x 5", "--player", "random")
    assert code == 2  # two rows of fifteen are no 15x15 board


def test_solve_is_bounded_and_says_it_estimates() -> None:
    code, out = invoke("solve", "19x19k5", "--seconds", "0.5")
    assert code == 0
    assert "unproven" in out and "an estimate, not a proof" in out
    assert "more)" in out  # the tied moves are not all listed


def test_solve_proves_a_win_in_one_on_15x15() -> None:
    code, out = invoke("solve", FOUR, "--json", "--seconds", "10")
    assert code == 0
    found = json.loads(out)
    assert found["proven"] and found["winner"] == "x"
    pos = Position(FOUR)
    best = {pos.parse_move(m) for m in found["best"]}
    assert best == {pos.parse_move("f8"), pos.parse_move("k8")}


def test_readable_solver_on_a_big_board() -> None:
    from tictactoe.search.readable import solve_python

    pos = Position(FOUR)
    solution = solve_python(pos, seconds=10)
    assert solution.score.is_proven and solution.score.winner(pos.turn) is not None
    assert {pos.move_name(c) for c in solution.best} == {"f8", "k8"}


def test_checker_accepts_a_big_board_proof_and_rejects_a_corrupted_copy() -> None:
    pos = Position(FOUR)
    win = pos.parse_move("k8")
    header = {"format": "tictactoe-proof", "version": 1, "variant": "15x15k5",
              "position": FOUR, "value": "x", "lines": 2, "generator": "hand"}
    good = f"{json.dumps(header)}\nS x win\nW {win}\n".encode()
    check_proof(good)
    bad = f"{json.dumps(header)}\nS x win\nW {pos.parse_move('k9')}\n".encode()
    with pytest.raises(ProofCheckError):
        check_proof(bad)


def test_count_estimate_says_out_of_reach() -> None:
    code, out = invoke("count", "15x15k5", "--estimate")
    assert code == 0
    assert "out of reach" in out and "at most 32 cells" in out


@pytest.mark.parametrize("name", BIG)
def test_plain_mode_plays_a_big_board(name: str) -> None:
    pos = Position(Variant.parse(name))
    moves = [pos.move_name(c) for c in pos.legal_moves()[:6]]
    result = runner.invoke(app, ["play", "--plain", "--player", "human", "--variant", name],
                           input="".join(m + "\n" for m in moves))
    assert result.exit_code == 0, result.output
    assert "Unfinished after 6 moves" in result.output


@pytest.mark.parametrize("name", BIG)
def test_envs_play_a_whole_random_game(name: str) -> None:
    np = pytest.importorskip("numpy")
    gymnasium = pytest.importorskip("gymnasium")
    from tictactoe.envs import gymnasium_env, pettingzoo_env

    v = Variant.parse(name)
    env = gymnasium_env(name, opponent="random")
    _, info = env.reset(seed=1)
    assert env.action_space == gymnasium.spaces.Discrete(v.cells)
    rng = np.random.default_rng(1)
    done = False
    steps = 0
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    assert 0 < steps <= v.cells

    aec = pettingzoo_env(name)
    aec.reset(seed=2)
    assert aec.action_space(aec.agents[0]) == gymnasium.spaces.Discrete(v.cells)
    plies = 0
    for agent in aec.agent_iter():
        _, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        mask = aec.observe(agent)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))
        plies += 1
    assert 0 < plies <= v.cells


@pytest.mark.parametrize("name", BIG)
def test_openspiel_game_on_big_boards(name: str) -> None:
    np = pytest.importorskip("numpy")
    pytest.importorskip("pyspiel")
    from tictactoe.envs.openspiel import TicTacToeGame

    v = Variant.parse(name)
    shape = dict(zip(("layers", "rows", "columns")[3 - len(v.shape):], v.shape, strict=True))
    game = TicTacToeGame({**shape, "k": v.k})
    assert game.num_distinct_actions() == v.cells
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
