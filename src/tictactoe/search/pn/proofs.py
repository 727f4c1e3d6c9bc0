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
pairings (``P``, found by `pairing_leaf`) and full boards (``E``).

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

from tictactoe.core import Position, Side, canonical_masks
from tictactoe.proof.format import Header, NodeWriter, ProofWriter
from tictactoe.proof.small import PAIRING_BUDGET, find_pairing
from tictactoe.proof.threats import Board, board_of, cells_of, stabiliser, threat_cells
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

TSS_BUDGET = 200_000
"""Positions the kernel's threat search may visit at one of the winner's positions (the
checker's own bound for a forced leaf is the same)."""


def pairing_leaf(board: Board, mine: int, theirs: int) -> list[tuple[int, int]] | None:
    """Disjoint pairs of empty cells with a pair inside every line free of `mine` (so that
    `mine` holds: it answers each move of the other side in its pair), or None.

    A pair of its own for every line first (`find_pairing`'s matching); else pairs shared
    by overlapping lines, sought by the compiled search (`shared_pairing`, the α-β cut's)
    within `PAIRING_BUDGET` steps, as the readable `find_pairing` would, only faster. The
    checker verifies every pairing written against the definition.

    >>> from tictactoe.core import Variant
    >>> b = board_of(Variant.parse("4x8k4"))
    >>> pairing_leaf(b, 0xFFFFFF00, 0)  # row 1 open: c1-d1 and e1-f1 hold its 5 windows
    [(2, 3), (4, 5)]
    """
    matched = find_pairing(board, mine, theirs, budget=0)
    if matched is not None:
        return matched
    pairs = shared_pairs(board.variant, mine, board.full & ~(mine | theirs), PAIRING_BUDGET)
    if pairs is None:
        return None
    return [(cells[0], cells[1]) for cells in map(cells_of, pairs)]


WriteProgress = Callable[[int, int], None]
"""``progress(lines written, children searched again)``."""


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

ENTRY_BYTES = _k.ENTRY * 8
"""Bytes of one entry of the proof-number table (four to a row)."""


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
    (0.625, True)
    >>> table_mb_for(Position("4x8k4"), nodes=1000)
    5.0
    """
    entries = positions_bound(position)
    if nodes is not None:
        empty = position.variant.cells - (position.marks(Side.X) | position.marks(Side.O)
                                          ).bit_count()
        entries = min(entries, (nodes + 1) * (empty + 1))
    rows = max(1024, -(-2 * entries // _k.BUCKET))
    rows = 1 << (rows - 1).bit_length()  # a power of two, as the table takes
    return min(float(PROVE_TABLE_MB), rows * _k.BUCKET * ENTRY_BYTES / 2**20)


class ProofUnavailableError(RuntimeError):
    """The search stopped before it proved the value, so there is no proof to write; with
    the `nodes` searched and the `seconds` spent."""

    def __init__(self, message: str, nodes: int = 0, seconds: float = 0.0) -> None:
        super().__init__(message)
        self.nodes = nodes
        self.seconds = seconds


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
    def __init__(self, search: PnSearch, writer: NodeWriter,
                 progress: WriteProgress | None) -> None:
        self.search = search
        self.writer = writer
        self.variant = search.variant
        self.board = board_of(search.variant)
        self.progress = progress
        self.researched = 0
        self.research_nodes = 0
        self.seq = np.zeros(64, dtype=np.int64)
        self._last = 0.0

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
                               t.line_count, t.k, s.ttss, misc, s.seqs[0], s.work)
        if pn == 0 or dn == 0:
            return int(pn), int(dn)
        misc[_k.NODES] = 0
        misc[_k.LIMIT] = nodes
        pn, dn = _k.search(p, d, attacker_to_move, t.full, t.lines, t.through, t.line_count,
                           t.k, t.zobrist, t.permutations, t.inverses, t.bytes, s.tt, s.ttss,
                           s.buf, s.hv, s.seqs, misc, s.work)
        self.researched += 1
        self.research_nodes += int(misc[_k.NODES])
        return int(pn), int(dn)

    def threat_sequence(self, mine: int, theirs: int, budget: int) -> list[int] | None:
        """The kernel's threat sequence within `budget` positions (0: no limit)."""
        s = self.search
        t = s.t
        r = _t.tss(np.uint64(mine), np.uint64(theirs), 64, budget, t.full, t.lines,
                   t.through, t.line_count, t.k, s.ttss, s.misc, self.seq)
        return None if r < 0 else [int(c) for c in self.seq[:r]]

    def tick(self) -> None:
        if self.progress is not None:
            now = time.perf_counter()
            if now - self._last > 0.25:
                self._last = now
                self.progress(self.writer.next_line - 1, self.researched)

    # ------------------------------------------------------------------ choosing moves
    def choose(self, mine: int, theirs: int, win: bool) -> int:
        """A move of the prover that keeps the win (``win``) or the hold: its child is
        proven (disproven) in the table, or is proven by searching again."""
        empty = self.board.full & ~(mine | theirs)
        blocks = threat_cells(self.board, theirs, mine) & empty
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
        threats = threat_cells(board, mine, theirs) & empty
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
        key = canonical_masks(self.variant, mine, theirs)
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
        empty = board.full & ~(mine | theirs)
        threats = threat_cells(board, mine, theirs) & empty
        if threats & (threats - 1):
            answer = 0  # every reply leaves the prover a line to complete
        elif threats:
            answer = threats  # only the block needs an answer
        else:
            answer = empty
        replies: list[int] = []
        if answer:
            symmetric = stabiliser(board, mine, theirs)
            covered = 0
            for c in cells_of(answer):
                if covered >> c & 1:
                    continue
                replies.append(c)
                for perm in symmetric:
                    covered |= 1 << perm[c]
        self.writer.replies(replies)
        for c in replies:
            self.prover_node(mine, theirs | 1 << c, win, seen)

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


