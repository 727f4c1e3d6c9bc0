"""Variants, lines and the symmetry group derived from them."""

from __future__ import annotations

import itertools

import pytest

from tictactoe import BoardTooLargeError, Variant, VariantError, symmetries
from tictactoe.core.symmetry import canonical_masks, geometric_symmetries, transform_mask


@pytest.mark.parametrize(("name", "shape", "k", "lines"), [
    ("3x3", (3, 3), 3, 8),
    ("tictactoe", (3, 3), 3, 8),
    ("4x4", (4, 4), 4, 10),
    ("5x5k4", (5, 5), 4, 28),
    ("6x5k4", (6, 5), 4, 39),
    ("4x4x4", (4, 4, 4), 4, 76),
    ("qubic", (4, 4, 4), 4, 76),
    ("3x3x3", (3, 3, 3), 3, 49),
])
def test_variant_names_and_line_counts(name: str, shape: tuple[int, ...], k: int,
                                       lines: int) -> None:
    v = Variant.parse(name)
    assert (v.shape, v.k, len(v.lines)) == (shape, k, lines)
    assert Variant.parse(v.name) == v
    assert all(len(line) == k for line in v.lines)


def test_lines_are_straight_runs_of_k() -> None:
    """Every line is k cells equally spaced in every coordinate, and every such run is a line."""
    for name in ("3x3", "5x5k4", "4x3", "4x4x4", "3x4x2k2"):
        v = Variant.parse(name)
        found = set()
        for cells in itertools.combinations(range(v.cells), v.k):
            coords = [v.coordinates(c) for c in cells]
            steps = {tuple(b - a for a, b in zip(p, q, strict=True))
                     for p, q in itertools.pairwise(coords)}
            if len(steps) == 1 and all(abs(s) <= 1 for s in next(iter(steps))):
                found.add(cells)
        assert found == set(v.lines), name


@pytest.mark.parametrize("bad", ["", "3", "3x", "x3", "3x3k", "3x3y", "3 x 3", "axb", "3x3x3x3",
                                 "0x3", "3x3k1", "3x3k4", "9x9", "2x30", "1x3x3"])
def test_bad_variant_names_get_specific_errors(bad: str) -> None:
    with pytest.raises(VariantError) as err:
        Variant.parse(bad)
    assert str(err.value)


def test_cell_names_round_trip() -> None:
    for name in ("3x3", "6x5k4", "4x4x4", "8x8"):
        v = Variant.parse(name)
        for cell in range(v.cells):
            assert v.parse_cell(v.cell_name(cell)) == cell
            assert v.parse_cell(str(cell)) == cell
    assert Variant.parse("3x3").cell_name(4) == "b2"
    assert Variant.parse("4x4x4").parse_cell("2:b3") == 16 + 2 * 4 + 1


@pytest.mark.parametrize(("name", "size", "geometric"), [
    ("3x3", 8, 8), ("4x4", 32, 8), ("3x4", 4, 4), ("4x3", 4, 4), ("5x5k4", 8, 8),
    ("6x5k4", 4, 4), ("4x4k3", 8, 8), ("3x3x3", 48, 48), ("4x4x4", 192, 48),
])
def test_symmetry_group_sizes(name: str, size: int, geometric: int) -> None:
    v = Variant.parse(name)
    assert len(symmetries(v)) == size
    assert len(geometric_symmetries(v)) == geometric


@pytest.mark.parametrize("name", ["3x3", "4x4", "3x4", "5x5k4", "4x4x4"])
def test_every_symmetry_maps_lines_to_lines_and_the_group_is_closed(name: str) -> None:
    v = Variant.parse(name)
    group = symmetries(v)
    lines = {frozenset(line) for line in v.lines}
    assert group[0] == tuple(range(v.cells))
    assert len(set(group)) == len(group)
    for perm in group:
        assert sorted(perm) == list(range(v.cells))
        assert {frozenset(perm[c] for c in line) for line in v.lines} == lines
    as_set = set(group)
    for p in group[: min(len(group), 24)]:
        inverse = tuple(sorted(range(v.cells), key=lambda c: p[c]))
        assert inverse in as_set
        for q in group:
            assert tuple(q[p[c]] for c in range(v.cells)) in as_set


def test_group_is_complete_on_small_boards() -> None:
    """Brute force over all 9! permutations of 3x3 finds exactly the derived group."""
    v = Variant.parse("3x3")
    lines = {frozenset(line) for line in v.lines}
    complete = {perm for perm in itertools.permutations(range(9))
                if {frozenset(perm[c] for c in line) for line in v.lines} == lines}
    assert complete == set(symmetries(v))


def test_degenerate_boards_refuse_rather_than_hang() -> None:
    with pytest.raises(BoardTooLargeError):
        symmetries(Variant.parse("3x5k4"))  # columns hold no line: cells swap freely


def test_canonical_masks_agree_with_transforming() -> None:
    v = Variant.parse("4x4")
    x, o = 0b1000_0000_0010_0001, 0b0100_0001_0000_0000
    images = {canonical_masks(v, transform_mask(v, i, x), transform_mask(v, i, o))
              for i in range(len(symmetries(v)))}
    assert images == {canonical_masks(v, x, o)}
