"""The environments: PettingZoo's api_test and seed_test and Gymnasium's check_env on 3x3,
5x5 k=4 and the cube; observations, masks and rewards against the rules core; bad actions;
seeding; text and RGB rendering."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from needs import needs

from tictactoe import InvalidMoveError, Position, Side
from tictactoe.core.errors import IllegalMoveError

pytestmark = needs("envs")

VARIANTS = ["3x3", "5x5k4", "4x4x4"]

# api_test's advice that these environments cannot follow: the observation is a dict (the
# board and the action mask, as in PettingZoo's own classic games) and a cube's has 4 axes.
API_TEST_ADVICE = [
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
    "Observation has more than 3 dimensions",
]


@pytest.mark.parametrize("name", VARIANTS)
def test_pettingzoo_api_test_and_seed_test(name: str) -> None:
    from pettingzoo.test import api_test, seed_test

    from tictactoe.envs import pettingzoo_env

    with warnings.catch_warnings():
        for advice in API_TEST_ADVICE:
            warnings.filterwarnings("ignore", message=advice, category=UserWarning)
        api_test(pettingzoo_env(name), num_cycles=100)
    seed_test(lambda: pettingzoo_env(name), num_cycles=100)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("side", ["x", "o"])
def test_gymnasium_check_env(name: str, side: str, capsys: pytest.CaptureFixture[str]) -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import tictactoe.envs  # noqa: F401

    env = gymnasium.make("tictactoe/TicTacToe-v0", variant=name, opponent="perfect", seed=1,
                         side=side, render_mode="rgb_array")
    check_env(env.unwrapped)  # also renders in every mode; "human" prints
    assert "to move" in capsys.readouterr().out


def test_pettingzoo_observations_masks_and_rewards_follow_the_rules() -> None:
    from tictactoe.envs import pettingzoo_env

    rng = random.Random(3)
    env = pettingzoo_env("5x5k4")
    for game in range(10):
        env.reset(seed=game)
        position = Position("5x5k4")
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                outcome = position.outcome()
                assert outcome is not None
                side = Side.X if agent == "player_1" else Side.O
                assert reward == (0 if outcome.winner is None else
                                  1 if outcome.winner is side else -1)
                env.step(None)
                continue
            assert agent == ("player_1" if position.turn is Side.X else "player_2")
            mine, theirs, empty = (observation["observation"][..., i].reshape(-1)
                                   for i in range(3))
            assert mine.tolist() == [position.marks(position.turn) >> c & 1 for c in range(25)]
            assert theirs.tolist() == [position.marks(position.turn.other) >> c & 1
                                       for c in range(25)]
            assert (mine + theirs + empty == 1).all()
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            assert legal == position.legal_moves()
            move = rng.choice(legal)
            env.step(move)
            position.push(move)


def test_pettingzoo_bad_actions_follow_its_classic_games(
        caplog: pytest.LogCaptureFixture) -> None:
    from tictactoe.envs import pettingzoo_env

    env = pettingzoo_env("3x3")
    with pytest.raises(AssertionError, match="reset"):  # OrderEnforcingWrapper: reset first
        env.step(0)
    env.reset()
    env.step(4)
    env.step(4)  # O plays the occupied centre: the game ends, O gets -1, and a warning
    assert "Illegal move made" in caplog.text
    assert all(env.terminations.values())
    assert env.rewards == {"player_1": 0, "player_2": -1}
    env.reset()
    with pytest.raises(AssertionError):  # AssertOutOfBoundsWrapper
        env.step(9)


def test_gymnasium_rewards_illegal_moves_and_out_of_range_actions() -> None:
    from tictactoe.envs import gymnasium_env

    env = gymnasium_env("3x3", opponent="perfect", seed=0)
    observation, info = env.reset()
    assert info["opponent_move"] is None and observation[..., 2].all()
    _, reward, terminated, _, info = env.step(4)
    occupied = info["opponent_move"]
    assert not terminated and reward == 0.0 and info["action_mask"][occupied] == 0
    before = env.position.copy()
    observation, reward, terminated, truncated, info = env.step(occupied)
    assert (reward, terminated, truncated, info["illegal_move"]) == (-1.0, True, False, True)
    assert env.position == before
    with pytest.raises(IllegalMoveError, match="call reset"):
        env.step(0)
    env.reset()
    for bad in (9, -1, 2.5, "b2"):
        with pytest.raises(InvalidMoveError, match="not a cell"):
            env.step(bad)


def test_gymnasium_episodes_against_random_end_with_the_right_reward() -> None:
    from tictactoe.envs import gymnasium_env

    rng = random.Random(8)
    for side in ("x", "o"):
        env = gymnasium_env("4x4k3", opponent="random", seed=11, side=side)
        rewards = []
        for _ in range(20):
            _, info = env.reset()
            terminated, reward = False, 0.0
            while not terminated:
                move = rng.choice(np.flatnonzero(info["action_mask"]).tolist())
                _, reward, terminated, _, info = env.step(move)
            outcome = env.position.outcome()
            assert outcome is not None
            winner = outcome.winner
            assert reward == (0.0 if winner is None else
                              1.0 if winner.symbol == side else -1.0)
            rewards.append(reward)
        assert set(rewards) >= {1.0, -1.0}  # random against random: both happen


def test_gymnasium_perfect_opponent_never_loses_and_seeds_repeat() -> None:
    from tictactoe.envs import gymnasium_env

    env = gymnasium_env("3x3", opponent="perfect", side="o")
    games = []
    for seed in (5, 5, 6):
        _, info = env.reset(seed=seed)
        moves = [info["opponent_move"]]
        terminated, reward = False, 0.0
        while not terminated:
            move = int(np.flatnonzero(info["action_mask"])[0])
            _, reward, terminated, _, info = env.step(move)
            moves.append(info["opponent_move"])
        assert reward <= 0.0
        games.append(moves)
    assert games[0] == games[1]


def test_levels_and_unknown_opponents() -> None:
    from tictactoe.envs import gymnasium_env
    from tictactoe.players import UnknownPlayerError

    env = gymnasium_env("3x3", level="easy", seed=1)
    env.reset()
    assert env.opponent is not None and env.opponent.name == "easy"
    with pytest.raises(UnknownPlayerError):
        gymnasium_env("3x3", opponent="wizard")
    with pytest.raises(ValueError, match="unknown render mode"):
        gymnasium_env("3x3", render_mode="video")


def test_rendering_as_text_and_rgb() -> None:
    from tictactoe.core.svg import COLOURS
    from tictactoe.envs import gymnasium_env, pettingzoo_env

    env = pettingzoo_env("3x3", render_mode="ansi")
    env.reset()
    env.step(0)
    text = env.render()
    assert " 1 x . ." in text and "O to move" in text
    rgb = pettingzoo_env("4x4x4", render_mode="rgb_array")
    rgb.reset()
    picture = rgb.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert picture.shape[1] == 720
    background = tuple(bytes.fromhex(COLOURS["background"][1:]))
    assert tuple(picture[picture.shape[0] // 2, 4]) == background
    flat = gymnasium_env("3x3", render_mode="rgb_array")
    flat.reset(seed=1)
    assert flat.render().shape[1] == 360


@pytest.mark.parametrize("variant", ["3x3", "4x4", "5x5k4", "3x3x3", "4x4x4", "8x8k5",
                                     "9x9k5", "15x15k5"])
def test_the_fast_planes_and_masks_agree_with_the_board(variant: str) -> None:
    """`planes` takes three routes by the board's size (cell by cell, machine words, bit
    unpacking) and `action_mask` reads the empty plane: on random positions, each cell's
    plane is the mark on it and the mask the legal moves."""
    from tictactoe.envs.common import action_mask, planes

    rng = random.Random(variant)
    for _ in range(30):
        p = Position(variant)
        for _ in range(rng.randrange(0, p.variant.cells)):
            if p.is_game_over():
                break
            p.push(rng.choice(p.legal_moves()))
        for side in (Side.X, Side.O):
            board = planes(p, side).reshape(-1, 3)
            expected = [[int(p.mark_at(c) is side), int(p.mark_at(c) is side.other),
                         int(p.mark_at(c) is None)] for c in range(p.variant.cells)]
            assert board.dtype == np.int8 and board.tolist() == expected
        mask = action_mask(p)
        assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == p.legal_moves()
        assert (action_mask(p, planes(p, p.turn)) == mask).all()


@pytest.mark.parametrize("variant", ["3x3", "4x4x4", "9x9k5", "15x15k5"])
def test_the_kept_planes_agree_with_fresh_ones_through_moves_undos_and_new_games(
        variant: str) -> None:
    """The environments keep their planes from one observation to the next (`KeptPlanes`):
    after any mix of moves, several moves at once, undos and new games, seen from either
    side, they are the planes and the mask made afresh."""
    from tictactoe.envs.common import KeptPlanes, action_mask, planes

    rng = random.Random(variant)
    kept, p = KeptPlanes(Position(variant).variant), Position(variant)
    for _ in range(300):
        roll = rng.random()
        if roll < 0.05:
            p = Position(variant)
        elif roll < 0.15 and p.ply:
            p.pop()
        elif not p.is_game_over():
            for _ in range(1 if roll < 0.8 else 2):  # sometimes two moves between looks
                if not p.is_game_over():
                    p.push(rng.choice(p.legal_moves()))
        side = rng.choice([Side.X, Side.O])
        assert (kept.planes(p, side) == planes(p, side)).all()
        assert kept.planes(p, side).shape == planes(p, side).shape
        assert (kept.mask(p) == action_mask(p)).all()


def test_the_loops_in_the_docs_run() -> None:
    """Each library's example loop in docs/environments.md runs as written."""
    import importlib.util
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "environments.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 3
    for block in blocks:
        if "pyspiel" in block and importlib.util.find_spec("pyspiel") is None:
            continue
        exec(compile(block, "docs/environments.md", "exec"), {})