def write_pn_proof(position: Position | str, target: str | os.PathLike[str] | IO[bytes], *,
                   nodes: int | None = None, seconds: float | None = None,
                   table_mb: float = DEFAULT_TABLE_MB, progress: Progress | None = None,
                   write_progress: WriteProgress | None = None,
                   search: PnSearch | None = None, by_replies: bool = False,
                   **extra: Any) -> WrittenProof:
    """Prove a position's value by proof-number search and write the proof to `target` (a
    path, gzip if it ends in ``.gz``, or a binary file). `nodes` and `seconds` bound the
    search for the value; reading the strategy off afterwards is not bounded. Raises
    `ProofUnavailableError` if a limit stopped the search first (nothing is written).

    With `by_replies`, the side to move's win is first sought two plies down
    (`PnSearch.prove_by_replies`)."""
    if isinstance(position, str):
        position = Position(position)
    if search is None:
        search = PnSearch(position.variant, table_mb=table_mb)
    started = time.perf_counter()
    split_nodes = 0
    if by_replies:
        first = search.prove_by_replies(position, nodes=nodes, seconds=seconds,
                                        progress=progress)
        if first.outcome == "unknown":
            raise ProofUnavailableError(
                f"the search stopped before proving the value of {position.to_string()} "
                f"({first.nodes:,} nodes, {first.seconds:.1f} s)", first.nodes, first.seconds)
        split_nodes = first.nodes
        if seconds is not None:
            seconds = max(0.0, seconds - first.seconds)
        if nodes is not None:
            nodes = max(1, nodes - first.nodes)
    value = search.value(position, nodes=nodes, seconds=seconds, progress=progress)
    if not value.proven:
        last = value.questions[-1]
        raise ProofUnavailableError(
            f"the search stopped before proving the value of {position.to_string()} "
            f"({value.nodes:,} nodes, {value.seconds:.1f} s; root proof number "
            f"{last.root_pn:,}, disproof number {last.root_dn:,})", split_nodes + value.nodes,
            time.perf_counter() - started)
    search_seconds = time.perf_counter() - started
    started = time.perf_counter()
    extra.setdefault("generator", "tictactoe.search.pn")
    extra.setdefault("search_nodes", split_nodes + value.nodes)
    extra.setdefault("seconds", round(search_seconds, 3))
    with ProofWriter(target, position=position, value=value.value, **extra) as writer:
        extractor = _Extractor(search, writer, write_progress)
        if value.value in ("x", "o"):
            # the last question asked was the winner's: its table is current
            extractor.section(writer, position, Side.parse(value.value), "win")
        else:
            # the table answers the last question, the other side's win (disproven)
            asked = Side.parse(value.questions[-1].attacker)
            extractor.section(writer, position, asked.other, "hold")
            search.prove(position, attacker=asked.other, interruptible=False)
            extractor.section(writer, position, asked, "hold")
    assert writer.header is not None
    return WrittenProof(writer.header, value, split_nodes + value.nodes, search_seconds,
                        time.perf_counter() - started,
                        extractor.researched, extractor.research_nodes)


