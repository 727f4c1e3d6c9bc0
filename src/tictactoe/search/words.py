"""What a score says, in the same words in every front end (the CLI, the terminal app, the
web page and its JSON): proven results count the winner's moves, and an estimate says how
much better the position is, for whom, and its number on the one scale of
`tictactoe.search.score.Heuristic`.

>>> from tictactoe.core import Side
>>> from tictactoe.search.score import Heuristic, Win
>>> reply_words(Heuristic(7.0)), hint_words(Win(3))
('better for me (my estimate +7)', 'you can force a win with your next move')
>>> side_words(Heuristic(-16.4), Side.O)
'better for X (estimate -16)'
"""

from __future__ import annotations

from tictactoe.core import Side
from tictactoe.search.score import (
    Draw,
    ForcedLoss,
    ForcedWin,
    Heuristic,
    Loss,
    Score,
    Win,
    format_estimate,
)

ESTIMATE_WORDS = ("about even", "slightly better for {who}", "better for {who}",
                  "much better for {who}", "winning for {who}, {seems}, but not proven")
"""An estimate's band (`Heuristic.band`: 0 to 4, its size) in words."""


def estimate_words(score: Heuristic, good: str, bad: str, *, label: str = "estimate",
                   seems: str = "it seems") -> str:
    """An estimate in words: its band for `good` (the side it is for, when positive) or
    `bad`, then its number.

    >>> estimate_words(Heuristic(-2.0), "me", "you", label="my estimate")
    'slightly better for you (my estimate -2)'
    >>> estimate_words(Heuristic(0.2), "X", "O"), estimate_words(Heuristic(95.0), "X", "O")
    ('about even (estimate +0.2)', 'winning for X, it seems, but not proven (estimate +95)')
    """
    band = score.band
    words = ESTIMATE_WORDS[abs(band)].format(who=good if band > 0 else bad, seems=seems)
    return f"{words} ({label} {format_estimate(score.value)})"


def side_words(score: Score, mover: Side) -> str:
    """A score for `mover` in words that name the sides (the command line's form).

    >>> from tictactoe.search.score import Loss
    >>> side_words(Loss(4), Side.X), side_words(Heuristic(1.0), Side.X)
    ('loss in 4', 'slightly better for X (estimate +1)')
    """
    if isinstance(score, Heuristic):
        return estimate_words(score, mover.name, mover.other.name)
    return str(score)


def _moves_of(plies: int) -> str:
    return "next move" if plies <= 1 else f"next {plies} moves"


def reply_words(score: Score) -> str:
    """What a computer's move is worth, in plain words from the computer's side, for the
    player who faces it: ``score`` is the move's value for the computer, counted in plies
    from before the move, as the players give it. A proven result counts the winner's moves
    still to come (with best play by the loser, at most that many); an estimate says how
    much better the position is, and for whom.

    >>> reply_words(Win(5)), reply_words(Win(3))
    ('I can force a win within my next 2 moves', 'I can force a win with my next move')
    >>> reply_words(Loss(2)), reply_words(ForcedLoss(within=8))
    ('you can win with your next move', 'you can force a win within your next 4 moves')
    >>> reply_words(Draw())
    'a draw with best play: neither of us can force a win'
    >>> reply_words(Heuristic(-0.1)), reply_words(Heuristic(1.0))
    ('about even (my estimate -0.1)', 'slightly better for me (my estimate +1)')
    """
    return _words(score, ("I", "my", "me"), ("you", "your", "you"), "my estimate", "I think")


def hint_words(score: Score) -> str:
    """What a move is worth for the player to move, in the words of the computer's comments
    (`reply_words`) turned to that player's side: the hints say it the way the computer
    would, on the same scale.

    >>> hint_words(Win(1)), hint_words(Win(3)), hint_words(ForcedLoss(within=8))
    ('you win with this move', 'you can force a win with your next move', \
'I can force a win within my next 4 moves')
    >>> hint_words(Heuristic(1.0)), hint_words(Heuristic(-30.0))
    ('slightly better for you (estimate +1)', 'much better for me (estimate -30)')
    """
    return _words(score, ("you", "your", "you"), ("I", "my", "me"), "estimate", "it seems")


def _words(score: Score, mover: tuple[str, str, str], other: tuple[str, str, str],
           estimate: str, seems: str) -> str:
    """`reply_words` for a mover and the other player, each as (subject, possessive,
    object)."""
    i, my, me = mover
    you, your, them = other
    if isinstance(score, Win):
        mine = (score.plies - 1) // 2  # after this move: the opponent's, then mine, ...
        won = "I have won" if i == "I" else "you win with this move"
        return won if mine <= 0 else (
            f"{i} can force a win with {my} next move" if mine == 1
            else f"{i} can force a win within {my} {_moves_of(mine)}")
    if isinstance(score, ForcedWin):
        if score.within is None:
            return f"{i} can force a win"
        mine = max(1, (score.within - 1) // 2)
        return f"{i} can force a win {'with' if mine == 1 else 'within'} {my} {_moves_of(mine)}"
    if isinstance(score, Loss | ForcedLoss):
        plies = score.plies if isinstance(score, Loss) else score.within
        if plies is None:
            return f"{you} can force a win"
        yours = max(1, plies // 2)  # after this move: yours, mine, yours, ...
        return f"{you} can win with {your} next move" if yours == 1 and isinstance(
            score, Loss) else f"{you} can force a win {'with' if yours == 1 else 'within'} " \
                              f"{your} {_moves_of(yours)}"
    if isinstance(score, Draw):
        return "a draw with best play: neither of us can force a win"
    assert isinstance(score, Heuristic)
    return estimate_words(score, me, them, label=estimate, seems=seems)


__all__ = ["ESTIMATE_WORDS", "estimate_words", "hint_words", "reply_words", "side_words"]
