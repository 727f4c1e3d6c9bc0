"""The settings of the search past 64 cells, in plain Python: what a level asks of it
(`WideBounds`) and the evaluation's numbers (`ShapeSettings`). The searches themselves
(`tictactoe.search.wide`) need the ``fast`` extra; these do not, so that a level can be
described and built before anything is compiled or loaded.

>>> WideBounds(nodes=1_000).nodes, ShapeSettings().beam
(1000, 12)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ShapeSettings:
    """The evaluation's numbers of `tictactoe.search.wide.engine` (tuned by self-play)."""

    base: float = 6.0
    """Each further mark on an open line multiplies its weight by this."""
    defend: float = 0.9
    """A move that blocks a line of the opponent's counts this share of the line's weight."""
    beam: int = 12
    """Moves searched at an inner node."""
    answers: int = 12
    """Answers to the opponent's double (the cells of its lines two short, and the mover's
    fours) searched at an inner node."""
    quiet: int = 1
    """Plies of quiescence search (the mover's fours) past the horizon."""
    tempo: int = 80
    """What having the move is worth at the horizon, in lines with one mark."""
    leaf_fours: int = 500
    """Positions a search for the mover's win by fours may visit at the horizon (0: none)."""
    fours_depth: int = 16
    """The moves such a win by fours may have at most."""


@dataclass(frozen=True)
class WideBounds:
    """How far `tictactoe.search.wide.analysis.WideAnalyst.analyse` looks."""

    depth: int = 12
    """α-β plies at most (iterative deepening stops earlier at the node limit)."""
    nodes: int = 300_000
    """α-β nodes in all."""
    threes: int = 3
    """Threes in the mover's and the opponent's threat searches (fours are free)."""
    threat_positions: int = 60_000
    """Positions of each of the two threat searches at the root."""
    check_positions: int = 6_000
    """Positions of the opponent's threat search after each candidate."""
    checked: int = 40
    """Once this many candidates asked whether the opponent then wins by threats hold, the
    others are not asked (but the move finally chosen is)."""
    seconds: float | None = None
    """A time cap for everything (None: the node limits alone, so the same answer on any
    machine)."""
    exact: int = 0
    """Moves (best first) whose α-β value is searched with a full window for the report."""
    every_loss: bool = False
    """Where the mover wins by threats, go on to label the moves that lose to the
    opponent's threats (for the hints; a player just plays the win)."""


__all__ = ["ShapeSettings", "WideBounds"]
