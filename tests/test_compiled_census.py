"""The compiled census agrees with the numpy census and the brute-force census."""

from __future__ import annotations

import pytest

from tictactoe.analysis.census import brute_force_census, census
from tictactoe.analysis.compiled_census import census_counts
from tictactoe.core import Variant


def _figures(counts: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in counts.items() if k not in ("seconds", "engine")}


@pytest.mark.parametrize("name", ["3x3", "3x4", "2x2", "3x3k2", "2x5k3", "2x2x2"])
def test_compiled_census_matches_brute_force(name: str) -> None:
    compiled = census_counts(Variant.parse(name))
    assert _figures(compiled) == brute_force_census(name).figures()


@pytest.mark.parametrize("name", ["3x3", "3x4"])
def test_compiled_census_matches_numpy_census(name: str) -> None:
    assert _figures(census_counts(Variant.parse(name))) == census(name, engine="numpy").figures()


@pytest.mark.slow
def test_compiled_census_of_4x4_matches_numpy_census() -> None:
    compiled = census_counts(Variant.parse("4x4"))
    assert compiled["positions"] == 9_722_011
    assert sum(compiled["games"].values()) == 15_038_733_958_272
    assert compiled["geometric_canonical_positions"] == 1_217_977
    assert _figures(compiled) == census("4x4", engine="numpy").figures()


def test_compiled_census_without_listed_symmetries() -> None:
    """A degenerate board (its group is too large to list) still counts, without orbits."""
    v = Variant.parse("1x5k4")
    compiled = census_counts(v)
    assert compiled["canonical_positions"] is None
    assert compiled["positions"] == sum(compiled["by_ply"]) > 0
    assert _figures(compiled) == census(v, engine="numpy").figures()


def test_compiled_census_refuses_large_boards() -> None:
    from tictactoe.core import BoardTooLargeError

    with pytest.raises(BoardTooLargeError):
        census_counts(Variant.parse("6x6k4"))


def test_census_uses_the_compiled_kernels() -> None:
    assert census("3x3").engine == "compiled"
    assert census("3x3", engine="numpy").engine == "numpy"
