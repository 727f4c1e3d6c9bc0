"""The census and legality: exact figures, computed two ways, and status() == reachability."""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np
import pytest

from tictactoe import BoardTooLargeError, Position, Side, Status, Variant
from tictactoe.analysis.census import brute_force_census, census
from tictactoe.analysis.numpy_census import reachable_keys


def test_3x3_figures() -> None:
    c = census("3x3")
    assert c.positions == 5478
    assert c.by_ply == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]
    assert c.terminal == {"x": 626, "o": 316, "draw": 16}
    assert c.games == {"x": 131184, "o": 77904, "draw": 46080}
    assert c.canonical_positions == 765
    assert c.canonical_terminal == {"x": 91, "o": 44, "draw": 3}
    assert c.canonical_games == 26830


@pytest.mark.parametrize("engine", ["numpy", "compiled", "python"])
@pytest.mark.parametrize("name", ["3x3", "3x4", "4x3", "2x5k2", "3x3k2"])
def test_census_agrees_with_brute_force(name: str, engine: str) -> None:
    assert census(name, engine=engine).figures() == _brute_force(name)


@functools.cache
def _brute_force(name: str) -> dict[str, object]:
    return brute_force_census(name).figures()


@pytest.mark.slow
def test_4x4_figures() -> None:
    c = census("4x4")
    assert c.positions == 9_722_011
    assert sum(c.games.values()) == 15_038_733_958_272
    assert c.geometric_canonical_positions == 1_217_977
    assert c.symmetries == 32 and c.geometric_symmetries == 8
    # Canonical counts under the 32-element group, checked against direct canonicalisation.
    assert c.canonical_positions == _count_classes("4x4")


def _count_classes(name: str) -> int:
    from tictactoe.analysis.numpy_census import _canonical, _symmetry_tables
    from tictactoe.core import symmetries
    v = Variant.parse(name)
    tables = _symmetry_tables(v, symmetries(v))
    return sum(len(np.unique(_canonical(keys, tables))) for _, keys in reachable_keys(v))


def test_the_numpy_census_refuses_big_boards_at_once() -> None:
    with pytest.raises(BoardTooLargeError, match="feasible up to 16 cells"):
        census("5x5k4", engine="numpy")


# --------------------------------------------------------------------------- legality
def _position(v: Variant, x: int, o: int, turn: Side) -> Position:
    p = Position(v)
    p.x, p.o, p.turn = x, o, turn
    return p


@pytest.mark.parametrize("name", ["3x3", "3x4", "4x3", "3x3k2"])
def test_status_equals_reachability(name: str) -> None:
    """Every filling, both sides to move: valid exactly when a search reaches it."""
    v = Variant.parse(name)
    reached = {int(k) for _, keys in reachable_keys(v) for k in keys}
    both_turns = v.cells <= 9
    for digits in itertools.product((0, 1, 2), repeat=v.cells):
        x = sum(1 << i for i, d in enumerate(digits) if d == 1)
        o = sum(1 << i for i, d in enumerate(digits) if d == 2)
        right = Side.X if x.bit_count() == o.bit_count() else Side.O
        for turn in (Side.X, Side.O) if both_turns else (right,):
            valid = _position(v, x, o, turn).status() == Status.VALID
            assert valid == (turn is right and (x | o << 32) in reached), (digits, turn)


@pytest.mark.slow
def test_status_equals_reachability_on_4x4() -> None:
    """The legality rules, over all 3^16 fillings at once, select exactly the reachable set;
    and status() itself agrees with reachability on 80,000 sampled fillings."""
    v = Variant.parse("4x4")
    reached = np.sort(np.concatenate([keys for _, keys in reachable_keys(v)]))
    index = np.arange(3 ** 16, dtype=np.int64)
    x = np.zeros(len(index), dtype=np.uint64)
    o = np.zeros(len(index), dtype=np.uint64)
    for cell in range(16):
        digit = (index // 3 ** cell) % 3
        x |= (digit == 1).astype(np.uint64) << np.uint64(cell)
        o |= (digit == 2).astype(np.uint64) << np.uint64(cell)
    del index, digit
    lead = _popcount(x) - _popcount(o)
    full = np.uint64(v.full_mask)
    shared_x = np.full(len(x), full)
    shared_o = np.full(len(x), full)
    x_wins = np.zeros(len(x), dtype=bool)
    o_wins = np.zeros(len(x), dtype=bool)
    for m in (np.uint64(m) for m in v.line_masks):
        hx, ho = (x & m) == m, (o & m) == m
        x_wins |= hx
        o_wins |= ho
        shared_x[hx] &= m
        shared_o[ho] &= m
    legal = (lead >= 0) & (lead <= 1) & ~(x_wins & o_wins)
    legal &= ~x_wins | ((lead == 1) & (shared_x != 0))
    legal &= ~o_wins | ((lead == 0) & (shared_o != 0))
    by_rules = np.sort(x[legal] | (o[legal] << np.uint64(32)))
    assert len(by_rules) == 9_722_011
    assert np.array_equal(by_rules, reached)

    rng = random.Random(4)
    reached_set = set(reached[rng.sample(range(len(reached)), 40_000)].tolist())
    samples = list(reached_set) + [int(x[i]) | int(o[i]) << 32
                                   for i in rng.sample(range(len(x)), 40_000)]
    lookup = set(reached.tolist())
    for key in samples:
        px, po = key & 0xFFFF, key >> 32
        turn = Side.X if px.bit_count() == po.bit_count() else Side.O
        assert (_position(v, px, po, turn).status() == Status.VALID) == (key in lookup)


def _popcount(a: np.ndarray) -> np.ndarray:
    count = np.zeros(len(a), dtype=np.int64)
    for bit in range(16):
        count += ((a >> np.uint64(bit)) & np.uint64(1)).astype(np.int64)
    return count
