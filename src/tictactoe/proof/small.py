"""A reference prover for small boards: an exhaustive search that writes proof files.

It is deliberately plain: a memoised AND/OR search over positions up to symmetry decides
whether a side can force a win, and the proof is read off the memo in preorder. Leaves are
``W`` (a winning move), ``F`` (a threat sequence the checker's threat search confirms),
``P`` (a pairing, in hold sections), ``E`` (a full board) and ``= n`` (a position already
proven, up to symmetry). It uses the rules core only, so it can cross-check other provers.

>>> import io
>>> from tictactoe.proof.check import check_proof
>>> buffer = io.BytesIO()
>>> header = write_small_proof("3x3", buffer)
>>> header.value, check_proof(buffer.getvalue()).value
('draw', 'draw')
"""

from __future__ import annotations

import os
from typing import IO, Any

from tictactoe.core import Position, Side, Variant, canonical_masks
from tictactoe.proof.format import Header, ProofWriter
from tictactoe.proof.threats import (
    Board,
    ThreatSearch,
    board_of,
    cells_of,
    stabiliser,
    threat_cells,
)

MAX_CELLS = 25
"""The largest board this prover accepts."""

PAIRING_BUDGET = 2_000
"""Steps the pairing search may take at one position before giving up."""


class SmallProver:
    """Exhaustive search and proof writing for one variant.

    >>> prover = SmallProver(Variant.parse("3x3"))
    >>> prover.value(Position("3x3"))
    'draw'
    >>> prover.value(Position("x2/1o1/2x o"))   # O to move; X has two corners
    'draw'
    """

    def __init__(self, variant: Variant, *, use_forced: bool = True,
                 use_pairing: bool = True) -> None:
        if variant.cells > MAX_CELLS:
            raise ValueError(f"{variant.name} has {variant.cells} cells: the small prover "
                             f"takes boards of at most {MAX_CELLS}")
        self.variant = variant
        self.board: Board = board_of(variant)
        self.use_forced = use_forced
        self.use_pairing = use_pairing
        self.threats = ThreatSearch(variant)
        self._memo: dict[tuple[int, int, bool], bool] = {}
        self._best: dict[tuple[int, int], int] = {}
        # cells in a fixed order: most lines first, then by index
        self._order = sorted(range(variant.cells),
                             key=lambda c: (-len(self.board.through[c]), c))

    # ------------------------------------------------------------------ solving
    def wins(self, mine: int, theirs: int, my_move: bool) -> bool:
        """Whether the side with `mine` can force a win, with it (or the other side) to
        move."""
        a, b = canonical_masks(self.variant, mine, theirs)
        key = (a, b, my_move)
        found = self._memo.get(key)
        if found is None:
            found = self._wins(mine, theirs, my_move)
            self._memo[key] = found
        return found

    def _wins(self, mine: int, theirs: int, my_move: bool) -> bool:
        board = self.board
        empty = board.full & ~(mine | theirs)
        if my_move:
            if threat_cells(board, mine, theirs) & empty:
                return True
            blocks = threat_cells(board, theirs, mine)
            if blocks & (blocks - 1):
                return False
            if blocks:
                return self.wins(mine | blocks, theirs, False)
            return any(self.wins(mine | 1 << c, theirs, False) for c in self._moves(empty))
        if not empty or threat_cells(board, theirs, mine):
            return False  # a draw, or the other side completes a line
        mine_threats = threat_cells(board, mine, theirs)
        if mine_threats & (mine_threats - 1):
            return True
        if mine_threats:
            return self.wins(mine, theirs | mine_threats, True)
        return all(self.wins(mine, theirs | 1 << c, True) for c in self._moves(empty))

    def _moves(self, empty: int) -> list[int]:
        return [c for c in self._order if empty >> c & 1]

    def value(self, position: Position) -> str:
        """``x``, ``o`` or ``draw``: the result with best play."""
        side = position.turn
        mine, theirs = position.marks(side), position.marks(side.other)
        if self.wins(mine, theirs, True):
            return side.symbol
        if self.wins(theirs, mine, False):
            return side.other.symbol
        return "draw"

    # ------------------------------------------------------------------ proofs
    def write(self, position: Position, target: str | os.PathLike[str] | IO[bytes],
              **extra: Any) -> Header:
        """Write a proof of the position's value to `target`; return the header."""
        value = self.value(position)
        extra.setdefault("generator", "tictactoe.proof.small")
        with ProofWriter(target, position=position, value=value, **extra) as writer:
            if value == "draw":
                for side in (Side.X, Side.O):
                    self._section(writer, position, side, "hold")
            else:
                self._section(writer, position, Side.parse(value), "win")
        assert writer.header is not None
        return writer.header

    def _section(self, writer: ProofWriter, position: Position, prover: Side,
                 claim: str) -> None:
        writer.section(prover, claim)
        mine, theirs = position.marks(prover), position.marks(prover.other)
        seen: dict[tuple[int, int], int] = {}
        if position.turn is prover:
            self._prover_node(writer, mine, theirs, claim == "win", seen)
        else:
            self._opponent_node(writer, mine, theirs, claim == "win", seen)

    def _prover_node(self, writer: ProofWriter, mine: int, theirs: int, win: bool,
                     seen: dict[tuple[int, int], int]) -> None:
        board = self.board
        key = canonical_masks(self.variant, mine, theirs)
        if key in seen:
            writer.same(seen[key])
            return
        seen[key] = writer.next_line
        empty = board.full & ~(mine | theirs)
        threats = threat_cells(board, mine, theirs) & empty
        if threats:
            writer.win(cells_of(threats)[0])
            return
        if not empty:
            writer.end()
            return
        if self.use_forced:
            sequence = self.threats.run(mine, theirs)
            if sequence is not None:
                writer.forced(sequence)
                return
        if not win and self.use_pairing:
            pairs = find_pairing(board, mine, theirs)
            if pairs is not None:
                writer.pairing(pairs)
                return
        move = self._choose(mine, theirs, empty, win)
        writer.move(move)
        self._opponent_node(writer, mine | 1 << move, theirs, win, seen)

    def _choose(self, mine: int, theirs: int, empty: int, win: bool) -> int:
        """A move that keeps the win (or the hold)."""
        blocks = threat_cells(self.board, theirs, mine)
        candidates = [blocks.bit_length() - 1] if blocks else self._moves(empty)
        for c in candidates:
            if win and self.wins(mine | 1 << c, theirs, False):
                return c
            if not win and not self.wins(theirs, mine | 1 << c, True):
                return c
        raise AssertionError("no move keeps the value: the search disagrees with itself")

    def _opponent_node(self, writer: ProofWriter, mine: int, theirs: int, win: bool,
                       seen: dict[tuple[int, int], int]) -> None:
        board = self.board
        empty = board.full & ~(mine | theirs)
        threats = threat_cells(board, mine, theirs) & empty
        if threats & (threats - 1):
            open_cells = 0  # every reply leaves the prover a line to complete
        elif threats:
            open_cells = threats  # only blocking the threat needs an answer
        else:
            open_cells = empty
        replies: list[int] = []
        if open_cells:
            symmetric = stabiliser(board, mine, theirs)
            covered = 0
            for c in cells_of(open_cells):
                if covered >> c & 1:
                    continue
                replies.append(c)
                for perm in symmetric:
                    covered |= 1 << perm[c]
        writer.replies(replies)
        for c in replies:
            self._prover_node(writer, mine, theirs | 1 << c, win, seen)


