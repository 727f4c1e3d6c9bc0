"""What every player shares: `Player`, `Limit`, `Choice`, the random player, `play_move`.

Each player is a small object with one method, ``choose(position, limit)``, that returns a
`Choice`: the move and its score for the mover (None when the player does not score moves).
All randomness comes from a `random.Random` seeded at construction, so a seed reproduces a
game exactly.

>>> from tictactoe.core import Position
>>> player = RandomPlayer(seed=1)
>>> play_move(Position("xx1/oo1/x2 o"), player).move in (2, 5, 7, 8)
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tictactoe.core import IllegalMoveError, Position, TicTacToeError
from tictactoe.search.score import Score
from tictactoe.search.solution import check_solvable


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


def check_playable(position: Position) -> list[int]:
    """The legal moves; a clear error if there are none or the position is impossible."""
    check_solvable(position)
    return position.legal_moves()


class RandomPlayer:
    """Plays any legal move, uniformly at random."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        return Choice(self.rng.choice(check_playable(position)), None)


def play_move(position: Position, player: Player, limit: Limit = Limit()) -> Choice:
    """Ask a player for a move and check that it is legal."""
    choice = player.choose(position, limit)
    if choice.move not in position.legal_moves():
        raise IllegalMoveError(f"{player.name} chose the illegal move {choice.move}")
    return choice
