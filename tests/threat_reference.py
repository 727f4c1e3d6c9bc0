"""Independent checks of the compiled threat search with threes (`tictactoe.search.wide.vct`),
in plain Python on the rules' masks, for the tests and `scripts/bench_gomoku.py`.

`ReferenceThreats.wins` decides the same definition as the compiled search straight from
it: every move that makes a four or a three is tried, and after a three *every* empty cell
is tried as the defender's reply (no zone, no replay shortcut, no table of failures, only a
memo of answers). Wins by fours come from the checker's readable search
(`tictactoe.proof.threats.ThreatSearch`).

`verify_win` checks a claimed win by the rules alone: the engine only suggests the
attacker's moves, and every reply of the defender to a quiet move is played out.
"""

from __future__ import annotations

from collections.abc import Callable

from tictactoe.core import Variant
from tictactoe.proof.threats import ThreatSearch, board_of, cells_of, threat_cells


def _two_or_more(mask: int) -> bool:
    return mask & (mask - 1) != 0


class ReferenceThreats:
    """Wins by threats with at most n threes (fours free; a three that takes the defender's
    threat cell free), decided by plain recursion."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.board = board_of(variant)
        self.fours = ThreatSearch(variant)
        self.memo: dict[tuple[int, int, int], bool] = {}
        self.positions = 0

    def by_fours(self, prover: int, opponent: int) -> bool:
        return self.fours.run(prover, opponent) is not None

    def wins(self, prover: int, opponent: int, threes: int) -> bool:
        """Whether the prover, to move, wins by threats with at most `threes` threes."""
        key = (prover, opponent, threes)
        if key not in self.memo:
            self.memo[key] = self._wins(prover, opponent, threes)
        return self.memo[key]

    def _wins(self, prover: int, opponent: int, threes: int) -> bool:
        self.positions += 1
        b = self.board
        if threat_cells(b, prover, opponent):
            return True
        blocks = threat_cells(b, opponent, prover)
        if _two_or_more(blocks):
            return False
        if self.by_fours(prover, opponent):
            return True
        if threes == 0:
            return False
        empty = b.full & ~(prover | opponent)
        if blocks:
            candidates = blocks
        else:
            candidates = 0
            for m in b.masks:
                if not m & opponent and (m & prover).bit_count() >= max(1, b.k - 3):
                    candidates |= m & empty
        for c in cells_of(candidates):
            mine = prover | 1 << c
            made = threat_cells(b, mine, opponent)
            if _two_or_more(made):
                return True
            if made:  # a four: the reply is forced
                theirs = opponent | made
                if not _two_or_more(threat_cells(b, theirs, mine)) \
                        and self.wins(mine, theirs, threes):
                    return True
                continue
            if not self.by_fours(mine, opponent):
                continue  # not a three
            cost = 0 if blocks else 1
            for x in cells_of(b.full & ~(mine | opponent)):
                theirs = opponent | 1 << x
                if _two_or_more(threat_cells(b, theirs, mine)) \
                        or not self.wins(mine, theirs, threes - cost):
                    break
            else:
                return True
        return False


def verify_win(variant: Variant, prover: int, opponent: int,
               suggest: Callable[[int, int], int | None], *, plies: int = 80) -> bool:
    """Whether the prover, to move, wins against every defence, playing the moves `suggest`
    gives (None: it has none). Checked by the rules alone: a line completed, two threat cells
    the defender cannot both take, a win by fours (the checker's readable search), or else
    the suggested move, after which a four's forced reply or every empty cell as the reply
    to a quiet move is played out."""
    b = board_of(variant)
    fours = ThreatSearch(variant)
    seen: dict[tuple[int, int], bool] = {}

    def holds(mine: int, theirs: int, left: int) -> bool:
        key = (mine, theirs)
        if key in seen:
            return seen[key]
        seen[key] = result = check(mine, theirs, left)
        return result

    def check(mine: int, theirs: int, left: int) -> bool:
        if threat_cells(b, mine, theirs):
            return True
        blocks = threat_cells(b, theirs, mine)
        if _two_or_more(blocks) or left <= 0:
            return False
        if fours.run(mine, theirs) is not None:
            return True
        c = suggest(mine, theirs)
        if c is None or (mine | theirs) >> c & 1 or (blocks and blocks != 1 << c):
            return False
        after = mine | 1 << c
        made = threat_cells(b, after, theirs)
        if _two_or_more(made):
            return True
        if made:
            return holds(after, theirs | made, left - 2)
        for x in cells_of(b.full & ~(after | theirs)):
            reply = theirs | 1 << x
            if _two_or_more(threat_cells(b, reply, after)):
                return False
            if not holds(after, reply, left - 2):
                return False
        return True

    return holds(prover, opponent, plies)
