"""The numba kernels of the won-position estimate (`tictactoe.analysis.won_sampling`): random
fillings of a board with given counts of X and O, each checked for lines.

A filling is drawn by a partial Fisher–Yates shuffle of the cells (`perm`, with `where`, the
place of each cell in it, so that a line's cells can be brought to the front first). Bit
boards are ``uint64`` (every board of at most 64 cells), and so is every constant mixed with
them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def _swap(perm: np.ndarray, where: np.ndarray, i: int, j: int) -> int:  # pragma: no cover
    """Swap the cells at places i and j of the shuffle; the cell now at place i."""
    cell = perm[j]
    moved = perm[i]
    perm[j] = moved
    where[moved] = j
    perm[i] = cell
    where[cell] = i
    return int(cell)


@njit(cache=True, inline="always")
def _line_first(perm: np.ndarray, where: np.ndarray, lines: np.ndarray,
                chosen: int) -> None:  # pragma: no cover - compiled
    """Bring the cells of line `chosen` to the front of the shuffle."""
    for i in range(lines.shape[1]):
        _swap(perm, where, i, where[lines[chosen, i]])


@njit(cache=True)
def _fill(perm: np.ndarray, where: np.ndarray, start: int, first: int, total: int,
          ) -> tuple[np.uint64, np.uint64]:  # pragma: no cover - compiled
    """Draw places `start` to `total` - 1 of the shuffle uniformly from the cells not yet
    drawn; the cells drawn before place `first` as one mask, the rest as the other."""
    cells = len(perm)
    early = ZERO
    late = ZERO
    for i in range(start, total):
        cell = _swap(perm, where, i, i + np.random.randint(cells - i))
        if i < first:
            early |= ONE << np.uint64(cell)
        else:
            late |= ONE << np.uint64(cell)
    return early, late


@njit(cache=True)
def _mover_lines(masks: np.ndarray, mover: np.uint64, other: np.uint64
                 ) -> int:  # pragma: no cover - compiled
    """The mover's lines if the filling is just won by the mover (the other side has no
    line and the mover's lines share a cell); 0 if the mover has no line; -1 otherwise."""
    shared = ~ZERO
    found = 0
    for m in masks:
        if other & m == m:
            return -1
        if mover & m == m:
            shared &= m
            found += 1
    return found if found == 0 or shared != ZERO else -1


@njit(cache=True)
def sample_fillings(masks: np.ndarray, cells: int, movers: int, others: int, samples: int,
                    seed: int) -> int:  # pragma: no cover - compiled
    """Draw `samples` fillings uniformly at random, with `movers` marks of the side that
    moved last and `others` of the other side, and count those with no line. The same seed
    draws the same fillings."""
    np.random.seed(seed)
    perm = np.arange(cells)
    where = np.arange(cells)
    plain = 0
    for _ in range(samples):
        mover, other = _fill(perm, where, 0, movers, movers + others)
        plain += _mover_lines(masks, mover, other) == 0
    return plain


@njit(cache=True)
def sample_won(masks: np.ndarray, lines: np.ndarray, cells: int, movers: int, others: int,
               samples: int, seed: int) -> tuple[float, float]:  # pragma: no cover - compiled
    """Draw `samples` fillings that give the side that moved last (`movers` marks) one line
    at least: a line chosen uniformly, its cells the mover's, the other marks placed
    uniformly on the rest. Return the sum, over the draws, of 1/m for the fillings just won
    by the mover (m: the mover's lines; 0 for the others), and the sum of its squares:
    times the lines and the fillings holding one line, the mean counts the won fillings
    (Karp and Luby's estimator of a union)."""
    np.random.seed(seed)
    perm = np.arange(cells)
    where = np.arange(cells)
    total = 0.0
    squares = 0.0
    for _ in range(samples):
        chosen = np.random.randint(len(masks))
        _line_first(perm, where, lines, chosen)
        mover, other = _fill(perm, where, lines.shape[1], movers, movers + others)
        found = _mover_lines(masks, mover | masks[chosen], other)
        if found > 0:
            total += 1.0 / found
            squares += 1.0 / (found * found)
    return total, squares


@njit(cache=True)
def sample_lined(masks: np.ndarray, lines: np.ndarray, cells: int, xs: int, os: int,
                 x_share: float, samples: int, seed: int
                 ) -> tuple[float, float]:  # pragma: no cover - compiled
    """Draw `samples` fillings (`xs` X's, `os` O's) that hold one line at least: a side (X
    with probability `x_share`), then one of its lines uniformly, its cells that side's,
    the other marks placed uniformly on the rest. Return the sum of 1/m over the draws (m:
    the lines either side holds) and the sum of its squares: times the lines and the
    fillings holding one given line (both sides' added up), the mean counts the fillings
    with a line (Karp and Luby again)."""
    np.random.seed(seed)
    perm = np.arange(cells)
    where = np.arange(cells)
    total = 0.0
    squares = 0.0
    for _ in range(samples):
        x_side = np.random.random() < x_share
        chosen = np.random.randint(len(masks))
        _line_first(perm, where, lines, chosen)
        own, rest = _fill(perm, where, lines.shape[1], xs if x_side else os, xs + os)
        own |= masks[chosen]
        x, o = (own, rest) if x_side else (rest, own)
        found = 0
        for m in masks:
            found += (x & m == m) + (o & m == m)
        total += 1.0 / found
        squares += 1.0 / (found * found)
    return total, squares
