"""The computer players and the difficulty levels built on them.

Each player is a small object with one method, ``choose(position, limit)``, that returns a
`Choice`: the move and its score for the mover (None when the player does not score moves).
All randomness comes from a `random.Random` seeded at construction, so a seed reproduces a
game exactly.

| player | how it plays | what `Limit` changes |
|---|---|---|
| ``random`` | any legal move | nothing |
| ``rules`` | win, block, fork, block a fork, centre, opposite corner, corner, edge | nothing |
| ``heuristic`` | α-β to a fixed depth, open lines for me minus for the opponent | depth |
| ``mcts`` | UCT with random playouts and MCTS-Solver proofs | nodes (iterations), seconds |
| ``perfect`` | the solver; a random one of the best moves | nodes, seconds |

Levels, for the interfaces (see `LEVEL_SETTINGS`): ``easy`` is the heuristic player at depth 1
playing a random move 35% of the time; ``medium`` the heuristic player at depth 3 with 10%
random moves; ``hard`` MCTS with 3,000 iterations; ``perfect`` the perfect player.

>>> from tictactoe.core import Position
>>> player = make_player("perfect", seed=7)
>>> choice = player.choose(Position("xx1/oo1/x2 o"))
>>> Position("3x3").move_name(choice.move), str(choice.score)
('c2', 'win in 1')
>>> make_player("grandmaster")
Traceback (most recent call last):
...
tictactoe.players.base.UnknownPlayerError: unknown player 'grandmaster': choose one of \
random, rules, heuristic, mcts, perfect, or a level: easy, medium, hard, perfect
"""

from __future__ import annotations

import random

from tictactoe.core import Position, TicTacToeError
from tictactoe.players.base import (
    Choice,
    Limit,
    Player,
    RandomPlayer,
    UnknownPlayerError,
    check_playable,
)
from tictactoe.players.heuristic import DEFAULT_DEPTH, HeuristicPlayer
from tictactoe.players.mcts import MctsPlayer
from tictactoe.players.perfect import PerfectPlayer
from tictactoe.players.rules import RulesPlayer

PLAYER_NAMES = ("random", "rules", "heuristic", "mcts", "perfect")
LEVELS = ("easy", "medium", "hard", "perfect")


class LevelPlayer:
    """A difficulty level: another player, plus a chance of playing a random move instead."""

    def __init__(self, name: str, inner: Player, random_chance: float,
                 seed: int | None = None) -> None:
        if not 0.0 <= random_chance <= 1.0:
            raise TicTacToeError(f"the random-move chance must be 0-1, not {random_chance}")
        self.name = name
        self.inner = inner
        self.random_chance = random_chance
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        legal = check_playable(position)
        if self.random_chance and self.rng.random() < self.random_chance:
            return Choice(self.rng.choice(legal), None)
        return self.inner.choose(position, limit)


LEVEL_SETTINGS: dict[str, tuple[str, dict[str, int], float]] = {
    "easy": ("heuristic", {"depth": 1}, 0.35),
    "medium": ("heuristic", {"depth": 3}, 0.10),
    "hard": ("mcts", {"iterations": 3000}, 0.0),
    "perfect": ("perfect", {}, 0.0),
}
"""Each level: the player, its settings, and the chance of a random move instead."""


def _unknown(name: str) -> UnknownPlayerError:
    return UnknownPlayerError(
        f"unknown player {name!r}: choose one of {', '.join(PLAYER_NAMES)}, or a level: "
        f"{', '.join(LEVELS)}")


def make_player(name: str, *, seed: int | None = None, depth: int | None = None) -> Player:
    """A player by name (``random``, ``rules``, ``heuristic``, ``mcts``, ``perfect``) or by
    level (``easy``, ``medium``, ``hard``, ``perfect``). `depth` sets the heuristic player's
    depth and is ignored by the others."""
    key = name.strip().lower()
    if key == "random":
        return RandomPlayer(seed)
    if key == "rules":
        return RulesPlayer(seed)
    if key == "heuristic":
        return HeuristicPlayer(depth if depth is not None else DEFAULT_DEPTH, seed=seed)
    if key == "mcts":
        return MctsPlayer(seed=seed)
    if key == "perfect":
        return PerfectPlayer(seed)
    if key in LEVELS:
        return player_for_level(key, seed)
    raise _unknown(name)


def player_for_level(level: str, seed: int | None = None) -> Player:
    """The player behind a difficulty level (see `LEVEL_SETTINGS`).

    >>> player_for_level("easy").name
    'easy'
    """
    key = level.strip().lower()
    if key not in LEVEL_SETTINGS:
        raise UnknownPlayerError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    kind, settings, chance = LEVEL_SETTINGS[key]
    inner: Player
    if kind == "heuristic":
        inner = HeuristicPlayer(settings["depth"], seed=seed)
    elif kind == "mcts":
        inner = MctsPlayer(settings["iterations"], seed=seed)
    else:
        inner = PerfectPlayer(seed)
    if not chance:
        inner.name = key
        return inner
    # A separate stream for the random-move coin, so the inner player's choices are unchanged.
    coin_seed = None if seed is None else seed + 1_000_003
    return LevelPlayer(key, inner, chance, coin_seed)


