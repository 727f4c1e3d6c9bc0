"""How many won positions a board has: exact by inclusion–exclusion over sets of lines where
a board has few lines, and everywhere else an unbiased estimate by sampling with a 95%
interval (`tictactoe.analysis.won_sampling`).

A won position is one that can arise in play and has just been won: the winner has one mark
more than the loser (X) or as many (O), the loser has no line, and all the winner's lines
share a cell. Every filling with turn counts and no line is reachable, so the count is over
fillings, not games; the positions in all are the fillings with no line and the won ones.

**Inclusion–exclusion** (`exact_won`). Fillings where X holds every cell of the lines in a set
T and O those of a set U (the two unions disjoint) number ``C(N - t - u; a - t, b - u)``, with
``t``, ``u`` the cells of the unions and ``a``, ``b`` the marks. Summing over every pair (T, U)
with signs gives the fillings with no line, and with the weight ``g(T)`` the fillings where X's
completed lines are a set S (any, all through one cell) and O has none: ``g(T)`` is the sum of
``(-1)^(|T|-|S|)`` over the nonempty subsets S of T whose lines share a cell. Where two lines
share at most one cell (a row, column or diagonal of the whole board, or of the cube), S
shares a cell exactly when all its lines pass through one, and the sum comes to
``(-1)^|T| ((k-1)|T| - t)``. Only the unions' sizes matter, so the pairs are summed once into a
table of coefficients by (t, u), and each count by marks is a short sum over it. The pairs are
``2^L`` sets T of the L lines (each with the subsets U of the lines it leaves free, summed
once per such set): exact on boards of at most `MAX_LINES` lines whose lines share at most a
cell, the n×n boards with k = n up to 10×10 (7×7 has 16 lines) and boards of rows alone.

>>> w = exact_won("3x3")
>>> w.won_x, w.won_o, w.positions
(626, 316, 5478)
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tictactoe.core import BoardTooLargeError, Variant

MAX_LINES = 22
"""Largest number of lines inclusion–exclusion takes (``2^22`` sets of lines: 10x10, about 30
s in plain Python; 7x7's 16 lines take half a second)."""

SAMPLED_CELLS = 64
"""Largest board the estimate (`tictactoe.analysis.won_sampling`) takes: a filling is a
64-bit word per side."""

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True)
class WonCount:
    """Won positions of a board (for X, for O) and its reachable positions: exact, or
    estimated with standard errors; by marks on the board where the method splits them."""

    variant: str
    method: str
    """``lines`` (inclusion–exclusion, exact), ``census`` (exact, totals only) or
    ``sampled`` (an estimate)."""
    won_x: float
    """Positions X has just won."""
    won_o: float
    positions: float
    """Reachable positions: with no line, or just won."""
    by_marks: list[tuple[float, float, float]] | None = None
    """(won by X, won by O, positions) by marks on the board (index = marks)."""
    errors: dict[str, float] = field(default_factory=dict)
    """Standard errors of the totals ``won_x``, ``won_o``, ``won`` and ``positions`` (empty
    where exact)."""
    samples: int = 0
    """Random fillings the estimate drew (its pilot round included)."""
    seed: int | None = None
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return self.method != "sampled"

    @property
    def won(self) -> float:
        return self.won_x + self.won_o

    def interval(self, figure: str) -> tuple[float, float]:
        """The 95% interval of a total, ``won_x``, ``won_o``, ``won`` or ``positions`` (the
        figure itself where exact).

        >>> exact_won("3x3").interval("won_x")
        (626, 626)
        """
        value = getattr(self, figure)
        if self.exact:
            return value, value
        half = Z95 * self.errors[figure]
        return max(0.0, value - half), value + half

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``ttt count --won --json``."""
        data: dict[str, Any] = {"variant": self.variant, "method": self.method,
                                "exact": self.exact, "seconds": round(self.seconds, 3)}
        for figure in ("won_x", "won_o", "won", "positions"):
            data[figure] = self._number(getattr(self, figure))
            if not self.exact:
                data[f"{figure}_interval"] = list(self.interval(figure))
        if self.by_marks is not None:
            data["by_marks"] = [
                {"marks": m, "won_x": self._number(x), "won_o": self._number(o),
                 "positions": self._number(p)} for m, (x, o, p) in enumerate(self.by_marks)]
        if not self.exact:
            data.update(confidence=0.95, samples=self.samples, seed=self.seed,
                        standard_errors=self.errors)
        data.update(self.extra)
        return data

    def _number(self, value: float) -> float | int:
        return int(value) if self.exact else float(value)


def fillings(cells: int, xs: int, os: int) -> int:
    """Ways to place `xs` X's and `os` O's on `cells` empty cells.

    >>> fillings(9, 5, 4)
    126
    """
    if xs < 0 or os < 0 or xs + os > cells:
        return 0
    return math.comb(cells, xs) * math.comb(cells - xs, os)


def marks_of(ply: int) -> tuple[int, int]:
    """X's and O's marks after `ply` moves, X first.

    >>> marks_of(5)
    (3, 2)
    """
    return (ply + 1) // 2, ply // 2


def lines_reach(variant: Variant) -> str | None:
    """Why inclusion–exclusion cannot count this board, or None if it can.

    >>> lines_reach(Variant.parse("7x7")) is None
    True
    >>> print(lines_reach(Variant.parse("7x7k5")))
    7x7k5 has 60 lines; inclusion-exclusion sums over 2^L sets of lines and takes at most 22
    """
    masks = variant.line_masks
    if len(masks) > MAX_LINES:
        return (f"{variant.name} has {len(masks)} lines; inclusion-exclusion sums over 2^L "
                f"sets of lines and takes at most {MAX_LINES}")
    for i, m in enumerate(masks):
        for other in masks[i + 1:]:
            if (m & other).bit_count() > 1:
                return (f"{variant.name} has lines that share more than one cell; "
                        "inclusion-exclusion here needs lines that share at most one")
    return None


def _subsets(masks: list[int], chosen: int = 0, union: int = 0, size: int = 0,
             start: int = 0) -> Iterator[tuple[int, int, int]]:
    """Every subset of the lines: (bit set of line indices, union of their cells, size)."""
    yield chosen, union, size
    for i in range(start, len(masks)):
        yield from _subsets(masks, chosen | 1 << i, union | masks[i], size + 1, i + 1)


def _coefficients(variant: Variant) -> tuple[dict[tuple[int, int], int],
                                             dict[tuple[int, int], int]]:
    """The tables by (t, u): sums over pairs (T, U) of ``(-1)^(|T|+|U|)`` (fillings with no
    line) and of ``g(T) (-1)^|U|`` (fillings where the side holding T has just won)."""
    masks = list(variant.line_masks)
    k = variant.k
    free_sums: dict[int, dict[int, int]] = {}

    def signed_unions(free: int) -> dict[int, int]:
        """Sum of ``(-1)^|U|`` over the subsets U of the lines in `free`, by |union of U|."""
        if free not in free_sums:
            chosen = [masks[i] for i in range(len(masks)) if free >> i & 1]
            sums: dict[int, int] = {}
            for _, union, size in _subsets(chosen):
                u = union.bit_count()
                sums[u] = sums.get(u, 0) + (-1) ** size
            free_sums[free] = {u: s for u, s in sums.items() if s}
        return free_sums[free]

    by_free: dict[tuple[int, int], list[int]] = {}
    everything = (1 << len(masks)) - 1
    for _, union, size in _subsets(masks):
        free = everything
        for i, m in enumerate(masks):
            if m & union:
                free &= ~(1 << i)
        t = union.bit_count()
        sums = by_free.setdefault((t, free), [0, 0])
        sign = -1 if size & 1 else 1
        sums[0] += sign
        sums[1] += sign * ((k - 1) * size - t)
    none: dict[tuple[int, int], int] = {}
    won: dict[tuple[int, int], int] = {}
    for (t, free), (plain, weighted) in by_free.items():
        for u, s in signed_unions(free).items():
            if plain:
                none[t, u] = none.get((t, u), 0) + plain * s
            if weighted:
                won[t, u] = won.get((t, u), 0) + weighted * s
    return none, won


def exact_won(variant: Variant | str) -> WonCount:
    """Won positions (and positions in all) by marks, exact, by inclusion–exclusion.

    >>> w = exact_won("7x7")
    >>> w.won_x > w.won_o > 0
    True
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    why = lines_reach(v)
    if why is not None:
        raise BoardTooLargeError(why + ": ttt count --won estimates it instead")
    started = time.perf_counter()
    none, won = _coefficients(v)
    n = v.cells
    rows: list[tuple[float, float, float]] = []
    for ply in range(n + 1):
        a, b = marks_of(ply)
        plain = sum(c * fillings(n - t - u, a - t, b - u) for (t, u), c in none.items())
        x_won = sum(c * fillings(n - t - u, a - t, b - u) for (t, u), c in won.items()) \
            if a > b else 0
        o_won = sum(c * fillings(n - t - u, b - t, a - u) for (t, u), c in won.items()) \
            if a == b and ply else 0
        rows.append((x_won, o_won, plain + x_won + o_won))
    return WonCount(v.name, "lines", sum(r[0] for r in rows), sum(r[1] for r in rows),
                    sum(r[2] for r in rows), rows, seconds=time.perf_counter() - started,
                    extra={"lines": len(v.line_masks)})


def census_won(variant: Variant | str, **census_options: Any) -> WonCount:
    """Won positions and positions in all, exact, from the census (totals only).

    >>> w = census_won("3x3")
    >>> w.method, w.won_x, w.won_o, w.positions
    ('census', 626, 316, 5478)
    """
    from tictactoe.analysis.census import census

    c = census(variant, **census_options)
    return WonCount(c.variant, "census", c.terminal["x"], c.terminal["o"], c.positions,
                    seconds=c.seconds, extra={"engine": c.engine})


__all__ = ["MAX_LINES", "SAMPLED_CELLS", "WonCount", "census_won", "exact_won", "fillings",
           "lines_reach", "marks_of"]
