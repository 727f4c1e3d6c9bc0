"""Threat sequences: the checker's own search for the forced wins of ``F`` leaves.

A *threat* of a side is a line with k-1 of its marks and one empty cell. The prover, to
move, *wins by a threat sequence* if (``docs/proof-format.md``):

1. it has a threat; or
2. the opponent has threats on at most one empty cell b, and the prover has a move c (c = b
   if there is such a b) after which it has threats on two or more empty cells, or on
   exactly one empty cell t, and after the opponent's forced reply t the prover wins by a
   threat sequence again.

`ThreatSearch.run` decides this depth-first over the prover's threat-making moves, trying
the hint's cells first, then the others in increasing order. It is bounded: at most
`MAX_MOVES` prover moves in a sequence and `MAX_POSITIONS` positions visited per search.

Positions are two bit masks, the prover's marks and the opponent's.

>>> from tictactoe.core import Variant
>>> search = ThreatSearch(Variant.parse("3x3"))
>>> search.run(0b000_000_011, 0b000_011_000)   # X a1 b1, O a2 b2: X has a threat
[]
>>> # X a1 c3, O b2: X b1 threatens c1; O's forced c1 threatens a3, which X takes with a
>>> # double threat (a2 and b3).
>>> search.run(1 << 0 | 1 << 8, 1 << 4)
[1, 6]
>>> search.run(1 << 4, 1 << 0) is None   # one X mark on 3x3: no threat to make
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tictactoe.core import Variant, symmetries

MAX_MOVES = 64
"""At most this many prover moves in one threat sequence. A sequence adds two marks per
prover move, so on boards of at most 64 cells this bound never binds; it is stated so that
the definition is bounded on its face."""

MAX_POSITIONS = 200_000
"""At most this many positions (prover to move) visited by one search. A search that
reaches the bound gives up, and the forced leaf fails."""


@dataclass(frozen=True)
class Board:
    """Tables of one variant, computed once: line masks, the lines through each cell, the
    symmetries. `through[c]` holds the masks of the lines through cell c."""

    variant: Variant
    cells: int
    k: int
    full: int
    masks: tuple[int, ...]
    through: tuple[tuple[int, ...], ...]
    perms: tuple[tuple[int, ...], ...]

    def name(self, cell: int) -> str:
        """A cell as ``index (name)``, for messages.

        >>> board_of(Variant.parse("3x3")).name(4)
        '4 (b2)'
        """
        return f"{cell} ({self.variant.cell_name(cell)})"


@cache
def board_of(variant: Variant) -> Board:
    """The tables of a variant (cached)."""
    masks = variant.line_masks
    through = tuple(tuple(masks[i] for i in variant.lines_through[c])
                    for c in range(variant.cells))
    return Board(variant, variant.cells, variant.k, variant.full_mask, masks, through,
                 symmetries(variant))


def cells_of(mask: int) -> list[int]:
    """The cells of a bit mask, in increasing order.

    >>> cells_of(0b10110)
    [1, 2, 4]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def threat_cells(board: Board, mine: int, theirs: int) -> int:
    """The mask of the empty cells that complete a line of `mine` (its threats).

    >>> b = board_of(Variant.parse("3x3"))
    >>> cells_of(threat_cells(b, 0b000_000_011, 0))
    [2]
    """
    out = 0
    for m in board.masks:
        if not m & theirs:
            rest = m & ~mine
            if rest and not rest & (rest - 1):
                out |= rest
    return out


def has_line(board: Board, mine: int) -> bool:
    """True if `mine` holds a whole line."""
    return any(mine & m == m for m in board.masks)


def completes_line(board: Board, mine: int, cell: int) -> bool:
    """True if `mine`, with `cell` added, holds a line through `cell`."""
    mine |= 1 << cell
    return any(mine & m == m for m in board.through[cell])


