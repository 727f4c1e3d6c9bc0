"""The Python side of proof-number search: workspaces, limits, Ctrl-C, and the game value.

A question to the kernels is "does the *attacker* win this position?" (an AND/OR proof). Its
answer is ``win`` (proven), ``no-win`` (disproven: with best play the attacker gets a draw
at most) or ``unknown`` (a limit stopped the search). The game value for the side to move
takes two questions: first "does the side to move win?"; if not, "does the other side
win?"; if neither, the game is a draw.

>>> r = prove("3x3")
>>> r.outcome, r.attacker
('no-win', 'x')
>>> game_value("xx1/oo1/3 o").value
'o'
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tictactoe.core import BoardTooLargeError, IllegalMoveError, Position, Side, Variant
from tictactoe.search.compiled import kernels as _sk
from tictactoe.search.memory import huge_zeros
from tictactoe.search.pn import dfpn as _k
from tictactoe.search.pn import tss as _t
from tictactoe.search.pn.tables import Tables, tables

Progress = Callable[[int, int, int, float], None]
"""``progress(nodes, root_pn, root_dn, seconds)``, called a few times a second."""

DEFAULT_TABLE_MB = 256
"""Megabytes of the proof-number table (plus an eighth of that for the threat search's)."""

INF = int(_k.INF)

DEFAULTS: dict[int, int] = {
    _k.EPSILON: 1280,        # 1 + epsilon = 1.25
    _k.SYM_PLIES: 16,        # positions with at most 16 marks are keyed by symmetry class
                             # (measured against 6: the cube from empty in half the nodes
                             # and time, Patashnik's dictionary move first in 41-47 s, not
                             # 373 s; (4,8,4), (9,4,4) and 5x5 k=4 13-33% faster)
    _k.EAGER: 1,
    _k.EVAL_BUDGET: 200,
    _k.EXPAND_BUDGET: 2_000,
    _k.PAIRING: 1,
    _k.OR_PN: 8,             # measured: 4-10x fewer nodes than 1 on dictionary positions
    _k.SUM_MODE: 0,
    _k.AND_PN: 4,            # one per empty cell
    _t.TSS_ORDER: 1,
    _k.ZONES: 1,
    _k.SHARED: 32,
    _k.SHARED_AT: 2,
    _k.SHARED_OPEN: 13,
    _k.DEAD: 1,              # measured: Patashnik's dictionary (300 entries) 3% fewer
                             # nodes, 10% less time; (4,8,4) 3-6% fewer; (9,4,4) 4% fewer
                             # or 8% more by table size; (7,7,5) the same (docs/benchmarks.md)
}
"""The kernels' settings (``misc`` slots) unless a search is given others."""

TUNED: dict[str, dict[int, int]] = {
    # Qubic: a quiet defender's node (no threat sequence after a pass) starts at 4 per empty
    # cell, not 1, so the attacker prefers moves that leave a threat sequence: the empty
    # cube in fewer nodes and less time (8 pays too, 32 and 64 do not; measured in
    # docs/benchmarks.md, "Qubic in a minute"); and a new defender's node gets a threat
    # search of at most 30 positions, not 200: the empty cube, Patashnik's dictionary and its
    # sample in 10-17% less time (5 and 10 cost nodes, 100 costs both; measured there too)
    "4x4x4": {_k.AND_PN: 16, _k.EVAL_BUDGET: 30},
}
"""Settings measured to pay on one board, by variant name, over `DEFAULTS`."""


def settings_for(variant: Variant) -> dict[int, int]:
    """The kernels' settings for `variant`: `DEFAULTS` with its `TUNED` ones.

    >>> cube, flat = Variant.parse("4x4x4"), Variant.parse("3x3")
    >>> settings_for(cube)[_k.AND_PN], settings_for(flat)[_k.AND_PN]
    (16, 4)
    >>> settings_for(cube)[_k.EVAL_BUDGET], settings_for(flat)[_k.EVAL_BUDGET]
    (30, 200)
    """
    return {**DEFAULTS, **TUNED.get(variant.name, {})}

MAX_EPSILON = 4.0
"""The largest epsilon `epsilon_setting` takes (the kernels' thresholds stay in range)."""


def epsilon_setting(epsilon: float) -> int:
    """The ``epsilon`` option for df-pn's threshold factor 1 + `epsilon` (the kernels count
    it in 1/1024 units). The default is 0.25; `ValueError` outside (0, `MAX_EPSILON`].

    >>> epsilon_setting(0.25), epsilon_setting(0.6)
    (1280, 1638)
    """
    if not 0 < epsilon <= MAX_EPSILON:
        raise ValueError(f"epsilon must be more than 0 and at most {MAX_EPSILON:g}, "
                         f"not {epsilon:g}")
    return round((1 + epsilon) * 1024)


OPTIONS = {"epsilon": _k.EPSILON, "sym_plies": _k.SYM_PLIES, "eager": _k.EAGER,
           "eval_budget": _k.EVAL_BUDGET, "expand_budget": _k.EXPAND_BUDGET,
           "pairing": _k.PAIRING, "or_pn": _k.OR_PN, "sum_mode": _k.SUM_MODE,
           "and_pn": _k.AND_PN, "tss_order": _t.TSS_ORDER, "zones": _k.ZONES,
           "shared": _k.SHARED, "shared_at": _k.SHARED_AT, "shared_open": _k.SHARED_OPEN,
           "dead": _k.DEAD}
"""Names of the settings that `PnSearch` takes as keyword options."""


@dataclass(frozen=True)
class PnResult:
    """The answer to "does `attacker` win `position`?".

    `outcome` is ``win``, ``no-win`` (the attacker cannot force a win: a draw or a loss) or
    ``unknown`` (stopped by a limit, with the root's proof and disproof numbers then)."""

    position: str
    attacker: str
    outcome: str
    nodes: int
    seconds: float
    root_pn: int
    root_dn: int
    stats: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def proven(self) -> bool:
        """Whether the search finished (proved or disproved)."""
        return self.outcome != "unknown"


@dataclass(frozen=True)
class PnValue:
    """The game value found by proof-number search: ``x`` or ``o`` (that side wins),
    ``draw``, or ``unknown``; with the one or two questions asked."""

    position: str
    value: str
    questions: tuple[PnResult, ...]

    @property
    def nodes(self) -> int:
        return sum(q.nodes for q in self.questions)

    @property
    def seconds(self) -> float:
        return sum(q.seconds for q in self.questions)

    @property
    def proven(self) -> bool:
        return self.value != "unknown"


_WARM = [False]


def warm_up() -> float:
    """Compile (or load from the on-disk cache) the proof-number kernels once, by proving
    3x3; returns the seconds taken. `PnSearch.prove` calls it before it starts its clock,
    so its ``seconds`` exclude JIT, as the α-β solver's do.

    >>> warm_up() >= 0.0
    True
    """
    if _WARM[0]:
        return 0.0
    _WARM[0] = True
    started = time.perf_counter()
    PnSearch("3x3", table_mb=1).prove("3x3", interruptible=False)
    return time.perf_counter() - started


def _rows(megabytes: float, row_bytes: int) -> int:
    rows = max(1024, int(megabytes * 2**20) // row_bytes)
    return 1 << (rows.bit_length() - 1)


class PnSearch:
    """Df-pn on one variant with its tables, kept between questions (a later question
    reuses what an earlier one proved when the attacker is the same).

    >>> s = PnSearch("4x3", table_mb=4)
    >>> s.prove(Position("4x3")).outcome
    'win'
    """

    def __init__(self, variant: Variant | str, *, table_mb: float = DEFAULT_TABLE_MB,
                 **options: int) -> None:
        if isinstance(variant, str):
            variant = Variant.parse(variant)
        if variant.cells > 64:
            raise BoardTooLargeError(f"{variant.name} has {variant.cells} cells: proof-number "
                                     "search takes boards of at most 64")
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise ValueError(f"unknown proof-number search option {sorted(unknown)[0]!r}: "
                             f"expected one of {', '.join(OPTIONS)}")
        if table_mb <= 0:
            raise ValueError(f"table_mb must be positive, not {table_mb}")
        self.variant = variant
        self.t: Tables = tables(variant)
        self.tt = huge_zeros((_rows(table_mb, 8 * _k.ROW), _k.ROW), np.int64)
        self.ttss = huge_zeros((_rows(table_mb / 8, 8 * _t.TSS_ROW), _t.TSS_ROW), np.uint64)
        _k.zero_table(self.tt)  # touch every page now, not during the search
        self.ttss.fill(0)
        self.buf = np.zeros((_k.MAX_PLY, _k.BUF_WIDTH), dtype=np.int64)
        self.hv = np.zeros((_k.MAX_PLY, self.t.zobrist.shape[2]), dtype=np.uint64)
        self.seqs = np.zeros((_k.MAX_PLY + 2, 64), dtype=np.int64)
        self.misc = np.zeros(_k.MISC_SIZE, dtype=np.int64)
        self.work = np.zeros(_k.work_words(len(self.t.lines)), dtype=np.int64)
        self.sp = np.zeros((2, max(_sk.BUF_WIDTH, _sk.MISC_SIZE)), dtype=np.int64)
        self.sp[0, _sk.LIVE:_sk.LIVE + len(self.t.lines)] = np.arange(len(self.t.lines))
        for slot, value in settings_for(variant).items():
            self.misc[slot] = value
        for name, value in options.items():
            self.misc[OPTIONS[name]] = int(value)
        self._attacker: Side | None = None

    @property
    def table_bytes(self) -> int:
        return int(self.tt.nbytes + self.ttss.nbytes)

    def clear(self) -> None:
        """Forget every table entry."""
        self.tt[:] = 0
        self.ttss[:] = 0
        self._attacker = None

    def masks(self, position: Position, attacker: Side) -> tuple[np.uint64, np.uint64, bool]:
        """(attacker's marks, defender's marks, attacker to move)."""
        return (np.uint64(position.marks(attacker)), np.uint64(position.marks(attacker.other)),
                position.turn is attacker)

    def prove(self, position: Position | str, *, attacker: Side | str | None = None,
              nodes: int | None = None, seconds: float | None = None,
              progress: Progress | None = None, interruptible: bool = True) -> PnResult:
        """Does `attacker` (default: the side to move) force a win? See `PnResult`.

        The search runs in a worker thread (outside the interpreter lock) when
        `interruptible`, so that the deadline, `progress` and Ctrl-C are served while it
        runs; Ctrl-C stops it cleanly and raises `KeyboardInterrupt` afterwards."""
        if isinstance(position, str):
            position = Position(position)
        if position.variant != self.variant:
            raise ValueError(f"this search is for {self.variant.name}, not "
                             f"{position.variant.name}")
        if position.is_game_over():
            raise IllegalMoveError(f"the game is over in {position.to_string()}: there is "
                                   "nothing to prove")
        if attacker is None:
            side = position.turn
        elif isinstance(attacker, Side):
            side = attacker
        else:
            side = Side.parse(attacker)
        if self._attacker is not None and self._attacker is not side:
            self.clear()  # entries answer the other attacker's question
        self._attacker = side
        p, d, is_or = self.masks(position, side)
        t = self.t
        misc = self.misc
        for slot in (_k.NODES, _k.ABORTED, _t.TSS_NODES, _k.ROOT_PN, _k.ROOT_DN):
            misc[slot] = 0
        warm_up()
        started = time.perf_counter()
        pn, dn = _k.root_value(p, d, is_or, t.full, t.lines, t.through, t.line_count, t.k,
                               self.ttss, misc, self.seqs, self.work, self.sp)
        if pn != 0 and dn != 0:
            misc[_k.LIMIT] = (1 << 62) if nodes is None else max(1, nodes)
            args = (p, d, is_or, t.full, t.lines, t.through, t.line_count, t.k, t.zobrist,
                    t.permutations, t.inverses, t.bytes, self.tt, self.ttss, self.buf,
                    self.hv, self.seqs, misc, self.work, self.sp)
            deadline = None if seconds is None else started + seconds
            if interruptible:
                pn, dn = self._run_threaded(args, deadline, started, progress)
            else:
                pn, dn = _k.search(*args)
        elapsed = time.perf_counter() - started
        outcome = "win" if pn == 0 else "no-win" if dn == 0 else "unknown"
        stats = {name: int(misc[slot]) for name, slot in STAT_SLOTS.items()}
        return PnResult(position=position.to_string(), attacker=side.symbol, outcome=outcome,
                        nodes=int(misc[_k.NODES]), seconds=elapsed, root_pn=int(pn),
                        root_dn=int(dn), stats=stats)

    def _run_threaded(self, args: tuple[Any, ...], deadline: float | None, started: float,
                      progress: Progress | None) -> tuple[int, int]:
        misc = self.misc
        result: list[tuple[int, int]] = []
        failure: list[BaseException] = []

        def run() -> None:
            try:
                result.append(_k.search(*args))
            except BaseException as err:  # handed to the caller below
                failure.append(err)

        worker = threading.Thread(target=run, name="tictactoe-pn", daemon=True)
        worker.start()
        last = 0.0
        try:
            while worker.is_alive():
                worker.join(0.02)
                now = time.perf_counter()
                if deadline is not None and now > deadline:
                    misc[_k.LIMIT] = 0
                if progress is not None and now - last >= 0.25:
                    last = now
                    progress(int(misc[_k.NODES]), int(misc[_k.ROOT_PN]),
                             int(misc[_k.ROOT_DN]), now - started)
        except KeyboardInterrupt:
            misc[_k.LIMIT] = 0
            worker.join()
            raise
        if failure:
            raise failure[0]
        return result[0]

    def zone(self, position: Position | str, attacker: Side | str) -> int | None:
        """The relevance zone the table keeps for `position` if a search disproved
        `attacker`'s win there (else None): `attacker`'s extra marks on any empty cells
        outside it leave the win disproven."""
        if isinstance(position, str):
            position = Position(position)
        side = attacker if isinstance(attacker, Side) else Side.parse(attacker)
        p, d, is_or = self.masks(position, side)
        found, zone = _k.entry_zone(p, d, is_or, self.t.zobrist, self.hv, self.misc, self.tt,
                                    self.t.inverses)
        return int(zone) if found else None

    def prove_move(self, position: Position | str, move: int, *, nodes: int | None = None,
                   seconds: float | None = None) -> tuple[PnResult, PnResult]:
        """Whether `move` keeps the side to move's win, then whether `position` is its win:
        the position after the move is proven first, so the position's own search finds
        that child proven in the table. Proving a strategy's moves deepest first this way
        (Patashnik's dictionary, ``ttt bench --case qubic-dictionary``) lets each position
        find the deeper ones proven. `nodes` bounds each question, `seconds` the two together.

        >>> s = PnSearch("4x3", table_mb=4)
        >>> [r.outcome for r in s.prove_move("4x3", 5)], s.prove_move("4x3", 1)[0].outcome
        (['win', 'win'], 'no-win')
        """
        if isinstance(position, str):
            position = Position(position)
        side = position.turn
        started = time.perf_counter()
        after = self.prove(position.play(move), attacker=side, nodes=nodes, seconds=seconds)
        if seconds is not None:
            seconds = max(1e-3, seconds - (time.perf_counter() - started))
        return after, self.prove(position, attacker=side, nodes=nodes, seconds=seconds)

    def prove_by_replies(self, position: Position | str, *, nodes: int | None = None,
                         seconds: float | None = None, progress: Progress | None = None,
                         report: Callable[[str, PnResult], None] | None = None) -> PnResult:
        """Does the side to move win? Asked two plies down first: for each of its moves
        (one per class under the position's symmetries, most lines through the cell
        first), each reply of the other side (one per class) is proven on its own, sharing
        this table; a move all of whose replies are won makes the root a win, which the
        last search then reads from the table. A reply disproven rules its move out; a
        limit ends the search (``unknown``). `report(position, result)` hears each part.

        On the cube this proves positions that one search from the root does not reach in
        the same time: the root's search spreads its effort over every first move."""
        if isinstance(position, str):
            position = Position(position)
        started = time.perf_counter()
        side = position.turn
        total = 0

        def left_seconds() -> float | None:
            return None if seconds is None else max(0.0, seconds - (time.perf_counter()
                                                                    - started))

        def left_nodes() -> int | None:
            return None if nodes is None else max(1, nodes - total)

        for move in _classes(position):
            after = position.play(move)
            if after.is_game_over():
                break  # the move completes a line: the root search sees it at once
            refuted = False
            for reply in _classes(after):
                part = after.play(reply)
                if part.is_game_over():
                    refuted = True  # the reply completes a line for the defender
                    break
                result = self.prove(part, attacker=side, nodes=left_nodes(),
                                    seconds=left_seconds(), progress=progress)
                total += result.nodes
                if report is not None:
                    report(part.to_string(), result)
                if result.outcome == "unknown":
                    return PnResult(position.to_string(), side.symbol, "unknown", total,
                                    time.perf_counter() - started, result.root_pn,
                                    result.root_dn, result.stats)
                if result.outcome == "no-win":
                    refuted = True
                    break
            if not refuted:
                break
        final = self.prove(position, attacker=side, nodes=left_nodes(),
                           seconds=left_seconds(), progress=progress)
        return PnResult(final.position, final.attacker, final.outcome, total + final.nodes,
                        time.perf_counter() - started, final.root_pn, final.root_dn,
                        final.stats)

    def value(self, position: Position | str, *, nodes: int | None = None,
              seconds: float | None = None, progress: Progress | None = None,
              stealing: bool = True) -> PnValue:
        """The game value by two questions (see the module's docstring); `nodes` and
        `seconds` bound each question in turn from what is left. At the empty board one
        question is enough for a draw: the first player cannot lose (strategy stealing;
        `stealing=False` asks the second question anyway).

        >>> len(PnSearch("3x3", table_mb=1).value("3x3").questions)
        1
        """
        if isinstance(position, str):
            position = Position(position)
        started = time.perf_counter()
        mover = position.turn
        first = self.prove(position, attacker=mover, nodes=nodes, seconds=seconds,
                           progress=progress)
        if first.outcome == "win":
            return PnValue(position.to_string(), mover.symbol, (first,))
        if first.outcome == "unknown":
            return PnValue(position.to_string(), "unknown", (first,))
        if stealing and position.holds_by_strategy_stealing:
            return PnValue(position.to_string(), "draw", (first,))
        left_nodes = None if nodes is None else max(1, nodes - first.nodes)
        left_seconds = None if seconds is None else max(
            0.0, seconds - (time.perf_counter() - started))
        second = self.prove(position, attacker=mover.other, nodes=left_nodes,
                            seconds=left_seconds, progress=progress)
        value = {"win": mover.other.symbol, "no-win": "draw"}.get(second.outcome, "unknown")
        return PnValue(position.to_string(), value, (first, second))


def _classes(position: Position) -> list[int]:
    """The empty cells, one per class under the symmetries that fix the position, most
    lines through the cell first (then by index)."""
    from tictactoe.proof.threats import board_of, stabiliser

    board = board_of(position.variant)
    x, o = position.marks(Side.X), position.marks(Side.O)
    symmetric = stabiliser(board, x, o)
    covered = 0
    out = []
    for c in sorted(position.legal_moves(), key=lambda c: (-len(board.through[c]), c)):
        if covered >> c & 1:
            continue
        out.append(c)
        for perm in symmetric:
            covered |= 1 << perm[c]
    return out


STAT_SLOTS = {"expanded": _k.EXPANDED, "tss_nodes": _t.TSS_NODES, "tss_calls": _t.TSS_CALLS,
              "replayed": _k.REPLAYED, "researched": _k.RESEARCHED, "kept": _k.KEPT,
              "tt_stores": _k.TT_STORES, "tt_replaced": _k.TT_REPLACED,
              "pair_cuts": _k.PAIR_CUTS, "max_depth": _k.MAX_DEPTH,
              "zone_cuts": _k.ZONE_CUTS, "shared_cuts": _k.SHARED_CUTS,
              "dead_cuts": _k.DEAD_CUTS}


def _search_for(position: Position | str, table_mb: float,
                options: dict[str, int]) -> tuple[Position, PnSearch]:
    if isinstance(position, str):
        position = Position(position)
    return position, PnSearch(position.variant, table_mb=table_mb, **options)


def prove(position: Position | str, *, attacker: Side | str | None = None,
          nodes: int | None = None, seconds: float | None = None,
          table_mb: float = DEFAULT_TABLE_MB, progress: Progress | None = None,
          **options: int) -> PnResult:
    """Does `attacker` (default: the side to move) force a win from `position`?

    >>> prove("4x3").outcome
    'win'
    >>> prove("x2/1o1/3 x", attacker="o").outcome
    'no-win'
    """
    position, search = _search_for(position, table_mb, options)
    return search.prove(position, attacker=attacker, nodes=nodes, seconds=seconds,
                        progress=progress)


def game_value(position: Position | str, *, nodes: int | None = None,
               seconds: float | None = None, table_mb: float = DEFAULT_TABLE_MB,
               progress: Progress | None = None, **options: int) -> PnValue:
    """The game value (``x``, ``o``, ``draw`` or ``unknown``) by two questions.

    >>> game_value("4x4k4").value
    'draw'
    """
    position, search = _search_for(position, table_mb, options)
    return search.value(position, nodes=nodes, seconds=seconds, progress=progress)
