"""Patashnik's Qubic dictionary (O. Patashnik, "Qubic: 4x4x4 Tic-Tac-Toe", Mathematics
Magazine 53(4), 202-216, 1980; data from Quuxplusone/RecreationalMath): the parser, the
lookup up to symmetry, and the strategy walked over a fixed sample of subtrees. The whole
walk is `scripts/bench_patashnik.py`."""

from __future__ import annotations

import io
import os
import random
from functools import cache
from pathlib import Path

import pytest

from tictactoe.core import Position, symmetries
from tictactoe.proof import check_proof
from tictactoe.proof.patashnik import (
    CREDIT,
    PUBLISHED_COUNTS,
    QUBIC,
    Dictionary,
    DictionaryError,
    Strategy,
    find_dictionary,
    load_dictionary,
    parse_position,
    verify_strategy,
    write_strategy_proof,
)
from tictactoe.proof.threats import cells_of


@cache
def dictionary_path() -> Path | None:
    return find_dictionary()


@pytest.fixture(scope="module")
def dictionary() -> Dictionary:
    path = dictionary_path()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the Patashnik dictionary file is missing from the package")
        pytest.skip("the Patashnik dictionary file is absent")
    return load_dictionary(path)


def test_counts_by_ply_match_the_published_table(dictionary: Dictionary) -> None:
    assert len(dictionary) == 2929
    assert dictionary.counts_by_ply() == PUBLISHED_COUNTS
    assert sum(PUBLISHED_COUNTS.values()) == 2929


def test_every_entry_is_a_legal_position_with_x_to_move(dictionary: Dictionary) -> None:
    for entry in dictionary.entries:
        position = entry.position()
        assert position.is_valid()
        assert position.turn.symbol == "x"
        assert position.mark_at(entry.move) is None
    first = dictionary.entries[0]
    assert (first.x, first.o, first.move, first.line) == (0, 0, 0, 1)


def test_lookup_up_to_symmetry(dictionary: Dictionary) -> None:
    perms = symmetries(QUBIC)
    rng = random.Random(1980)
    for entry in rng.sample(dictionary.entries, 120):
        assert dictionary.lookup(entry.x, entry.o) == entry.move or entry.ply == 0
        perm = rng.choice(perms)
        x = sum(1 << perm[c] for c in cells_of(entry.x))
        o = sum(1 << perm[c] for c in cells_of(entry.o))
        move = dictionary.lookup(x, o)
        assert move is not None
        # the move found is the entry's move up to a symmetry of the position
        fixing = [p for p in perms if sum(1 << p[c] for c in cells_of(x)) == x
                  and sum(1 << p[c] for c in cells_of(o)) == o]
        assert move in {p[perm[entry.move]] for p in fixing}
    assert dictionary.lookup(1 << 5, 1 << 6) is None


def test_parser_rejects_bad_files(tmp_path: Path) -> None:
    cases = {
        "x2q 3\n": "bad character 'q'",
        "x2o\n": "expected 'POSITION MOVE'",
        "x2o 64\n": "expected 'POSITION MOVE'",
        "x70o 1\n": "runs past cell 63",
        "x2o 0\n": "the move 0 is on a taken cell",
        "xx 5\n": "X and O do not have equal counts",
        "x2o 5\nx2o 6\n": "line 2: the position is equivalent to line 1's",
        "x2o 5\no2x 6\n": "line 2: the position is equivalent to line 1's",  # a reflection
        "xxxx4ooo1o 20\n": "X has a line but O moved last",
    }
    for text, message in cases.items():
        path = tmp_path / "bad.dictionary"
        path.write_text(text)
        with pytest.raises(DictionaryError, match=message):
            load_dictionary(path)
    assert parse_position("16x") == (1 << 16, 0)


# One O reply at ply 3 under each of the 12 O replies at ply 1 (up to symmetry) after X's
# first move (cell 0): the subtrees are small enough for a unit test.
SAMPLE = [(1, 2), (3, 6), (5, 10), (6, 9), (7, 8), (15, 5), (21, 6), (22, 5), (23, 5),
          (27, 4), (31, 2), (63, 5)]


def sample_start(strategy: Strategy, first: int, third: int) -> Position:
    position = Position(QUBIC)
    position.push(strategy.decide(0, 0).moves[0])
    position.push(first)
    decision = strategy.decide(position.x, position.o)
    assert decision.rule == "dictionary"
    position.push(decision.moves[0])
    position.push(third)
    return position


def test_the_strategy_opens_with_the_dictionary(dictionary: Dictionary) -> None:
    strategy = Strategy(dictionary)
    assert strategy.decide(0, 0).rule == "dictionary"
    assert strategy.decide(0, 0).moves == (0,)
    assert strategy.decide(0b111, 1 << 10 | 1 << 11 | 1 << 12).rule == "win"
    assert strategy.decide(1 << 5 | 1 << 9, 0b111).moves == (3,)  # block O's row


def test_walk_a_sample_of_subtrees(dictionary: Dictionary) -> None:
    strategy = Strategy(dictionary)
    total = {"x": 0, "dictionary": 0, "forced": 0, "blocks": 0, "replies": 0,
             "forced_with_blocks": 0}
    for first, third in SAMPLE:
        start = sample_start(strategy, first, third)
        stats = verify_strategy(dictionary, start=start)
        assert stats.ok, (start.to_string(), stats.failures[:3])
        assert stats.x_positions == stats.wins + stats.blocks + stats.dictionary_hits + \
            stats.forced
        total["x"] += stats.x_positions
        total["dictionary"] += stats.dictionary_hits
        total["forced"] += stats.forced
        total["blocks"] += stats.blocks
        total["replies"] += stats.o_replies
        total["forced_with_blocks"] += stats.forced_with_blocks
    assert total["x"] > 5000
    assert min(total.values()) > 0


def test_a_sample_subtree_as_a_proof_file(dictionary: Dictionary) -> None:
    strategy = Strategy(dictionary)
    start = sample_start(strategy, 3, 6)
    buffer = io.BytesIO()
    header, stats = write_strategy_proof(dictionary, buffer, start=start)
    assert stats.ok
    assert header.value == "x" and header.position == start.to_string()
    assert header.extra["source"] == CREDIT
    checked = check_proof(buffer.getvalue())
    assert checked.forced_derived == stats.forced
    assert checked.leaves["="] == stats.transpositions
    assert checked.prover_nodes == stats.x_positions + stats.transpositions
    assert checked.opponent_nodes == stats.o_nodes


def test_a_position_where_no_rule_applies_is_reported(dictionary: Dictionary) -> None:
    thin = Dictionary(dictionary.entries[:1])  # only the empty board
    start = Position(QUBIC)
    start.push(0)
    start.push(21)
    stats = verify_strategy(thin, start=start, max_positions=1_000)
    assert not stats.ok
    position, reason = stats.failures[0]
    assert position == start.to_string()
    assert "not in the dictionary, and the threat search finds no forced sequence" in reason
    buffer = io.BytesIO()
    _, stats = write_strategy_proof(thin, buffer, start=start)
    with pytest.raises(Exception, match="F: the threat search finds no forced win"):
        check_proof(buffer.getvalue())
