"""The computer players and the difficulty levels built on them.

Each player is a small object with one method, ``choose(position, limit)``, that returns a
`Choice`: the move and its score for the mover (None when the player does not score moves).
All randomness comes from a `random.Random` seeded at construction, so a seed reproduces a
game exactly.

| player | how it plays | what `Limit` changes |
|---|---|---|
| ``random`` | any legal move | nothing |
| ``greedy`` | win at once, else block, else the cell on the most open lines | nothing |
| ``rules`` | win, block, fork, block a fork, centre, opposite corner, corner, edge | nothing |
| ``heuristic`` | α-β to a fixed depth, open lines for me minus for the opponent | depth |
| ``mcts`` | UCT with random playouts and MCTS-Solver proofs | nodes (iterations), seconds |
| ``perfect`` | the solver; a random one of the best moves | nodes, seconds |

The levels, for the interfaces, are described in `LEVEL_DESCRIPTIONS` and built by
`player_for_level`: ``easy``, ``medium`` and ``hard`` are `TacticalPlayer` s of growing
depth and care, and ``perfect`` is the perfect player.

>>> from tictactoe.core import Position
>>> player = make_player("perfect", seed=7)
>>> choice = player.choose(Position("xx1/oo1/x2 o"))
>>> Position("3x3").move_name(choice.move), str(choice.score)
('c2', 'win in 1')
>>> make_player("grandmaster")
Traceback (most recent call last):
...
tictactoe.players.base.UnknownPlayerError: unknown player 'grandmaster': choose one of \
random, newcomer, greedy, rules, heuristic, mcts, perfect, or a level: beginner, easy, \
medium, hard, perfect
"""

from __future__ import annotations

import random
from typing import TypedDict

from tictactoe.core import Position, TicTacToeError, Variant
from tictactoe.extras import available
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
from tictactoe.players.tactical import GreedyPlayer, NewcomerPlayer, TacticalPlayer
from tictactoe.players.wide_levels import WIDE_LEVELS, WideLevel
from tictactoe.search.knowledge import WIDE_CELLS

PLAYER_NAMES = ("random", "newcomer", "greedy", "rules", "heuristic", "mcts", "perfect")
LEVELS = ("beginner", "easy", "medium", "hard", "perfect")

DEFAULT_LEVEL = "beginner"
"""The computer's level unless one is chosen, in every front end (``ttt play``, the web
page): the one a newcomer beats in about two games in five on 3×3 (``scripts/
bench_beginner.py``), with ``perfect`` one choice away."""

LEVEL_DESCRIPTIONS = {
    "beginner": "a level you can beat: it takes a win when it has one, but two moves in five "
                "are random, so it often forgets to block your line",
    "easy": "takes a win, always blocks a line you are about to complete, and plays almost "
            "every other move at random",
    "medium": "wins and blocks like easy, sees a double threat coming two moves ahead, yours "
              "or its own (on boards past 64 cells, also one that starts with an open three), "
              "and plays one move in four at random, but never one that lets you win or make "
              "a double threat",
    "hard": "sees chains of threats that end in a double threat, for both sides, thinks "
            "three moves ahead or more, checks its move against your quiet set-ups (moves "
            "that threaten nothing yet but prepare such a chain), and plays small boards such "
            "as 3×3 perfectly",
    "perfect": "plays a move proven best wherever it can prove one in time; elsewhere it "
               "thinks deeper and wider than hard, and says when its move is only its best "
               "guess",
}
"""One line per level, shown next to the level in the web page, the terminal app and
``--help``."""


class LevelPlayer:
    """A player plus a chance of playing a random move instead (kept for custom levels)."""

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


class LevelSettings(TypedDict, total=False):
    """The `TacticalPlayer` keywords of a level (see its docstring)."""

    depth: int
    beam: int
    mistakes: float
    careful: int
    floor_positions: int
    sequence_moves: int
    solve_nodes: int
    defence: int
    verify_nodes: int


LEVEL_SETTINGS: dict[str, LevelSettings] = {
    "beginner": {"depth": 1, "beam": 6, "mistakes": 0.4, "careful": 0, "floor_positions": 0},
    "easy": {"depth": 1, "beam": 6, "mistakes": 0.45, "floor_positions": 0},
    "medium": {"depth": 1, "beam": 8, "mistakes": 0.25, "careful": 4, "sequence_moves": 2},
    "hard": {"depth": 3, "beam": 10, "solve_nodes": 200_000, "defence": 8,
             "verify_nodes": 20_000},
}
"""The `TacticalPlayer` settings of the levels below ``perfect``."""


def limit_for(name: str, variant: Variant, limit: Limit = Limit()) -> Limit:
    """The limit a front end gives a player or level on `variant`: none where the level
    bounds its own search (past 64 cells, with the ``fast`` extra: `WIDE_LEVELS`), so that
    the web page, the terminal app, ``ttt move`` and the environments all get the same move
    from it for the same seed; otherwise `limit` as given.

    >>> limit_for("hard", Variant.parse("15x15k5"), Limit(seconds=1.5)) == Limit()
    True
    >>> limit_for("hard", Variant.parse("3x3"), Limit(seconds=1.5))
    Limit(depth=None, nodes=None, seconds=1.5)
    """
    key = name.strip().lower()
    if variant.cells > WIDE_CELLS and key in WIDE_LEVELS and available("fast"):
        return Limit()
    return limit


def _unknown(name: str) -> UnknownPlayerError:
    return UnknownPlayerError(
        f"unknown player {name!r}: choose one of {', '.join(PLAYER_NAMES)}, or a level: "
        f"{', '.join(LEVELS)}")


def make_player(name: str, *, seed: int | None = None, depth: int | None = None) -> Player:
    """A player by name (``random``, ``newcomer``, ``greedy``, ``rules``, ``heuristic``, ``mcts``,
    ``perfect``) or by level (``easy``, ``medium``, ``hard``, ``perfect``). `depth` sets the
    heuristic player's depth and is ignored by the others."""
    key = name.strip().lower()
    if key == "random":
        return RandomPlayer(seed)
    if key == "newcomer":
        return NewcomerPlayer(seed)
    if key == "greedy":
        return GreedyPlayer(seed)
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
    """The player behind a difficulty level (see `LEVEL_DESCRIPTIONS` and `LEVEL_SETTINGS`).

    >>> player_for_level("easy").name
    'easy'
    """
    key = level.strip().lower()
    if key not in LEVELS:
        raise UnknownPlayerError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    if key == "perfect":
        return PerfectPlayer(seed)
    return TacticalPlayer(**LEVEL_SETTINGS[key], seed=seed, name=key, wide=_wide_level(key))


def _wide_level(level: str) -> WideLevel | None:
    """A level's search past 64 cells, where the ``fast`` extra brings it (the searches are
    loaded at the level's first move there, on its clock)."""
    return WIDE_LEVELS.get(level) if available("fast") else None
