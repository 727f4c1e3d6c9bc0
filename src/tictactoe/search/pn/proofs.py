"""Proof files from proof-number search: the value proven, then the strategy read off the
transposition table and written in the proof format (``docs/proof-format.md``).

A win is one ``S x win`` (or ``o``) section: at the winner's turn a move (``M``), a line
completed (``W``), or a threat sequence (``F``, with the kernel's sequence as the hint the
checker tries first); at the loser's turn every reply up to the position's symmetries
(``R``); a position met before, up to symmetry, refers back to it (``= n``). The winner's
move is a child the table holds as proven; where the entry was overwritten, the children
are searched again, with growing node budgets, until one is proven.

A draw is two ``hold`` sections, each read off the disproof of the other side's win: the
holder's move is a child the table holds as disproven, and the leaves are lines completed,
pairings (``P``, found by `pairing_leaf`, at either side's turn: the file is then format
version 2) and full boards (``E``). One table answers one question, so the first hold
section is read off before the second question is asked.

The limits bound the writing too: `seconds` from the start of the search to the end of the
writing, `nodes` every search, those of the writing included. A limit or Ctrl-C that stops the
writing leaves nothing at the target and says how far the writing got (`Writing`).

>>> import io
>>> from tictactoe.proof import check_proof
>>> buffer = io.BytesIO()
>>> written = write_pn_proof("4x3", buffer, table_mb=4)
>>> written.header.value, check_proof(buffer.getvalue()).value
('x', 'x')
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from math import comb
from typing import IO, Any

import numpy as np
from numba import njit

from tictactoe.core import Position, Side, canonical_masks, symmetries
from tictactoe.proof.format import Header, NodeWriter, ProofWriter
from tictactoe.proof.small import PAIRING_BUDGET
from tictactoe.proof.threats import Board, board_of, cells_of, stabiliser
from tictactoe.search.compiled.workspace import shared_pairs
from tictactoe.search.pn import dfpn as _k
from tictactoe.search.pn import tss as _t
from tictactoe.search.pn.driver import (
    DEFAULT_TABLE_MB,
    PnResult,
    PnSearch,
    PnValue,
    Progress,
    _classes,
)

FIRST_BUDGET = 20_000
"""Nodes of the first search again of a position whose proven child's entry was lost; each
later round multiplies it by 8."""

ZONE_COVERS = False
"""Whether the writer writes zone covers (format version 3) in hold sections by default: not,
since measured on (7,7,5) the covers make the proof larger (51,180 lines against 33,446) and
slower to write (97 s against 8 s); see docs/benchmarks.md."""

COVER_CELLS = 3
"""The fewest opponent moves a zone cover is written for."""

COVER_NODES = 2_000
"""Nodes within which the position of a zone cover must be disproven for the cover to be
written (else its moves are written one by one)."""

TSS_BUDGET = 200_000
"""Positions the kernel's threat search may visit at one of the winner's positions (the
checker's own bound for a forced leaf is the same)."""


SPARSE_OPEN = 14
"""Open lines per 16 empty cells up to which the writer seeks shared pairs with the full
`PAIRING_BUDGET`."""

DENSE_PAIRING_BUDGET = 200
"""Steps of the shared-pair search past `SPARSE_OPEN`. Measured on (7,7,5)'s proof: there
the searches mostly fail, each after all its steps; with 2,000 everywhere the proof has
30,201 lines and takes 20 s to write, with this 33,446 lines and 8 s (none there at all:
35,037 lines, 6.4 s)."""

_MATCHING = threading.local()
"""Each thread's scratch for `matched_pairs`, by variant: the lines and the work array."""


def matched_pairs(board: Board, mine: int, theirs: int) -> list[tuple[int, int]] | None:
    """Two empty cells of its own for every line free of `mine`, no cell used twice, as
    pairs; or None: df-pn's compiled matching (`dfpn.pairing`), the same question as the
    readable `find_pairing` with no budget for shared pairs.

    >>> from tictactoe.core import Variant
    >>> b = board_of(Variant.parse("3x3"))
    >>> matched_pairs(b, 0b101_010_010, 0b010_101_001)  # no line left open
    []
    >>> matched_pairs(b, 0b000_010_000, 0b000_000_001) is None  # too many open lines
    True
    """
    arrays = _MATCHING.__dict__.setdefault("arrays", {})
    variant = board.variant
    if variant not in arrays:
        lines = np.array(variant.line_masks, dtype=np.uint64)
        arrays[variant] = (lines, np.zeros(8 * len(lines) + 64, dtype=np.int64))
    lines, work = arrays[variant]
    if not _k.pairing(np.uint64(theirs), np.uint64(mine), np.uint64(board.full), lines, work):
        return None
    slots = 2 * sum(1 for m in board.masks if not m & mine)
    held = work[slots + 64:2 * slots + 64]
    return [(min(int(held[s]), int(held[s + 1])), max(int(held[s]), int(held[s + 1])))
            for s in range(0, slots, 2)]


def pairing_leaf(board: Board, mine: int, theirs: int) -> list[tuple[int, int]] | None:
    """Disjoint pairs of empty cells with a pair inside every line free of `mine` (so that
    `mine` holds: it answers each move of the other side in its pair), or None.

    A pair of its own for every line first (`matched_pairs`, compiled); else pairs shared
    by overlapping lines, sought by the compiled search (`shared_pairing`, the α-β cut's)
    within `PAIRING_BUDGET` steps, as the readable `find_pairing` would, only faster, or
    `DENSE_PAIRING_BUDGET` steps where the open lines are dense (more than `SPARSE_OPEN`
    per 16 empty cells). The checker verifies every pairing written against the
    definition.

    >>> from tictactoe.core import Variant
    >>> b = board_of(Variant.parse("4x8k4"))
    >>> pairing_leaf(b, 0xFFFFFF00, 0)  # row 1 open: c1-d1 and e1-f1 hold its 5 windows
    [(2, 3), (4, 5)]
    """
    matched = matched_pairs(board, mine, theirs)
    if matched is not None:
        return matched
    empty = board.full & ~(mine | theirs)
    open_lines = sum(1 for m in board.masks if not m & mine)
    budget = PAIRING_BUDGET if 16 * open_lines <= SPARSE_OPEN * empty.bit_count() \
        else DENSE_PAIRING_BUDGET
    pairs = shared_pairs(board.variant, mine, empty, budget)
    if pairs is None:
        return None
    return [(cells[0], cells[1]) for cells in map(cells_of, pairs)]


@dataclass(frozen=True)
class Writing:
    """How far the writing of a proof has got: what `WriteProgress` hears a few times a
    second, and what a stopped writing reports."""

    lines: int
    """Lines of the proof written so far (the header not counted)."""
    share: float
    """The share of the proof's tree written, from 0 to 1: an estimate that counts each
    reply of a position as an equal share of it (and each section of a draw as half)."""
    researched: int
    """Positions searched again so far (their entries had been overwritten)."""
    nodes: int
    """Nodes searched while writing: positions searched again."""
    seconds: float
    """Seconds since the writing began (for a draw, the second question included)."""

    def summary(self) -> str:
        """How far it got, in words.

        >>> Writing(1234, 0.0567, 3, 40, 1.5).summary()
        '1,234 lines, about 5.7% of the tree'
        >>> Writing(1, 0.0, 0, 0, 0.0).summary()
        '1 line, about 0.0% of the tree'
        """
        lines = "line" if self.lines == 1 else "lines"
        return f"{self.lines:,} {lines}, about {self.share:.1%} of the tree"


WriteProgress = Callable[[Writing], None]
"""``progress(writing)``, called as the writing begins and ends, and a few times a second
between."""


REPLIES_FIRST_CELLS = 64
"""`replies_first` holds for empty boards of at least this many cells (the cube)."""


def replies_first(position: Position) -> bool:
    """Whether `ttt prove` seeks the win two plies down first (`PnSearch.prove_by_replies`)
    when not told: on an empty board of 64 cells or more. Measured on the empty cube, one
    search from the root does not finish in 10 minutes and the replies take 5-8; on the
    flat boards of up to 49 cells proven so far, one search is faster.

    >>> replies_first(Position("4x4x4")), replies_first(Position("6x5k4"))
    (True, False)
    """
    return position.ply == 0 and position.variant.cells >= REPLIES_FIRST_CELLS


def default_threads(by_replies: bool) -> int:
    """Threads `ttt prove` uses when not told: one per core, up to 4, with `by_replies`
    (each has its own table); else 1 (one search has no parallel form)."""
    return min(4, os.cpu_count() or 1) if by_replies else 1


PROVE_TABLE_MB = 1024
"""The most megabytes of each table `write_proof` (and so `ttt prove`) sizes when not told
(`table_mb_for`): one table per thread."""


def positions_bound(position: Position) -> int:
    """How many positions can follow `position` (itself included), counting every placing of
    the marks to come, games over or not: with j more marks on its e empty cells, the side
    to move has made ⌈j/2⌉ of them. The search stores one entry per position at most.

    >>> positions_bound(Position("3x3")), positions_bound(Position("xx1/oo1/3 x"))
    (6046, 96)
    """
    empty = position.variant.cells - (position.marks(Side.X) | position.marks(Side.O)
                                       ).bit_count()
    return sum(comb(empty, j) * comb(j, (j + 1) // 2) for j in range(empty + 1))


def table_mb_for(position: Position, nodes: int | None = None) -> float:
    """Megabytes of the table that `ttt prove` gives a search from `position` when not told:
    room for every entry it can store, at most half full, and no more than `PROVE_TABLE_MB`.
    The search stores at most one entry per position that can follow (`positions_bound`),
    and with a node limit at most one per node and per child of a node.

    >>> table_mb_for(Position("3x3")), table_mb_for(Position("4x8k4")) == PROVE_TABLE_MB
    (0.5, True)
    >>> table_mb_for(Position("4x8k4"), nodes=1000)
    4.0
    """
    entries = positions_bound(position)
    if nodes is not None:
        empty = position.variant.cells - (position.marks(Side.X) | position.marks(Side.O)
                                          ).bit_count()
        entries = min(entries, (nodes + 1) * (empty + 1))
    rows = max(1024, -(-2 * entries // _k.BUCKET))
    rows = 1 << (rows - 1).bit_length()  # a power of two, as the table takes
    return min(float(PROVE_TABLE_MB), rows * _k.ROW * 8 / 2**20)


class ProofUnavailableError(RuntimeError):
    """The search stopped before it proved the value, so there is no proof to write; with
    the `nodes` searched and the `seconds` spent."""

    def __init__(self, message: str, nodes: int = 0, seconds: float = 0.0) -> None:
        super().__init__(message)
        self.nodes = nodes
        self.seconds = seconds


class ProofWritingStoppedError(ProofUnavailableError):
    """A limit stopped the writing of a proof whose value the search had proven: nothing was
    written. With the `value`, how far the writing got (`writing`), and which limit
    (`limit`: ``seconds`` or ``nodes``); `nodes` and `seconds` are the whole command's."""

    def __init__(self, message: str, nodes: int, seconds: float, *, value: PnValue,
                 writing: Writing, limit: str) -> None:
        super().__init__(message, nodes, seconds)
        self.value = value
        self.writing = writing
        self.limit = limit


class ProofWritingInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the writing of a proof (its searches stopped first): nothing was
    written. With the `value` proven and how far the writing got (`writing`)."""

    def __init__(self, value: PnValue, writing: Writing) -> None:
        super().__init__(f"interrupted while writing the proof: {writing.summary()}")
        self.value = value
        self.writing = writing


class _Stop(Exception):
    """Raised inside the writing when a limit or Ctrl-C stops it."""


class _Limits:
    """What bounds a writing: a `deadline` (``time.perf_counter``), `nodes` for its searches
    (counted by `spent`), and `halt` from another thread (the deadline, Ctrl-C)."""

    def __init__(self, deadline: float | None = None, nodes: int | None = None,
                 spent: Callable[[], int] = lambda: 0,
                 halted: threading.Event | None = None) -> None:
        self.deadline = deadline
        self.nodes = nodes
        self.spent = spent
        self.reason: str | None = None
        self._halted = halted if halted is not None else threading.Event()

    def halt(self, reason: str, *searches: PnSearch) -> None:
        """Stop the writing (``seconds``, ``nodes`` or ``interrupted``), and the searches
        running for it: the flag first, then their node limits, so that a search started
        after the flag was read sees the lowered limit."""
        if self.reason is None:
            self.reason = reason
        self._halted.set()
        for search in searches:
            search.misc[_k.LIMIT] = 0

    @property
    def halted(self) -> bool:
        return self._halted.is_set()

    def check(self) -> None:
        """Raise `_Stop` if the writing is to stop."""
        if not self._halted.is_set() and self.deadline is not None \
                and time.perf_counter() > self.deadline:
            self.halt("seconds")
        if self._halted.is_set():
            raise _Stop(self.reason)

    def nodes_left(self) -> int | None:
        return None if self.nodes is None else self.nodes - self.spent()

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline
                                                      - time.perf_counter())


@njit(cache=True)
def lookup(p: np.uint64, d: np.uint64, is_or: bool, zob: np.ndarray, hv: np.ndarray,
           misc: np.ndarray, tt: np.ndarray) -> tuple[int, int]:  # pragma: no cover
    """A position's (pn, dn) in the table, or (-1, -1) if it has no entry."""
    key, _ = _k.root_key(p, d, is_or, zob, hv, misc)
    e = _k.tt_find(tt, key)
    if e < 0:
        return -1, -1
    r = _k._row(key, tt.shape[0])
    return tt[r, e + _k.PN], tt[r, e + _k.DN]


@njit(cache=True)
def canonical_pair(x: np.uint64, o: np.uint64,
                   sym: np.ndarray) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """The least (x, o) pair over the images by the byte tables ``sym`` (one per symmetry):
    `tictactoe.core.canonical_masks`, compiled, when ``sym`` is the whole group."""
    best_x = _k.transform(x, sym, 0)
    best_o = _k.transform(o, sym, 0)
    for g in range(1, sym.shape[0]):
        tx = _k.transform(x, sym, g)
        if tx > best_x:
            continue
        to = _k.transform(o, sym, g)
        if tx < best_x or to < best_o:
            best_x = tx
            best_o = to
    return best_x, best_o


@njit(cache=True)
def lookup_images(p: np.uint64, d: np.uint64, is_or: bool, zob: np.ndarray, hv: np.ndarray,
                  misc: np.ndarray, tt: np.ndarray, sym: np.ndarray) -> tuple[int, int]:
    """Like `lookup`, but the first entry of any symmetric image of the position: beyond
    the symmetric-key plies a position is stored under its own image's key, and the search
    may have met another image of it (below a parent keyed by its symmetry class)."""
    for g in range(sym.shape[0]):
        pg = _k.transform(p, sym, g)
        dg = _k.transform(d, sym, g)
        key, _ = _k.root_key(pg, dg, is_or, zob, hv, misc)
        e = _k.tt_find(tt, key)
        if e >= 0:
            r = _k._row(key, tt.shape[0])
            pn = tt[r, e + _k.PN]
            dn = tt[r, e + _k.DN]
            if pn == 0 or dn == 0:
                return pn, dn
    return -1, -1


@dataclass(frozen=True)
class WrittenProof:
    """What `write_pn_proof` wrote: the header, the search that proved the value, and how
    the strategy was read off (seconds, children searched again, their nodes)."""

    header: Header
    value: PnValue
    search_nodes: int
    """Nodes of every search before the writing (with ``by_replies``, its parts too)."""
    search_seconds: float
    extract_seconds: float
    researched: int
    research_nodes: int
    threads: int = 1
    """Threads that proved it (`write_by_replies_in_parallel`), else 1."""


class _Extractor:
    """Reads a strategy off a search's table into a writer, within `limits` (`_Stop` when
    they stop it), keeping count of how far it got (`state`)."""

    def __init__(self, search: PnSearch, writer: NodeWriter, limits: _Limits | None = None,
                 sections: int = 1, covers: bool | None = None) -> None:
        self.search = search
        self.covers = ZONE_COVERS if covers is None else covers
        """Write zone covers (`zone_cover`) where the table keeps a child's zone."""
        self.writer = writer
        self.variant = search.variant
        self.board = board_of(search.variant)
        self.limits = limits if limits is not None else _Limits()
        self.researched = 0
        self.research_nodes = 0
        self._base = writer.next_line
        self.sections = sections
        self.sections_done = 0
        self.started = time.perf_counter()
        self.seq = np.zeros(64, dtype=np.int64)
        # the tables' group is the whole group unless it was too large to keep
        self._whole_group = len(search.t.permutations) == len(symmetries(search.variant))
        self._frames: list[list[int]] = []  # [replies done, replies] of each opponent node
        self._searching = False

    def live_nodes(self) -> int:
        """Nodes searched for the writing so far, a search running now included."""
        running = int(self.search.misc[_k.NODES]) if self._searching else 0
        return self.research_nodes + running

    def share(self) -> float:
        """The share of the tree written (see `Writing.share`)."""
        done, weight = 0.0, 1.0
        for finished, replies in list(self._frames):
            if replies == 0:
                break
            done += weight * finished / replies
            weight /= replies
        return min(1.0, (self.sections_done + done) / self.sections)

    @property
    def lines(self) -> int:
        """Lines written so far."""
        return self.writer.next_line - self._base

    def state(self) -> Writing:
        """How far the writing has got."""
        return Writing(self.lines, self.share(), self.researched, self.live_nodes(),
                       time.perf_counter() - self.started)

    def restart(self, writer: NodeWriter, sections: int) -> None:
        """Write into `writer` from now on, from its first section (the searches counted
        so far still count)."""
        self.writer = writer
        self._base = writer.next_line
        self.sections = sections
        self.sections_done = 0
        self._frames.clear()

    # ------------------------------------------------------------------ kernels
    def probe(self, attacker: int, defender: int, attacker_to_move: bool) -> tuple[int, int]:
        s = self.search
        pn, dn = lookup(np.uint64(attacker), np.uint64(defender), attacker_to_move,
                        s.t.zobrist, s.hv, s.misc, s.tt)
        return int(pn), int(dn)

    def probe_images(self, attacker: int, defender: int, attacker_to_move: bool
                     ) -> tuple[int, int]:
        s = self.search
        pn, dn = lookup_images(np.uint64(attacker), np.uint64(defender), attacker_to_move,
                               s.t.zobrist, s.hv, s.misc, s.tt, s.t.bytes)
        return int(pn), int(dn)

    def solve(self, attacker: int, defender: int, attacker_to_move: bool,
              nodes: int) -> tuple[int, int]:
        """Search a position again (the attacker of the current table), within `nodes`."""
        s = self.search
        t = s.t
        p, d = np.uint64(attacker), np.uint64(defender)
        misc = s.misc
        pn, dn = _k.root_value(p, d, attacker_to_move, t.full, t.lines, t.through,
                               t.line_count, t.k, s.ttss, misc, s.seqs, s.work, s.sp)
        if pn == 0 or dn == 0:
            return int(pn), int(dn)
        limits = self.limits
        left = limits.nodes_left()
        if left is not None:
            if left <= 0:
                limits.halt("nodes")
                raise _Stop("nodes")
            nodes = min(nodes, left)
        misc[_k.NODES] = 0
        misc[_k.LIMIT] = nodes
        limits.check()  # after the limit is set: a halt from now on lowers it
        self._searching = True
        try:
            pn, dn = _k.search(p, d, attacker_to_move, t.full, t.lines, t.through,
                               t.line_count, t.k, t.zobrist, t.permutations, t.inverses,
                               t.bytes, s.tt, s.ttss, s.buf, s.hv, s.seqs, misc, s.work, s.sp)
        finally:
            self.researched += 1
            self.research_nodes += int(misc[_k.NODES])
            self._searching = False
        limits.check()  # a halt cut the search short
        return int(pn), int(dn)

    def zone(self, attacker: int, defender: int) -> int | None:
        """The relevance zone the table keeps for a position with the defender to move,
        disproven (under its own key or, past the symmetric-key plies, an image's), or
        None."""
        s = self.search
        t = s.t
        found, zone = _k.entry_zone(np.uint64(attacker), np.uint64(defender), False,
                                    t.zobrist, s.hv, s.misc, s.tt, t.inverses)
        if found:
            return int(zone)
        if (attacker | defender).bit_count() <= s.misc[_k.SYM_PLIES]:
            return None
        for g in range(1, t.bytes.shape[0]):
            pg = _k.transform(np.uint64(attacker), t.bytes, g)
            dg = _k.transform(np.uint64(defender), t.bytes, g)
            found, zone = _k.entry_zone(pg, dg, False, t.zobrist, s.hv, s.misc, s.tt,
                                        t.inverses)
            if found:  # the zone of the image: map it back
                return int(_k.map_mask(zone, t.inverses, g))
        return None

    def zone_cover(self, mine: int, theirs: int, answer: int) -> int:
        """A zone cover for the opponent's node (the holder `mine`, the attacker `theirs`
        to move), or 0. A child disproven with a relevance zone covers its own move and
        every move outside its zone: with the opponent given all of them the holder still
        holds (what the zone means). The cover takes those of them that the table does not
        hold as disproven (the search cut them by the zone, so they would be searched
        again one by one), and is kept if the position with all of them the opponent's is
        disproven within `COVER_NODES`; the other moves are written one by one."""
        empty = self.board.full & ~(mine | theirs)
        best = 0
        for c in cells_of(answer):
            zone = self.zone(theirs | 1 << c, mine)
            if zone is None:
                continue
            cover = 1 << c
            for x in cells_of(empty & ~zone & ~cover):
                if self.probe(theirs | 1 << x, mine, False)[1] != 0 and \
                        self.probe_images(theirs | 1 << x, mine, False)[1] != 0:
                    cover |= 1 << x  # no disproof in the table: cut by the zone
            if cover.bit_count() > best.bit_count():
                best = cover
        if best.bit_count() < COVER_CELLS:
            return 0
        if self.solve(theirs | best, mine, False, nodes=COVER_NODES)[1] != 0:
            return 0
        return best

    def threats(self, mine: int, theirs: int) -> int:
        """The cells where `mine` completes a line (`threat_cells`, compiled)."""
        t = self.search.t
        return int(_t.threat_cells(np.uint64(mine), np.uint64(theirs), t.full, t.lines))

    def canonical(self, mine: int, theirs: int) -> tuple[int, int]:
        """`canonical_masks` of the position, compiled where the tables hold the whole
        symmetry group."""
        if not self._whole_group:
            return canonical_masks(self.variant, mine, theirs)
        x, o = canonical_pair(np.uint64(mine), np.uint64(theirs), self.search.t.bytes)
        return int(x), int(o)

    def threat_sequence(self, mine: int, theirs: int, budget: int) -> list[int] | None:
        """The kernel's threat sequence within `budget` positions (0: no limit)."""
        s = self.search
        t = s.t
        r = _t.tss(np.uint64(mine), np.uint64(theirs), 64, budget, t.full, t.lines,
                   t.through, t.line_count, t.k, s.ttss, s.misc, self.seq)
        return None if r < 0 else [int(c) for c in self.seq[:r]]

    def tick(self) -> None:
        self.limits.check()

    # ------------------------------------------------------------------ choosing moves
    def choose(self, mine: int, theirs: int, win: bool) -> int:
        """A move of the prover that keeps the win (``win``) or the hold: its child is
        proven (disproven) in the table, or is proven by searching again."""
        empty = self.board.full & ~(mine | theirs)
        blocks = self.threats(theirs, mine) & empty
        candidates = cells_of(blocks) if blocks else cells_of(empty)

        def child(c: int) -> tuple[int, int, bool]:
            # the table's attacker is the prover (win) or the opponent (hold)
            if win:
                return mine | 1 << c, theirs, False
            return theirs, mine | 1 << c, True

        def done(pn: int, dn: int) -> bool:
            return pn == 0 if win else dn == 0

        def proven_child() -> int | None:
            for c in candidates:
                if done(*self.probe(*child(c))):
                    return c
            if (mine | theirs).bit_count() + 1 > self.search.misc[_k.SYM_PLIES]:
                for c in candidates:
                    if done(*self.probe_images(*child(c))):
                        return c
            return None

        found = proven_child()
        budget = FIRST_BUDGET
        while found is None:
            # the entry was overwritten: search this position again (df-pn picks among the
            # children itself), then read the proven child off the table
            if win:
                self.solve(mine, theirs, True, nodes=budget)
            else:
                self.solve(theirs, mine, False, nodes=budget)
            found = proven_child()
            if found is None:
                # solved without its children (a threat sequence, a pairing at the root):
                # search the children one by one
                for c in candidates:
                    if done(*self.solve(*child(c), nodes=budget)):
                        return c
            budget = min(8 * budget, 1 << 60)
        return found

    # ------------------------------------------------------------------ the tree
    def prover_node(self, mine: int, theirs: int, win: bool, seen: dict[tuple[int, int], int]
                    ) -> None:
        writer = self.writer
        self.tick()
        board = self.board
        empty = board.full & ~(mine | theirs)
        threats = self.threats(mine, theirs) & empty
        if threats:
            writer.win(cells_of(threats)[0])
            return
        if not empty:
            writer.end()
            return
        sequence = self.threat_sequence(mine, theirs, TSS_BUDGET)
        if sequence is None and win and all(
                self.probe(mine | 1 << c, theirs, False)[0] != 0 for c in cells_of(empty)):
            sequence = self.threat_sequence(mine, theirs, 0)  # no move proven: search on
        if sequence is not None:
            writer.forced(sequence)
            return
        if not win:
            pairs = pairing_leaf(board, mine, theirs)
            if pairs is not None:
                writer.pairing(pairs)
                return
        # leaves are cheaper to write than to look up; other positions met before (up to
        # symmetry) refer back to the first
        key = self.canonical(mine, theirs)
        if key in seen:
            writer.same(seen[key])
            return
        seen[key] = writer.next_line
        move = self.choose(mine, theirs, win)
        writer.move(move)
        self.opponent_node(mine | 1 << move, theirs, win, seen)

    def opponent_node(self, mine: int, theirs: int, win: bool,
                      seen: dict[tuple[int, int], int]) -> None:
        board = self.board
        if not win:
            # a pairing holds with the opponent to move (where df-pn cuts most of its
            # disproofs): one leaf, not the holder's answer to each move into a pair
            pairs = pairing_leaf(board, mine, theirs)
            if pairs is not None:
                self.writer.pairing(pairs)
                return
        empty = board.full & ~(mine | theirs)
        threats = self.threats(mine, theirs) & empty
        if threats & (threats - 1):
            answer = 0  # every reply leaves the prover a line to complete
        elif threats:
            answer = threats  # only the block needs an answer
        else:
            answer = empty
        replies: list[int] = []
        cover = 0
        if not win and self.covers and answer == empty:
            cover = self.zone_cover(mine, theirs, answer)
            answer &= ~cover
        if answer:
            symmetric = stabiliser(board, mine, theirs)
            covered = 0
            for c in cells_of(answer):
                if covered >> c & 1:
                    continue
                replies.append(c)
                for perm in symmetric:
                    covered |= 1 << perm[c]
        self.writer.replies(replies, cells_of(cover))
        frame = [0, len(replies) + bool(cover)]
        self._frames.append(frame)
        for c in replies:
            self.prover_node(mine, theirs | 1 << c, win, seen)
            frame[0] += 1
        if cover:
            self.prover_node(mine, theirs | cover, win, seen)
            frame[0] += 1
        self._frames.pop()

    def section(self, writer: ProofWriter, position: Position, prover: Side,
                claim: str) -> None:
        """Start a section in `writer` (this extractor's) and write its tree."""
        writer.section(prover, claim)
        mine, theirs = position.marks(prover), position.marks(prover.other)
        seen: dict[tuple[int, int], int] = {}
        if position.turn is prover:
            self.prover_node(mine, theirs, claim == "win", seen)
        else:
            self.opponent_node(mine, theirs, claim == "win", seen)
        self.sections_done += 1


def write_pn_proof(position: Position | str, target: str | os.PathLike[str] | IO[bytes], *,
                   nodes: int | None = None, seconds: float | None = None,
                   table_mb: float = DEFAULT_TABLE_MB, progress: Progress | None = None,
                   write_progress: WriteProgress | None = None,
                   search: PnSearch | None = None, by_replies: bool = False,
                   covers: bool = ZONE_COVERS, stealing: bool = True,
                   **extra: Any) -> WrittenProof:
    """Prove a position's value by proof-number search and write the proof to `target` (a
    path, gzip if it ends in ``.gz``, or a binary file; a path is written whole or not at
    all). `seconds` bounds the whole, from the start of the search to the end of the
    writing, and `nodes` every search, those of the writing included (positions searched
    again).

    The value takes one or two questions (`PnSearch.value`), and one table answers one: if
    the side to move does not win, the other side's hold section is read off the table
    first, then the other side's question is asked, and either the side to move's hold
    section follows (a draw) or that section is dropped for the other side's win.

    Raises `ProofUnavailableError` if a limit stops the search for the value,
    `ProofWritingStoppedError` if one stops the writing, and `ProofWritingInterrupted` (a
    `KeyboardInterrupt`) on Ctrl-C during the writing; nothing is written then.
    `write_progress` hears how far the writing has got (`Writing`).

    With `by_replies`, the side to move's win is first sought two plies down
    (`PnSearch.prove_by_replies`). With `covers`, the hold sections have zone covers
    (`_Extractor.zone_cover`; format version 3). With `stealing` (the default), a draw at the
    empty board asks the first question only: the first player's hold follows by strategy
    stealing, written as ``T`` (format version 3).

    >>> import io
    >>> write_pn_proof("5x5k4", io.BytesIO(), table_mb=8, covers=True).header.version
    3
    """
    if isinstance(position, str):
        position = Position(position)
    begun = time.perf_counter()
    deadline = None if seconds is None else begun + seconds
    limit, time_limit = nodes, seconds
    if search is None:
        search = PnSearch(position.variant, table_mb=table_mb)
    started = time.perf_counter()  # the search's time, from here; the deadline is the whole's
    if deadline is not None:
        seconds = max(0.0, deadline - started)
    root = position.to_string()
    split_nodes = 0
    if by_replies:
        first = search.prove_by_replies(position, nodes=nodes, seconds=seconds,
                                        progress=progress)
        if first.outcome == "unknown":
            raise ProofUnavailableError(
                f"the search stopped before proving the value of {root} "
                f"({first.nodes:,} nodes, {first.seconds:.1f} s)", first.nodes, first.seconds)
        split_nodes = first.nodes
        if seconds is not None:
            seconds = max(0.0, seconds - first.seconds)
        if nodes is not None:
            nodes = max(1, nodes - first.nodes)
    mover = position.turn
    asked = search.prove(position, attacker=mover, nodes=nodes, seconds=seconds,
                         progress=progress)
    value = PnValue(root, mover.symbol if asked.outcome == "win" else "unknown", (asked,))
    if asked.outcome == "unknown":
        raise _unproven(position, value, split_nodes, time.perf_counter() - started)
    search_nodes = split_nodes + asked.nodes
    search_seconds = time.perf_counter() - started
    second_seconds = 0.0
    writing_started = time.perf_counter()
    limits = _Limits(deadline, None if limit is None else limit - search_nodes)
    win = asked.outcome == "win"
    extra.setdefault("generator", "tictactoe.search.pn")
    writer = ProofWriter(target, position=position, value=mover.symbol if win else "draw",
                         **extra)
    stolen = not win and stealing and position.holds_by_strategy_stealing  # one-line hold
    if stolen:
        value = PnValue(root, "draw", (asked,))
    extractor = _Extractor(search, writer, limits, sections=1 if win or stolen else 2,
                           covers=covers)
    limits.spent = extractor.live_nodes

    def report() -> None:
        if write_progress is not None:
            write_progress(extractor.state())

    def section(prover: Side, claim: str) -> None:
        _watched(lambda: extractor.section(writer, position, prover, claim), limits, search,
                 report)

    try:
        report()
        if win:
            section(mover, "win")
        else:
            # the side to move does not win: the other side's hold, read off this table
            # before it turns to the other side's question
            section(mover.other, "hold")
            limits.check()
        if stolen:
            # the first player at the empty board holds by strategy stealing: no second
            # question, and its hold section is one line
            writer.section(mover, "hold")
            writer.stealing()
        elif not win:
            left = limits.nodes_left()
            if left is not None and left <= 0:
                limits.halt("nodes")
                limits.check()
            other = search.prove(position, attacker=mover.other, nodes=left,
                                 seconds=limits.seconds_left(), progress=progress)
            second_seconds = other.seconds
            search_nodes += other.nodes
            if limits.nodes is not None:
                limits.nodes -= other.nodes
            outcome = {"win": mover.other.symbol, "no-win": "draw"}.get(other.outcome,
                                                                        "unknown")
            value = PnValue(root, outcome, (asked, other))
            if outcome == "unknown":
                writer.discard()
                raise _unproven(position, value, split_nodes,
                                search_seconds + second_seconds)
            if outcome == "draw":
                section(mover, "hold")
            else:  # the other side wins: its win is the proof, not its hold
                writer.discard()
                writer = ProofWriter(target, position=position, value=outcome, **extra)
                extractor.restart(writer, sections=1)
                section(mover.other, "win")
        report()
        writer.extra.setdefault("search_nodes", search_nodes)
        writer.extra.setdefault("seconds", round(search_seconds + second_seconds, 3))
        writer.close()
    except _Stop:
        writer.discard()
        reason = limits.reason or "seconds"
        bound = (f"the node limit ({limit:,} nodes)" if reason == "nodes" and limit is not None
                 else f"the time limit ({time_limit:g} s)")
        state = extractor.state()
        if value.proven:
            what = (f"the proof that {root} is {_value_text(value.value)} (proven in "
                    f"{search_nodes:,} nodes, {search_seconds + second_seconds:.1f} s)")
        else:
            what = (f"the proof of {root}, {mover.name} not winning (proven in "
                    f"{search_nodes:,} nodes, {search_seconds:.1f} s) and "
                    f"{mover.other.name}'s win not yet asked,")
        raise ProofWritingStoppedError(
            f"{bound} stopped the writing of {what} after {state.summary()}, "
            f"{state.seconds - second_seconds:.1f} s of writing; no proof file was written",
            search_nodes + state.nodes, time.perf_counter() - begun, value=value,
            writing=state, limit=reason) from None
    except KeyboardInterrupt:
        writer.discard()
        raise ProofWritingInterrupted(value, extractor.state()) from None
    except BaseException:
        writer.discard()
        raise
    assert writer.header is not None
    return WrittenProof(writer.header, value, search_nodes, search_seconds + second_seconds,
                        time.perf_counter() - writing_started - second_seconds,
                        extractor.researched, extractor.research_nodes)


def _unproven(position: Position, value: PnValue, split_nodes: int,
              seconds: float) -> ProofUnavailableError:
    """The error for a search that a limit stopped before it proved the value."""
    last = value.questions[-1]
    return ProofUnavailableError(
        f"the search stopped before proving the value of {position.to_string()} "
        f"({value.nodes:,} nodes, {value.seconds:.1f} s; root proof number "
        f"{last.root_pn:,}, disproof number {last.root_dn:,})", split_nodes + value.nodes,
        seconds)


def _value_text(value: str) -> str:
    return {"x": "an X win", "o": "an O win"}.get(value, "a draw")


def _watched(job: Callable[[], None], limits: _Limits, search: PnSearch,
             report: Callable[[], None]) -> None:
    """Run `job` (a part of the writing) on a worker thread while this thread keeps the
    deadline, reports progress a few times a second and takes Ctrl-C (which stops the
    worker first, then is raised); the worker's exception (`_Stop` when a limit stopped it)
    is raised here."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            job()
        except BaseException as err:  # handed to the caller below
            failure.append(err)

    worker = threading.Thread(target=run, name="tictactoe-pn-write", daemon=True)
    worker.start()
    last = time.perf_counter()
    try:
        while worker.is_alive():
            worker.join(0.05)
            now = time.perf_counter()
            if limits.deadline is not None and now > limits.deadline:
                limits.halt("seconds", search)
            if now - last >= 0.25:
                last = now
                report()
    except KeyboardInterrupt:
        limits.halt("interrupted", search)
        worker.join()
        raise
    if failure:
        raise failure[0]


class _Recorded(NodeWriter):
    """Keeps the nodes of one subtree in memory, numbered from 0, to be replayed into the
    real writer later (``= n`` targets shifted)."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, tuple[int, ...], int, tuple[int, ...]]] = []

    @property
    def next_line(self) -> int:
        return len(self.nodes)

    def node(self, kind: str, cells: Iterable[int] = (), target: int = 0,
             cover: Iterable[int] = (), replay: Iterable[int] = (), passed: bool = False
             ) -> int:
        if tuple(replay):
            raise ValueError("a recorded subtree keeps no replay ('V')")
        if passed:
            raise ValueError("a recorded subtree keeps no pass subtree ('Y')")
        self.nodes.append((kind, tuple(cells), target, tuple(cover)))
        return len(self.nodes) - 1

    def replay(self, writer: ProofWriter) -> None:
        base = writer.next_line
        for kind, cells, target, cover in self.nodes:
            writer.node(kind, cells, base + target if kind == "=" else 0, cover)


PartProgress = Callable[[int, int, int, float], None]
"""``progress(parts done, parts, nodes so far, seconds)``."""


@dataclass(frozen=True)
class _Parts:
    """The replies to the side to move's first move class, proven on threads."""

    side: Side
    move: int
    replies: list[int]
    recorded: list[_Recorded | None]
    """Each reply's subtree read off the table that proved it (None unless asked for)."""
    nodes: int
    seconds: float
    threads: int
    again: tuple[int, int]

    def value(self, position: Position) -> PnValue:
        root = PnResult(position.to_string(), self.side.symbol, "win", self.nodes,
                        self.seconds, 0, int(_k.INF))
        return PnValue(position.to_string(), self.side.symbol, (root,))


@dataclass(frozen=True)
class _Refuted:
    """The first move class was refuted (or is not to be proven by its replies), after
    `nodes` nodes."""

    nodes: int = 0


def _prove_parts(position: Position, *, threads: int, table_mb: float, seconds: float | None,
                 nodes: int | None, progress: PartProgress | None,
                 record: bool) -> _Parts | _Refuted:
    """Prove that the side to move wins two plies down, each reply class on its own, on
    `threads` threads (each with its own table of `table_mb` megabytes), and with `record`
    read each reply's subtree off the table that proved it (the limits bound that too).
    `_Refuted` if the first move class (most lines first) is refuted;
    `ProofUnavailableError` if a limit stops it (the node limit bounds all threads
    together); `KeyboardInterrupt` (after stopping every search) on Ctrl-C."""
    side = position.turn
    started = time.perf_counter()
    moves = _classes(position)
    if not moves or position.play(moves[0]).is_game_over():
        return _Refuted()
    move = moves[0]
    after = position.play(move)
    replies = _classes(after)
    if any(after.play(r).is_game_over() for r in replies):
        return _Refuted()
    deadline = None if seconds is None else started + seconds
    searches = [PnSearch(position.variant, table_mb=table_mb) for _ in range(max(1, threads))]
    work: queue.Queue[int] = queue.Queue()
    for index in range(len(replies)):
        work.put(index)
    results: dict[int, tuple[str, int, _Recorded | None]] = {}
    failures: list[BaseException] = []
    again = [0, 0]  # positions searched again while reading the strategy off, their nodes
    stop = threading.Event()

    def worker(search: PnSearch) -> None:
        try:
            while not stop.is_set():
                try:
                    index = work.get_nowait()
                except queue.Empty:
                    return
                part = after.play(replies[index])
                # a share of the nodes left for each thread, so that together they keep
                # within the limit
                left = None if nodes is None else max(1, (nodes - spent()) // len(searches))
                busy.add(id(search))
                try:
                    result = search.prove(part, attacker=side, nodes=left, interruptible=False)
                finally:
                    busy.discard(id(search))
                if result.outcome != "win":
                    results[index] = (result.outcome, result.nodes, None)
                    stop.set()
                    return
                if not record:
                    results[index] = ("win", result.nodes, None)
                    continue
                recorded = _Recorded()
                # the threads' share of the nodes left, as for the parts; stopped with them
                budget = None if nodes is None else (nodes - spent()) // len(searches)
                extractor = _Extractor(search, recorded, _Limits(deadline, budget,
                                                                 halted=stop))
                extractor.limits.spent = extractor.live_nodes
                extractors.append(extractor)
                try:
                    extractor.prover_node(part.marks(side), part.marks(side.other), True, {})
                except _Stop:
                    results[index] = ("unknown", result.nodes, None)
                    stop.set()
                    return
                again[0] += extractor.researched
                again[1] += extractor.research_nodes
                results[index] = ("win", result.nodes, recorded)
        except BaseException as err:  # handed to the caller
            failures.append(err)
            stop.set()

    busy: set[int] = set()  # the searches running a part now
    extractors: list[_Extractor] = []  # reading a part's subtree off, or done

    def spent() -> int:
        """Nodes of the parts done and of the searches running (read while they run), and
        of the searches again while the subtrees are read off."""
        running = sum(int(s.misc[_k.NODES]) for s in searches if id(s) in busy)
        reading = sum(e.live_nodes() for e in list(extractors))
        return sum(n for _, n, _ in list(results.values())) + running + reading

    pool = [threading.Thread(target=worker, args=(s,), name=f"tictactoe-pn-{n}", daemon=True)
            for n, s in enumerate(searches)]
    for thread in pool:
        thread.start()

    def halt() -> None:
        stop.set()
        for search in searches:
            search.misc[_k.LIMIT] = 0
        for thread in pool:
            thread.join()

    try:
        while any(thread.is_alive() for thread in pool):
            for thread in pool:
                thread.join(0.05)
            now = time.perf_counter()
            if (deadline is not None and now > deadline) or (
                    nodes is not None and spent() > nodes):
                halt()
                break
            if progress is not None:
                progress(len(results), len(replies), spent(), now - started)
    except KeyboardInterrupt:
        halt()
        raise
    if failures:
        raise failures[0]
    search_seconds = time.perf_counter() - started
    if any(o == "no-win" for o, _, _ in results.values()):
        return _Refuted(spent())  # a reply refutes the move (the other threads stopped)
    if len(results) < len(replies) or any(o == "unknown" for o, _, _ in results.values()):
        done = spent()
        raise ProofUnavailableError(
            f"the search stopped before proving the value of {position.to_string()} "
            f"({done:,} nodes, {search_seconds:.1f} s)", done, search_seconds)
    return _Parts(side, move, replies, [results[i][2] for i in range(len(replies))],
                  sum(n for _, n, _ in results.values()), search_seconds, len(searches),
                  (again[0], again[1]))


def write_by_replies_in_parallel(
        position: Position | str, target: str | os.PathLike[str] | IO[bytes], *,
        threads: int, table_mb: float = DEFAULT_TABLE_MB, seconds: float | None = None,
        nodes: int | None = None, progress: PartProgress | None = None,
        **extra: Any) -> WrittenProof | None:
    """Prove that the side to move wins two plies down, each reply class on its own, on
    `threads` threads (each with its own table of `table_mb` megabytes), and write the proof:
    the move, its replies, and each reply's subtree read off the table that proved it.

    Returns None, having written nothing, if the side to move's first move class (most lines
    first) is refuted: the caller then proves the position the usual way. Raises
    `ProofUnavailableError` if the time limit or the node limit (all threads' nodes
    together) stops it, and `KeyboardInterrupt` (after stopping every search) on Ctrl-C."""
    written = _write_parts(position, target, threads=threads, table_mb=table_mb,
                           seconds=seconds, nodes=nodes, progress=progress, **extra)
    return None if isinstance(written, _Refuted) else written


def _write_parts(position: Position | str, target: str | os.PathLike[str] | IO[bytes], *,
                 threads: int, table_mb: float, seconds: float | None, nodes: int | None,
                 progress: PartProgress | None, **extra: Any) -> WrittenProof | _Refuted:
    """`write_by_replies_in_parallel`, but `_Refuted` (with the nodes spent) for None."""
    if isinstance(position, str):
        position = Position(position)
    parts = _prove_parts(position, threads=threads, table_mb=table_mb, seconds=seconds,
                         nodes=nodes, progress=progress, record=True)
    if isinstance(parts, _Refuted):
        return parts
    started = time.perf_counter()
    extra.setdefault("generator", "tictactoe.search.pn")
    extra.setdefault("search_nodes", parts.nodes)
    extra.setdefault("seconds", round(parts.seconds, 3))
    extra.setdefault("threads", parts.threads)
    with ProofWriter(target, position=position, value=parts.side.symbol, **extra) as writer:
        writer.section(parts.side, "win")
        writer.move(parts.move)
        writer.replies(parts.replies)
        for recorded in parts.recorded:
            assert recorded is not None
            recorded.replay(writer)
    assert writer.header is not None
    return WrittenProof(writer.header, parts.value(position), parts.nodes, parts.seconds,
                        time.perf_counter() - started, *parts.again, parts.threads)


def prove_by_replies_in_parallel(
        position: Position | str, *, threads: int, table_mb: float = DEFAULT_TABLE_MB,
        seconds: float | None = None, nodes: int | None = None,
        progress: PartProgress | None = None) -> PnValue | None:
    """The value only, proven as `write_by_replies_in_parallel` proves it (nothing is read
    off the tables): the side to move's win, or None if its first move class is refuted."""
    if isinstance(position, str):
        position = Position(position)
    parts = _prove_parts(position, threads=threads, table_mb=table_mb, seconds=seconds,
                         nodes=nodes, progress=progress, record=False)
    return None if isinstance(parts, _Refuted) else parts.value(position)


def prove_settings(position: Position, by_replies: bool | None,
                   threads: int | None) -> tuple[bool, int]:
    """(by_replies, threads) as `write_proof` and ``ttt prove`` take them when not told:
    `replies_first` and `default_threads`. More than one thread needs `by_replies` (the
    replies are what is proven in parallel): `ValueError` otherwise.

    >>> prove_settings(Position("6x5k4"), None, None)
    (False, 1)
    """
    if by_replies is None:
        by_replies = replies_first(position)
    if threads is None:
        threads = default_threads(by_replies)
    elif threads > 1 and not by_replies:
        raise ValueError("more than one thread needs by_replies (the replies are proven in "
                         "parallel)")
    return by_replies, threads


def write_proof(position: Position | str, target: str | os.PathLike[str] | IO[bytes], *,
                by_replies: bool | None = None, threads: int | None = None,
                table_mb: float | None = None, nodes: int | None = None,
                seconds: float | None = None, progress: Progress | None = None,
                part_progress: PartProgress | None = None,
                write_progress: WriteProgress | None = None,
                covers: bool = ZONE_COVERS, stealing: bool = True) -> WrittenProof:
    """Prove a position's value and write its proof, as ``ttt prove --out`` does.

    `by_replies` defaults to `replies_first`, `threads` to `default_threads` and `table_mb`
    (each thread's table) to `table_mb_for`. On more than one thread the replies are proven
    in parallel (`write_by_replies_in_parallel`, reporting to `part_progress`); if a reply
    refutes the first move class there, one search by replies proves the value instead
    (`write_pn_proof`, reporting to `progress` and `write_progress`), and the proof's
    `threads` is 1. `seconds` and `nodes` bound the whole, the writing included; raises
    `ProofUnavailableError` if a limit stops the search, `ProofWritingStoppedError` if one
    stops the writing, and `ProofWritingInterrupted` on Ctrl-C during the writing.
    `covers`: zone covers in hold sections; `stealing`: the first player's hold at the empty
    board by strategy stealing (`write_pn_proof`).

    >>> import io
    >>> written = write_proof("4x3", io.BytesIO(), table_mb=4)
    >>> written.value.value, written.threads
    ('x', 1)
    """
    if isinstance(position, str):
        position = Position(position)
    by_replies, threads = prove_settings(position, by_replies, threads)
    if table_mb is None:
        table_mb = table_mb_for(position, nodes)
    if threads > 1:
        started = time.perf_counter()
        written = _write_parts(position, target, threads=threads, table_mb=table_mb,
                               seconds=seconds, nodes=nodes, progress=part_progress)
        if not isinstance(written, _Refuted):
            return written
        if seconds is not None:
            seconds = max(0.0, seconds - (time.perf_counter() - started))
        if nodes is not None:
            nodes = max(1, nodes - written.nodes)
    return write_pn_proof(position, target, nodes=nodes, seconds=seconds, table_mb=table_mb,
                          progress=progress, write_progress=write_progress,
                          by_replies=by_replies, covers=covers, stealing=stealing)
