"""Scores: a win or a loss in N plies, a draw, a win or loss proven without its length, or a
heuristic value.

A score is always for the side to move in the position scored, and plies count from that
position to the end of the game with best play. Scores compare like python-chess's ``Mate``:
better for the side to move is greater, so a faster win beats a slower one and a slower loss
beats a faster one.

>>> sorted([Loss(2), Win(5), Draw(), Win(3), Loss(6), Heuristic(0.5), Heuristic(-1.0)])
[Loss(plies=2), Loss(plies=6), Heuristic(value=-1.0), Draw(), Heuristic(value=0.5), \
Win(plies=5), Win(plies=3)]
>>> str(Win(5)), str(Loss(4)), str(Draw())
('win in 5', 'loss in 4', 'draw')
>>> Loss(4).after_move()  # the same line, one ply earlier, for the player who moved into it
Win(plies=5)

A proof of a win (say by proof-number search, or from a proof file) need not say how long the
win takes: `ForcedWin` and `ForcedLoss` are proven too. A threat sequence bounds the length
(``within``: the game ends by that ply at the latest), and the bound ranks it just below the
exact score of that length. Without a bound a forced win ranks below every win of known
length (a known win is the surer way), and a forced loss above every loss of known length
(the opponent still has to find it).

>>> sorted([Win(41), ForcedWin(), Loss(3), ForcedLoss(), ForcedWin(within=7), Win(7)])
[Loss(plies=3), ForcedLoss(), ForcedWin(), Win(plies=41), ForcedWin(within=7), Win(plies=7)]
>>> str(ForcedWin()), ForcedWin().after_move(), ForcedWin().is_proven
('forced win', ForcedLoss(), True)
>>> str(ForcedLoss(within=8)), ForcedLoss(within=8).after_move()
('loss within 8', ForcedWin(within=9))

A win takes at least one ply, the winning move itself, so ``Win(0)`` (or a win within 0)
is refused; ``Loss(0)`` is the side to move that has already lost (the opponent's last move
made a line), and one ply earlier it is ``Win(1)``.

>>> Win(0)
Traceback (most recent call last):
...
tictactoe.core.errors.TicTacToeError: Win(plies=0): a win takes at least 1 ply, the winning \
move itself (the side to move that has already lost is Loss(0))
>>> Loss(0).after_move()
Win(plies=1)

Text: `str` is for people, and `repr` pastes back. ``str`` prints an estimate as every front
end does (`format_estimate`: one decimal under 10, whole from 10 up), so `Score.parse` reads a
proven score back exactly but an estimate rounded; ``repr`` is the constructor call, exact for
every score (as python-chess's scores are), and so is ``to_json`` with `Score.from_json`.

>>> str(Heuristic(1.25)), Score.parse(str(Heuristic(1.25)))
('estimate +1.2', Heuristic(value=1.2))
>>> repr(Heuristic(1.25)), eval(repr(Heuristic(1.25))) == Heuristic(1.25)
('Heuristic(value=1.25)', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tictactoe.core import Side, TicTacToeError


def _check_plies(score: str, plies: int | None, least: int) -> None:
    """Refuse a length a score cannot have: fewer than `least` plies (1 for a win, the
    winning move itself; 0 for a loss, already lost). None, an unknown length, passes."""
    if plies is not None and plies < least:
        raise TicTacToeError(f"{score}: " + (
            "a win takes at least 1 ply, the winning move itself (the side to move that has "
            "already lost is Loss(0))" if least else
            "a loss takes at least 0 plies (Loss(0): the side to move has already lost)"))


class Score:
    """Base class of every score. Scores are frozen, hashable and totally ordered."""

    __slots__ = ()

    def _rank(self) -> tuple[int, float, int]:
        raise NotImplementedError

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._rank() < other._rank()

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._rank() <= other._rank()

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._rank() > other._rank()

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._rank() >= other._rank()

    @property
    def is_proven(self) -> bool:
        """True for a win, a loss or a draw; False for a heuristic value."""
        return not isinstance(self, Heuristic)

    @property
    def plies(self) -> int | None:
        """Plies to the end of the game with best play (None for a heuristic value)."""
        return None

    def winner(self, mover: Side) -> Side | None:
        """The side that wins, given the side to move; None for a draw or a heuristic.

        >>> Win(1).winner(Side.O), Loss(2).winner(Side.O), Draw().winner(Side.X)
        (<Side.O: 2>, <Side.X: 1>, None)
        """
        return None

    def after_move(self) -> Score:
        """This score seen one ply earlier by the player whose move led here.

        A win for the side to move is a loss one ply longer for the player who just moved,
        and the other way round; a heuristic value changes sign.

        >>> Win(3).after_move(), Draw().after_move(), Heuristic(2.0).after_move()
        (Loss(plies=4), Draw(), Heuristic(value=-2.0))
        """
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{"kind": "win", "plies": 5}``, ``{"kind": "heuristic",
        "value": 1.5}``, or for a win of unknown length ``{"kind": "win", "plies": None}``,
        with ``"within": 7`` where a bound is known."""
        raise NotImplementedError

    @staticmethod
    def from_json(data: dict[str, Any]) -> Score:
        """The inverse of `to_json`.

        >>> Score.from_json(Win(5).to_json()), Score.from_json({"kind": "draw"})
        (Win(plies=5), Draw())
        """
        kind = data.get("kind")
        within = None if data.get("within") is None else int(data["within"])
        if kind == "win":
            return ForcedWin(within) if data.get("plies") is None else Win(int(data["plies"]))
        if kind == "loss":
            return ForcedLoss(within) if data.get("plies") is None else Loss(int(data["plies"]))
        if kind == "draw":
            return Draw()
        if kind == "heuristic":
            return Heuristic(float(data["value"]))
        raise TicTacToeError(f"unknown score kind {kind!r}: expected win, loss, draw or heuristic")

    @staticmethod
    def parse(text: str) -> Score:
        """Parse the text form `str` gives: ``win in 5``, ``loss in 4``, ``draw``, ``forced
        win``, ``forced loss``, ``win within 7``, ``loss within 8`` or ``estimate +1.5``
        (also read: ``heuristic 1.5``). An estimate comes back as `str` rounded it (the
        module's docstring: `repr` or `to_json` keep it exactly).

        >>> Score.parse("win in 5"), Score.parse("estimate -0.5"), Score.parse("forced win")
        (Win(plies=5), Heuristic(value=-0.5), ForcedWin())
        >>> Score.parse("win within 7")
        ForcedWin(within=7)
        >>> Score.parse("win in 0")
        Traceback (most recent call last):
        ...
        tictactoe.core.errors.TicTacToeError: cannot read a score from 'win in 0': \
Win(plies=0): a win takes at least 1 ply, the winning move itself (the side to move that \
has already lost is Loss(0))
        """
        words = text.split()
        if words == ["forced", "win"]:
            return ForcedWin()
        if words == ["forced", "loss"]:
            return ForcedLoss()
        try:
            if len(words) == 3 and words[0] in ("win", "loss") and words[1] == "in":
                plies = int(words[2])
                return Win(plies) if words[0] == "win" else Loss(plies)
            if len(words) == 3 and words[0] in ("win", "loss") and words[1] == "within":
                plies = int(words[2])
                return ForcedWin(plies) if words[0] == "win" else ForcedLoss(plies)
            if words == ["draw"]:
                return Draw()
            if len(words) == 2 and words[0] in ("estimate", "heuristic"):
                return Heuristic(float(words[1]))
        except TicTacToeError as err:  # read, but a length no score has: say which
            raise TicTacToeError(f"cannot read a score from {text!r}: {err}") from None
        except ValueError:  # not a number
            pass
        raise TicTacToeError(f"cannot read a score from {text!r}")


