"""The levels on boards past 64 cells (gomoku): `WidePlayer`, over the compiled threat
searches and α-β search of `tictactoe.search.wide` (the ``fast`` extra).

A level is a fixed amount of search (`WideLevel`): nodes and positions, not seconds, so the
same seed plays the same game on any machine where no move reaches the time cap
(``seconds``), which guards the latency on a slow or busy one (a move that reaches it stops
where the clock says). The cap counts from the call: the first move in a process loads the
compiled kernels (about a second), and what that takes beyond `LOAD_GRACE` comes out of its
search.

The player plays what `WideAnalyst.analyse` finds best: a proven win at once, never a move
proven to lose while another is open, the slowest loss when every move loses, otherwise the
α-β search's move, labelled an estimate.

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
import time
from dataclasses import replace

from tictactoe.core import Position, Variant
from tictactoe.players.base import Choice, Limit, check_playable
from tictactoe.players.wide_levels import WIDE_LEVELS, WideLevel
from tictactoe.search.wide.analysis import WideAnalyst, WideReport
from tictactoe.search.wide_settings import WideBounds

MIN_SECONDS = 0.05
"""The least time a move gets, whatever its clock says."""

LOAD_GRACE = 0.4
"""Seconds of loading (the compiled kernels, the first time in a process) a move may take
beyond its time cap; the rest of the loading comes out of the cap."""


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
        return self.play(position, limit, time.perf_counter())

    def play(self, position: Position, limit: Limit, started: float) -> Choice:
        """`choose`, with the clock started at `started` (a `time.perf_counter` reading):
        whatever came before (loading the compiled kernels, the first time in a process)
        counts against the time cap."""
        check_playable(position)
        bounds = self.bounds(limit)
        analyst = self.analyst(position.variant)
        if bounds.seconds is not None:
            spent = time.perf_counter() - started
            seconds = bounds.seconds - max(0.0, spent - LOAD_GRACE)
            bounds = replace(bounds, seconds=max(MIN_SECONDS, seconds))
        report = analyst.analyse(position, bounds)
        self.last = report
        if self.level.mistakes and report.reason == "search" \
                and self.rng.random() < self.level.mistakes:
            move = self.rng.choice(report.safe)  # none of them proven to lose
            return Choice(move, report.scores.get(move))
        move = self.rng.choice(report.best)
        return Choice(move, report.scores[move])


__all__ = ["LOAD_GRACE", "MIN_SECONDS", "WIDE_LEVELS", "WideLevel", "WidePlayer"]
