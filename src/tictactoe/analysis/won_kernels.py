"""The numba kernel of the won-position estimate (`tictactoe.analysis.won_sampling`): random
fillings of a board with given counts of X and O, each checked for lines.

Bit boards are ``uint64`` (every board of at most 64 cells), and so is every constant mixed
with them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)


@njit(cache=True)
def sample_fillings(masks: np.ndarray, cells: int, movers: int, others: int, samples: int,
                    seed: int) -> tuple[int, int]:  # pragma: no cover - compiled
    """Draw `samples` fillings uniformly at random, with `movers` marks of the side that
    moved last and `others` of the other side, and count those with no line and those just
    won by the side that moved last (the other side has no line, and all the mover's lines
    share a cell). The same seed draws the same fillings."""
    np.random.seed(seed)
    perm = np.arange(cells)
    full = ~ZERO
    plain = 0
    won = 0
    placed = movers + others
    for _ in range(samples):
        mover = ZERO
        other = ZERO
        for i in range(placed):
            j = i + np.random.randint(cells - i)
            cell = perm[j]
            perm[j] = perm[i]
            perm[i] = cell
            if i < movers:
                mover |= ONE << np.uint64(cell)
            else:
                other |= ONE << np.uint64(cell)
        shared = full
        lines = 0
        spoilt = False
        for m in masks:
            if other & m == m:
                spoilt = True
                break
            if mover & m == m:
                shared &= m
                lines += 1
        if spoilt:
            continue
        if lines == 0:
            plain += 1
        elif shared != ZERO:
            won += 1
    return plain, won


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
    full = ~ZERO
    k = lines.shape[1]
    total = 0.0
    squares = 0.0
    count = len(masks)
    for _ in range(samples):
        chosen = np.random.randint(count)
        mover = masks[chosen]
        for i in range(k):
            cell = lines[chosen, i]
            j = where[cell]
            moved = perm[i]
            perm[i] = cell
            where[cell] = i
            perm[j] = moved
            where[moved] = j
        other = ZERO
        for i in range(k, movers + others):
            j = i + np.random.randint(cells - i)
            cell = perm[j]
            moved = perm[i]
            perm[j] = moved
            where[moved] = j
            perm[i] = cell
            where[cell] = i
            if i < movers:
                mover |= ONE << np.uint64(cell)
            else:
                other |= ONE << np.uint64(cell)
        shared = full
        found = 0
        spoilt = False
        for m in masks:
            if other & m == m:
                spoilt = True
                break
            if mover & m == m:
                shared &= m
                found += 1
        if spoilt or shared == ZERO:
            continue
        share = 1.0 / found
        total += share
        squares += share * share
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
    k = lines.shape[1]
    total = 0.0
    squares = 0.0
    count = len(masks)
    for _ in range(samples):
        x_side = np.random.random() < x_share
        chosen = np.random.randint(count)
        for i in range(k):
            cell = lines[chosen, i]
            j = where[cell]
            moved = perm[i]
            perm[i] = cell
            where[cell] = i
            perm[j] = moved
            where[moved] = j
        first = xs if x_side else os
        x = masks[chosen] if x_side else ZERO
        o = ZERO if x_side else masks[chosen]
        for i in range(k, xs + os):
            j = i + np.random.randint(cells - i)
            cell = perm[j]
            moved = perm[i]
            perm[j] = moved
            where[moved] = j
            perm[i] = cell
            where[cell] = i
            bit = ONE << np.uint64(cell)
            if (i < first) == x_side:
                x |= bit
            else:
                o |= bit
        found = 0
        for m in masks:
            if x & m == m:
                found += 1
            if o & m == m:
                found += 1
        share = 1.0 / found
        total += share
        squares += share * share
    return total, squares