@dataclass(frozen=True, eq=True, order=False, slots=True)
class Win(Score):
    """The side to move wins in `plies` plies (counting its own next move as ply 1): at
    least 1."""

    plies: int

    def __post_init__(self) -> None:
        _check_plies(f"Win(plies={self.plies})", self.plies, 1)

    def _rank(self) -> tuple[int, float, int]:
        return (2, -self.plies, 0)

    def winner(self, mover: Side) -> Side | None:
        return mover

    def after_move(self) -> Score:
        return Loss(self.plies + 1)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "win", "plies": self.plies}

    def __str__(self) -> str:
        return f"win in {self.plies}"


@dataclass(frozen=True, eq=True, order=False, slots=True)
class Loss(Score):
    """The side to move loses in `plies` plies, however it plays: 0 if it has already lost.
    """

    plies: int

    def __post_init__(self) -> None:
        _check_plies(f"Loss(plies={self.plies})", self.plies, 0)

    def _rank(self) -> tuple[int, float, int]:
        return (0, self.plies, 0)

    def winner(self, mover: Side) -> Side | None:
        return mover.other

    def after_move(self) -> Score:
        return Win(self.plies + 1)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "loss", "plies": self.plies}

    def __str__(self) -> str:
        return f"loss in {self.plies}"


