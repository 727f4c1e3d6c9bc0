"""The OpenSpiel game ``tictactoe_mnk``: OpenSpiel's own random simulation test, its exhaustive
minimax against the package's solver, parameters, observations and the bots."""

from __future__ import annotations

import random

import numpy as np
import pytest
from needs import needs

from tictactoe import Position, VariantError
from tictactoe.search import solve

pytestmark = needs("openspiel")


@pytest.mark.parametrize("name", ["3x3", "5x5k4", "4x4x4", "4x3k3"])
def test_openspiels_random_simulation_test(name: str) -> None:
    import pyspiel

    from tictactoe.envs.openspiel import game

    pyspiel.random_sim_test(game(name), num_sims=10, serialize=False, verbose=False)


@pytest.mark.parametrize("name", ["3x3", "4x3k3"])
def test_openspiels_exhaustive_minimax_gives_the_solvers_value(name: str) -> None:
    from open_spiel.python.algorithms import minimax

    from tictactoe.envs.openspiel import game

    value, _ = minimax.alpha_beta_search(game(name))  # for player 0, X
    solution = solve(Position(name))
    winner = solution.score.winner(Position(name).turn)
    assert solution.proven
    assert value == (0.0 if winner is None else 1.0 if winner.symbol == "x" else -1.0)


def test_parameters_give_the_variant() -> None:
    import pyspiel

    from tictactoe.envs.openspiel import variant_of

    cube = pyspiel.load_game("tictactoe_mnk(layers=4,rows=4,columns=4)")
    assert cube.num_distinct_actions() == 64 and cube.max_game_length() == 64
    assert variant_of(dict(cube.get_parameters())).name == "4x4x4"
    wide = pyspiel.load_game("tictactoe_mnk", {"rows": 6, "columns": 5, "k": 4})
    assert variant_of(dict(wide.get_parameters())).name == "6x5k4"
    with pytest.raises(VariantError, match="at most 32"):
        variant_of({"rows": 33, "columns": 33})
    with pytest.raises(VariantError, match="unknown parameter 'size'"):
        variant_of({"size": 3})


def test_states_follow_the_rules_core() -> None:
    from tictactoe.envs.openspiel import game

    rng = random.Random(5)
    spiel_game = game("5x5k4")
    for _ in range(20):
        state, position = spiel_game.new_initial_state(), Position("5x5k4")
        while not state.is_terminal():
            assert state.legal_actions() == position.legal_moves()
            assert state.current_player() == (0 if position.turn.symbol == "x" else 1)
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            position.push(action)
        outcome = position.outcome()
        assert outcome is not None
        expected = 0.0 if outcome.winner is None else 1.0 if outcome.winner.symbol == "x" \
            else -1.0
        assert state.returns() == [expected, -expected]
        observation = np.array(state.observation_tensor(0)).reshape(3, 25)
        assert observation[2].tolist() == [position.x >> c & 1 for c in range(25)]
        assert observation[1].tolist() == [position.o >> c & 1 for c in range(25)]


def test_bots_play_tictactoe_mnk_and_openspiels_own_tic_tac_toe() -> None:
    import pyspiel

    from tictactoe.envs.openspiel import game, tictactoe_bot

    for spiel_game in (game("3x3"), pyspiel.load_game("tic_tac_toe")):
        for seed in range(3):
            perfect = tictactoe_bot(spiel_game, 0, "perfect", seed=seed)
            random_bot = pyspiel.make_uniform_random_bot(1, seed)
            returns = pyspiel.evaluate_bots(spiel_game.new_initial_state(), [perfect,
                                                                            random_bot], seed)
            assert returns[0] >= 0  # perfect play never loses
    spiel_game = game("4x4k3")
    bots = [tictactoe_bot(spiel_game, 0, "perfect", seed=1), tictactoe_bot(spiel_game, 1, "mcts")]
    assert pyspiel.evaluate_bots(spiel_game.new_initial_state(), bots, 1) == [1.0, -1.0]
    with pytest.raises(ValueError, match="player_id must be 0"):
        tictactoe_bot(spiel_game, 2)
    with pytest.raises(VariantError, match="not a tic-tac-toe game"):
        tictactoe_bot(pyspiel.load_game("kuhn_poker"), 0)


def test_openspiels_mcts_runs_on_a_cube() -> None:
    """OpenSpiel's Python MCTS (its C++ MCTSBot crashes on games written in Python, its own
    python_tic_tac_toe included, in open-spiel 2.0.2)."""
    from open_spiel.python.algorithms import mcts

    from tictactoe.envs.openspiel import game

    cube = game("4x4x4")
    state = cube.new_initial_state()
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(cube, 2.0, 30, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    for _ in range(4):
        state.apply_action(bot.step(state))
    assert len(state.history()) == 4 and not state.is_terminal()
