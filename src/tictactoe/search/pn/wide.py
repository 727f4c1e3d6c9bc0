"""Proof-number search past 64 cells: df-pn on per-line counts (`tictactoe.search.wide`),
for boards up to 32x32, with threat sequences inside the search and proofs that the rules
core checks.

The question is "does the attacker win?". Only wins are proven here: the attacker's moves
are the `WIDTH` best cells near the marks already played (within `NEAR` along a line), by
the levels' shape score, which is enough to find a win and too few to show there is none,
so a search that runs out of such moves answers ``unknown``, never ``no-win``.

* **Attacker to move (OR).** A threat completes a line; two threats of the defender, or a
  full board, disprove the node; a win by fours (`kernels.vcf`) proves it (an ``F`` leaf).
* **Defender to move (AND).** A threat of the defender disproves the node; two threats of
  the attacker prove it, one leaves the defender a single reply. Otherwise the attacker's
  win by fours *after a pass* restricts the defender: a reply after which the same
  sequence, followed move by move, still wins is proven at once (`kernels.refuters`, which
  replays only the replies on the cells that `kernels.breaking` marks), and only the
  others become children. The proof file lists them on an ``R ... V h1 ... hj``
  line (format version 4), which the checker verifies reply by reply. Without such a
  sequence every empty cell is a child, one per class under the position's symmetries
  while it has few marks.
* **df-pn** (Nagai) with the 1+epsilon thresholds (Pawlewicz and Lew), a transposition
  table keyed by Zobrist hashes, and every child evaluated when its parent is expanded (a
  defender's node starts with a proof number equal to its count of children; its replies'
  attacker's nodes are evaluated in one compiled call, `kernels.attacker_children`).

>>> search = WidePnSearch("9x9k4")
>>> result = search.prove("9x9k4")
>>> result.outcome, result.attacker
('win', 'x')
"""

from __future__ import annotations

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "proof-number search past 64 cells")

import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tictactoe.core import BoardTooLargeError, Position, Side, TicTacToeError, Variant
from tictactoe.proof.format import NodeWriter, ProofWriter, format_node
from tictactoe.proof.threats import board_of, cells_of, stabiliser
from tictactoe.search.wide import MAX_LEVELS, wide_tables
from tictactoe.search.wide import alphabeta as _ab
from tictactoe.search.wide import kernels as _wk
from tictactoe.search.wide import vct as _vct
from tictactoe.search.wide.engine import move_weights

INF = 1 << 60
"""Proof number of a disproven node (and disproof number of a proven one)."""

MAX_CELLS = 32 * 32
"""The largest board this search takes."""

NEAR = 2
"""The attacker's moves are empty cells at most this many steps along a line from a mark."""

WIDTH = 4
"""Of those, the attacker tries this many: the best by the levels' shape score
(`alphabeta.move_score`), the first move of its win by threats first (0: all of them)."""

SYM_MARKS = 4
"""A defender's node with at most this many marks has one child per class of replies
under the symmetries that keep the position."""

VCF_BUDGET = 5_000
"""Positions each win-by-fours search may visit."""

EPSILON = 0.25
"""df-pn's threshold factor is 1 + `EPSILON`."""

VCT_THREES = 2
"""Threes a win by threats may use when it orders the attacker's moves."""

VCT_BUDGET = 1_000
"""Positions each win-by-threats search (with threes) may visit. With 2,000 the search
proved 13 of 20 quiet 15x15 positions in 8 s each against 14, at 0.6 times the node rate
(``scripts/bench_wide_pn.py vct``)."""

THREES = ("eager", "lazy", "off")
"""When the attacker's win by threats with threes (`vct`) is asked: ``eager`` at every
attacker's node as it is evaluated (it orders the moves and sets the initial proof number,
and inside a pass subtree a node with no such win is disproven); ``lazy`` only when an
attacker's node is expanded, outside pass subtrees (to order its moves; pass subtrees then
prove by fours only); ``off`` never."""

DEFAULT_THREES = "lazy"
"""The `THREES` setting unless told."""

QUIET_PN = 4
"""Initial proof number of an attacker's node with no win by threats in sight (one with
such a win starts at 1)."""

PASS = -1
"""The child of a defender's node that stands for a pass (the pass subtree, ``Y``)."""

QUIET = -2
"""What `_and_moves` answers for a quiet defender's node inside a pass subtree: there the
attacker must keep forcing (threes and fours, as in a win by threats), so the node counts
as disproven for this subtree."""

ZONE_PN = 24
"""A quiet defender's node whose pass subtree is not proven yet counts this many replies
in its proof number beside the pass (about the replies its zone lists on 15x15)."""

PASS_KEY = 0x5851F42D4C957F2D
"""Xor-ed into a key for each pass (the same marks with the other side to move)."""

ZONE_KEY = 0x2545F4914F6CDD1D
"""Xor-ed into a key as it enters a pass subtree from outside one (the first of
`NEST_KEYS`): inside, proofs obey the pass subtree's rules (no symmetry)."""

NEST_KEYS = (ZONE_KEY, 0x9E3779B97F4A7C15, 0xD1B54A32D192ED03, 0x8CB92BA72F3D8DD7)
"""Xor-ed into a key as it enters a pass subtree `NEST_KEYS[d]` deep (d = 0: one outside
pass subtrees), so that each depth keeps its own entries: its rules differ (`nest`)."""