@dataclass(frozen=True, eq=True, order=False, slots=True)
class ForcedWin(Score):
    """The side to move wins, proven, in a number of plies that was not computed exactly:
    at most `within` plies if that is known (a threat sequence bounds it), else unknown.
    With a bound it ranks just below ``Win(within)``; without one, below every `Win`."""

    within: int | None = None

    def __post_init__(self) -> None:
        _check_plies(f"ForcedWin(within={self.within})", self.within, 1)

    def _rank(self) -> tuple[int, float, int]:
        if self.within is None:
            return (2, float("-inf"), 0)
        return (2, -self.within, -1)

    def winner(self, mover: Side) -> Side | None:
        return mover

    def after_move(self) -> Score:
        return ForcedLoss(None if self.within is None else self.within + 1)

    def to_json(self) -> dict[str, Any]:
        if self.within is None:
            return {"kind": "win", "plies": None}
        return {"kind": "win", "plies": None, "within": self.within}

    def __repr__(self) -> str:
        return "ForcedWin()" if self.within is None else f"ForcedWin(within={self.within})"

    def __str__(self) -> str:
        return "forced win" if self.within is None else f"win within {self.within}"


@dataclass(frozen=True, eq=True, order=False, slots=True)
class ForcedLoss(Score):
    """The side to move loses, proven, in a number of plies that was not computed exactly:
    at most `within` plies if that is known, else unknown. With a bound it ranks just below
    ``Loss(within)``; without one, above every `Loss` of known length (the opponent still
    has to find the win)."""

    within: int | None = None

    def __post_init__(self) -> None:
        _check_plies(f"ForcedLoss(within={self.within})", self.within, 0)

    def _rank(self) -> tuple[int, float, int]:
        if self.within is None:
            return (0, float("inf"), 0)
        return (0, self.within, -1)

    def winner(self, mover: Side) -> Side | None:
        return mover.other

    def after_move(self) -> Score:
        return ForcedWin(None if self.within is None else self.within + 1)

    def to_json(self) -> dict[str, Any]:
        if self.within is None:
            return {"kind": "loss", "plies": None}
        return {"kind": "loss", "plies": None, "within": self.within}

    def __repr__(self) -> str:
        return "ForcedLoss()" if self.within is None else f"ForcedLoss(within={self.within})"

    def __str__(self) -> str:
        return "forced loss" if self.within is None else f"loss within {self.within}"


@dataclass(frozen=True, eq=True, order=False, slots=True)
class Draw(Score):
    """A draw with best play. It ranks just below ``Heuristic(0.0)``."""

    def _rank(self) -> tuple[int, float, int]:
        return (1, 0.0, 0)

    def after_move(self) -> Score:
        return self

    def to_json(self) -> dict[str, Any]:
        return {"kind": "draw"}

    def __str__(self) -> str:
        return "draw"


ESTIMATE_BOUNDS = (0.5, 3.0, 20.0, 90.0)
"""The bounds of an estimate's bands (`Heuristic.band`): under 0.5 about even, under 3
slightly better, under 20 better, under 90 much better, from 90 on winning (seen but not
proven)."""


@dataclass(frozen=True, eq=True, order=False, slots=True)
class Heuristic(Score):
    """An estimate for the side to move, on one scale for every engine: from -100 (sure to
    lose) through 0 (even) to +100 (sure to win). About one point is one open line a mark
    short of a threat more than the opponent's; from 90 on, the search sees a win it has not
    proven; a Monte Carlo search gives 100 × (2 × its win rate - 1).

    >>> Heuristic(16.4).band, Heuristic(-0.2).band, Heuristic(-95.0).band
    (2, 0, -4)
    """

    value: float

    @property
    def band(self) -> int:
        """How large the estimate is, with its sign: 0 about even, ±1 slightly better, ±2
        better, ±3 much better, ±4 winning (`ESTIMATE_BOUNDS`)."""
        size = sum(abs(self.value) >= bound for bound in ESTIMATE_BOUNDS)
        return size if self.value > 0 else -size

    def _rank(self) -> tuple[int, float, int]:
        return (1, self.value, 1)

    def after_move(self) -> Score:
        return Heuristic(-self.value)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "heuristic", "value": self.value}

    @classmethod
    def within_scale(cls, value: float, most: float = 90.0) -> Heuristic:
        """An engine's evaluation put on the scale: cut to ±`most` (90 leaves the band from
        90 up to a search that sees a win).

        >>> Heuristic.within_scale(250), Heuristic.within_scale(-3)
        (Heuristic(value=90.0), Heuristic(value=-3.0))
        """
        return cls(float(max(-most, min(most, value))))

    def __str__(self) -> str:
        """For people: the value rounded as every front end prints it; `repr` is exact."""
        return f"estimate {format_estimate(self.value)}"


def format_estimate(value: float) -> str:
    """An estimate's number as every front end prints it: signed, whole from 10 up, else to
    one decimal.

    >>> format_estimate(16.36), format_estimate(-0.25), format_estimate(0.0), format_estimate(2)
    ('+16', '-0.2', '0', '+2')
    """
    text = f"{value:+.0f}" if abs(value) >= 10 else f"{value:+.1f}".replace(".0", "")
    return "0" if text in ("+0", "-0") else text
