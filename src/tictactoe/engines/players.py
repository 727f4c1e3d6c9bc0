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
tictactoe.engines.players.UnknownPlayerError: unknown player 'grandmaster': choose one of \
random, rules, heuristic, mcts, perfect, or a level: easy, medium, hard, perfect
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tictactoe.core import IllegalMoveError, Position, TicTacToeError
from tictactoe.engines.heuristic import EVALUATIONS, depth_limited_scores
from tictactoe.engines.mcts import mcts_search
from tictactoe.engines.rules_player import rule_candidates
from tictactoe.engines.score import Score
from tictactoe.engines.solver import check_solvable, solve

PLAYER_NAMES = ("random", "rules", "heuristic", "mcts", "perfect")
LEVELS = ("easy", "medium", "hard", "perfect")

DEFAULT_DEPTH = 3
"""Plies the heuristic player looks ahead unless told otherwise."""

DEFAULT_ITERATIONS = 2000
"""MCTS iterations per move unless told otherwise."""


class UnknownPlayerError(TicTacToeError):
    """A player or level name that does not exist."""


@dataclass(frozen=True)
class Limit:
    """How far a player may search: plies, nodes (or MCTS iterations), seconds."""

    depth: int | None = None
    nodes: int | None = None
    seconds: float | None = None


@dataclass(frozen=True)
class Choice:
    """A move and its score for the player making it (None if the player does not score)."""

    move: int
    score: Score | None


@runtime_checkable
class Player(Protocol):
    """Anything with a name that chooses a move for the side to move."""

    name: str

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        """The move to play in `position` (which must not be over)."""
        ...


def _check_playable(position: Position) -> list[int]:
    """The legal moves; a clear error if there are none or the position is impossible."""
    check_solvable(position)
    return position.legal_moves()


class RandomPlayer:
    """Plays any legal move, uniformly at random."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        return Choice(self.rng.choice(_check_playable(position)), None)


class RulesPlayer:
    """The rule-based player; ties within a rule are broken at random."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "rules"
        self.rng = random.Random(seed)
        self.last_rule = ""
        """The rule behind the last choice (for display)."""

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        _check_playable(position)
        self.last_rule, cells = rule_candidates(position)
        return Choice(self.rng.choice(cells), None)


class HeuristicPlayer:
    """Depth-limited α-β with a static evaluation (``lines`` or ``win``)."""

    def __init__(self, depth: int = DEFAULT_DEPTH, evaluation: str = "lines",
                 seed: int | None = None) -> None:
        if depth < 1:
            raise TicTacToeError(f"depth must be at least 1, not {depth}")
        if evaluation not in EVALUATIONS:
            raise TicTacToeError(
                f"unknown evaluation {evaluation!r}: choose one of {', '.join(EVALUATIONS)}")
        self.name = "heuristic"
        self.depth = depth
        self.evaluation = EVALUATIONS[evaluation]
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        _check_playable(position)
        depth = limit.depth if limit.depth is not None else self.depth
        scores, _ = depth_limited_scores(position, depth, self.evaluation)
        top = max(scores.values())
        move = self.rng.choice([c for c, s in scores.items() if s == top])
        return Choice(move, top)


class MctsPlayer:
    """Monte Carlo tree search (UCT + MCTS-Solver) with a fixed number of iterations."""

    def __init__(self, iterations: int = DEFAULT_ITERATIONS, seed: int | None = None) -> None:
        if iterations < 1:
            raise TicTacToeError(f"iterations must be at least 1, not {iterations}")
        self.name = "mcts"
        self.iterations = iterations
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        _check_playable(position)
        iterations = limit.nodes if limit.nodes is not None else self.iterations
        result = mcts_search(position, self.rng, iterations=iterations, seconds=limit.seconds)
        return Choice(result.move, result.score)


class PerfectPlayer:
    """Plays a best move found by the solver; a random one when several are equally good."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "perfect"
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        solution = solve(position, nodes=limit.nodes, seconds=limit.seconds)
        move = self.rng.choice(solution.best)
        return Choice(move, solution.moves[move])


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
        legal = _check_playable(position)
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


def play_move(position: Position, player: Player, limit: Limit = Limit()) -> Choice:
    """Ask a player for a move and check that it is legal."""
    choice = player.choose(position, limit)
    if choice.move not in position.legal_moves():
        raise IllegalMoveError(f"{player.name} chose the illegal move {choice.move}")
    return choice