class ThreatSearch:
    """Decide whether the prover, to move, wins by a threat sequence.

    After `run`, `positions` is the number of positions visited and `exhausted` tells if
    the bound stopped the search.
    """

    def __init__(self, variant: Variant, *, max_positions: int = MAX_POSITIONS,
                 max_moves: int = MAX_MOVES) -> None:
        self.board = board_of(variant)
        self.max_positions = max_positions
        self.max_moves = max_moves
        self.positions = 0
        self.exhausted = False
        self._failed: set[tuple[int, int]] = set()
        self._hint: list[int] = []

    def run(self, prover: int, opponent: int, hint: tuple[int, ...] | list[int] = ()
            ) -> list[int] | None:
        """The prover's moves of a winning threat sequence (empty if it has a threat
        already), or None if there is none or the bound stopped the search.

        The sequence ends with the move that makes threats on two cells; the replies are
        forced, so the moves determine the whole line of play.
        """
        board = self.board
        self.positions = 0
        self.exhausted = False
        self._failed = set()
        self._hint = list(dict.fromkeys(hint))
        if threat_cells(board, prover, opponent):
            return []
        blocks = threat_cells(board, opponent, prover)
        try:
            return self._search(prover, opponent, blocks, 0)
        except _Bound:
            self.exhausted = True
            return None

    def _search(self, prover: int, opponent: int, blocks: int, depth: int) -> list[int] | None:
        """The prover has no threat here, and the opponent's threats are on the cells of
        `blocks`."""
        self.positions += 1
        if self.positions > self.max_positions:
            raise _Bound
        if blocks & (blocks - 1):
            return None  # two cells to block: no threat sequence
        if depth >= self.max_moves:
            return None
        board = self.board
        through = board.through
        taken = prover | opponent
        moves = [blocks.bit_length() - 1] if blocks else self._candidates(prover, opponent, taken)
        for c in moves:
            mine = prover | 1 << c
            made = 0
            for m in through[c]:
                if not m & opponent:
                    rest = m & ~mine
                    if rest and not rest & (rest - 1):
                        made |= rest
            if not made:
                continue
            if made & (made - 1):
                return [c]  # two threats: the opponent blocks one, the prover takes the other
            theirs = opponent | made
            if (mine, theirs) in self._failed:
                continue
            t = made.bit_length() - 1
            answers = 0
            for m in through[t]:
                if not m & mine:
                    rest = m & ~theirs
                    if rest and not rest & (rest - 1):
                        answers |= rest
            rest_of = self._search(mine, theirs, answers, depth + 1)
            if rest_of is not None:
                return [c, *rest_of]
            self._failed.add((mine, theirs))
        return None

    def _candidates(self, prover: int, opponent: int, taken: int) -> list[int]:
        """The prover's moves that can make a threat, hint cells first (in hint order),
        then the rest in increasing order: the empty cells of lines with k-2 prover marks
        and no opponent mark."""
        want = self.board.k - 2
        found = 0
        for m in self.board.masks:
            if not m & opponent and (m & prover).bit_count() == want:
                found |= m & ~prover
        first = [c for c in self._hint if found >> c & 1 and not taken >> c & 1]
        for c in first:
            found &= ~(1 << c)
        return first + cells_of(found)


class _Bound(Exception):
    """The search reached its bound."""


def stabiliser(board: Board, mine: int, theirs: int) -> list[tuple[int, ...]]:
    """The symmetries that map the position (two masks) onto itself, identity first. Each
    permutation is rejected at its first mismatching cell.

    >>> b = board_of(Variant.parse("3x3"))
    >>> len(stabiliser(b, 1 << 4, 0)), len(stabiliser(b, 1 << 0, 0)), len(stabiliser(b, 2, 0))
    (8, 2, 2)
    """
    mine_cells, their_cells = cells_of(mine), cells_of(theirs)
    out = []
    for perm in board.perms:
        for c in mine_cells:
            if not mine >> perm[c] & 1:
                break
        else:
            for c in their_cells:
                if not theirs >> perm[c] & 1:
                    break
            else:
                out.append(perm)
    return out


def symmetry_between(board: Board, mine: int, theirs: int, to_mine: int, to_theirs: int
                     ) -> tuple[int, ...] | None:
    """A symmetry mapping the first position onto the second, or None.

    >>> b = board_of(Variant.parse("3x3"))
    >>> symmetry_between(b, 1 << 0, 1 << 4, 1 << 8, 1 << 4) is not None
    True
    >>> symmetry_between(b, 1 << 0, 1 << 4, 1 << 1, 1 << 4) is None
    True
    """
    if mine.bit_count() != to_mine.bit_count() or theirs.bit_count() != to_theirs.bit_count():
        return None
    mine_cells, their_cells = cells_of(mine), cells_of(theirs)
    for perm in board.perms:
        for c in mine_cells:
            if not to_mine >> perm[c] & 1:
                break
        else:
            for c in their_cells:
                if not to_theirs >> perm[c] & 1:
                    break
            else:
                return perm
    return None
