"""Pairing strategies: the matching kernel against a brute force, and the cut it gives
against the search without it."""

from __future__ import annotations

import random
from itertools import combinations
from types import ModuleType

import numpy as np
import pytest

from tictactoe.core import Position, Variant
from tictactoe.search import compiled
from tictactoe.search.compiled import kernels as sk
from tictactoe.search.compiled.workspace import shared_pairs


def _settings() -> ModuleType:
    """The workspace module whose settings the solver reads: the one its own code imported.
    (Collecting the source's doctests can import a second copy of that module, so the test
    must not patch whichever copy its own import statement finds.)"""
    module: ModuleType = compiled.solve_value.__globals__["_workspace"]
    return module


def _brute_pairing(side: int, other: int, variant: Variant) -> bool:
    """Two empty cells for every line free of ``other``, no cell twice: plain backtracking."""
    empty = variant.full_mask & ~(side | other)
    open_lines = [[c for c in cells if empty >> c & 1]
                  for cells, mask in zip(variant.lines, variant.line_masks, strict=True)
                  if not mask & other]
    if any(len(cells) < 2 for cells in open_lines):
        return False
    open_lines.sort(key=len)

    def place(i: int, used: frozenset[int]) -> bool:
        if i == len(open_lines):
            return True
        return any(place(i + 1, used | {a, b})
                   for a, b in combinations([c for c in open_lines[i] if c not in used], 2))

    return place(0, frozenset())


def _kernel_pairing(side: int, other: int, variant: Variant) -> bool:
    lines = np.array(variant.line_masks, dtype=np.uint64)
    buf = np.zeros((2, sk.BUF_WIDTH), dtype=np.int64)
    buf[0, sk.LIVE:sk.LIVE + len(lines)] = np.arange(len(lines))
    buf[0, sk.LIVE_COUNT] = len(lines)
    misc = np.zeros(sk.MISC_SIZE, dtype=np.int64)
    misc[sk.CELLS] = variant.cells
    empty = np.uint64(variant.full_mask & ~(side | other))
    return bool(sk.pairing(np.uint64(side), np.uint64(other), empty, lines, buf, 0, misc))


