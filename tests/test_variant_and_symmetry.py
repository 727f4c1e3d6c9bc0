"""Variants, lines and the symmetry group derived from them."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from reference import pair_count_symmetries

from tictactoe import BoardTooLargeError, InvalidMoveError, Variant, VariantError, symmetries
from tictactoe.core.symmetry import (
    canonical_masks,
    geometric_symmetries,
    group_size,
    stabiliser_chain,
    transform_mask,
)


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
                                 "0x3", "3x3k1", "3x3k4", "33x33", "2x40", "7x7x7",
                                 "6x6x7k4", "3x33", "19x19k20", "1x3x3"])
def test_bad_variant_names_get_specific_errors(bad: str) -> None:
    with pytest.raises(VariantError) as err:
        Variant.parse(bad)
    assert str(err.value)


def test_large_boards_are_variants_up_to_32x32_and_6x6x6() -> None:
    assert Variant.parse("32x32k5").cells == 1024
    assert Variant.parse("6x6x6k4").cells == 216
    assert len(Variant.parse("15x15k5").lines) == 2 * 15 * 11 + 2 * 11 * 11
    with pytest.raises(VariantError, match="sides of at most 32"):
        Variant.parse("33x5k5")
    assert Variant.parse("64x1k2").cells == Variant.parse("2x2x16k2").cells == 64  # any shape
    with pytest.raises(VariantError, match="sides of at most 6"):
        Variant.parse("7x6x6k4")
    with pytest.raises(VariantError, match="k=20 does not fit"):
        Variant.parse("19x19k20")


def test_columns_past_z_are_two_letters() -> None:
    v = Variant.parse("30x30k5")
    assert [v.cell_name(c) for c in (0, 25, 26, 27, 29)] == ["a1", "z1", "aa1", "ab1", "ad1"]
    assert v.cell_name(v.cells - 1) == "ad30"
    assert v.parse_cell("AB3") == 2 * 30 + 27
    with pytest.raises(InvalidMoveError, match="columns are a-ad"):
        v.parse_cell("ae1")
    with pytest.raises(InvalidMoveError, match="cannot read move"):
        v.parse_cell("abc1")
    with pytest.raises(InvalidMoveError, match="columns are a-s"):
        Variant.parse("19x19k5").parse_cell("t1")


def test_cell_names_round_trip() -> None:
    for name in ("3x3", "6x5k4", "4x4x4", "8x8", "30x30k5", "19x19k5", "6x6x6k4"):
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


def searched_group(v: Variant) -> set[tuple[int, ...]]:
    """The group from the full search (the stabiliser chain), whatever the board's size."""
    found = [tuple(range(v.cells))]
    for transversal in stabiliser_chain(v):
        found = [tuple(f[c] for c in t) for f in found for t in transversal]
    return set(found)


@pytest.mark.parametrize("name", ["9x9k5", "15x15k5", "10x8k4", "5x5x5k4", "9x7k3", "12x9k8"])
def test_large_boards_take_rotations_and_reflections_and_the_search_agrees(name: str) -> None:
    v = Variant.parse(name)
    group = symmetries(v)
    assert group == geometric_symmetries(v)  # the quick route, no search
    assert set(group) == searched_group(v)
    lines = set(v.line_masks)
    for perm in group:
        assert {sum(1 << perm[c] for c in line) for line in v.lines} == lines


def test_large_boards_whose_k_is_a_side_are_searched() -> None:
    v = Variant.parse("9x9")  # k=9: the "inside-out" symmetries as on 4x4 and 8x8
    assert group_size(v) == len(symmetries(v)) > len(geometric_symmetries(v)) == 8


def test_group_is_complete_on_small_boards() -> None:
    """Brute force over all 9! permutations of 3x3 finds exactly the derived group."""
    v = Variant.parse("3x3")
    lines = {frozenset(line) for line in v.lines}
    complete = {perm for perm in itertools.permutations(range(9))
                if {frozenset(perm[c] for c in line) for line in v.lines} == lines}
    assert complete == set(symmetries(v))


