"""The readable solver: the value and distance of a position and of every legal move.

The reference implementation that the compiled kernels are checked against. Negamax with
α-β pruning over bit masks, written to be read:

- a transposition table keyed on the canonical form of the position (so the eight images of a
  3x3 position share one entry), holding exact lower and upper bounds;
- immediate-win detection (a move that completes a line ends the search at once) and forced
  blocks (one opponent threat leaves one move; two threats lose in 2);
- a dead-board cut-off (no line open for either side is a draw);
- move ordering by the lines through each cell, weighted by the marks already on them;
- scores count plies to the end of the game, so the solver takes the fastest win and the
  slowest loss, and lists every move with the best score.

A node or time limit stops the search early: the moves not yet proven get a heuristic score,
and the solution says ``proven=False``.

>>> from tictactoe.core import Position
>>> s = solve_python(Position("3x3"))
>>> str(s.score), s.winner, len(s.best)
('draw', None, 9)
>>> s = solve_python(Position("x2/1o1/2x o"))
>>> str(s.score), [Position("3x3").move_name(c) for c in s.best]
('draw', ['b1', 'a2', 'c2', 'b3'])
>>> str(solve_python(Position("x2/1o1/1x1 o")).score)
'draw'
>>> s = solve_python(Position("x2/3/3 o"))  # after a corner opening only the centre holds
>>> sorted({str(score) for score in s.moves.values()}), s.best
(['draw', 'loss in 6'], [4])
"""

from __future__ import annotations

import time

from tictactoe.core import (
    BoardTooLargeError,
    Position,
    Variant,
    canonical_masks,
    symmetries,
)
from tictactoe.search.evaluation import open_line_counts
from tictactoe.search.score import Draw, Heuristic, Loss, Score, Win
from tictactoe.search.solution import Solution, best_moves, check_solvable
from tictactoe.search.tactics import with_tactics

MATE = 1000
"""A win that ends the game at ply p from the root scores ``MATE - p``; a loss ``p - MATE``."""

_INF = 10 * MATE

TABLE_LIMIT = 2_000_000
"""Entries a variant's transposition table may hold before it is emptied."""

CANONICAL_SYMMETRY_LIMIT = 64
"""Boards with more symmetries than this key the table on the plain position (a canonical
form would cost more than it saves)."""

_EXACT, _LOWER, _UPPER = 0, 1, 2


class SearchStopped(Exception):
    """Raised inside the search when a node or time limit is reached."""


class _Tables:
    """Transposition tables per variant, kept between calls (exact bounds stay true)."""

    def __init__(self) -> None:
        self.by_variant: dict[Variant, dict[tuple[int, int], tuple[int, int]]] = {}

    def table(self, variant: Variant) -> dict[tuple[int, int], tuple[int, int]]:
        table = self.by_variant.setdefault(variant, {})
        if len(table) > TABLE_LIMIT:
            table.clear()
        return table


TABLES = _Tables()


def clear_tables() -> None:
    """Forget every stored result (for timing runs)."""
    TABLES.by_variant.clear()


