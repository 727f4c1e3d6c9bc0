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
>>> # X a1 c3, O b2: X c1 makes a double threat (b1 and c2) at once.
>>> search.run(1 << 0 | 1 << 8, 1 << 4)
[2]
>>> # Following a hint: X b1 threatens c1; O's forced c1 threatens a3, which X takes with
>>> # a double threat (a2 and b3).
>>> search.run(1 << 0 | 1 << 8, 1 << 4, hint=[1, 6])
[1, 6]
>>> search.run(1 << 4, 1 << 0) is None   # one X mark on 3x3: no threat to make
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

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
    symmetries. `through[c]` holds the masks of the lines through cell c, and
    `through_index[c]` their indices in `masks`."""

    variant: Variant
    cells: int
    k: int
    full: int
    masks: tuple[int, ...]
    through: tuple[tuple[int, ...], ...]
    through_index: tuple[tuple[int, ...], ...]

    @cached_property
    def perms(self) -> tuple[tuple[int, ...], ...]:
        """The symmetries, derived on first use (about a second for the cube)."""
        return symmetries(self.variant)

    @cached_property
    def reach(self) -> tuple[int, ...]:
        """For each cell, the cells of the lines through it (itself included): a mark
        outside them changes nothing a check of the lines through the cell sees.

        >>> cells_of(board_of(Variant.parse("3x3")).reach[1])
        [0, 1, 2, 4, 7]
        """
        out = []
        for lines in self.through:
            cells = 0
            for m in lines:
                cells |= m
            out.append(cells)
        return tuple(out)

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
                 variant.lines_through)


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


def threats_through(board: Board, cell: int, mine: int, theirs: int) -> int:
    """The threat cells of `mine` on the lines through `cell` (a mask).

    >>> b = board_of(Variant.parse("3x3"))
    >>> cells_of(threats_through(b, 0, 0b000_000_011, 0)), threats_through(b, 8, 3, 0)
    ([2], 0)
    """
    if (board.reach[cell] & mine).bit_count() < board.k - 1:
        return 0  # too few marks on all the lines together for one of them
    out = 0
    for m in board.through[cell]:
        if not m & theirs:
            rest = m & ~mine
            if rest and not rest & (rest - 1):
                out |= rest
    return out


def scan(board: Board, mine: int, theirs: int) -> tuple[int, int, list[int]]:
    """One pass over the lines: (the threat cells of `mine`, those of `theirs`, the lines
    with k-2 marks of `mine` and none of `theirs`, the "twos").

    >>> b = board_of(Variant.parse("3x3"))
    >>> mine, theirs, twos = scan(b, 0b000_000_011, 0b000_011_000)
    >>> cells_of(mine), cells_of(theirs), len(twos)
    ([2], [5], 0)
    """
    k1 = board.k - 1
    k2 = board.k - 2
    mine_threats = their_threats = 0
    twos = []
    for m in board.masks:
        if not m & theirs:
            count = (m & mine).bit_count()
            if count == k1:
                mine_threats |= m & ~mine
            elif count == k2:
                twos.append(m)
        elif not m & mine:
            rest = m & ~theirs
            if rest and not rest & (rest - 1):
                their_threats |= rest
    return mine_threats, their_threats, twos


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
        self._hint = [c for c in dict.fromkeys(hint) if 0 <= c < board.cells]
        threats, blocks, twos = scan(board, prover, opponent)
        if threats:
            return []
        try:
            # with a hint, the twos are found only where the hint fails
            return self._search(prover, opponent, blocks, None if hint else twos, 0)
        except _Bound:
            self.exhausted = True
            return None

    def _search(self, prover: int, opponent: int, blocks: int, twos: list[int] | None,
                depth: int) -> list[int] | None:
        """The prover, to move, has no threat; the opponent's threats are on the cells of
        `blocks`; `twos` holds the lines with k-2 prover marks and no opponent mark (None:
        not known yet)."""
        self.positions += 1
        if self.positions > self.max_positions:
            raise _Bound
        if blocks & (blocks - 1):
            return None  # two cells to block: no threat sequence
        if depth >= self.max_moves:
            return None
        if blocks:
            return self._try(prover, opponent, blocks.bit_length() - 1, twos, depth)
        taken = prover | opponent
        tried = 0
        for c in self._hint:  # the hint first; a hint cell that makes no threat is skipped
            if not (taken | tried) >> c & 1:
                tried |= 1 << c
                found = self._try(prover, opponent, c, twos, depth)
                if found is not None:
                    return found
        if twos is None:
            twos = scan(self.board, prover, opponent)[2]
        candidates = 0
        for m in twos:
            candidates |= m
        candidates &= ~(taken | tried)
        through = self.board.through
        singles = []
        while candidates:  # then the other moves that make threats: two at once first,
            low = candidates & -candidates  # then one, each in cell order
            candidates ^= low
            c = low.bit_length() - 1
            mine = prover | low
            made = 0
            for m in through[c]:
                if not m & opponent:
                    rest = m & ~mine
                    if rest and not rest & (rest - 1):
                        made |= rest
            if made & (made - 1):
                return [c]
            if made:
                singles.append((c, made))
        for c, made in singles:
            found = self._follow(prover | 1 << c, opponent, c, made, twos, depth)
            if found is not None:
                return found
        return None

    def _try(self, prover: int, opponent: int, c: int, twos: list[int] | None, depth: int
             ) -> list[int] | None:
        """The prover plays c: a win if it makes threats on two cells; if on one, the
        opponent's forced reply and the search from there."""
        through = self.board.through
        mine = prover | 1 << c
        made = 0
        for m in through[c]:
            if not m & opponent:
                rest = m & ~mine
                if rest and not rest & (rest - 1):
                    made |= rest
        if not made:
            return None
        if made & (made - 1):
            return [c]  # two threats: the opponent blocks one, the prover takes the other
        return self._follow(mine, opponent, c, made, twos, depth)

    def _follow(self, mine: int, opponent: int, c: int, made: int, twos: list[int] | None,
                depth: int) -> list[int] | None:
        """The prover has played c, making one threat (on the cell of `made`): the
        opponent's forced reply, and the search from there."""
        through = self.board.through
        theirs = opponent | made
        if (mine, theirs) in self._failed:
            return None
        t = made.bit_length() - 1
        answers = 0  # the opponent's threats after its forced reply t
        for m in through[t]:
            if not m & mine:
                rest = m & ~theirs
                if rest and not rest & (rest - 1):
                    answers |= rest
        next_twos = None
        if twos is not None:
            gone = 1 << c | made
            next_twos = [m for m in twos if not m & gone]
            want = self.board.k - 2
            for m in through[c]:
                if not m & theirs and (m & mine).bit_count() == want:
                    next_twos.append(m)
        found = self._search(mine, theirs, answers, next_twos, depth + 1)
        if found is not None:
            return [c, *found]
        self._failed.add((mine, theirs))
        return None


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
