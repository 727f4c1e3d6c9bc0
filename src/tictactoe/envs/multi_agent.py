"""A PettingZoo AEC environment for any variant: two agents, ``"player_1"`` who plays X and
moves first, and ``"player_2"`` who plays O (the names of PettingZoo's own tic-tac-toe).

Each agent observes a dict: ``"observation"``, the board as planes from its own side (mine,
theirs, empty; shape ``(rows, columns, 3)``, or ``(layers, rows, columns, 3)`` on a cube), and
``"action_mask"``, 1 on the legal cells for the agent to move (all 0 for the other agent and
after the end). Actions are cell indices, row-major. At the end the winner gets +1 and the
loser -1; a draw gives 0 to both.

Bad actions follow PettingZoo's classic games (which apply the same wrappers): an occupied
cell ends the game at once, with -1 for the agent that played it and 0 for the other, and a
logged warning (``TerminateIllegalWrapper``); an action outside ``0 .. cells-1`` fails an assertion
(``AssertOutOfBoundsWrapper``); acting before `reset` is an error (``OrderEnforcingWrapper``).

>>> env = pettingzoo_env("3x3")
>>> env.reset(seed=0)
>>> for cell in (4, 0, 2, 6, 3, 5, 7, 1, 8):
...     env.step(cell)
>>> env.unwrapped.position
Position('oox/xxo/oxx o')
>>> env.rewards
{'player_1': 0, 'player_2': 0}
"""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from __future__ import annotations

from tictactoe.extras import require

require("envs", "tictactoe.envs")

from operator import attrgetter
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector, wrappers

from tictactoe.core import Position, Side, Variant
from tictactoe.envs.common import (
    RENDER_MODES,
    KeptPlanes,
    board_shape,
    check_render_mode,
    render,
)

AGENTS = ("player_1", "player_2")
SIDES = {"player_1": Side.X, "player_2": Side.O}


