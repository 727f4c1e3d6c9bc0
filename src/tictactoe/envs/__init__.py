"""Environments for reinforcement learning and game-playing frameworks, on any variant.

- `pettingzoo_env`: a PettingZoo AEC environment for two agents, ``player_1`` (X) and
  ``player_2`` (O);
- `gymnasium_env`: a single-agent Gymnasium environment against one of the project's players;
- `tictactoe.envs.openspiel`: an OpenSpiel game, ``tictactoe_mnk`` (the ``openspiel`` extra).

Both environments observe the board as planes (mine, theirs, empty), act by cell index
(row-major, as everywhere in the package), give +1 for a win, -1 for a loss and 0 for a draw,
and render as text (``"ansi"``, ``"human"``) or as an RGB array drawn from the SVG picture
(``"rgb_array"``). Needs the ``envs`` extra: ``pip install 'tictactoe[envs]'``.

>>> from tictactoe.envs import gymnasium_env
>>> env = gymnasium_env("3x3", opponent="rules", seed=1)
>>> observation, info = env.reset(seed=1)
>>> observation.shape, info["action_mask"].tolist()
((3, 3, 3), [1, 1, 1, 1, 1, 1, 1, 1, 1])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tictactoe.envs.multi_agent import TicTacToeAEC, pettingzoo_env
    from tictactoe.envs.single_agent import TicTacToeEnv, gymnasium_env

from tictactoe.extras import available

GYMNASIUM_ID = "tictactoe/TicTacToe-v0"
"""The id `gymnasium_env` is registered under with Gymnasium when this package is imported."""

if available("envs"):
    import gymnasium

    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(GYMNASIUM_ID, entry_point="tictactoe.envs.single_agent:gymnasium_env")

_LAZY = {"TicTacToeAEC": "multi_agent", "pettingzoo_env": "multi_agent",
         "TicTacToeEnv": "single_agent", "gymnasium_env": "single_agent"}


def __getattr__(name: str) -> Any:
    """Load an environment module on first use, so that `tictactoe.envs.openspiel` works
    with the ``openspiel`` extra alone."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)


__all__ = ["GYMNASIUM_ID", "TicTacToeAEC", "TicTacToeEnv", "gymnasium_env", "pettingzoo_env"]