NEST = 3
"""How deep pass subtrees may lie inside each other (`WidePnSearch(..., nest=N)`): at the
deepest, the attacker must keep forcing; above it, a quiet defender's node opens a pass
subtree of its own, and the attacker may make quiet moves."""

TABLE_ENTRIES = 3_000_000
"""Positions the search's table holds (about 300 bytes each, with their children's moves)
before it forgets the ones neither proven nor disproven (`WidePnSearch.collect`)."""

TABLE_BITS = 18
"""The win-by-fours search's table of failed positions has 2**18 entries."""

Progress = Callable[[int, int, int, float], None]
"""``progress(nodes, root_pn, root_dn, seconds)``, called about twice a second."""


@dataclass(frozen=True)
class WidePnResult:
    """The answer to "does `attacker` win?": ``win`` or ``unknown`` (a limit stopped the
    search, or the attacker's moves near the marks were not enough)."""

    outcome: str
    attacker: str
    nodes: int
    seconds: float
    root_pn: int
    root_dn: int
    stopped: str | None = None
    """``nodes``, ``seconds``, ``table`` (solved positions fill the table) or
    ``interrupted`` when a limit stopped the search; ``turn`` when the question's round of
    `ask_in_turn` ended and it was not asked again (the other side's question settled the
    run, or a limit stopped it)."""

    @property
    def proven(self) -> bool:
        return self.outcome == "win"


