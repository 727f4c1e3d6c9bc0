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
