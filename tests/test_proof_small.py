"""The reference prover for small boards: its values agree with plain minimax, and the
checker accepts every proof it writes, from the empty board and from positions in play."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from reference import Result, minimax_for

from tictactoe.core import Position, Variant
from tictactoe.proof import check_proof
from tictactoe.proof.small import SmallProver, find_pairing, write_small_proof
from tictactoe.proof.threats import board_of, cells_of


def true_value(position: Position, moves_of: Callable[[Position], dict[int, Result]]) -> str:
    moves = moves_of(position)
    best = max(result[0] for result in moves.values())
    return {1: position.turn.symbol, -1: position.turn.other.symbol, 0: "draw"}[best]


@pytest.mark.parametrize(("name", "value"), [("3x3", "draw"), ("4x3", "x"), ("3x4k3", "x"),
                                             ("4x4k3", "x"), ("4x4", "draw"), ("3x3k2", "x")])
def test_values_of_the_empty_board(name: str, value: str) -> None:
    prover = SmallProver(Variant.parse(name))
    assert prover.value(Position(name)) == value
    buffer = io.BytesIO()
    header = prover.write(Position(name), buffer)
    assert header.value == value
    stats = check_proof(buffer.getvalue())
    assert stats.value == value
    assert stats.lines == header.lines


@pytest.mark.parametrize("name", ["3x3", "4x3", "2x5k2", "3x3k2"])
def test_proofs_from_positions_in_play(name: str) -> None:
    variant = Variant.parse(name)
    moves_of = minimax_for(variant)
    prover = SmallProver(variant)
    rng = random.Random(name)
    sample: list[Position] = []
    while len(sample) < 40:  # positions of random games, game not over
        position = Position(variant)
        for _ in range(rng.randint(1 if variant.cells <= 10 else 4, variant.cells - 1)):
            position.push(rng.choice(position.legal_moves()))
            if position.is_game_over():
                break
        if not position.is_game_over():
            sample.append(position.copy(stack=False))
    values = set()
    for position in sample:
        expected = true_value(position, moves_of)
        assert prover.value(position) == expected, position
        buffer = io.BytesIO()
        assert prover.write(position, buffer).value == expected
        assert check_proof(buffer.getvalue()).value == expected
        values.add(expected)
    if name == "3x3":
        assert values == {"x", "o", "draw"}


def test_options_change_the_proof_not_the_value() -> None:
    variant = Variant.parse("3x3")
    sizes = []
    for use_forced, use_pairing in [(True, True), (False, True), (True, False), (False, False)]:
        buffer = io.BytesIO()
        header = SmallProver(variant, use_forced=use_forced, use_pairing=use_pairing).write(
            Position(variant), buffer)
        stats = check_proof(buffer.getvalue())
        assert stats.value == "draw"
        assert (stats.leaves["F"] > 0) == use_forced
        assert (stats.leaves["P"] > 0) == use_pairing
        sizes.append(header.lines)
    assert sizes[0] < sizes[3]


def test_write_small_proof_to_a_path(tmp_path: Path) -> None:
    path = tmp_path / "3x4k3.proof"
    header = write_small_proof("3x4k3", path, note="test")
    assert header.extra["note"] == "test"
    assert check_proof(path).value == "x"


def test_large_boards_are_refused() -> None:
    with pytest.raises(ValueError, match="at most 25"):
        SmallProver(Variant.parse("6x6"))


def test_find_pairing() -> None:
    board = board_of(Variant.parse("4x4"))
    assert find_pairing(board, 0, 0) is None  # 10 lines, but only 8 disjoint pairs
    pairs = find_pairing(board, 1 << 0 | 1 << 15, 0)  # X on a1 and d4: 5 lines to pair
    assert pairs is not None and len(pairs) == 5
    used = [c for pair in pairs for c in pair]
    assert len(used) == len(set(used))
    for m in board.masks:
        if not m & (1 << 0 | 1 << 15):
            assert any(m >> a & 1 and m >> b & 1 for a, b in pairs), cells_of(m)
    assert find_pairing(board_of(Variant.parse("3x3")), 0, 0) is None


@pytest.mark.parametrize("variant", ["5x5k4", "6x6k5", "4x4x4"])
def test_pairings_are_valid_and_found_exactly_when_the_kernel_finds_one(variant: str) -> None:
    """`find_pairing` first tries a matching (a pair of its own per line). Whether one exists
    is checked against the proof-number search's compiled matching, and every pairing
    returned is checked against the definition, on random positions."""
    np = pytest.importorskip("numpy")
    from tictactoe.search.pn.dfpn import pairing
    from tictactoe.search.pn.tables import tables

    board = board_of(Variant.parse(variant))
    t = tables(Variant.parse(variant))
    work = np.zeros(8 * len(t.lines) + 64, dtype=np.int64)
    rng = random.Random(5)
    found = 0
    for _ in range(120):
        cells = rng.sample(range(board.cells), rng.randrange(4, board.cells // 2))
        split = rng.randrange(1, len(cells))
        mine = sum(1 << c for c in cells[:split])
        theirs = sum(1 << c for c in cells[split:])
        pairs = find_pairing(board, mine, theirs)
        kernel = bool(pairing(np.uint64(theirs), np.uint64(mine), t.full, t.lines, work))
        if kernel:
            assert pairs is not None, (variant, mine, theirs)
        if pairs is None:
            continue
        found += 1
        used = [c for pair in pairs for c in pair]
        assert len(used) == len(set(used)) and not any((mine | theirs) >> c & 1 for c in used)
        for m in board.masks:
            if not m & mine:
                assert any(m >> a & 1 and m >> b & 1 for a, b in pairs), cells_of(m)
    assert found > 10


def test_the_examples_in_the_format_document_are_generated() -> None:
    """Each example in docs/proof-format.md is the reference prover's output, unchanged."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "proof-format.md").read_text()
    examples = re.findall(r"<!-- example: (.+?) -->\n```\n(.*?)```\n", doc, flags=re.DOTALL)
    assert len(examples) == 2
    for position, text in examples:
        buffer = io.BytesIO()
        write_small_proof(position, buffer)
        assert buffer.getvalue().decode() == text
        assert check_proof(text.encode()).value in ("x", "draw")