class _Stop(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class WidePnSearch:
    """df-pn for one variant of more than 64 cells (or any, for tests), keeping its tables
    between questions about the same attacker."""

    def __init__(self, variant: Variant | str, *, vcf_budget: int = VCF_BUDGET,
                 vct_budget: int = VCT_BUDGET, epsilon: float = EPSILON, passes: bool = True,
                 threes: str = DEFAULT_THREES, table_entries: int = TABLE_ENTRIES,
                 width: int = WIDTH, nest: int = NEST) -> None:
        if threes not in THREES:
            raise ValueError(f"threes must be one of {', '.join(THREES)}, not {threes!r}")
        if vct_budget < 1:
            raise ValueError(f"vct_budget must be 1 or more positions, not {vct_budget}")
        if width < 0:
            raise ValueError(f"width must be 0 (every move near a mark) or more, not {width}")
        if not 1 <= nest <= len(NEST_KEYS):
            raise ValueError(f"nest must be 1 to {len(NEST_KEYS)}, not {nest}")
        self.variant = Variant.parse(variant) if isinstance(variant, str) else variant
        if self.variant.cells > MAX_CELLS:
            raise BoardTooLargeError(f"{self.variant.name} has {self.variant.cells} cells; "
                                     f"proof-number search takes at most {MAX_CELLS}")
        v = self.variant
        self.tables = wide_tables(v)
        n = v.cells
        self.state = np.zeros(n, dtype=np.int8)
        self.counts = np.zeros((len(v.lines), 2), dtype=np.int32)
        self.misc = np.zeros(_wk.MISC, dtype=np.int64)
        self.vcf_keys = np.zeros(1 << TABLE_BITS, dtype=np.uint64)
        self.vcf_depth = np.zeros(1 << TABLE_BITS, dtype=np.int64)
        self.seen = np.zeros(n, dtype=np.int64)
        self.most = max(1, n // 2)
        self.seq = np.zeros(self.most + 2, dtype=np.int64)
        self.buf = np.zeros((self.most + 2, 3 * n + _wk.FRAME), dtype=np.int64)
        self.played = np.zeros(2 * self.most + 4, dtype=np.int64)
        self.out = np.zeros(n, dtype=np.int64)
        self.three_keys = np.zeros(1 << TABLE_BITS, dtype=np.uint64)
        self.three_depth = np.zeros(1 << TABLE_BITS, dtype=np.int64)
        self.work = np.zeros((MAX_LEVELS, 4 * n + 3 * self.most + 8), dtype=np.int64)
        self.firsts = np.zeros(MAX_LEVELS, dtype=np.int64)
        self.hints: dict[int, int] = {}
        """Key of an attacker's node -> the first move of its win by threats with threes
        (tried first)."""
        self.near_count = np.zeros(n, dtype=np.int32)
        self.neighbours = _neighbours(v, NEAR)
        self.near_ptr = np.zeros(n + 1, dtype=np.int64)
        self.near_ptr[1:] = np.cumsum([len(cells) for cells in self.neighbours])
        self.near_cells = np.concatenate(self.neighbours).astype(np.int64)
        """`neighbours` as one list: cell c's are ``near_cells[near_ptr[c]:near_ptr[c + 1]]``."""
        self.batch = np.zeros(n, dtype=np.int64)
        self.batch_out = np.zeros((n, 4), dtype=np.int64)
        self.batch_moves = np.zeros(n * (self.most + 2), dtype=np.int64)
        """Scratch of `_evaluate_many`: the replies, their results and their wins' moves."""
        self.zobrist = [[int(z) for z in row] for row in self.tables.zobrist]
        self.vcf_budget = vcf_budget
        self.vct_budget = vct_budget
        """Positions each win by threats with threes may visit (`VCT_BUDGET`)."""
        self.passes = passes
        self.threes = threes
        self.table_entries = table_entries
        """Entries of `table` past which `collect` runs."""
        self.width = width
        """The attacker's moves tried at a node (`WIDTH`)."""
        self.nest = nest
        """How deep pass subtrees may lie inside each other (`NEST`)."""
        self.attack, self.defend = move_weights(v.k)
        self.scores = np.zeros(n, dtype=np.int64)
        self.collections = 0
        """Times `collect` has run."""
        self._path: list[int] = []
        """Keys of the nodes `_mid` is searching, the root first."""
        """When the win by threats with threes is asked (`THREES`)."""
        """Whether a quiet defender's node asks first whether the attacker wins after a
        pass, and lists only the replies in that proof's zone (``Y``)."""
        self._zone_depth = 0
        """Pass subtrees the current node lies in."""
        self.factor = 1.0 + epsilon
        self._board = board_of(v)
        self._attacker = -1
        self.table: dict[int, list[int]] = {}
        """Key -> [pn, dn, best move (OR) or -1]."""
        self.kids: dict[int, list[int]] = {}
        """Key of an expanded node -> its children's moves."""
        self.sequences: dict[int, tuple[int, ...]] = {}
        """Key -> the attacker's win by fours: at an OR node its moves (an ``F`` leaf), at
        an AND node the sequence after a pass that covers the unlisted replies."""
        self.nodes = 0
        self._limit = 0
        self._deadline: float | None = None
        self._progress: Progress | None = None
        self._next_report = 0.0
        self._started = 0.0
        self._root_key = 0

    def clear(self) -> None:
        """Forget every search so far (the tables)."""
        self.table.clear()
        self.kids.clear()
        self.sequences.clear()
        self.hints.clear()

    # ------------------------------------------------------------------ the board
    def _load(self, position: Position) -> None:
        self.state[:] = 0
        self.near_count[:] = 0
        for c in cells_of(position.x):
            self.state[c] = 1
        for c in cells_of(position.o):
            self.state[c] = 2
        t = self.tables
        _wk.load(self.state, self.counts, t.line_cells, t.zobrist, self.misc)
        for cell in np.nonzero(self.state)[0]:
            self.near_count[self.neighbours[int(cell)]] += 1

    def _play(self, c: int, side: int) -> None:
        t = self.tables
        _wk.play_near(c, side, self.state, self.counts, t.through_ptr, t.through, t.zobrist,
                      self.misc, self.near_count, self.near_ptr, self.near_cells)

    def _undo(self, c: int, side: int) -> None:
        t = self.tables
        _wk.take_back_near(c, side, self.state, self.counts, t.through_ptr, t.through,
                           t.zobrist, self.misc, self.near_count, self.near_ptr,
                           self.near_cells)

    def _key(self) -> int:
        return int(self.misc[_wk.HASH]) & (2**64 - 1)

    def _threats(self, side: int) -> tuple[int, int]:
        made, first, _ = _wk.threats_of(side, self.state, self.counts, self.tables.line_cells)
        return int(made), int(first)

    def _vcf(self, side: int) -> tuple[int, ...] | None:
        t = self.tables
        found = _wk.vcf(side, self.most, self.vcf_budget, self.state, self.counts,
                        t.line_cells, t.through_ptr, t.through, t.zobrist, self.vcf_keys,
                        self.vcf_depth, self.seen, self.misc, self.seq, self.buf)
        if found < 0:
            return None
        return tuple(int(c) for c in self.seq[:found])

    def _vct(self, side: int) -> int:
        """The first move of a win by threats with at most `VCT_THREES` threes, or -1."""
        t = self.tables
        found = _vct.vct(side, VCT_THREES, self.most, self.vct_budget, self.state, self.counts,
                         t.line_cells, t.through_ptr, t.through, t.zobrist, self.vcf_keys,
                         self.vcf_depth, self.seen, self.misc, self.seq, self.buf,
                         self.three_keys, self.three_depth, self.work, self.firsts)
        return int(self.firsts[0]) if found >= 0 else -1

    def _replays(self, side: int, moves: tuple[int, ...]) -> bool:
        t = self.tables
        seq = np.array(moves, dtype=np.int64)
        return bool(_wk.replay(side, seq, len(moves), self.state, self.counts, t.line_cells,
                               t.through_ptr, t.through, t.zobrist, self.misc, self.played))

    def _position(self) -> tuple[int, int]:
        x = o = 0
        for c in np.nonzero(self.state == 1)[0]:
            x |= 1 << int(c)
        for c in np.nonzero(self.state == 2)[0]:
            o |= 1 << int(c)
        return x, o

    def _classes(self, cells: list[int]) -> list[int]:
        """One cell per class of `cells` under the symmetries that keep the position."""
        x, o = self._position()
        symmetric = stabiliser(self._board, x, o)
        if len(symmetric) <= 1:
            return cells
        covered = 0
        out = []
        for c in cells:
            if covered >> c & 1:
                continue
            out.append(c)
            for perm in symmetric:
                covered |= 1 << perm[c]
        return out

    # ------------------------------------------------------------------ nodes
    def _evaluate_many(self, cells: list[int], keys: list[int], side: int) -> list[list[int]]:
        """`_evaluate` of the attacker's node after each of the defender's (`side`) replies
        `cells` (with their `keys`), in one compiled call (`kernels.attacker_children`),
        where `_evaluate` would not ask for the win by threes (``threes`` not ``eager``).
        The table entries, stored."""
        n = len(cells)
        self.nodes += n
        t = self.tables
        self.batch[:n] = cells
        _wk.attacker_children(
            self.batch, n, side, self._attacker, self.most, self.vcf_budget, self.state,
            self.counts, t.line_cells, t.through_ptr, t.through, t.zobrist, self.vcf_keys,
            self.vcf_depth, self.seen, self.misc, self.seq, self.buf, self.near_count,
            self.near_ptr, self.near_cells, self.batch_out, self.batch_moves)
        entries = []
        # the deepest pass subtree: threats only
        quiet = [INF, 0, -1] if self._zone_depth >= self.nest else None
        for key, (kind, value, extra, at) in zip(keys, self.batch_out[:n].tolist(),
                                                 strict=True):
            if kind == _wk.ATTACKER_THREAT:
                entry = [0, INF, value]
            elif kind == _wk.ATTACKER_LOST:
                entry = [INF, 0, -1]
            elif kind == _wk.ATTACKER_FOURS:
                self.sequences[key] = tuple(self.batch_moves[at:at + value].tolist())
                entry = [0, INF, -1]
            elif quiet is not None:
                entry = list(quiet)
            else:
                entry = [QUIET_PN, 1 if extra else max(1, value), -1]
            self.table[key] = entry
            entries.append(entry)
        return entries

    def _evaluate(self, key: int, attacker_to_move: bool) -> list[int]:
        """The table entry of the current position, evaluated (and stored)."""
        self.nodes += 1
        a, d = self._attacker, 1 - self._attacker
        entry = [1, 1, -1]
        if attacker_to_move:
            made, first = self._threats(a)
            if made:
                entry = [0, INF, first]
            else:
                blocks, _ = self._threats(d)
                if blocks == 2 or not (self.state == 0).any():
                    entry = [INF, 0, -1]
                else:
                    found = self._vcf(a)
                    if found is not None:
                        self.sequences[key] = found
                        entry = [0, INF, -1]
                    else:
                        hint = self._vct(a) if self.threes == "eager" else -1
                        if hint >= 0:
                            self.hints[key] = hint
                        near = np.count_nonzero((self.state == 0) & (self.near_count > 0))
                        entry = [1 if hint >= 0 else QUIET_PN,
                                 1 if blocks else max(1, int(near)), -1]
                        if hint < 0 and self._zone_depth >= self.nest:
                            entry = [INF, 0, -1]  # the deepest pass subtree: threats only
        else:
            blocks, _ = self._threats(d)
            made, first = self._threats(a)
            if blocks:
                entry = [INF, 0, -1]
            elif made == 2:
                entry = [0, INF, -1]
            elif made == 1:
                entry = [1, 1, -1]
            elif not (self.state == 0).any():
                entry = [INF, 0, -1]
            else:
                replies = self._and_moves(key, threats=(made, first))
                if replies == [QUIET]:
                    entry = [INF, 0, -1]
                else:
                    self.kids[key] = replies
                    entry = [len(replies), 1, -1] if replies else [0, INF, -1]
                    if replies == [PASS]:
                        entry[0] += ZONE_PN
        self.table[key] = entry
        return entry

    def _or_moves(self, first: int = -1) -> list[int]:
        """The attacker's moves: the defender's threat cell if it has one; else the `width`
        best by shape score of the empty cells near a mark or, where the defender would win
        by fours if it moved (an open three, say), of the moves that stop that sequence
        (`_stoppers`). `first` (if any) comes first. On an empty board, one per class, most
        lines first, then nearest the centre."""
        d = 1 - self._attacker
        blocks, block = self._threats(d)
        if blocks == 1:
            return [block]
        empty = self.state == 0
        cells = np.nonzero(empty & (self.near_count > 0))[0]
        width = self.width
        if len(cells) == 0:
            through = self.tables.through_ptr
            order = sorted(np.nonzero(empty)[0].tolist(),
                           key=lambda c: (-(through[c + 1] - through[c]),
                                          self.variant.off_centre(c), c))
            moves = self._classes(order)
        else:
            stoppers = self._stoppers(d)
            if stoppers is not None:
                cells = stoppers
            moves = self._by_shape(cells)
        if first >= 0:
            moves = [first, *(c for c in moves if c != first)]
        return moves[:width] if width else moves

    def _by_shape(self, cells: np.ndarray) -> list[int]:
        """`cells`, best first by the levels' shape score for the attacker."""
        t = self.tables
        scores = self.scores[:len(cells)]
        _ab.order(self._attacker, cells, self.counts, t.through_ptr, t.through,
                  self.attack, self.defend, scores)
        return [int(c) for c in cells[np.argsort(-scores, kind="stable")]]

    def _stoppers(self, d: int) -> np.ndarray | None:
        """Where the side `d` (neither side with a threat) would win by fours if it moved
        now, the moves of the other side after which that sequence, followed move by move,
        no longer wins (`kernels.refuters`); None if it would not. Any other move loses to
        it, so a search that tries the best few moves by shape alone would try only losing
        ones whenever none of them blocks."""
        found = self._vcf(d)
        return self._refuters(d, found) if found else None

    def _refuters(self, side: int, found: tuple[int, ...]) -> np.ndarray:
        """The other side's moves after which `side`'s fours `found`, followed move by
        move, no longer win (`kernels.refuters`)."""
        t = self.tables
        seq = np.array(found, dtype=np.int64)
        n = _wk.refuters(side, seq, len(found), self.state, self.counts, t.line_cells,
                         t.through_ptr, t.through, t.zobrist, self.misc, self.played, self.out)
        return self.out[:n].copy()

    def _and_moves(self, key: int, passes: bool | None = None,
                   threats: tuple[int, int] | None = None) -> list[int]:
        """The defender's replies that need a subtree (the rest are covered by the
        attacker's threat cell or by its win by fours after a pass); at a quiet node, with
        `passes`, only the pass (`PASS`) until its proof gives the zone. `threats`: the
        attacker's (`_threats`), if the caller has them."""
        a = self._attacker
        made, first = self._threats(a) if threats is None else threats
        if made == 1:
            return [first]
        if made == 2:
            return []
        found = self._vcf(a)
        if found:
            self.sequences[key] = found
            return [int(c) for c in self._refuters(a, found)]
        if self.passes if passes is None else passes:
            if self._zone_depth >= self.nest:
                return [QUIET]  # inside the deepest pass subtree the attacker keeps forcing
            return [PASS]
        return self._replies()

    def _replies(self, within: int = -1) -> list[int]:
        """The empty cells (of the mask `within`), one per class under the position's
        symmetries while it has at most `SYM_MARKS` marks, outside pass subtrees."""
        cells = [int(c) for c in np.nonzero(self.state == 0)[0] if within >> int(c) & 1]
        if self._zone_depth == 0 and int((self.state != 0).sum()) <= SYM_MARKS:
            cells = self._classes(cells)
        return cells

    def _children(self, key: int, attacker_to_move: bool) -> list[int]:
        kids = self.kids.get(key)
        if kids is None:
            if attacker_to_move:
                if self.threes == "lazy" and key not in self.hints:
                    self.hints[key] = self._vct(self._attacker)
                kids = self._or_moves(self.hints.get(key, -1))
            else:
                kids = self._and_moves(key)
            self.kids[key] = kids
        return kids

    def moves(self, position: Position, attacker: Side) -> tuple[list[int], tuple[int, ...]]:
        """The children this search gives `position` when `attacker` asks (the attacker's
        moves near the marks, or the defender's replies that need a subtree), and the
        replay that covers the defender's other replies (empty if none): for the master
        tree of `tictactoe.search.pn.jobs`."""
        self._enter(position, attacker)
        key = self._key()
        if position.turn is attacker:
            return self._or_moves(), ()
        kids = self._and_moves(key, passes=False)
        made, _ = self._threats(self._attacker)
        return kids, (self.sequences.get(key, ()) if made == 0 else ())

    def quiet(self, position: Position, attacker: Side) -> bool:
        """Whether the defender's node `position` is quiet: no threat of either side and no
        win by fours for `attacker` after a pass, so that its proof may begin with a pass
        subtree (`prove(..., passed=True)`) and list only the replies in its zone."""
        if position.turn is attacker:
            return False
        self._enter(position, attacker)
        a = self._attacker
        if self._threats(a)[0] or self._threats(1 - a)[0] or not (self.state == 0).any():
            return False
        return self._vcf(a) is None

    def zone_replies(self, position: Position, attacker: Side, lines: Iterable[str]
                     ) -> list[int]:
        """The replies of the quiet defender's node `position` that the proof of its pass
        subtree (its node `lines`, as `fragment(..., passed=True)` gives them) does not
        cover: the empty cells of its zone, one per class while the position has few marks,
        as the checker asks them."""
        from tictactoe.proof.check import subtree_zone

        self._enter(position, attacker)
        prover, opponent = position.marks(attacker), position.marks(attacker.other)
        zone = subtree_zone(self.variant, prover, opponent, attacker.symbol, lines)
        return self._replies(zone)

    def _enter(self, position: Position, attacker: Side) -> None:
        """Load `position` for questions about `attacker` (the tables are cleared if they
        were another attacker's)."""
        if attacker.value - 1 != self._attacker:
            self.clear()
            self._attacker = attacker.value - 1
        self._load(position)

    def collect(self) -> None:
        """Forget the positions that are neither proven nor disproven, with their children's
        moves and hints (a search re-evaluates them when it meets them again); stop with
        ``table`` if the solved ones alone fill three quarters of `table_entries`."""
        self.collections += 1
        path = set(self._path)  # the nodes being searched keep what they hold
        self.table = {k: e for k, e in self.table.items()
                      if e[0] == 0 or e[1] == 0 or k in path}
        self.kids = {k: v for k, v in self.kids.items() if k in self.table}
        self.hints = {k: v for k, v in self.hints.items() if k in self.table}
        self.sequences = {k: v for k, v in self.sequences.items() if k in self.table}
        if len(self.table) > self.table_entries * 3 // 4:
            raise _Stop("table")

    # ------------------------------------------------------------------ df-pn
    def _check_limits(self) -> None:
        if self.nodes > self._limit:
            raise _Stop("nodes")
        if len(self.table) > self.table_entries:
            self.collect()
        now = time.perf_counter()
        if now >= self._next_report:
            self._next_report = now + 0.5
            if self._deadline is not None and now > self._deadline:
                raise _Stop("seconds")
            if self._progress is not None:
                root = self.table.get(self._root_key, [1, 1, -1])
                self._progress(self.nodes, min(root[0], INF), min(root[1], INF),
                               now - self._started)

    def _mid(self, key: int, attacker_to_move: bool, th_pn: int, th_dn: int) -> None:
        self._path.append(key)
        try:
            self._mid_here(key, attacker_to_move, th_pn, th_dn)
        finally:
            self._path.pop()

    def _mid_here(self, key: int, attacker_to_move: bool, th_pn: int, th_dn: int) -> None:
        entry = self.table.get(key)
        if entry is None:
            entry = self._evaluate(key, attacker_to_move)
        if entry[0] == 0 or entry[1] == 0:
            return
        side = self._attacker if attacker_to_move else 1 - self._attacker
        kids = self._children(key, attacker_to_move)
        keys, entries = self._child_entries(key, kids, side, attacker_to_move)
        factor = self.factor
        while True:
            if kids and kids[0] == PASS and len(kids) == 1 and 0 in entries[0][:2]:
                # the pass is proven: list its zone's replies; or disproven: list them all
                kids = self._open_pass(key) if entries[0][0] == 0 else self._all_replies(key)
                keys, entries = self._child_entries(key, kids, side, attacker_to_move)
            self._check_limits()
            # an OR node's pn is its children's least, its dn their sum; an AND node's the
            # other way round: `least` indexes the number this node takes the least of
            least = 0 if attacker_to_move else 1
            best, low, second, total = -1, INF, INF, 0
            for i, child in enumerate(entries):
                total += child[1 - least]
                if child[least] < low:
                    best, second, low = i, low, child[least]
                elif child[least] < second:
                    second = child[least]
            if len(kids) == 1 and kids[0] == PASS:
                total += ZONE_PN
            total = min(total, INF)
            pn, dn = (low, total) if attacker_to_move else (total, low)
            if not kids:
                pn, dn = (INF, 0) if attacker_to_move else (0, INF)
            entry[0], entry[1] = pn, dn
            if pn == 0 and attacker_to_move:
                entry[2] = kids[best]
            if pn == 0 or dn == 0 or pn >= th_pn or dn >= th_dn:
                self.table[key] = entry
                return
            thresholds, numbers = [th_pn, th_dn], [pn, dn]
            child_th = [0, 0]
            child_th[least] = min(thresholds[least], int(second * factor) + 1)
            child_th[1 - least] = min(INF, thresholds[1 - least] - numbers[1 - least]
                                      + entries[best][1 - least])
            c_pn, c_dn = child_th
            c = kids[best]
            if c == PASS:
                self._zone_depth += 1
                try:
                    self._mid(keys[best], True, c_pn, c_dn)
                finally:
                    self._zone_depth -= 1
            else:
                self._play(c, side)
                try:
                    self._mid(keys[best], not attacker_to_move, c_pn, c_dn)
                finally:
                    self._undo(c, side)
            entries[best] = self.table[keys[best]]

    def _pass_key(self, key: int) -> int:
        return key ^ PASS_KEY ^ NEST_KEYS[self._zone_depth]

    def _child_entries(self, key: int, kids: list[int], side: int, attacker_to_move: bool
                       ) -> tuple[list[int], list[list[int]]]:
        """The children's keys and table entries (evaluated where new)."""
        zobrist = self.zobrist
        keys = [self._pass_key(key) if c == PASS else key ^ zobrist[c][side] for c in kids]
        table = self.table
        found = [table.get(ck) for ck in keys]
        entries: list[list[int]] = []
        # the replies whose attacker's nodes are evaluated together, in order (a run of
        # them between the others)
        batched = not attacker_to_move and self.threes != "eager"
        run: list[int] = []
        for i, (c, ck) in enumerate(zip(kids, keys, strict=True)):
            child = found[i]
            if child is None and batched and c != PASS:
                run.append(i)
                continue
            if run:
                entries += self._evaluate_many([kids[j] for j in run], [keys[j] for j in run],
                                               side)
                run = []
            if child is None:
                if c == PASS:
                    self._zone_depth += 1
                    child = self._evaluate(ck, True)
                    self._zone_depth -= 1
                else:
                    self._play(c, side)
                    child = self._evaluate(ck, not attacker_to_move)
                    self._undo(c, side)
            entries.append(child)
        if run:
            entries += self._evaluate_many([kids[j] for j in run], [keys[j] for j in run], side)
        return keys, entries

    def _all_replies(self, key: int) -> list[int]:
        """Every reply, one per class while the position has few marks (a quiet node
        whose pass subtree failed)."""
        cells = self._replies()
        self.kids[key] = cells
        return cells

    def _open_pass(self, key: int) -> list[int]:
        """A quiet defender's node whose pass subtree is proven: the pass, then the replies
        in the zone of its proof (the others are covered by it, ``R ... Y``)."""
        from tictactoe.proof.check import subtree_zone

        lines = _Lines()
        passed = self._pass_key(key)
        self._zone_depth += 1
        try:
            self._emit(lines, passed, True)
        finally:
            self._zone_depth -= 1
        x, o = self._position()
        a = self._attacker
        prover, opponent = (x, o) if a == 0 else (o, x)
        zone = subtree_zone(self.variant, prover, opponent, "x" if a == 0 else "o",
                            lines.lines)
        kids = [PASS, *self._replies(zone)]
        self.kids[key] = kids
        return kids

    def prove(self, position: Position | str, *, attacker: Side | str | None = None,
              nodes: int | None = None, seconds: float | None = None,
              progress: Progress | None = None, passed: bool = False) -> WidePnResult:
        """Whether `attacker` (default: the side to move) wins `position`; with `passed`,
        whether it wins if the side to move, its opponent, passes (the pass subtree of a
        quiet defender's node, searched under the pass subtree's rules)."""
        pos = position if isinstance(position, Position) else Position(position)
        if pos.variant != self.variant:
            raise ValueError(f"this search is for {self.variant.name}, not "
                             f"{pos.variant.name}")
        side = pos.turn if attacker is None else (
            attacker if isinstance(attacker, Side) else Side.parse(attacker))
        if passed and pos.turn is side:
            raise ValueError(f"a pass subtree is the attacker's win after its opponent "
                             f"passes, but {side.symbol} is to move here")
        self._enter(pos, side)
        started = self._started = time.perf_counter()
        self._deadline = None if seconds is None else started + seconds
        self._progress = progress
        self._next_report = started
        before = self.nodes
        self._limit = before + (nodes if nodes is not None else 1 << 62)
        key = self._root_key = self._pass_key(self._key()) if passed else self._key()
        stopped = None
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * self.variant.cells + 200))
        self._zone_depth = 1 if passed else 0
        try:
            self._mid(key, passed or pos.turn is side, INF - 1, INF - 1)
        except _Stop as stop:
            stopped = stop.why
        except KeyboardInterrupt:
            stopped = "interrupted"
        finally:
            self._zone_depth = 0
            self._load(pos)
        root = self.table.get(key, [1, 1, -1])
        outcome = "win" if root[0] == 0 else "unknown"
        return WidePnResult(outcome, side.symbol, self.nodes - before,
                            time.perf_counter() - started, min(root[0], INF),
                            min(root[1], INF), stopped)

    # ------------------------------------------------------------------ proofs
    def write_proof(self, position: Position | str, target: str | os.PathLike[str],
                    **extra: Any) -> int:
        """Write the proof of a win `prove` found for this position (format version 4
        where a defender's node is covered by a replay); the number of lines."""
        pos = position if isinstance(position, Position) else Position(position)
        self._load(pos)
        key = self._key()
        attacker_to_move = pos.turn.value - 1 == self._attacker
        self._deadline = None
        root = self.table.get(key)
        if root is None or root[0] != 0:
            raise ValueError("no win proven for this position: prove it first")
        side = Side.X if self._attacker == 0 else Side.O
        with ProofWriter(Path(target), position=pos, value=side.symbol,
                         generator="tictactoe.search.pn.wide", **extra) as writer:
            writer.section(side.symbol, "win")
            self._emit(writer, key, attacker_to_move)
        assert writer.header is not None
        return writer.header.lines

    def fragment(self, position: Position | str, passed: bool = False) -> list[str]:
        """The node lines of the proof of a win `prove` found for this position (a job's
        part of a proof, `tictactoe.search.pn.jobs`); with `passed`, of its pass subtree."""
        pos = position if isinstance(position, Position) else Position(position)
        self._load(pos)
        key = self._pass_key(self._key()) if passed else self._key()
        root = self.table.get(key)
        if root is None or root[0] != 0:
            raise ValueError("no win proven for this position: prove it first")
        self._deadline = None
        lines = _Lines()
        self._zone_depth = 1 if passed else 0
        try:
            self._emit(lines, key, passed or pos.turn.value - 1 == self._attacker)
        finally:
            self._zone_depth = 0
        return lines.lines

    def _emit(self, writer: NodeWriter, key: int, attacker_to_move: bool) -> None:
        a, d = self._attacker, 1 - self._attacker
        if attacker_to_move:
            made, first = self._threats(a)
            if made:
                writer.win(first)
                return
            found = self.sequences.get(key)
            entry = self.table.get(key)
            if entry is not None and entry[2] >= 0:
                c = entry[2]
                ck = key ^ self.zobrist[c][a]
                self._play(c, a)
                if self._completes(c, a):
                    self._undo(c, a)
                    writer.win(c)
                    return
                writer.move(c)
                self._emit(writer, ck, False)
                self._undo(c, a)
                return
            if found is None:
                found = self._vcf(a)
            if found is None:
                raise AssertionError("a proven node without its move")
            writer.forced(found)
            return
        made, first = self._threats(a)
        if made == 2:
            writer.node("R", ())
            return
        kids = self.kids.get(key)
        if kids is None:
            kids = self._and_moves(key)
        if kids and kids[0] == PASS and len(kids) == 1:
            kids = self._open_pass(key)
        passed = bool(kids) and kids[0] == PASS
        replies = kids[1:] if passed else kids
        replay = self.sequences.get(key, ()) if made == 0 and not passed else ()
        writer.node("R", replies, replay=replay, passed=passed)
        for c in replies:
            ck = key ^ self.zobrist[c][d]
            self._play(c, d)
            entry = self.table.get(ck)
            if entry is None or entry[0] != 0:
                self._prove_below(ck)
            self._emit(writer, ck, True)
            self._undo(c, d)
        if passed:
            ck = self._pass_key(key)
            self._zone_depth += 1
            try:
                entry = self.table.get(ck)
                if entry is None or entry[0] != 0:
                    self._prove_below(ck)
                self._emit(writer, ck, True)
            finally:
                self._zone_depth -= 1

    def _completes(self, c: int, side: int) -> bool:
        k = self.tables.line_cells.shape[1]
        t = self.tables
        return any(self.counts[t.through[j], side] == k
                   for j in range(t.through_ptr[c], t.through_ptr[c + 1]))

    def _prove_below(self, key: int) -> None:
        """Prove a child the search left open (the defender's replies of a proven node
        are all proven, so this happens only after the table was cleared)."""
        entry = self._evaluate(key, True)
        if entry[0] != 0:
            limit, self._limit = self._limit, self.nodes + (1 << 62)
            try:
                self._mid(key, True, INF - 1, INF - 1)
            finally:
                self._limit = limit
        if self.table[key][0] != 0:
            raise AssertionError("a defender's reply of a proven node is not proven")