def _stock_wrapped(variant: str) -> Any:
    from pettingzoo.utils import wrappers

    from tictactoe.envs.multi_agent import TicTacToeAEC

    env = wrappers.TerminateIllegalWrapper(TicTacToeAEC(variant), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def _trace(env: Any, rng: random.Random, cells: int) -> list[tuple[Any, ...]]:
    """What a loop sees over a few games with occupied cells, steps after the end, numpy
    and out-of-range actions mixed in."""
    seen: list[tuple[Any, ...]] = []
    for game in range(12):
        env.reset(seed=game)
        for agent in env.agent_iter(max_iter=400):
            observation, reward, terminated, truncated, info = env.last()
            seen.append((agent, observation["observation"].tolist(),
                         observation["action_mask"].tolist(), reward, terminated, truncated,
                         info, dict(env.rewards), env.agents[:]))
            roll = rng.random()
            if terminated or truncated:
                action: Any = None
            elif roll < 0.03:
                action = cells + rng.randrange(3)  # off the board
            elif roll < 0.08:
                action = rng.randrange(cells)  # perhaps taken
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = legal[rng.randrange(legal.size)]  # a numpy integer
                action = int(action) if roll < 0.5 else action
            try:
                env.step(action)
            except AssertionError:
                seen.append(("refused", action))
                break
    return seen


@pytest.mark.parametrize("variant", ["3x3", "4x4x4", "9x9k5"])
def test_our_wrappers_behave_as_pettingzoos_own(variant: str,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """`pettingzoo_env` subclasses PettingZoo's wrappers to read the game state directly; a
    loop with bad actions sees the same from them as from the stock wrappers, and reading
    the state before `reset` is the same error."""
    from tictactoe.envs import pettingzoo_env

    cells = Position(variant).variant.cells
    ours, stock = pettingzoo_env(variant), _stock_wrapped(variant)
    for env in (ours, stock):
        for name in ("agent_selection", "rewards", "terminations", "agents", "infos"):
            with pytest.raises(AttributeError, match="cannot be accessed before reset"):
                getattr(env, name)
    seen = _trace(ours, random.Random(variant), cells)
    assert any(entry[0] == "refused" for entry in seen)
    assert any(entry[-2] in ({"player_1": -1, "player_2": 0}, {"player_1": 0, "player_2": -1})
               for entry in seen if len(entry) > 2), "an illegal move ended a game"
    assert seen == _trace(stock, random.Random(variant), cells)
