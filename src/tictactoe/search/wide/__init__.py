"""Compiled search for boards of any size (gomoku's 15x15, 19x19, the 5x5x5 cube): per-line
counts updated move by move, where the 64-cell kernels keep one ``uint64`` per side.

`WideThreats` answers the threat-sequence question (victory by continuous fours) of
`tictactoe.proof.threats` on any board, about a hundred times quicker than the readable
search on 15x15; every sequence it finds is replayed by the rules before it is returned.
It also answers whether a side wins by threats with threes (`WideThreats.threes`,
`tictactoe.search.wide.vct`). The α-β search of the levels past 64 cells is in
`tictactoe.search.wide.engine`, and what the levels and the hints ask of them all in
`tictactoe.search.wide.analysis`.

>>> from tictactoe.core import Position
>>> p = Position("15x15k5")
>>> for name in ("h8", "a1", "i8", "a3", "j8", "a5"):
...     p.push_name(name)
>>> search = WideThreats(p.variant)
>>> [p.variant.cell_name(c) for c in search.run(p.x, p.o)]  # X g8 or k8: an open four
['g8']

Needs the ``fast`` extra (numba and numpy).
"""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "the compiled search for large boards")

from dataclasses import dataclass
from functools import cache

import numpy as np

from tictactoe.core import Variant
from tictactoe.proof.threats import board_of, cells_of, threat_cells
from tictactoe.search.wide import kernels, vct

TABLE_BITS = 16
"""The threat search's tables of failed positions have 2**16 entries per searcher."""

THREES = 4
"""Threes a win by threats may use (fours are free), unless the question says otherwise."""

MAX_LEVELS = 96
"""Nesting of the search with threes: at most this many of the attacker's moves in a line."""


@dataclass(frozen=True)
class WideTables:
    """A variant's lines as arrays: each line's cells and, per cell, the lines through it."""

    variant: Variant
    line_cells: np.ndarray
    """``int64[lines, k]``."""
    through_ptr: np.ndarray
    """``int64[cells + 1]``: cell c's lines are ``through[through_ptr[c]:through_ptr[c+1]]``."""
    through: np.ndarray
    """``int64[...]``: line indices."""
    zobrist: np.ndarray
    """``uint64[cells, 2]``: the hash words of a mark of each side on each cell."""


@cache
def wide_tables(variant: Variant) -> WideTables:
    """The arrays of a variant (cached).

    >>> t = wide_tables(Variant.parse("19x19k5"))
    >>> t.line_cells.shape, int(t.through_ptr[-1])
    ((1020, 5), 5100)
    """
    line_cells = np.array(variant.lines, dtype=np.int64).reshape(len(variant.lines), -1)
    ptr = np.zeros(variant.cells + 1, dtype=np.int64)
    for c, lines in enumerate(variant.lines_through):
        ptr[c + 1] = ptr[c] + len(lines)
    through = np.array([i for lines in variant.lines_through for i in lines], dtype=np.int64)
    rng = np.random.default_rng(variant.cells * 131 + variant.k)
    zobrist = rng.integers(1, 2**63, size=(variant.cells, 2), dtype=np.int64).astype(np.uint64)
    return WideTables(variant, line_cells, ptr, through, zobrist)


@dataclass(frozen=True)
class ThreatWin:
    """A win by threats: the first move, and the attacker's moves in the longest line of
    play (so the win comes within ``2 * moves + 1`` plies)."""

    move: int
    moves: int

    @property
    def plies(self) -> int:
        """The plies within which the attacker completes a line, against any defence."""
        return 2 * self.moves + 1