class TicTacToeAEC(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """The raw environment (use `pettingzoo_env` for the one with PettingZoo's wrappers)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES, "name": "tictactoe_mnk_v0", "is_parallelizable": False,
        "render_fps": 1}

    def __init__(self, variant: str | Variant = "3x3", render_mode: str | None = None) -> None:
        super().__init__()
        self.variant = Variant.parse(variant) if isinstance(variant, str) else variant
        self.render_mode = check_render_mode(render_mode)
        self.position = Position(self.variant)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        cells = self.variant.cells
        self.action_spaces = {agent: spaces.Discrete(cells) for agent in AGENTS}
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(0, 1, (*board_shape(self.variant), 3), dtype=np.int8),
            "action_mask": spaces.Box(0, 1, (cells,), dtype=np.int8),
        }) for agent in AGENTS}
        self._selector = AgentSelector(self.agents)
        self._last: int | None = None
        self._space_seed: int | None = None
        """The seed of the last `reset` that had one."""
        self._seeded: set[int] = set()
        """The spaces seeded with it so far (by id)."""
        self._kept = KeptPlanes(self.variant)
        self._start()

    def _start(self) -> None:
        self.position = Position(self.variant)
        self._last = None
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._selector.reinit(self.agents)
        self.agent_selection = self._selector.reset()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        space = self.observation_spaces[agent]
        self._seed_space(space, agent)
        return space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        space = self.action_spaces[agent]
        self._seed_space(space, agent)
        return space

    def _seed_space(self, space: spaces.Space[Any], agent: str) -> None:
        """Seed a space with the seed `reset` was given (plus the agent's number), when it is
        first asked for after that reset: seeding all four spaces at every reset took most
        of a reset's time, and a space is sampled only once asked for, so the samples are
        the same."""
        if self._space_seed is not None and id(space) not in self._seeded:
            self._seeded.add(id(space))
            space.seed(self._space_seed + AGENTS.index(agent))

    def observe(self, agent: str) -> dict[str, Any]:
        board = self._kept.planes(self.position, SIDES[agent])
        mask = self._kept.mask(self.position) if agent == self.agent_selection else \
            np.zeros(self.variant.cells, dtype=np.int8)
        return {"observation": board, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start from the empty board, X to move. The game itself has no randomness; `seed`
        seeds the action and observation spaces (for their ``sample``)."""
        if seed is not None:
            self._space_seed = seed
            self._seeded.clear()
        self._start()

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.position.push(int(action))
        self._last = int(action)
        outcome = self.position.outcome()
        if outcome is not None:
            if outcome.winner is not None:
                for name, side in SIDES.items():
                    self.rewards[name] += 1 if side is outcome.winner else -1
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        self.agent_selection = self._selector.next()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        return render(self.position, self.render_mode, self._last)

    def close(self) -> None:
        pass


GAME_STATE = ("agent_selection", "agents", "rewards", "_cumulative_rewards", "terminations",
              "truncations", "infos")
"""The raw environment's attributes that a loop reads at every step (by `last`, the
wrappers and `agent_iter`)."""


def _read_through(name: str) -> property:
    """An attribute of the raw environment, read and written directly: PettingZoo's wrappers
    find it by a chain of ``__getattr__`` calls, one per wrapper, which took two thirds of a
    15x15 step. The getter is C (`attrgetter`); without ``_raw`` it raises `AttributeError`,
    and Python then asks the wrapper's own ``__getattr__``."""

    def put(wrapper: Any, value: Any) -> None:
        setattr(wrapper.unwrapped, name, value)

    return property(attrgetter(f"_raw.{name}"), put)


class _ReadThrough:
    """Mixed into a PettingZoo wrapper: the game state comes from the raw environment
    directly (the same values the wrapper's ``__getattr__`` would find)."""

    def _keep_raw(self, env: Any) -> None:
        object.__setattr__(self, "_raw", env.unwrapped)


for _name in GAME_STATE:
    setattr(_ReadThrough, _name, _read_through(_name))


class TerminateIllegal(_ReadThrough, wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's `TerminateIllegalWrapper`, reading the game state directly."""

    def __init__(self, env: Any, illegal_reward: float) -> None:
        self._keep_raw(env)
        super().__init__(env, illegal_reward)


class AssertOutOfBounds(_ReadThrough, wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    """PettingZoo's `AssertOutOfBoundsWrapper`, reading the game state directly; a plain
    ``int`` inside the board passes without asking the action space."""

    def __init__(self, env: Any) -> None:
        self._keep_raw(env)
        super().__init__(env)
        self._cells = env.unwrapped.variant.cells

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._cells:
            self.env.step(action)
        else:
            super().step(action)


class OrderEnforcing(_ReadThrough, wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's `OrderEnforcingWrapper`, reading the game state directly once reset;
    before that the state is not kept, and reading it is PettingZoo's `AttributeError`."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._keep_raw(self.env)
        super().reset(seed=seed, options=options)

    def __str__(self) -> str:
        return str(self.env)  # as PettingZoo prints its own OrderEnforcingWrapper


def pettingzoo_env(variant: str | Variant = "3x3", render_mode: str | None = None) -> Any:
    """The environment for a variant (``"3x3"``, ``"5x5k4"``, ``"4x4x4"`` ...), wrapped as
    PettingZoo's classic games are (by subclasses of the same wrappers that read the game
    state directly). Render modes: None, ``"human"`` (prints the board), ``"ansi"`` (returns
    it as text) and ``"rgb_array"`` (pixels of the SVG picture).

    >>> env = pettingzoo_env("3x3")
    >>> isinstance(env, wrappers.OrderEnforcingWrapper), str(env)
    (True, 'tictactoe_mnk_v0')
    """
    env = TicTacToeAEC(variant, render_mode)
    env = TerminateIllegal(env, illegal_reward=-1)
    env = AssertOutOfBounds(env)
    return OrderEnforcing(env)
