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

import re
from dataclasses import dataclass

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


@dataclass(frozen=True)
class HintCode:
    """One kind of hint as a board shows it: an example of its short `code` and of its
    long `text` (the score as `str` gives it), what it means, and a regular expression
    (`pattern`) that every code and text of this kind matches in full, so that a front end
    can tell which entry of its legend a hint stands for."""

    code: str
    text: str
    meaning: str
    pattern: str

    def matches(self, shown: str) -> bool:
        """Whether a hint's code or text is of this kind.

        >>> HINT_CODES[0].matches("W5"), HINT_CODES[0].matches("win in 11")
        (True, True)
        >>> HINT_CODES[0].matches("W≤5")
        False
        """
        return re.fullmatch(self.pattern, shown) is not None


HINT_CODES = (
    HintCode("W3", "win in 3", "playing here wins by force; the game ends 3 moves from now, "
             "yours and the opponent's both counted (W1 wins at once)", r"W\d+|win in \d+"),
    HintCode("W≤7", "win within 7", "playing here wins by force within 7 moves",
             r"W≤\d+|win within \d+"),
    HintCode("W", "forced win", "playing here wins by force, in a number of moves not worked "
             "out", r"W|forced win"),
    HintCode("L2", "loss in 2", "playing here loses against best play, 2 moves from now",
             r"L\d+|loss in \d+"),
    HintCode("L≤8", "loss within 8", "playing here loses against best play within 8 moves",
             r"L≤\d+|loss within \d+"),
    HintCode("L", "forced loss", "playing here loses against best play, in a number of moves "
             "not worked out", r"L|forced loss"),
    HintCode("D", "draw", "a draw with best play from both sides", r"D|draw"),
    HintCode("≈+7", "estimate +7", "not proven, an estimate: plus is good for you, minus bad, "
             "and the larger the clearer", r"≈[+-]?\d+|estimate [+-]?\d+(\.\d)?"),
)
"""Every kind of hint, in the order of a legend: each score's `hint_code` and its `str`
match exactly one entry's pattern."""


def hint_code(score: Score) -> str:
    """A hint's short code, for a board's cell: ``W3`` (a win in 3 plies), ``W≤7`` (a win
    within 7), ``W`` (a win of unknown length), the same with ``L`` for a loss, ``D`` (a
    draw), or an estimate rounded, ``≈+2`` (see `HINT_CODES`).

    >>> [hint_code(s) for s in (Win(3), ForcedWin(within=7), ForcedWin(), Loss(2),
    ...                         ForcedLoss(within=8), ForcedLoss(), Draw())]
    ['W3', 'W≤7', 'W', 'L2', 'L≤8', 'L', 'D']
    >>> hint_code(Heuristic(2.4)), hint_code(Heuristic(-7.0)), hint_code(Heuristic(-0.2))
    ('≈+2', '≈-7', '≈0')
    """
    proven = proven_label(score)
    if proven is not None:
        return proven
    value = round(score.value) if isinstance(score, Heuristic) else 0
    return f"≈{value:+d}" if value else "≈0"


def proven_label(score: Score, names: tuple[str, str, str] = ("W", "L", "D"),
                 gap: str = "") -> str | None:
    """A proven value named by `names` (win, loss, draw) with its length or bound after
    `gap`; None for an estimate. `hint_code` uses the letters, the terminal app the words.

    >>> proven_label(Loss(2)), proven_label(ForcedWin(within=7), ("win", "loss", "draw"), " ")
    ('L2', 'win ≤7')
    >>> proven_label(Heuristic(3.0)) is None
    True
    """
    win, loss, draw = names
    if isinstance(score, Win | Loss):
        return f"{win if isinstance(score, Win) else loss}{gap}{score.plies}"
    if isinstance(score, ForcedWin | ForcedLoss):
        word = win if isinstance(score, ForcedWin) else loss
        return word if score.within is None else f"{word}{gap}≤{score.within}"
    if isinstance(score, Draw):
        return draw
    return None


__all__ = [
    "ESTIMATE_WORDS",
    "HINT_CODES",
    "HintCode",
    "estimate_words",
    "hint_code",
    "hint_words",
    "proven_label",
    "reply_words",
    "side_words",
]