def test_degenerate_boards_refuse_rather_than_hang() -> None:
    with pytest.raises(BoardTooLargeError, match="b1 and c1 lie on the same lines"):
        symmetries(Variant.parse("3x5k4"))  # columns hold no line: cells swap freely
    with pytest.raises(BoardTooLargeError, match="over 100,000"):
        symmetries(Variant.parse("2x16"))  # k=2: each column's two cells swap: 2**17
    with pytest.raises(BoardTooLargeError):
        group_size(Variant.parse("2x4x4k2"))


def every_variant(most: int) -> Iterator[Variant]:
    """Every variant the parser allows with at most ``most`` cells: every shape, every k."""
    for dims in (2, 3):
        for shape in itertools.product(range(1, most + 1), repeat=dims):
            if shape[0] * shape[1] * (shape[2] if dims == 3 else 1) > most:
                continue
            for k in range(2, max(shape) + 1):
                try:
                    variant = Variant.of(shape, k)
                except VariantError:  # more than 26 columns, or a cube of one layer
                    continue
                yield variant


def group_or_refusal(search: object, variant: Variant) -> tuple[tuple[int, ...], ...] | None:
    assert callable(search)
    try:
        found: tuple[tuple[int, ...], ...] = search(variant)
    except BoardTooLargeError:
        return None
    return found


def test_the_search_lists_the_same_groups_as_the_earlier_search() -> None:
    """On every board of up to 20 cells (982 variants, flat and cubes, every k), the group,
    in the same order, or the same refusal, as the earlier search by line counts."""
    variants = list(every_variant(20))
    assert len(variants) == 982
    for v in variants:
        assert group_or_refusal(symmetries, v) == group_or_refusal(pair_count_symmetries, v), \
            v.name


def test_the_group_is_complete_by_brute_force_on_tiny_boards() -> None:
    """Every permutation of the cells of every board of up to 7 cells, tried."""
    for v in every_variant(7):
        lines = {frozenset(line) for line in v.lines}
        complete = sorted(perm for perm in itertools.permutations(range(v.cells))
                          if {frozenset(perm[c] for c in line) for line in v.lines} == lines)
        found = group_or_refusal(symmetries, v)
        if found is None:  # refused: two cells on the same lines swap freely
            through = [frozenset(t) for t in v.lines_through]
            assert len(set(through)) < v.cells, v.name
        else:
            assert list(found) == complete, v.name


@pytest.mark.parametrize(("name", "size"), [
    ("8x8", 1536), ("8x8k5", 8), ("7x9", 4), ("3x20", 4), ("4x16", 4), ("6x6", 192),
    ("2x15", 65536), ("64x1k2", 2), ("2x2x12k3", 384),
])
def test_long_and_large_boards(name: str, size: int) -> None:
    """Boards the earlier search took seconds on (or gave up on: 2x2x12k3): the symmetries
    map lines to lines, the group is closed, and the chain gives its size unlisted."""
    v = Variant.parse(name)
    assert group_size(v) == size
    group = symmetries(v)
    assert len(group) == len(set(group)) == size and group[0] == tuple(range(v.cells))
    masks = set(v.line_masks)
    for perm in group[:: max(1, size // 2048)]:  # all of them, or 2048 spread over 2x15's
        assert {sum(1 << perm[c] for c in line) for line in v.lines} == masks
    as_set = set(group)
    for p in group[:8]:
        for q in group[:: max(1, size // 64)]:
            assert tuple(q[p[c]] for c in range(v.cells)) in as_set
    for level in stabiliser_chain(v):
        assert level[0] == tuple(range(v.cells))


def test_canonical_masks_agree_with_transforming() -> None:
    v = Variant.parse("4x4")
    x, o = 0b1000_0000_0010_0001, 0b0100_0001_0000_0000
    images = {canonical_masks(v, transform_mask(v, i, x), transform_mask(v, i, o))
              for i in range(len(symmetries(v)))}
    assert images == {canonical_masks(v, x, o)}
