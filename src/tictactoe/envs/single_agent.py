"""A single-agent Gymnasium environment: the agent plays one side of any variant against one
of the project's players (`tictactoe.players.make_player`), who answers inside `step`.

- observation: the board as planes from the agent's side (mine, theirs, empty), ``int8``,
  shape ``(rows, columns, 3)`` or ``(layers, rows, columns, 3)`` on a cube;
- action: a cell index, row-major; ``info["action_mask"]`` marks the legal ones (as
  Gymnasium's own Taxi does);
- reward: +1 when the agent wins, -1 when it loses, 0 for a draw and for every other step;
- ``info["opponent_move"]``: the cell the opponent just played, or None.

Bad actions: Gymnasium leaves them to each environment, and this one follows its
``Discrete`` space. An occupied cell is a legal element of the space, so it ends the episode
(``terminated``) with reward -1 and ``info["illegal_move"] = True``, leaving the board as it
was; an action outside the space (not ``0 .. cells-1``) raises `InvalidMoveError`, and so
does a step after the episode has ended without a `reset`.

>>> env = gymnasium_env("3x3", opponent="rules", seed=3)
>>> observation, info = env.reset()
>>> observation, reward, terminated, truncated, info = env.step(4)
>>> info["opponent_move"], reward, terminated
(6, 0.0, False)
"""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from __future__ import annotations

from tictactoe.extras import require

require("envs", "tictactoe.envs")

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from tictactoe.core import IllegalMoveError, InvalidMoveError, Position, Side, Variant
from tictactoe.envs.common import (
    RENDER_MODES,
    KeptPlanes,
    board_shape,
    check_render_mode,
    render,
)
from tictactoe.players import Limit, Player, make_player, player_for_level
from tictactoe.players.levels import limit_for

BIG_BOARD_NODES = 100_000
"""The perfect opponent's node budget per move on boards of 17 to 64 cells, unless a
`Limit` is given: the exact solve of an early position there can take very long (past 64
cells the level bounds its own search, `tictactoe.players.levels.limit_for`)."""

Observation = npt.NDArray[np.int8]


class TicTacToeEnv(gymnasium.Env[Observation, np.int64]):
    """One side of a variant against a computer player (see `gymnasium_env`)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}  # noqa: RUF012  # as in Env

    def __init__(self, variant: str | Variant = "3x3", opponent: str = "perfect",
                 level: str | None = None, seed: int | None = None, *, side: str = "x",
                 limit: Limit | None = None, render_mode: str | None = None) -> None:
        self.variant = Variant.parse(variant) if isinstance(variant, str) else variant
        self.side = Side.parse(side)
        self.opponent_name = (level if level is not None else opponent).strip().lower()
        self._make: Any = player_for_level if level is not None else make_player
        self._make(self.opponent_name)  # an unknown name fails here, not at reset
        perfect = self.opponent_name == "perfect"
        self.limit = limit if limit is not None else limit_for(
            self.opponent_name, self.variant,
            Limit(nodes=BIG_BOARD_NODES) if perfect and self.variant.cells > 16 else Limit())
        self.render_mode = check_render_mode(render_mode)
        self.action_space = spaces.Discrete(self.variant.cells)
        self.observation_space = spaces.Box(0, 1, (*board_shape(self.variant), 3),
                                            dtype=np.int8)
        self.position = Position(self.variant)
        self._kept = KeptPlanes(self.variant)
        self.opponent: Player | None = None
        self._first_seed = seed
        self._last: int | None = None
        self._over = True

    def _observe(self, **extra: Any) -> tuple[Observation, dict[str, Any]]:
        info = {"action_mask": self._kept.mask(self.position), **extra}
        return self._kept.planes(self.position, self.side), info

    def _opponent_moves(self) -> int:
        assert self.opponent is not None
        move = self.opponent.choose(self.position, self.limit).move
        self.position.push(move)
        self._last = move
        return move

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """A new game; if the agent plays O, the opponent has made its first move. `seed`
        (else the one given at construction, on the first reset) seeds the opponent."""
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        super().reset(seed=seed)
        self.opponent = self._make(self.opponent_name,
                                   seed=int(self.np_random.integers(2**31)))
        self.position = Position(self.variant)
        self._last = None
        self._over = False
        opponent_move = self._opponent_moves() if self.side is Side.O else None
        if self.render_mode == "human":
            self.render()
        return self._observe(opponent_move=opponent_move, illegal_move=False)

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if not (0 <= action < self.variant.cells if type(action) is int
                else self.action_space.contains(action)):  # a plain int: no space asked
            raise InvalidMoveError(f"action {action!r} is not a cell of the {self.variant.name} "
                                   f"board: expected an integer 0-{self.variant.cells - 1}")
        if self._over:
            raise IllegalMoveError("the episode is over: call reset() to start another")
        cell = int(action)
        if self.position.occupied >> cell & 1:
            self._over = True
            observation, info = self._observe(opponent_move=None, illegal_move=True)
            return observation, -1.0, True, False, info
        self.position.push(cell)
        self._last = cell
        opponent_move = None
        if not self.position.is_game_over():
            opponent_move = self._opponent_moves()
        outcome = self.position.outcome()
        reward = 0.0
        if outcome is not None:
            self._over = True
            if outcome.winner is not None:
                reward = 1.0 if outcome.winner is self.side else -1.0
        if self.render_mode == "human":
            self.render()
        observation, info = self._observe(opponent_move=opponent_move, illegal_move=False)
        return observation, reward, outcome is not None, False, info

    def render(self) -> Any:
        return render(self.position, self.render_mode, self._last)


def gymnasium_env(variant: str | Variant = "3x3", opponent: str = "perfect",
                  level: str | None = None, seed: int | None = None, *, side: str = "x",
                  limit: Limit | None = None, render_mode: str | None = None) -> TicTacToeEnv:
    """A Gymnasium environment: the agent plays `side` (``"x"`` moves first) of `variant`
    against `opponent` (``random``, ``rules``, ``heuristic``, ``mcts`` or ``perfect``), or
    against a difficulty `level` (``easy`` ... ``perfect``) if one is given. `seed` seeds the
    opponent's choices between equal moves (also ``reset(seed=...)``). `limit` bounds the
    opponent's search (default: none, except a perfect opponent on boards of more than 16
    cells: `BIG_BOARD_NODES` nodes a move). Render modes as in `pettingzoo_env`.

    Also registered with Gymnasium as ``tictactoe/TicTacToe-v0``:
    ``gymnasium.make("tictactoe/TicTacToe-v0", variant="5x5k4", opponent="mcts")``.
    """
    return TicTacToeEnv(variant, opponent, level, seed, side=side, limit=limit,
                        render_mode=render_mode)
