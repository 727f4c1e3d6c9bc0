#!/usr/bin/env python3
"""Benchmark the environments beside their peers, in one process (not a test).

    python scripts/bench_envs.py [--seconds 3] [--rounds 2]

- PettingZoo: random play on the AEC environment, 3x3 and 15x15, steps a second, beside
  PettingZoo's own ``tictactoe_v3`` on 3x3 (which needs ``pygame``: ``pip install pygame``;
  without it that column says so), and the ratio;
- Gymnasium: steps a second of the single-agent environment against ``random``;
- OpenSpiel: a random 15x15 game on ``tictactoe_mnk`` beside OpenSpiel's C++ ``mnk``.

Each measurement runs `--rounds` times, alternating ours and theirs; the machine is noisy,
so compare within a round. Rates are per second of this process's CPU time (other programs
on the machine slow the clock on the wall, not this one), with the same random policy for
every environment.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def pick(mask: Any, rng: random.Random) -> int:
    """A random legal cell of an action mask: the policy of every loop here, the same for
    ours and the peers' (numpy's ``Generator.choice`` alone took 20 us, as long as a step)."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(legal.size)])


def aec_steps(make: Callable[[], Any], seconds: float) -> float:
    """Steps a CPU second of random legal play (the action mask) on a PettingZoo AEC env."""
    env = make()
    rng = random.Random(0)
    env.reset(seed=1)
    steps, started = 0, time.process_time()
    while time.process_time() - started < seconds:
        env.reset()
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(pick(observation["action_mask"], rng))
            steps += 1
    return steps / (time.process_time() - started)


def stock_wrapped(variant: str) -> Any:
    """Our raw environment in PettingZoo's own wrappers (which `pettingzoo_env` subclasses
    to read the game state directly)."""
    from pettingzoo.utils import wrappers

    from tictactoe.envs.multi_agent import TicTacToeAEC

    env = wrappers.TerminateIllegalWrapper(TicTacToeAEC(variant), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def gym_steps(variant: str, seconds: float) -> float:
    """Steps a CPU second of the Gymnasium environment (opponent ``random``)."""
    from tictactoe.envs import gymnasium_env

    env = gymnasium_env(variant, opponent="random")
    rng = random.Random(0)
    steps, started = 0, time.process_time()
    _, info = env.reset(seed=1)
    while time.process_time() - started < seconds:
        _, _, terminated, truncated, info = env.step(pick(info["action_mask"], rng))
        steps += 1
        if terminated or truncated:
            _, info = env.reset()
    return steps / (time.process_time() - started)


def spiel_game_ms(game: Any, games: int = 20) -> float:
    """CPU milliseconds of one random game on an OpenSpiel game."""
    rng = random.Random(0)
    started = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
    return 1000 * (time.process_time() - started) / games


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from tictactoe.envs import pettingzoo_env

    try:
        from pettingzoo.classic import tictactoe_v3
        theirs: Callable[[], Any] | None = tictactoe_v3.env
    except ImportError as err:
        theirs = None
        print(f"PettingZoo's tictactoe_v3 cannot be loaded ({err}); pip install pygame")
    for round_ in range(1, args.rounds + 1):
        ours = aec_steps(lambda: pettingzoo_env("3x3"), args.seconds)
        line = f"round {round_}: PettingZoo 3x3 ours {ours:,.0f} steps/s"
        if theirs is not None:
            peer = aec_steps(theirs, args.seconds)
            line += f", tictactoe_v3 {peer:,.0f} steps/s, ratio {ours / peer:.2f}"
        print(line, flush=True)
        big = aec_steps(lambda: pettingzoo_env("15x15k5"), args.seconds)
        stock = aec_steps(lambda: stock_wrapped("15x15k5"), args.seconds)
        print(f"round {round_}: PettingZoo 15x15 ours {big:,.0f} steps/s (in PettingZoo's "
              f"stock wrappers {stock:,.0f}, ratio {big / stock:.2f})", flush=True)
        print(f"round {round_}: Gymnasium 3x3 "
              f"{gym_steps('3x3', args.seconds):,.0f}, 15x15 "
              f"{gym_steps('15x15k5', args.seconds):,.0f} steps/s", flush=True)
        try:
            import pyspiel

            from tictactoe.envs.openspiel import game
        except ImportError:
            continue
        mine = spiel_game_ms(game("15x15k5"))
        native = spiel_game_ms(pyspiel.load_game("mnk(m=15,n=15,k=5)"))
        print(f"round {round_}: OpenSpiel random 15x15 game: tictactoe_mnk {mine:.1f} ms, "
              f"C++ mnk {native:.2f} ms, ratio {mine / native:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
