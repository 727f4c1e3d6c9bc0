"""The checker's threat search against a literal implementation of the definition, and its
symmetry helpers against brute force."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tictactoe.core import Variant, symmetries
from tictactoe.proof.threats import (
    ThreatSearch,
    board_of,
    cells_of,
    scan,
    stabiliser,
    symmetry_between,
    threat_cells,
)

BOARDS = ["3x3", "4x4k3", "4x4", "5x5k4", "3x5k3", "4x5k4", "2x2x2", "3x3x3"]


def threats_brute(variant: Variant, mine: int, theirs: int) -> int:
    """Empty cells completing a line of `mine` (a line with k-1 of its marks, one empty
    cell and no mark of `theirs`)."""
    out = 0
    for line in variant.lines:
        own = [c for c in line if mine >> c & 1]
        empty = [c for c in line if not (mine | theirs) >> c & 1]
        if len(own) == variant.k - 1 and len(empty) == 1:
            out |= 1 << empty[0]
    return out


def wins_brute(variant: Variant, mine: int, theirs: int) -> bool:
    """The definition of a threat-sequence win, read literally, case by case."""

    @cache
    def wins(a: int, b: int) -> bool:
        if threats_brute(variant, a, b):  # 1. the prover has a threat
            return True
        blocks = threats_brute(variant, b, a)
        if blocks.bit_count() > 1:  # 2. the opponent threatens at most one cell b ...
            return False
        for c in range(variant.cells):
            if (a | b) >> c & 1 or (blocks and not blocks >> c & 1):  # ... and c = b
                continue
            made = threats_brute(variant, a | 1 << c, b)
            if made.bit_count() >= 2:  # two threats: the opponent blocks one only
                return True
            if made.bit_count() == 1 and wins(a | 1 << c, b | made):  # one: forced reply
                return True
        return False

    return wins(mine, theirs)


def replay(variant: Variant, mine: int, theirs: int, sequence: list[int]) -> bool:
    """True if the sequence is a threat-sequence win, move by move."""
    if not sequence:
        return bool(threats_brute(variant, mine, theirs))
    for i, c in enumerate(sequence):
        if threats_brute(variant, mine, theirs):
            return False  # the search would have stopped with a threat in hand
        if (mine | theirs) >> c & 1:
            return False
        blocks = threats_brute(variant, theirs, mine)
        if blocks.bit_count() > 1 or (blocks and blocks != 1 << c):
            return False
        mine |= 1 << c
        made = threats_brute(variant, mine, theirs)
        if made.bit_count() >= 2:
            return i == len(sequence) - 1
        if made.bit_count() != 1:
            return False
        theirs |= made
    return False


@st.composite
def positions(draw: st.DrawFn) -> tuple[str, int, int]:
    name = draw(st.sampled_from(BOARDS))
    variant = Variant.parse(name)
    cells = draw(st.permutations(range(variant.cells)))
    n_mine = draw(st.integers(0, min(variant.cells // 2, 9)))
    n_theirs = draw(st.integers(max(0, n_mine - 2), min(n_mine + 1, variant.cells - n_mine)))
    mine = sum(1 << c for c in cells[:n_mine])
    theirs = sum(1 << c for c in cells[n_mine:n_mine + n_theirs])
    return name, mine, theirs


@settings(max_examples=400, deadline=None)
@given(positions(), st.lists(st.integers(-1, 30), max_size=6))
def test_threat_search_matches_the_definition(case: tuple[str, int, int],
                                              hint: list[int]) -> None:
    name, mine, theirs = case
    variant = Variant.parse(name)
    board = board_of(variant)
    if any(mine & m == m or theirs & m == m for m in board.masks):
        return  # a finished game
    search = ThreatSearch(variant)
    found = search.run(mine, theirs)
    assert not search.exhausted
    assert (found is not None) == wins_brute(variant, mine, theirs)
    hinted = search.run(mine, theirs, hint)  # any hint, even a wrong one: the same answer
    assert (hinted is not None) == (found is not None)
    if hinted is not None:
        assert replay(variant, mine, theirs, hinted)
    if found is not None:
        assert replay(variant, mine, theirs, found)
        # the found sequence, given as a hint, is followed directly
        assert search.run(mine, theirs, found) == found
        assert search.positions == len(found)


def test_many_random_positions_have_wins_and_non_wins() -> None:
    """A seeded sample large enough to meet both outcomes and long sequences."""
    rng = random.Random(7)
    outcomes = {True: 0, False: 0}
    longest = 0
    for _ in range(600):
        name = rng.choice(["4x4k3", "5x5k4", "3x3x3", "4x5k4"])
        variant = Variant.parse(name)
        cells = rng.sample(range(variant.cells), variant.cells)
        n = rng.randint(2, 7)
        mine = sum(1 << c for c in cells[:n])
        theirs = sum(1 << c for c in cells[n:n + n])
        board = board_of(variant)
        if any(mine & m == m or theirs & m == m for m in board.masks):
            continue
        found = ThreatSearch(variant).run(mine, theirs)
        assert (found is not None) == wins_brute(variant, mine, theirs)
        outcomes[found is not None] += 1
        if found is not None:
            assert replay(variant, mine, theirs, found)
            longest = max(longest, len(found))
    assert outcomes[True] > 20 and outcomes[False] > 20
    assert longest >= 3


def test_bound_stops_the_search() -> None:
    variant = Variant.parse("5x5k4")
    mine = sum(1 << c for c in (6, 7, 11, 13))
    theirs = sum(1 << c for c in (0, 4, 20, 24))
    full = ThreatSearch(variant)
    assert full.run(mine, theirs) is not None
    tiny = ThreatSearch(variant, max_positions=0)
    assert tiny.run(mine, theirs) is None
    assert tiny.exhausted


@pytest.mark.parametrize("name", [*BOARDS, "4x4x4"])
def test_scan_and_threat_cells(name: str) -> None:
    variant = Variant.parse(name)
    board = board_of(variant)
    rng = random.Random(name)
    for _ in range(50):
        cells = rng.sample(range(variant.cells), variant.cells)
        n = rng.randint(0, variant.cells // 3)
        mine = sum(1 << c for c in cells[:n])
        theirs = sum(1 << c for c in cells[n:2 * n])
        ours, others, twos = scan(board, mine, theirs)
        assert ours == threats_brute(variant, mine, theirs) == threat_cells(board, mine, theirs)
        assert others == threats_brute(variant, theirs, mine)
        assert sorted(twos) == sorted(
            m for m in board.masks if not m & theirs and (m & mine).bit_count() == variant.k - 2)


def image(perm: tuple[int, ...], mask: int) -> int:
    return sum(1 << perm[c] for c in cells_of(mask))


@pytest.mark.parametrize("name", ["3x3", "4x4", "3x4k3", "4x4x4"])
def test_stabiliser_and_symmetry_between_match_brute_force(name: str) -> None:
    variant = Variant.parse(name)
    board = board_of(variant)
    perms = symmetries(variant)
    rng = random.Random(name)
    for _ in range(40):
        cells = rng.sample(range(variant.cells), variant.cells)
        n = rng.randint(0, 3)
        mine = sum(1 << c for c in cells[:n])
        theirs = sum(1 << c for c in cells[n:n + rng.randint(0, 3)])
        expected = [p for p in perms if image(p, mine) == mine and image(p, theirs) == theirs]
        assert stabiliser(board, mine, theirs) == expected
        g = rng.choice(perms)
        moved = symmetry_between(board, mine, theirs, image(g, mine), image(g, theirs))
        assert moved is not None
        assert (image(moved, mine), image(moved, theirs)) == (image(g, mine), image(g, theirs))
        if mine and theirs:  # swapping the sides is not a symmetry of the board
            swapped = symmetry_between(board, mine, theirs, theirs, mine)
            assert swapped is None or mine.bit_count() == theirs.bit_count()
