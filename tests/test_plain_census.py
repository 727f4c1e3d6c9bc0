"""The plain-Python census, the route of an install without numpy and numba: the same figures
as the brute force on small boards, and the published 3x3 figures. (Its agreement with the
numpy and compiled routes on bigger boards is in test_census.py.)"""

from __future__ import annotations

import pytest

from tictactoe.analysis.census import brute_force_census, census


def test_3x3_figures_in_plain_python() -> None:
    c = census("3x3", engine="python")
    assert c.engine == "python"
    assert (c.positions, c.by_ply) == (5478, [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78])
    assert c.terminal == {"x": 626, "o": 316, "draw": 16}
    assert c.games == {"x": 131184, "o": 77904, "draw": 46080}
    assert (c.canonical_positions, c.canonical_games) == (765, 26830)
    assert c.canonical_terminal == {"x": 91, "o": 44, "draw": 3}
    assert c.geometric_canonical_positions == 765


@pytest.mark.parametrize("name", ["3x3", "2x5k2", "3x3k2", "2x2", "2x3k2"])
def test_plain_census_agrees_with_brute_force(name: str) -> None:
    assert census(name, engine="python").figures() == brute_force_census(name).figures()


def test_plain_census_on_a_board_whose_group_cannot_be_listed() -> None:
    c = census("2x4k3", engine="python")  # columns hold no line: cells swap freely
    assert c.canonical_positions is None and c.symmetries is None
    assert c.positions == brute_force_census_positions("2x4k3")


def brute_force_census_positions(name: str) -> int:
    from tictactoe import Position

    seen = set()
    stack = [Position(name)]
    while stack:
        p = stack.pop()
        if p.key() in seen:
            continue
        seen.add(p.key())
        stack.extend(child for _, child in p.children())
    return len(seen)


def test_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="expected auto, compiled, numpy, python"):
        census("3x3", engine="abacus")