def find_pairing(board: Board, mine: int, theirs: int, *, budget: int = PAIRING_BUDGET
                 ) -> list[tuple[int, int]] | None:
    """Disjoint pairs of empty cells such that every line without a mark of `mine` holds a
    pair, or None if the bounded search finds none.

    >>> b = board_of(Variant.parse("3x3"))
    >>> find_pairing(b, 0b000_010_000, 0b000_000_001)   # too many open lines on 3x3
    >>> find_pairing(b, 0b101_010_010, 0b010_101_001)   # one empty corner pair c1: none left
    []
    """
    empty = board.full & ~(mine | theirs)
    open_lines = [m for m in board.masks if not m & mine]
    if any((m & empty).bit_count() < 2 for m in open_lines):
        return None
    matched = _matched_pairs(open_lines, empty)
    if matched is not None:  # a pair of its own for every line: found without search
        return matched
    steps = [budget]  # overlapping lines may share a pair: a bounded search for that

    def extend(pairs: list[int], used: int) -> list[int] | None:
        steps[0] -= 1
        if steps[0] < 0:
            return None
        line = next((m for m in open_lines if not any(p & m == p for p in pairs)), None)
        if line is None:
            return pairs
        cells = cells_of(line & empty & ~used)
        for i, a in enumerate(cells):
            for b in cells[i + 1:]:
                pair = 1 << a | 1 << b
                found = extend([*pairs, pair], used | pair)
                if found is not None:
                    return found
        return None

    found = extend([], 0)
    if found is None:
        return None
    return [(cells_of(p)[0], cells_of(p)[1]) for p in found]


def _matched_pairs(open_lines: list[int], empty: int) -> list[tuple[int, int]] | None:
    """Two empty cells of its own for each line, no cell used twice (a bipartite matching
    of the lines' two slots to the cells, grown by augmenting paths), as pairs; or None.

    >>> _matched_pairs([0b0111, 0b1110], 0b1111)  # two lines of three on four cells
    [(0, 2), (1, 3)]
    >>> _matched_pairs([0b0111, 0b1110], 0b0111) is None  # three cells for four slots
    True
    """
    owner: dict[int, int] = {}  # cell -> slot; slot s belongs to line s // 2
    options = [cells_of(line & empty) for line in open_lines]

    def assign(slot: int, seen: set[int]) -> bool:
        for cell in options[slot // 2]:
            if cell in seen:
                continue
            seen.add(cell)
            if cell not in owner or assign(owner[cell], seen):
                owner[cell] = slot
                return True
        return False

    for slot in range(2 * len(open_lines)):
        if not assign(slot, set()):
            return None
    held: dict[int, list[int]] = {}
    for cell, slot in owner.items():
        held.setdefault(slot // 2, []).append(cell)
    return [(min(cells), max(cells)) for _, cells in sorted(held.items())]


def write_small_proof(position: Position | str | Variant,
                      target: str | os.PathLike[str] | IO[bytes], **extra: Any) -> Header:
    """Prove a small position's value and write the proof (a path or a binary file).

    `position` may be a position string, a variant name (its empty board) or a `Position`.
    """
    if isinstance(position, Variant | str):
        position = Position(position)
    return SmallProver(position.variant).write(position, target, **extra)