class _Searcher:
    """One search: the variant's tables, the limits and the node count."""

    def __init__(self, variant: Variant, nodes: int | None, seconds: float | None) -> None:
        self.variant = variant
        self.full = variant.full_mask
        self.line_masks = variant.line_masks
        self.lines_through_masks = tuple(
            tuple(variant.line_masks[i] for i in through) for through in variant.lines_through)
        self.static_order = sorted(
            range(variant.cells), key=lambda c: (-len(variant.lines_through[c]), c))
        self.table = TABLES.table(variant)
        try:
            self.canonical = len(symmetries(variant)) <= CANONICAL_SYMMETRY_LIMIT
        except BoardTooLargeError:
            self.canonical = False
        self.nodes = 0
        self.node_limit = nodes
        self.deadline = None if seconds is None else time.perf_counter() + seconds

    def key(self, me: int, opp: int) -> tuple[int, int]:
        if self.canonical:
            return canonical_masks(self.variant, me, opp)
        return (me, opp)

    def _count_node(self) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise SearchStopped
        if self.deadline is not None and self.nodes & 255 == 0 \
                and time.perf_counter() > self.deadline:
            raise SearchStopped

    def search(self, me: int, opp: int, ply: int, alpha: int, beta: int) -> int:
        """The value for the side to move (marks `me`) at `ply` plies from the root.

        Precondition: neither side has a line. Fail-soft: a result at or below `alpha` is an
        upper bound, at or above `beta` a lower bound, in between exact.
        """
        self._count_node()
        empty = self.full & ~(me | opp)
        if not empty:
            return 0
        threats = 0  # cells where the opponent would complete a line
        alive = False
        for m in self.line_masks:
            if not m & opp:
                rest = m & ~me
                if rest & (rest - 1) == 0:
                    return MATE - (ply + 1)  # win now
                alive = True
            if not m & me:
                rest = m & ~opp
                if rest & (rest - 1) == 0:
                    threats |= rest
                alive = True
        if not alive:
            return 0  # no line can ever be completed: a draw
        if threats & (threats - 1):
            return -(MATE - (ply + 2))  # two threats, one move: lost
        # Mate-distance bounds: no win before ply + 3, no loss before ply + 2.
        if MATE - (ply + 3) <= alpha:
            return MATE - (ply + 3)
        if -(MATE - (ply + 2)) >= beta:
            return -(MATE - (ply + 2))

        key = self.key(me, opp)
        entry = self.table.get(key)
        if entry is not None:
            low, high = _from_table(entry[0], ply), _from_table(entry[1], ply)
            if low >= beta:
                return low
            if high <= alpha:
                return high
            if low == high:
                return low
            alpha, beta = max(alpha, low), min(beta, high)
        else:
            low, high = -_INF, _INF

        moves = [threats] if threats else self._ordered(me, opp, empty)
        best, window_alpha = -_INF, alpha
        for bit in moves:
            value = -self.search(opp, me | bit, ply + 1, -beta, -alpha)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        if best <= window_alpha:
            high = min(high, best)
        elif best >= beta:
            low = max(low, best)
        else:
            low = high = best
        self.table[key] = (_to_table(low, ply), _to_table(high, ply))
        return best

    def _ordered(self, me: int, opp: int, empty: int) -> list[int]:
        """Empty cells as bits, the most promising first."""
        weights = []
        for cell in self.static_order:
            bit = 1 << cell
            if not empty & bit:
                continue
            weight = 0
            for m in self.lines_through_masks[cell]:
                if not m & opp:
                    weight += 1 + 4 * (m & me).bit_count()
                if not m & me:
                    weight += 1 + 3 * (m & opp).bit_count()
            weights.append((-weight, cell, bit))
        weights.sort()
        return [bit for _, _, bit in weights]


def _to_table(value: int, ply: int) -> int:
    """A value relative to the root as one relative to this node (distances from here)."""
    if value >= _INF or value <= -_INF or value == 0:
        return value
    return value + ply if value > 0 else value - ply


def _from_table(value: int, ply: int) -> int:
    if value >= _INF or value <= -_INF or value == 0:
        return value
    return value - ply if value > 0 else value + ply


def _as_score(value: int) -> Score:
    """A value for the root mover as a `Score`."""
    if value > 0:
        return Win(MATE - value)
    if value < 0:
        return Loss(MATE + value)
    return Draw()


def solve_python(position: Position | str, *, nodes: int | None = None,
                 seconds: float | None = None) -> Solution:
    """Solve with the readable Python search (the reference implementation).

    Every legal move is searched with a full window, so each move's score is exact. With a
    node or time limit, moves not proven in time get the tactical floor's proven score where
    it has one (`tictactoe.search.tactics`), else a heuristic score (open lines for the mover
    minus open lines for the opponent after the move), and ``proven`` is False unless the
    floor proved every move exactly.
    """
    if isinstance(position, str):
        position = Position(position)
    check_solvable(position)
    started = time.perf_counter()
    searcher = _Searcher(position.variant, nodes, seconds)
    mover = position.turn
    me, opp = position.marks(mover), position.marks(mover.other)
    moves: dict[int, Score] = {}
    ordered = [bit.bit_length() - 1 for bit in searcher._ordered(me, opp, searcher.full
                                                                    & ~(me | opp))]
    proven = True
    for cell in ordered:
        bit = 1 << cell
        if any(m & bit and (m & ~(me | bit)) == 0 for m in searcher.line_masks):
            moves[cell] = Win(1)
            continue
        if proven:
            try:
                moves[cell] = _as_score(-searcher.search(opp, me | bit, 1, -_INF, _INF))
                continue
            except SearchStopped:
                proven = False
        mine_open, theirs_open = open_line_counts(searcher.line_masks, me | bit, opp)
        moves[cell] = Heuristic.within_scale(mine_open - theirs_open)
    moves = dict(sorted(moves.items()))
    score = max(moves.values())
    best = best_moves(position.variant, moves)
    solution = Solution(score=score, moves=moves, best=best, proven=proven,
                        nodes=searcher.nodes, seconds=time.perf_counter() - started,
                        mover=mover)
    return solution if proven else with_tactics(position, solution)


