"""The levels' searches past 64 cells, as data (plain Python): what `tictactoe.players.wide`
plays each level with, readable before anything is compiled or loaded.

>>> WIDE_LEVELS["hard"].bounds.nodes
80000
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tictactoe.search.wide_settings import ShapeSettings, WideBounds


@dataclass(frozen=True)
class WideLevel:
    """A level's search past 64 cells: its bounds, and the chance of a random move (among
    the moves not proven to lose) instead of the best."""

    bounds: WideBounds
    mistakes: float = 0.0
    settings: ShapeSettings = field(default_factory=ShapeSettings)


WIDE_LEVELS: dict[str, WideLevel] = {
    "medium": WideLevel(WideBounds(depth=2, nodes=20_000, threes=1, threat_positions=3_000,
                                   check_positions=600, checked=8, seconds=0.25),
                        mistakes=0.25),
    "hard": WideLevel(WideBounds(depth=8, nodes=80_000, threes=2, threat_positions=15_000,
                                 check_positions=1_500, checked=12, seconds=0.5)),
    "perfect": WideLevel(WideBounds(depth=12, nodes=500_000, threes=3,
                                    threat_positions=40_000, check_positions=4_000,
                                    checked=16, seconds=1.7)),
}
"""The levels' searches past 64 cells (`tictactoe.players.wide`; ``easy`` keeps its own
one-move look)."""


__all__ = ["WIDE_LEVELS", "WideLevel"]
