"""The compiled core: numba kernels behind one small interface.

The rest of the package calls only this module. It answers on boards of up to 64 cells
(each side's marks are one ``uint64``); `fits` tells whether a variant qualifies.

>>> from tictactoe import Position
>>> result = solve_position(Position("x2/3/3 o"))  # after a corner, only the centre holds
>>> result.score, result.best, sorted(set(result.moves.values()))
(0, [4], [-994, 0])
>>> describe_score(-996), describe_score(0), describe_score(997)
('loss in 4', 'draw', 'win in 3')
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from tictactoe.core import (
    BoardTooLargeError,
    IllegalMoveError,
    ImpossiblePositionError,
    Position,
    Variant,
    symmetries,
)
from tictactoe.engines.compiled import solver_kernels as _sk

if TYPE_CHECKING:
    from tictactoe.engines.solver import Solution

BIG = _sk.BIG
"""A win in ``d`` plies scores ``BIG - d``, a loss ``-(BIG - d)``, a draw 0."""

TABLE_BITS = int(os.environ.get("TICTACTOE_TABLE_BITS", "22"))
"""The solver's transposition table holds at most ``2 ** TABLE_BITS`` entries of 21 bytes
(2**22: 88 MB). Set the environment variable ``TICTACTOE_TABLE_BITS`` to change it; small
boards use a table sized to their number of positions."""

MAX_CELLS = 64


def fits(variant: Variant) -> bool:
    """Whether the compiled kernels handle this variant (at most 64 cells).

    >>> fits(Variant.parse("8x8k5")), fits(Variant.parse("4x4x4"))
    (True, True)
    """
    return variant.cells <= MAX_CELLS


def describe_score(score: int) -> str:
    """A score in words: ``win in 3``, ``loss in 4`` or ``draw``."""
    if score > 0:
        return f"win in {BIG - score}"
    if score < 0:
        return f"loss in {BIG + score}"
    return "draw"


@dataclass(frozen=True)
class Tables:
    """A variant's constants, as the kernels take them."""

    lines: np.ndarray
    bits: np.ndarray
    order: np.ndarray
    full: np.uint64
    permutations: np.ndarray


@cache
def tables(variant: Variant) -> Tables:
    """Line masks, cell bits, the static move order and the symmetries of a variant."""
    if not fits(variant):
        raise BoardTooLargeError(f"{variant.name} has {variant.cells} cells; the compiled "
                                 f"core handles at most {MAX_CELLS}")
    n = variant.cells
    lines = np.array(variant.line_masks, dtype=np.uint64)
    bits = np.array([1 << c for c in range(n)], dtype=np.uint64)
    centre = [(d - 1) / 2 for d in variant.shape]

    def rank(cell: int) -> tuple[int, float, int]:
        spread = sum((a - b) ** 2 for a, b in zip(variant.coordinates(cell), centre,
                                                   strict=True))
        return (-len(variant.lines_through[cell]), spread, cell)

    order = np.array(sorted(range(n), key=rank), dtype=np.int64)
    try:
        perms = symmetries(variant)
    except BoardTooLargeError:
        perms = (tuple(range(n)),)
    return Tables(lines, bits, order, np.uint64(variant.full_mask),
                  np.array(perms, dtype=np.int64))


@dataclass
class Workspace:
    """A transposition table and search buffers, preallocated and touched before use."""

    tt_me: np.ndarray
    tt_opp: np.ndarray
    tt_lo: np.ndarray
    tt_hi: np.ndarray
    tt_move: np.ndarray
    history: np.ndarray
    moves: np.ndarray
    keys: np.ndarray
    stats: np.ndarray = field(default_factory=lambda: np.zeros(4, dtype=np.int64))

    @staticmethod
    def new(cells: int, empty: int, table_bits: int | None = None) -> Workspace:
        """Room for a search of ``empty`` empty cells on a board of ``cells`` cells."""
        if table_bits is None:
            wanted = math.ceil(empty * math.log2(3)) + 1
            table_bits = max(10, min(TABLE_BITS, wanted))
        size = 1 << table_bits
        ws = Workspace(
            tt_me=np.empty(size, dtype=np.uint64), tt_opp=np.empty(size, dtype=np.uint64),
            tt_lo=np.empty(size, dtype=np.int16), tt_hi=np.empty(size, dtype=np.int16),
            tt_move=np.empty(size, dtype=np.int8), history=np.zeros(cells, dtype=np.int64),
            moves=np.zeros((cells + 1, cells), dtype=np.int64),
            keys=np.zeros((cells + 1, cells), dtype=np.int64))
        ws.clear()
        return ws

    def clear(self) -> None:
        """Empty the table (writing every page, so no timing pays for first touches)."""
        self.tt_me.fill(_sk.ALL)
        self.tt_opp.fill(_sk.ALL)
        self.tt_lo.fill(0)
        self.tt_hi.fill(0)
        self.tt_move.fill(-1)
        self.history.fill(0)
        self.stats.fill(0)