class WideThreats:
    """Threat-sequence questions on one variant, compiled; the tables of failed positions
    are kept across questions (adding marks never changes a stored position's answer).

    `run` and `search` ask for a win by fours (the checker's threat sequences); `threes`
    asks for a win by threats with threes (`tictactoe.search.wide.vct`).
    """

    def __init__(self, variant: Variant, *, table_bits: int = TABLE_BITS) -> None:
        self.variant = variant
        self.tables = wide_tables(variant)
        n, lines = variant.cells, len(variant.lines)
        self.state = np.zeros(n, dtype=np.int8)
        self.counts = np.zeros((lines, 2), dtype=np.int32)
        self.tt_keys = np.zeros(1 << table_bits, dtype=np.uint64)
        self.tt_depth = np.zeros(1 << table_bits, dtype=np.int64)
        self.three_keys = np.zeros(1 << table_bits, dtype=np.uint64)
        self.three_depth = np.zeros(1 << table_bits, dtype=np.int64)
        self.seen = np.zeros(n, dtype=np.int64)
        self.misc = np.zeros(kernels.MISC, dtype=np.int64)
        self.most = max(1, n // 2)
        self.seq = np.zeros(self.most + 2, dtype=np.int64)
        self.buf = np.zeros((self.most + 2, 3 * n + kernels.FRAME), dtype=np.int64)
        self.work = np.zeros((MAX_LEVELS, 4 * n + 3 * self.most + 8), dtype=np.int64)
        self.firsts = np.zeros(MAX_LEVELS, dtype=np.int64)
        self._board = board_of(variant)
        self.exhausted = False
        """Whether the last question stopped at its bound."""
        self.last_visited = 0
        """Positions the last question visited."""

    @property
    def visited(self) -> int:
        """Positions visited by every question so far."""
        return int(self.misc[kernels.NODES])

    def _load(self, prover: int, opponent: int) -> None:
        self.state[:] = 0
        for c in cells_of(prover):
            self.state[c] = 1
        for c in cells_of(opponent):
            self.state[c] = 2
        t = self.tables
        kernels.load(self.state, self.counts, t.line_cells, t.zobrist, self.misc)

    def run(self, prover: int, opponent: int, positions: int = 200_000) -> list[int] | None:
        """The prover's moves of a winning threat sequence, the prover to move (empty if it
        has a threat now), or None: no sequence, or the bound of `positions` stopped the
        search (then `exhausted` is set)."""
        found, _ = self.search(prover, opponent, positions)
        return found

    def search(self, prover: int, opponent: int, positions: int) -> tuple[list[int] | None, int]:
        """As `run`, with the positions this question visited (over `positions` when the
        bound stopped it)."""
        t = self.tables
        self._load(prover, opponent)
        before = self.visited
        found = kernels.vcf(0, self.most, positions, self.state, self.counts, t.line_cells,
                            t.through_ptr, t.through, t.zobrist, self.tt_keys, self.tt_depth,
                            self.seen, self.misc, self.seq, self.buf)
        visited = self.visited - before
        self.last_visited = visited
        self.exhausted = found == kernels.UNKNOWN
        if found < 0:
            return None, (positions + 1 if self.exhausted else visited)
        sequence = [int(c) for c in self.seq[:found]]
        if not replays(self._board.variant, prover, opponent, sequence):
            return None, visited  # a hash collision misled the table: believe nothing
        return sequence, visited

    def threes(self, prover: int, opponent: int, threes: int = THREES,
               positions: int = 200_000) -> ThreatWin | None:
        """A win by threats with at most `threes` threes for the prover, to move
        (`tictactoe.search.wide.vct`; with one three allowed first, then two, ...), or None:
        no such win, or the bound of `positions` stopped the search (then `exhausted` is
        set).

        >>> from tictactoe.core import Position
        >>> p = Position("15x15k5")
        >>> for name in ("g8", "a1", "h8", "a15", "i9", "o1", "i10", "o15"):
        ...     p.push_name(name)
        >>> search = WideThreats(p.variant)   # X i8 makes two open threes at once
        >>> search.run(p.x, p.o) is None      # no win by fours alone
        True
        >>> win = search.threes(p.x, p.o)
        >>> p.move_name(win.move), win.plies
        ('i8', 5)
        """
        t = self.tables
        self._load(prover, opponent)
        before = self.visited
        found = kernels.FAIL
        for allowed in range(1, max(1, threes) + 1):  # the fewest threes first
            left = positions - (self.visited - before)
            if left <= 0:
                found = kernels.UNKNOWN
                break
            found = vct.vct(0, allowed, self.most, left, self.state, self.counts,
                            t.line_cells, t.through_ptr, t.through, t.zobrist, self.tt_keys,
                            self.tt_depth, self.seen, self.misc, self.seq, self.buf,
                            self.three_keys, self.three_depth, self.work, self.firsts)
            if found != kernels.FAIL:
                break
        self.last_visited = self.visited - before
        self.exhausted = found == kernels.UNKNOWN
        if found < 0:
            return None
        return ThreatWin(int(self.firsts[0]), int(found))


def replays(variant: Variant, prover: int, opponent: int, moves: list[int]) -> bool:
    """Whether the prover's `moves` win by a threat sequence here, by the rules' masks: each
    move answers the opponent's threat if it has one and makes threats, the opponent's
    reply is forced, and the last move leaves two threats (or the prover has one now).

    >>> v = Variant.parse("3x3")
    >>> replays(v, 1 << 0 | 1 << 8, 1 << 4, [2]), replays(v, 1 << 0 | 1 << 8, 1 << 4, [1])
    (True, False)
    """
    board = board_of(variant)
    for i in range(len(moves) + 1):
        if threat_cells(board, prover, opponent):
            return True
        if i == len(moves):
            return False
        blocks = threat_cells(board, opponent, prover)
        c = moves[i]
        if blocks & (blocks - 1) or (prover | opponent) >> c & 1 or (blocks and blocks != 1 << c):
            return False
        prover |= 1 << c
        made = threat_cells(board, prover, opponent)
        if not made:
            return False
        if made & (made - 1):
            return True
        opponent |= made
    return False


__all__ = ["ThreatWin", "WideTables", "WideThreats", "replays", "wide_tables"]
