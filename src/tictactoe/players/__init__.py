"""The computer players (random, rules, heuristic, MCTS, perfect), the difficulty levels
built on them, the arena that plays matches between them, and the ladder that rates them in a
round robin.

>>> from tictactoe.core import Position
>>> make_player("rules", seed=1).choose(Position("xx1/oo1/3 x")).move
2
"""

from tictactoe.players.arena import Game, Match, play_game, play_match
from tictactoe.players.base import Choice, Limit, Player, UnknownPlayerError, play_move
from tictactoe.players.ladder import Ladder, play_ladder, rate
from tictactoe.players.levels import (
    LEVEL_SETTINGS,
    LEVELS,
    PLAYER_NAMES,
    make_player,
    player_for_level,
)

__all__ = [
    "LEVELS",
    "LEVEL_SETTINGS",
    "PLAYER_NAMES",
    "Choice",
    "Game",
    "Ladder",
    "Limit",
    "Match",
    "Player",
    "UnknownPlayerError",
    "make_player",
    "play_game",
    "play_ladder",
    "play_match",
    "play_move",
    "player_for_level",
    "rate",
]