@dataclass(frozen=True)
class CompiledSolution:
    """Scores (see `BIG`) of a position and of each legal move, for the side that moves."""

    score: int
    moves: dict[int, int]
    proven: bool
    nodes: int
    seconds: float

    @property
    def best(self) -> list[int]:
        """Every move with the best score."""
        return sorted(m for m, s in self.moves.items() if s == self.score)


def _stabiliser_orbits(perms: np.ndarray, x: int, o: int, empty: list[int]) -> dict[int, int]:
    """Map each empty cell to the first cell of its orbit under the symmetries fixing (x, o)."""
    xs = np.array([c for c in range(perms.shape[1]) if x >> c & 1], dtype=np.int64)
    os_ = np.array([c for c in range(perms.shape[1]) if o >> c & 1], dtype=np.int64)
    rep = {c: c for c in empty}
    for perm in perms[1:]:
        if set(perm[xs].tolist()) != set(xs.tolist()) or \
                set(perm[os_].tolist()) != set(os_.tolist()):
            continue
        for c in empty:
            image = int(perm[c])
            if rep[image] < rep[c]:
                rep[c] = rep[image]
            elif rep[c] < rep[image]:
                rep[image] = rep[c]
    changed = True
    while changed:  # union the orbits fully
        changed = False
        for c in empty:
            if rep[rep[c]] != rep[c]:
                rep[c] = rep[rep[c]]
                changed = True
    return rep


def solve_position(position: Position, *, nodes: int | None = None,
                   seconds: float | None = None, table_bits: int | None = None,
                   workspace: Workspace | None = None, _warm: bool = False) -> CompiledSolution:
    """Solve a position exactly: its score and the score of every legal move.

    With ``nodes`` or ``seconds``, the search stops at the limit (checked every few hundred
    thousand nodes for ``seconds``); moves not proven by then are left out and
    ``proven`` is False.
    """
    variant = position.variant
    if not position.is_valid():
        raise ImpossiblePositionError(
            f"{position.to_string()} cannot arise in play: {'; '.join(position.problems())}")
    if position.is_game_over():
        raise IllegalMoveError(f"{position.to_string()}: the game is over; nothing to solve")
    if not _warm:
        warm_up()
    tab = tables(variant)
    started = time.perf_counter()
    me, opp = (position.x, position.o) if position.turn.name == "X" else (position.o, position.x)
    empty = position.empty_cells()
    ws = workspace if workspace is not None else Workspace.new(variant.cells, len(empty),
                                                               table_bits)
    rep = _stabiliser_orbits(tab.permutations, position.x, position.o, empty)
    budget = nodes if nodes is not None else (1 << 62)
    chunk = 1 << 62 if seconds is None else 1 << 19
    total = 0
    scores: dict[int, int] = {}
    proven = True
    for cell in empty:
        if rep[cell] != cell:
            continue
        mine = me | 1 << cell
        if any(mine & line == line for line in variant.line_masks):
            scores[cell] = BIG - 1
            continue
        if len(empty) == 1:
            scores[cell] = 0
            continue
        while True:
            ws.stats[_sk.NODES] = 0
            ws.stats[_sk.ABORTED] = 0
            ws.stats[_sk.LIMIT] = min(chunk, budget - total)
            child = _sk.exact(np.uint64(opp), np.uint64(mine), len(empty) - 1, tab.lines,
                              tab.bits, tab.order, tab.full, ws.tt_me, ws.tt_opp, ws.tt_lo,
                              ws.tt_hi, ws.tt_move, ws.history, ws.moves, ws.keys, ws.stats)
            total += int(min(ws.stats[_sk.NODES], ws.stats[_sk.LIMIT]))
            if not ws.stats[_sk.ABORTED]:
                scores[cell] = _sk.lift(child)
                break
            out_of_time = seconds is not None and time.perf_counter() - started > seconds
            if total >= budget or out_of_time:
                proven = False
                break
        if not proven:
            break
    moves = {c: scores[rep[c]] for c in empty if rep[c] in scores}
    best = max(moves.values()) if moves else 0
    return CompiledSolution(score=best, moves=moves, proven=proven, nodes=total,
                            seconds=time.perf_counter() - started)


