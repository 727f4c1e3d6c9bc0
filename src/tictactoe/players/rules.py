"""The rule-based player's rules (seed 004 done right): no search, a list of rules in order.

On 3x3: win; block; fork; block a fork (by forcing the opponent with a two-in-a-row whose
answer gives no fork, which handles the opposite-corner trap, else by taking the fork cell);
centre; the corner opposite the opponent's; an empty corner; an empty edge. It never loses,
as the tests prove by trying every opponent reply from both sides.

On other boards: win; block; fork; block a fork; then the cell on the most open lines,
weighted by the marks already on them.

>>> from tictactoe.core import Position
>>> rule_candidates(Position("x2/1o1/2x o"))  # the opposite-corner trap: answer on an edge
('block a fork', [1, 3, 5, 7])
>>> rule_candidates(Position("3x3"))
('centre', [4])
"""

from __future__ import annotations

import random

from tictactoe.core import Position, Variant
from tictactoe.players.base import Choice, Limit, check_playable


def completing_cells(variant: Variant, mine: int, theirs: int) -> int:
    """Cells (as a bit mask) where `mine` would complete a line."""
    out = 0
    for m in variant.line_masks:
        if not m & theirs:
            rest = m & ~mine
            if rest and rest & (rest - 1) == 0:
                out |= rest
    return out


def completing_after(variant: Variant, mine: int, theirs: int, cell: int, base: int) -> int:
    """``completing_cells(variant, mine | cell, theirs)`` without the cell itself, for an
    empty cell, given ``base = completing_cells(variant, mine, theirs)``, reading only the
    lines through the cell: a line not through it completes where it did (a line through an
    empty cell that completes for `mine` completes on that cell), a line through it is
    looked at again.

    >>> v = Variant.parse("3x3")
    >>> completing_after(v, 0b1, 0, 4, completing_cells(v, 0b1, 0)) == 1 << 8
    True
    """
    bit = 1 << cell
    out = base & ~bit
    masks = variant.line_masks
    taken = mine | bit
    for index in variant.lines_through[cell]:
        m = masks[index]
        if not m & theirs:
            rest = m & ~taken
            if rest and rest & (rest - 1) == 0:
                out |= rest
    return out


def fork_cells(variant: Variant, mine: int, theirs: int, empty: int) -> list[int]:
    """Empty cells where a mark for `mine` makes two or more lines one move from complete
    (each cell read through its own lines: milliseconds on 32×32)."""
    base = completing_cells(variant, mine, theirs)
    return [cell for cell in _cells(empty)
            if (completing_after(variant, mine, theirs, cell, base) & empty
                & ~(1 << cell)).bit_count() >= 2]


def _cells(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def rule_candidates(position: Position) -> tuple[str, list[int]]:
    """The first rule that applies, and every cell it allows (in increasing order)."""
    variant = position.variant
    legal = position.legal_moves()
    if not legal:
        raise ValueError("the game is over")
    me, opp = position.marks(position.turn), position.marks(position.turn.other)
    empty = variant.full_mask & ~(me | opp)

    wins = completing_cells(variant, me, opp) & empty
    if wins:
        return "win", _cells(wins)
    blocks = completing_cells(variant, opp, me) & empty
    if blocks:
        return "block", _cells(blocks)
    forks = fork_cells(variant, me, opp, empty)
    if forks:
        return "fork", forks
    their_forks = fork_cells(variant, opp, me, empty)
    if their_forks:
        safe = _safe_forcing_moves(variant, me, opp, empty)
        both = [c for c in safe if c in their_forks]
        if both:
            return "block a fork", both
        if len(their_forks) == 1:
            return "block a fork", their_forks
        if safe:
            return "block a fork", safe
        return "block a fork", their_forks
    if variant.name == "3x3":
        return _classic_rules(me, opp, empty)
    return "most open lines", _most_open_lines(variant, me, opp, empty)


def _safe_forcing_moves(variant: Variant, me: int, opp: int, empty: int) -> list[int]:
    """Moves that threaten to win next move, where the forced answer gives the opponent no
    two threats of its own (so the answer cannot become a fork)."""
    safe = []
    mine_base = completing_cells(variant, me, opp)
    their_base = completing_cells(variant, opp, me)
    for cell in _cells(empty):
        bit = 1 << cell
        threats = completing_after(variant, me, opp, cell, mine_base) & empty & ~bit
        if threats.bit_count() != 1:
            continue
        answer = threats
        left = empty & ~bit & ~answer
        # the lines through `cell` are now blocked for the opponent: in `their_base` they
        # complete on `cell` only, which `left` leaves out
        their_threats = completing_after(variant, opp, me | bit, answer.bit_length() - 1,
                                         their_base) & left
        if their_threats.bit_count() < 2:
            safe.append(cell)
    return safe


_CENTRE = 4
_CORNERS = (0, 2, 6, 8)
_OPPOSITE = {0: 8, 2: 6, 6: 2, 8: 0}
_EDGES = (1, 3, 5, 7)


def _classic_rules(me: int, opp: int, empty: int) -> tuple[str, list[int]]:
    del me
    if empty >> _CENTRE & 1:
        return "centre", [_CENTRE]
    opposite = sorted(_OPPOSITE[c] for c in _CORNERS if opp >> c & 1 and empty >> _OPPOSITE[c] & 1)
    if opposite:
        return "opposite corner", opposite
    corners = [c for c in _CORNERS if empty >> c & 1]
    if corners:
        return "empty corner", corners
    return "empty edge", [c for c in _EDGES if empty >> c & 1]


def _most_open_lines(variant: Variant, me: int, opp: int, empty: int) -> list[int]:
    """Cells on the most lines still open for either side, weighted by the marks on them."""
    weights: dict[int, int] = {}
    for cell in _cells(empty):
        weight = 0
        for index in variant.lines_through[cell]:
            m = variant.line_masks[index]
            if not m & opp:
                weight += 1 + 4 * (m & me).bit_count()
            if not m & me:
                weight += 1 + 3 * (m & opp).bit_count()
        weights[cell] = weight
    top = max(weights.values())
    return [c for c, w in weights.items() if w == top]


class RulesPlayer:
    """The rule-based player; ties within a rule are broken at random."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "rules"
        self.rng = random.Random(seed)
        self.last_rule = ""
        """The rule behind the last choice (for display)."""

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        check_playable(position)
        self.last_rule, cells = rule_candidates(position)
        return Choice(self.rng.choice(cells), None)
