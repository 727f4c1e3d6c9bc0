"""The levels on boards past 64 cells (gomoku): `WidePlayer`, over the compiled threat
searches and α-β search of `tictactoe.search.wide` (the ``fast`` extra).

A level is a fixed amount of search (`WideLevel`): nodes and positions, not seconds, so the
same seed plays the same game on any machine; a time cap (``seconds``) only guards the
latency on a slow or busy one. The player plays what `WideAnalyst.analyse` finds best: a
proven win at once, never a move proven to lose while another is open, the slowest loss
when every move loses, otherwise the α-β search's move, labelled an estimate.

>>> from tictactoe.core import Position
>>> p = Position("15x15k5")
>>> for name in ("h8", "a1", "i8", "a3", "j8"):
...     p.push_name(name)
>>> choice = WidePlayer(WIDE_LEVELS["hard"], seed=1).choose(p)  # an open three: answer it
>>> p.move_name(choice.move) in ("g8", "k8", "f8", "l8")
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from tictactoe.core import Position, Variant
from tictactoe.players.base import Choice, Limit, check_playable
from tictactoe.search.wide.analysis import WideAnalyst, WideBounds, WideReport
from tictactoe.search.wide.engine import ShapeSettings


@dataclass(frozen=True)
class WideLevel:
    """A level's search past 64 cells: its bounds, and the chance of a random move (among
    the moves not proven to lose) instead of the best."""

    bounds: WideBounds
    mistakes: float = 0.0
    settings: ShapeSettings = field(default_factory=ShapeSettings)


WIDE_LEVELS: dict[str, WideLevel] = {
    "medium": WideLevel(WideBounds(depth=2, nodes=20_000, threes=1, threat_positions=3_000,
                                   check_positions=600, checked=16, seconds=0.25),
                        mistakes=0.25),
    "hard": WideLevel(WideBounds(depth=6, nodes=120_000, threes=2, threat_positions=20_000,
                                 check_positions=3_000, checked=24, seconds=0.9)),
    "perfect": WideLevel(WideBounds(depth=12, nodes=300_000, threes=4,
                                    threat_positions=60_000, check_positions=8_000,
                                    checked=40, seconds=1.8)),
}
"""The levels' searches past 64 cells (``easy`` keeps its own one-move look)."""


class WidePlayer:
    """A level on boards past 64 cells; see the module's docstring."""

    def __init__(self, level: WideLevel, seed: int | None = None, name: str = "wide") -> None:
        self.level = level
        self.name = name
        self.rng = random.Random(seed)
        self._analysts: dict[Variant, WideAnalyst] = {}
        self.last: WideReport | None = None
        """The report behind the last move."""

    def analyst(self, variant: Variant) -> WideAnalyst:
        """This player's searches on `variant` (kept between moves)."""
        found = self._analysts.get(variant)
        if found is None:
            self._analysts.clear()  # one board at a time: the tables are large
            found = self._analysts[variant] = WideAnalyst(variant, self.level.settings)
        return found

    def bounds(self, limit: Limit) -> WideBounds:
        """The level's bounds, within `limit` where it is tighter."""
        b = self.level.bounds
        seconds = b.seconds if limit.seconds is None else (
            limit.seconds if b.seconds is None else min(b.seconds, limit.seconds))
        nodes = b.nodes if limit.nodes is None else min(b.nodes, limit.nodes)
        depth = b.depth if limit.depth is None else min(b.depth, limit.depth)
        return replace(b, seconds=seconds, nodes=max(1, nodes), depth=max(1, depth))

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        check_playable(position)
        report = self.analyst(position.variant).analyse(position, self.bounds(limit))
        self.last = report
        if self.level.mistakes and report.reason == "search" \
                and self.rng.random() < self.level.mistakes:
            move = self.rng.choice(report.safe)  # none of them proven to lose
            return Choice(move, report.scores.get(move))
        move = self.rng.choice(report.best)
        return Choice(move, report.scores[move])


__all__ = ["WIDE_LEVELS", "WideLevel", "WidePlayer"]