def _random_marks(variant: Variant, rng: random.Random) -> tuple[int, int]:
    """Random disjoint marks, with no line of ``side`` one cell short (as in the search)."""
    while True:
        cells = list(range(variant.cells))
        rng.shuffle(cells)
        a, b = rng.randint(0, variant.cells // 2), rng.randint(0, variant.cells // 2)
        side = sum(1 << c for c in cells[:a])
        other = sum(1 << c for c in cells[a:a + b])
        if all(bin(m & ~side).count("1") >= 2 for m in variant.line_masks if not m & other):
            return side, other


def _random_positions(name: str, marks: int, count: int,
                      rng: random.Random) -> list[Position]:
    """``count`` positions of ``marks`` random moves, none of them over."""
    positions: list[Position] = []
    while len(positions) < count:
        p = Position(name)
        while p.ply < marks and not p.is_game_over():
            p.push(rng.choice(p.legal_moves()))
        if not p.is_game_over():
            positions.append(p.copy(stack=False))
    return positions


@pytest.mark.parametrize("name", ["3x3", "4x4", "5x5k4", "4x6k4", "3x3x3"])
def test_matching_agrees_with_brute_force(name: str) -> None:
    variant = Variant.parse(name)
    rng = random.Random(name)
    outcomes = set()
    for _ in range(300):
        side, other = _random_marks(variant, rng)
        expected = _brute_pairing(side, other, variant)
        assert _kernel_pairing(side, other, variant) == expected, (side, other)
        outcomes.add(expected)
    assert outcomes == {True, False}  # both answers occur


@pytest.mark.parametrize(("name", "marks", "count"),
                         [("4x6k4", 6, 40), ("6x5k4", 8, 30), ("4x8k4", 12, 20)])
def test_the_cut_changes_no_value(name: str, marks: int, count: int,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """With and without pairing cuts, the same values; with them, fewer nodes."""
    positions = _random_positions(name, marks, count, random.Random(count))
    with_cut = [compiled.solve_value(p) for p in positions]
    monkeypatch.setattr(_settings(), "PAIRING", False)
    without = [compiled.solve_value(p) for p in positions]
    for p, a, b in zip(positions, with_cut, without, strict=True):
        assert a.score == b.score, p.to_string()
    assert sum(a.nodes for a in with_cut) < sum(b.nodes for b in without)


def _brute_shared_pairing(side: int, other: int, variant: Variant) -> bool:
    """Disjoint pairs of empty cells with a pair inside every line free of ``other``, pairs
    shared by overlapping lines allowed: plain backtracking over the first unserved line."""
    empty = variant.full_mask & ~(side | other)
    open_lines = [mask & empty for mask in variant.line_masks if not mask & other]

    def place(pairs: list[int], used: int) -> bool:
        line = next((e for e in open_lines if not any(p & e == p for p in pairs)), None)
        if line is None:
            return True
        cells = [c for c in range(variant.cells) if (line & ~used) >> c & 1]
        return any(place([*pairs, 1 << a | 1 << b], used | 1 << a | 1 << b)
                   for a, b in combinations(cells, 2))

    return place([], 0)


@pytest.mark.parametrize(("name", "marks"), [("4x8k4", 8), ("5x5k4", 6), ("6x6k5", 14),
                                             ("4x6k4", 6)])
def test_shared_pairs_agree_with_brute_force(name: str, marks: int) -> None:
    """Exhaustive (a big budget), the kernel finds shared pairs exactly when they exist, and
    what it returns is a pairing: disjoint pairs of empty cells, one inside every open line."""
    variant = Variant.parse(name)
    rng = random.Random(name)
    outcomes = set()
    for _ in range(150):
        while True:
            side, other = _random_marks(variant, rng)
            if bin(side | other).count("1") >= marks:
                break
        expected = _brute_shared_pairing(side, other, variant)
        pairs = shared_pairs(variant, other, variant.full_mask & ~(side | other), 1 << 40)
        assert (pairs is not None) == expected, (name, side, other)
        outcomes.add(expected)
        if pairs is not None:
            empty = variant.full_mask & ~(side | other)
            assert all(bin(p).count("1") == 2 and p & empty == p for p in pairs)
            assert bin(sum(pairs)).count("1") == 2 * len(pairs)  # disjoint
            for mask in variant.line_masks:
                if not mask & other:
                    assert any(p & mask == p for p in pairs), (side, other, mask)
    assert outcomes == {True, False}


def test_shared_pairs_find_what_the_matching_cannot() -> None:
    """A row of eight on 4x8k4: five windows, eight cells. A pair per window needs ten
    cells; two pairs in the middle serve all five (c-d: the first three, e-f: the last
    two)."""
    variant = Variant.parse("4x8k4")
    rows = [sum(1 << (r * 8 + c) for c in range(8)) for r in range(4)]
    other = rows[1] | rows[2] | rows[3]  # every line but row 1's windows is blocked
    assert not _kernel_pairing(0, other, variant)
    pairs = shared_pairs(variant, other, variant.full_mask & ~other, 64)
    assert pairs is not None and sorted(pairs) == [1 << 2 | 1 << 3, 1 << 4 | 1 << 5]


def test_shared_pairs_change_no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """With and without shared pairs, the same values on 4x8k4 and 6x6k5; with them, fewer
    nodes."""
    rng = random.Random(7)
    positions = [p for name, marks, count in (("4x8k4", 12, 20), ("6x6k5", 12, 12),
                                              ("5x5k4", 7, 20))
                 for p in _random_positions(name, marks, count, rng)]
    with_shared = [compiled.solve_value(p) for p in positions]
    monkeypatch.setattr(_settings(), "SHARED_PAIRS", 0)
    without = [compiled.solve_value(p) for p in positions]
    for p, a, b in zip(positions, with_shared, without, strict=True):
        assert a.score == b.score, p.to_string()
    assert sum(a.nodes for a in with_shared) < sum(b.nodes for b in without)
