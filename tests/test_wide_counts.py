"""Game counts are exact 128-bit integers: the carry logic of the kernels against Python ints,
and whole censuses driven past 2**64 against the same census times a constant."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tictactoe.analysis import census_kernels as ck
from tictactoe.analysis.compiled_census import (
    Settled,
    census_counts,
    join_wide,
    split_wide,
    tally,
)
from tictactoe.core import Variant

WORD = 2**64
near_word = st.one_of(st.integers(0, 2**20), st.integers(WORD - 2**20, WORD + 2**20),
                      st.integers(0, WORD * WORD // 2**33 - 1))
small = st.integers(1, 2**32 - 1)


def _words(value: int) -> tuple[np.uint64, np.uint64]:
    hi, lo = split_wide(value)
    return np.uint64(hi), np.uint64(lo)


@given(near_word, near_word)
def test_add_carries_into_the_high_word(a: int, b: int) -> None:
    assert join_wide(*ck.add_wide(*_words(a), *_words(b))) == a + b


@given(near_word, small)
def test_multiplying_by_a_small_factor_is_exact(a: int, factor: int) -> None:
    assert join_wide(*ck.mul_small(*_words(a), np.uint64(factor))) == a * factor


@given(near_word, small)
def test_dividing_by_a_small_divisor_is_exact(a: int, divisor: int) -> None:
    q_hi, q_lo, rest = ck.div_small(*_words(a), np.uint64(divisor))
    assert (join_wide(q_hi, q_lo), int(rest)) == divmod(a, divisor)


def test_the_carry_cases_at_the_word_boundary() -> None:
    top = WORD - 1
    assert join_wide(*ck.add_wide(*_words(top), *_words(1))) == WORD
    assert join_wide(*ck.mul_small(*_words(top), np.uint64(2**32 - 1))) == top * (2**32 - 1)
    assert join_wide(*ck.mul_small(*_words(WORD + top), np.uint64(3))) == (WORD + top) * 3
    q_hi, q_lo, rest = ck.div_small(*_words(3 * WORD + 7), np.uint64(4))
    assert (join_wide(q_hi, q_lo), int(rest)) == divmod(3 * WORD + 7, 4)


def test_split_refuses_what_does_not_fit() -> None:
    with pytest.raises(ValueError, match="128 bits"):
        split_wide(WORD * WORD)


def test_tally_sums_counts_past_64_bits() -> None:
    """Games summed over many positions each near 2**64, against Python's sum."""
    rng = np.random.default_rng(7)
    n = 1000
    paths = [int(v) for v in rng.integers(2**62, 2**63, n, dtype=np.uint64) * np.uint64(2)]
    paths = [p + int(rng.integers(0, 2)) for p in paths]
    merged = [WORD - 1 - int(v) for v in rng.integers(0, 1000, n)]
    orbit = rng.integers(1, 9, n).astype(np.int64)
    status = rng.integers(0, 3, n).astype(np.int8)
    words = [split_wide(p) for p in paths]
    mwords = [split_wide(m) for m in merged]
    settled = Settled(np.arange(n, dtype=np.uint64),
                      np.array([w[0] for w in words], dtype=np.uint64),
                      np.array([w[1] for w in words], dtype=np.uint64),
                      np.array([w[0] for w in mwords], dtype=np.uint64),
                      np.array([w[1] for w in mwords], dtype=np.uint64),
                      orbit, status, np.zeros(n, dtype=np.int64))
    t = tally(settled)
    won = [i for i in range(n) if status[i] == ck.WON]
    drawn = [i for i in range(n) if status[i] == ck.DRAWN]
    assert t.games_won == sum(paths[i] * int(orbit[i]) for i in won) > WORD
    assert t.games_drawn == sum(paths[i] * int(orbit[i]) for i in drawn) > WORD
    assert t.canonical_games == sum(merged[i] for i in won + drawn)
    assert t.positions == int(orbit.sum()) and t.won == sum(int(orbit[i]) for i in won)


@pytest.mark.parametrize("name", ["3x3", "3x4", "2x5k3"])
def test_a_census_past_64_bits_is_the_census_times_the_root_paths(name: str) -> None:
    """Starting from W move orders into the empty board multiplies every game count by W, so
    with W near 2**64 every count runs through the high word, and must still be exact."""
    v = Variant.parse(name)
    plain = census_counts(v)
    for root in (WORD - 1, WORD + 12345, 3 * 2**70 + 1):
        wide = census_counts(v, root_paths=root)
        assert wide["games"] == {k: n * root for k, n in plain["games"].items()}
        assert wide["canonical_games"] == plain["canonical_games"] * root
        assert wide["by_ply"] == plain["by_ply"]
        assert wide["canonical_by_ply"] == plain["canonical_by_ply"]


def test_root_paths_that_could_overflow_are_refused() -> None:
    with pytest.raises(ValueError, match="overflow"):
        census_counts(Variant.parse("4x4"), root_paths=2**120)