class _Recorded(NodeWriter):
    """Keeps the nodes of one subtree in memory, numbered from 0, to be replayed into the
    real writer later (``= n`` targets shifted)."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, tuple[int, ...], int]] = []

    @property
    def next_line(self) -> int:
        return len(self.nodes)

    def node(self, kind: str, cells: Iterable[int] = (), target: int = 0) -> int:
        self.nodes.append((kind, tuple(cells), target))
        return len(self.nodes) - 1

    def replay(self, writer: ProofWriter) -> None:
        base = writer.next_line
        for kind, cells, target in self.nodes:
            writer.node(kind, cells, base + target if kind == "=" else 0)


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


def _prove_parts(position: Position, *, threads: int, table_mb: float, seconds: float | None,
                 nodes: int | None, progress: PartProgress | None,
                 record: bool) -> _Parts | None:
    """Prove that the side to move wins two plies down, each reply class on its own, on
    `threads` threads (each with its own table of `table_mb` megabytes), and with `record`
    read each reply's subtree off the table that proved it. None if the first move class
    (most lines first) is refuted; `ProofUnavailableError` if a limit stops it (the node
    limit bounds all threads together); `KeyboardInterrupt` (after stopping every search) on
    Ctrl-C."""
    side = position.turn
    started = time.perf_counter()
    moves = _classes(position)
    if not moves or position.play(moves[0]).is_game_over():
        return None
    move = moves[0]
    after = position.play(move)
    replies = _classes(after)
    if any(after.play(r).is_game_over() for r in replies):
        return None
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
                extractor = _Extractor(search, recorded, None)
                extractor.prover_node(part.marks(side), part.marks(side.other), True, {})
                again[0] += extractor.researched
                again[1] += extractor.research_nodes
                results[index] = ("win", result.nodes, recorded)
        except BaseException as err:  # handed to the caller
            failures.append(err)
            stop.set()

    busy: set[int] = set()  # the searches running a part now

    def spent() -> int:
        """Nodes of the parts done and of the searches running (read while they run)."""
        running = sum(int(s.misc[_k.NODES]) for s in searches if id(s) in busy)
        return sum(n for _, n, _ in list(results.values())) + running

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
        return None  # a reply refutes the move (the other threads were stopped then)
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
    if isinstance(position, str):
        position = Position(position)
    parts = _prove_parts(position, threads=threads, table_mb=table_mb, seconds=seconds,
                         nodes=nodes, progress=progress, record=True)
    if parts is None:
        return None
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
    return None if parts is None else parts.value(position)


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
                write_progress: WriteProgress | None = None) -> WrittenProof:
    """Prove a position's value and write its proof, as ``ttt prove --out`` does.

    `by_replies` defaults to `replies_first`, `threads` to `default_threads` and `table_mb`
    (each thread's table) to `table_mb_for`. On more than one thread the replies are proven
    in parallel (`write_by_replies_in_parallel`, reporting to `part_progress`); if a reply
    refutes the first move class there, one search by replies proves the value instead
    (`write_pn_proof`, reporting to `progress` and `write_progress`), and the proof's
    `threads` is 1. `seconds` bounds the whole; raises `ProofUnavailableError` if a limit
    stops the search.

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
        written = write_by_replies_in_parallel(position, target, threads=threads,
                                               table_mb=table_mb, seconds=seconds,
                                               nodes=nodes, progress=part_progress)
        if written is not None:
            return written
        if seconds is not None:
            seconds = max(0.0, seconds - (time.perf_counter() - started))
    return write_pn_proof(position, target, nodes=nodes, seconds=seconds, table_mb=table_mb,
                          progress=progress, write_progress=write_progress,
                          by_replies=by_replies)