class _Lines(NodeWriter):
    """Keeps the node lines in a list."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    @property
    def next_line(self) -> int:
        return len(self.lines)

    def node(self, kind: str, cells: Iterable[int] = (), target: int = 0,
             cover: Iterable[int] = (), replay: Iterable[int] = (), passed: bool = False
             ) -> int:
        self.lines.append(format_node(kind, cells, target, cover, replay, passed=passed))
        return len(self.lines) - 1


def sides_to_ask(position: Position, attacker: Side | None = None) -> list[Side]:
    """Whose wins `ttt prove` asks about past 64 cells, in order (this search proves wins
    only): `attacker` alone if given; else the side to move, then, with marks on the
    board, the other (on the empty board strategy stealing rules out the second player).

    >>> [s.symbol for s in sides_to_ask(Position("15x15k5"))]
    ['x']
    >>> p = Position("15x15k5")
    >>> p.push(112)
    >>> [s.symbol for s in sides_to_ask(p)], [s.symbol for s in sides_to_ask(p, Side.X)]
    (['o', 'x'], ['x'])
    """
    if attacker is None:
        return [position.turn] if position.holds_by_strategy_stealing else [
            position.turn, position.turn.other]
    if position.holds_by_strategy_stealing and attacker is not position.turn:
        raise TicTacToeError(f"{attacker.symbol.upper()} cannot win from the empty board: "
                             "by strategy stealing the second player never does")
    return [attacker]


ROUND_NODES = 20_000
"""Nodes of each side's first round when `ask_in_turn` asks both sides' wins; every round
after gives each side `ROUND_GROWTH` times as many."""

ROUND_GROWTH = 4
"""How much larger each round of `ask_in_turn` is than the one before."""


def ask_in_turn(position: Position, sides: list[Side],
                make_search: Callable[[], WidePnSearch], *, nodes: int | None = None,
                seconds: float | None = None,
                progress: Callable[[Side], Progress | None] | None = None,
                first_round: int = ROUND_NODES,
                ) -> tuple[list[WidePnResult], WidePnSearch | None]:
    """Ask `sides`' wins (`sides_to_ask`) in rounds, each side's search kept between them:
    `first_round` nodes each, then four times as many each round, until one is proven, a
    limit (`nodes`, `seconds`, both for the whole run) stops the run, or no question is
    left (a search that runs out of moves is not asked again; the last one left gets the
    rest of the budget at once). So where the side not to move is the one that wins, its
    question is not starved by the other's. Returns one result per side asked, its rounds
    summed, in the order of `sides`, and the search of the side proven (else ``None``).
    `progress(side)` gives the progress callback of that side's search.

    >>> p = Position("o13o/15/10x4/10x4/10x4/15/15/4xxx8/15/15/15/15/15/15/o6o6o o 5")
    >>> asked, search = ask_in_turn(p, sides_to_ask(p), lambda: WidePnSearch(p.variant),
    ...                             first_round=500)
    >>> [(r.attacker, r.outcome, r.stopped) for r in asked], asked[0].nodes >= 500
    ([('o', 'unknown', 'turn'), ('x', 'win', None)], True)
    """
    if not sides:
        raise ValueError("no side's win to ask")
    if (nodes is not None and nodes < 1) or first_round < 1:
        raise ValueError(f"nodes and first_round must be at least 1, not "
                         f"{nodes if nodes is not None and nodes < 1 else first_round}")
    started = time.perf_counter()
    searches: dict[Side, WidePnSearch] = {}
    asked: dict[Side, WidePnResult] = {}
    waiting = list(sides)
    spent = 0
    budget = first_round

    def answer(proven: Side | None) -> tuple[list[WidePnResult], WidePnSearch | None]:
        return [asked[s] for s in sides if s in asked], (
            None if proven is None else searches[proven])

    while waiting:
        for side in list(waiting):
            alone = len(waiting) == 1
            left = None if nodes is None else nodes - spent
            if left is not None and left <= 0:
                return answer(None)
            cap = left if alone else budget if left is None else min(budget, left)
            global_cap = alone or (left is not None and left <= budget)
            due = None if seconds is None else max(0.0, seconds - (time.perf_counter()
                                                                   - started))
            search = searches.get(side)
            if search is None:
                search = searches[side] = make_search()
            result = search.prove(position, attacker=side, nodes=cap, seconds=due,
                                  progress=None if progress is None else progress(side))
            spent += result.nodes
            before = asked.get(side)
            if before is not None:  # the side's rounds summed
                result = replace(result, nodes=before.nodes + result.nodes,
                                 seconds=before.seconds + result.seconds)
            if result.stopped == "nodes" and not global_cap:
                result = replace(result, stopped="turn")
            asked[side] = result
            if result.proven:
                return answer(side)
            if result.stopped in ("nodes", "seconds", "interrupted"):
                return answer(None)
            if result.stopped != "turn":  # out of moves, or its table is full
                waiting.remove(side)
        budget *= ROUND_GROWTH
    return answer(None)


def _neighbours(variant: Variant, near: int) -> list[np.ndarray]:
    """For each cell, the cells at most `near` steps from it along a line through it."""
    out: list[set[int]] = [set() for _ in range(variant.cells)]
    for line in variant.lines:
        for i, c in enumerate(line):
            for j in range(max(0, i - near), min(len(line), i + near + 1)):
                if j != i:
                    out[c].add(line[j])
    return [np.array(sorted(s), dtype=np.int64) for s in out]


__all__ = ["MAX_CELLS", "ROUND_GROWTH", "ROUND_NODES", "WidePnResult", "WidePnSearch",
           "ask_in_turn", "sides_to_ask"]
