"""The strong solution of a small board: every reachable position solved in one kernel call.

>>> from tictactoe.search.compiled.convert import describe_score
>>> s = strong_solution("3x3")
>>> len(s.scores), s.score(0, 0), describe_score(s.score(0b1, 0b10))
(4520, 0, 'win in 5')
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from tictactoe.core import BoardTooLargeError, Position, Variant
from tictactoe.search.compiled import kernels as _sk
from tictactoe.search.compiled.driver import warm_up
from tictactoe.search.compiled.workspace import borrow, give_back, tables

_WARM = [False]

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


@dataclass(frozen=True)
class StrongSolution:
    """The exact score of every reachable position that is not over, for the side to move."""

    x: np.ndarray
    o: np.ndarray
    scores: np.ndarray
    nodes: int
    seconds: float

    def score(self, x: int, o: int) -> int:
        """The score of the position with these marks (KeyError if not listed)."""
        found = np.flatnonzero((self.x == np.uint64(x)) & (self.o == np.uint64(o)))
        if not len(found):
            raise KeyError((x, o))
        return int(self.scores[found[0]])


def strong_solution(variant: Variant | str) -> StrongSolution:
    """Solve every position reachable in play that is not over, in one kernel call.

    >>> s = strong_solution("3x3")
    >>> len(s.scores), s.score(0, 0)
    (4520, 0)
    """
    if not _WARM[0]:  # compile (or load) the kernel before the clock starts
        _WARM[0] = True
        warm_up()
        strong_solution("2x2")
    variant = variant if isinstance(variant, Variant) else Variant.parse(variant)
    tab = tables(variant)
    n = variant.cells
    if n > 12:
        raise BoardTooLargeError(f"a strong solution of {variant.name} ({n} cells) is too big; "
                                 "at most 12 cells")
    capacity = 3 ** n
    ws = borrow(n)
    try:
        started = time.perf_counter()
        ws.reset(tab)
        ws.misc[_sk.LIMIT] = 1 << 62
        seen = np.full((1 << (2 * capacity).bit_length(), 2), _sk.ALL, dtype=np.uint64)
        mes = np.empty(capacity, dtype=np.uint64)
        opps = np.empty(capacity, dtype=np.uint64)
        scores = np.empty(capacity, dtype=np.int64)
        count = _sk.strong(np.uint64(variant.full_mask), n, tab.lines, tab.line_cells, ws.tt,
                           ws.buf, ws.misc, seen, mes, opps, scores, tab.symmetry_bytes,
                           tab.permutations_and_inverses)
        nodes = int(ws.misc[_sk.NODES])
    finally:
        give_back(ws)
    mes, opps, scores = mes[:count], opps[:count], scores[:count]
    x_to_move = _bit_count(mes) == _bit_count(opps)
    xs = np.where(x_to_move, mes, opps)
    os_ = np.where(x_to_move, opps, mes)
    seconds = time.perf_counter() - started
    return StrongSolution(xs, os_, scores, nodes, seconds)


def _bit_count(masks: np.ndarray) -> np.ndarray:
    """Set bits of each ``uint64``."""
    counts: np.ndarray = np.unpackbits(masks.view(np.uint8)).reshape(len(masks), 64).sum(axis=1)
    return counts