# --------------------------------------------------------------------------- census
def _census_group(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Byte tables of the symmetries, the conjugation table and the geometric subgroup."""
    from tictactoe.core.symmetry import geometric_symmetries

    n = variant.cells
    try:
        perms = list(symmetries(variant))
        geometric = list(geometric_symmetries(variant))
        listed = True
    except BoardTooLargeError:
        perms = geometric = [tuple(range(n))]
        listed = False
    chunks = (n + 7) // 8
    byte_tables = np.zeros((len(perms), chunks, 256), dtype=np.uint64)
    for g, perm in enumerate(perms):
        for chunk in range(chunks):
            for byte in range(256):
                out = 0
                for bit in range(8):
                    cell = chunk * 8 + bit
                    if byte >> bit & 1 and cell < n:
                        out |= 1 << perm[cell]
                byte_tables[g, chunk, byte] = out
    index = {perm: i for i, perm in enumerate(perms)}

    def compose(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(a[b[c]] for c in range(n))  # first b, then a

    def inverse(a: tuple[int, ...]) -> tuple[int, ...]:
        out = [0] * n
        for c, image in enumerate(a):
            out[image] = c
        return tuple(out)

    conj = np.zeros((len(perms), len(perms)), dtype=np.int64)
    for h, ph in enumerate(perms):
        for g, pg in enumerate(perms):
            conj[h, g] = index[compose(inverse(pg), compose(ph, pg))]
    geometric_index = np.array([index[p] for p in geometric], dtype=np.int64)
    return byte_tables, conj, geometric_index, listed


def census_counts(variant: Variant,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The census figures of a variant (at most 32 cells), as the fields of a ``Census``.

    >>> c = census_counts(Variant.parse("3x3"))
    >>> c["positions"], c["canonical_positions"], c["games"], c["canonical_games"]
    (5478, 765, {'x': 131184, 'o': 77904, 'draw': 46080}, 26830)
    """
    from tictactoe.engines.compiled import census_kernels as _ck

    n = variant.cells
    if n > 32:
        raise BoardTooLargeError(f"{variant.name} has {n} cells; the compiled census handles "
                                 "at most 32")
    warm_up()
    started = time.perf_counter()
    byte_tables, conj, geometric, listed = _census_group(variant)
    group = byte_tables.shape[0]
    lines = np.array(variant.line_masks, dtype=np.uint64)
    bits = np.array([1 << c for c in range(n)], dtype=np.uint64)
    full = np.uint64(variant.full_mask)
    keys = np.zeros(1, dtype=np.uint64)
    paths = np.ones(1, dtype=np.uint64)
    merged = np.ones(1, dtype=np.uint64)
    orbit = np.ones(1, dtype=np.int64)
    status = np.zeros(1, dtype=np.int64)
    geo = np.array([len(geometric)], dtype=np.int64)  # the empty board: one orbit
    by_ply: list[int] = []
    canonical_by_ply: list[int] = []
    terminal = {"x": 0, "o": 0, "draw": 0}
    canonical_terminal = {"x": 0, "o": 0, "draw": 0}
    games = {"x": 0, "o": 0, "draw": 0}
    canonical_games = 0
    geometric_total = 0
    seen = np.zeros(n, dtype=np.uint64)
    for ply in range(n + 1):
        by_ply.append(int(orbit.sum()))
        canonical_by_ply.append(len(keys))
        geometric_total += int(geo.sum())
        last = "o" if ply % 2 == 0 else "x"
        won = status == 1
        drawn = status == 2
        weights = paths * orbit.astype(np.uint64)
        terminal[last] += int(orbit[won].sum())
        terminal["draw"] += int(orbit[drawn].sum())
        canonical_terminal[last] += int(won.sum())
        canonical_terminal["draw"] += int(drawn.sum())
        games[last] += int(weights[won].sum(dtype=np.uint64))
        games["draw"] += int(weights[drawn].sum(dtype=np.uint64))
        canonical_games += int(merged[status != 0].sum(dtype=np.uint64))
        if progress is not None:
            progress(ply + 1, n + 1)
        going = status == 0
        if not going.any():
            break
        keys, paths, merged, orbit = keys[going], paths[going], merged[going], orbit[going]
        capacity = 1 << max(10, (2 * len(keys) * (n - ply)).bit_length())
        out_keys = np.full(capacity, _ck.EMPTY, dtype=np.uint64)
        out_in = np.zeros(capacity, dtype=np.uint64)
        out_merged = np.zeros(capacity, dtype=np.uint64)
        mover_shift = np.uint64(0 if ply % 2 == 0 else 32)
        count = _ck.expand(keys, paths, merged, orbit, mover_shift, full, bits, byte_tables,
                           out_keys, out_in, out_merged, seen)
        keys = np.empty(count, dtype=np.uint64)
        paths = np.empty(count, dtype=np.uint64)
        merged = np.empty(count, dtype=np.uint64)
        orbit = np.empty(count, dtype=np.int64)
        status = np.empty(count, dtype=np.int64)
        geo = np.empty(count, dtype=np.int64)
        _ck.settle(out_keys, out_in, out_merged, count, mover_shift, full, lines, byte_tables,
                   conj, geometric, keys, paths, merged, orbit, status, geo)
    while by_ply and by_ply[-1] == 0:
        by_ply.pop()
    if geometric_total % len(geometric):
        raise AssertionError("geometric orbit count is not whole")  # pragma: no cover
    return {
        "variant": variant.name, "positions": sum(by_ply), "by_ply": by_ply,
        "terminal": terminal,
        "canonical_positions": sum(canonical_by_ply) if listed else None,
        "canonical_by_ply": canonical_by_ply if listed else None,
        "canonical_terminal": canonical_terminal if listed else None,
        "games": games, "canonical_games": canonical_games if listed else None,
        "symmetries": group if listed else None,
        "geometric_symmetries": len(geometric) if listed else None,
        "geometric_canonical_positions":
            geometric_total // len(geometric) if listed else None,
        "seconds": time.perf_counter() - started, "engine": "compiled",
    }


# --------------------------------------------------------------------------- the interface
_WARM = [False]


def warm_up() -> float:
    """Compile (or load from the on-disk cache) every kernel once; returns the seconds taken.

    Solving and counting call it before they start their clocks, so their ``seconds``
    exclude JIT. numba keeps the machine code in ``__pycache__`` next to these modules, so
    a second process only loads it.
    """
    if _WARM[0]:
        return 0.0
    _WARM[0] = True
    started = time.perf_counter()
    solve_position(Position("x1o/1o1/x2 x"), _warm=True)
    census_counts(Variant.parse("2x2"))
    strong_solution([Position("x1o/1o1/x2 x")])
    return time.perf_counter() - started


def solve(position: Position, *, nodes: int | None = None,
          seconds: float | None = None) -> Solution | None:
    """Solve with the kernels as a `tictactoe.engines.solver.Solution`, or None if the
    board does not fit. Moves left unproven by a limit get the heuristic score the readable
    solver gives them."""
    from tictactoe.engines.heuristic import open_line_counts
    from tictactoe.engines.score import Draw, Heuristic, Loss, Score, Win
    from tictactoe.engines.solver import Solution, check_solvable

    if not fits(position.variant):
        return None
    check_solvable(position)
    warm_up()
    result = solve_position(position, nodes=nodes, seconds=seconds)

    def as_score(value: int) -> Score:
        if value > 0:
            return Win(BIG - value)
        if value < 0:
            return Loss(BIG + value)
        return Draw()

    mover = position.turn
    me, opp = position.marks(mover), position.marks(mover.other)
    lines = position.variant.line_masks
    moves: dict[int, Score] = {}
    for cell in position.legal_moves():
        if cell in result.moves:
            moves[cell] = as_score(result.moves[cell])
        else:
            mine, theirs = open_line_counts(lines, me | 1 << cell, opp)
            moves[cell] = Heuristic(float(mine - theirs))
    score = max(moves.values())
    return Solution(score=score, moves=moves, best=[c for c, s in moves.items() if s == score],
                    proven=result.proven, nodes=result.nodes, seconds=result.seconds,
                    mover=mover, engine="compiled")


def reachable_positions(variant: Variant) -> list[Position]:
    """Every position reachable in play that is not over (for a strong solution)."""
    seen: dict[tuple[int, int], Position] = {}
    stack = [Position(variant)]
    while stack:
        p = stack.pop()
        if (p.x, p.o) in seen:
            continue
        seen[(p.x, p.o)] = p
        if not p.is_game_over():
            stack.extend(p.play(c).copy(stack=False) for c in p.legal_moves())
    return [p for p in seen.values() if not p.is_game_over()]


def strong_solution(positions: list[Position]) -> tuple[dict[tuple[int, int], int], int, float]:
    """The exact score of every given position (one variant), sharing one table.

    Returns scores keyed by (x, o), the nodes searched and the seconds taken.
    """
    warm_up()
    variant = positions[0].variant
    tab = tables(variant)
    mes = np.array([p.x if p.turn.name == "X" else p.o for p in positions], dtype=np.uint64)
    opps = np.array([p.o if p.turn.name == "X" else p.x for p in positions], dtype=np.uint64)
    nempties = np.array([variant.cells - p.ply for p in positions], dtype=np.int64)
    out = np.zeros(len(positions), dtype=np.int64)
    ws = Workspace.new(variant.cells, variant.cells)
    started = time.perf_counter()
    ws.stats[_sk.LIMIT] = 1 << 62
    _sk.exact_all(mes, opps, nempties, out, tab.lines, tab.bits, tab.order, tab.full,
                  ws.tt_me, ws.tt_opp, ws.tt_lo, ws.tt_hi, ws.tt_move, ws.history, ws.moves,
                  ws.keys, ws.stats)
    seconds = time.perf_counter() - started
    scores = {(p.x, p.o): int(s) for p, s in zip(positions, out, strict=True)}
    return scores, int(ws.stats[_sk.NODES]), seconds
