"""Positions: notation, moves, results, and property tests."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tictactoe import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Position,
    Side,
    Status,
    Termination,
    Variant,
    VariantError,
    symmetries,
)
from tictactoe.core.symmetry import transform_mask

VARIANTS = ["3x3", "4x4", "3x4", "5x5k4", "6x5k4", "4x4k3", "4x4x4", "3x3x3", "7x7k4"]


@st.composite
def positions(draw: st.DrawFn, legal_play: bool = True) -> Position:
    """A position reached by random legal play on a random variant."""
    v = Variant.parse(draw(st.sampled_from(VARIANTS)))
    p = Position(v)
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, v.cells))):
        moves = p.legal_moves()
        if not moves:
            break
        p.push(rng.choice(moves))
    return p


@st.composite
def arbitrary_boards(draw: st.DrawFn) -> Position:
    """Any filling and any side to move: legal or not."""
    v = Variant.parse(draw(st.sampled_from(VARIANTS)))
    p = Position(v)
    cells = draw(st.lists(st.sampled_from((0, 1, 2)), min_size=v.cells, max_size=v.cells))
    p.x = sum(1 << i for i, c in enumerate(cells) if c == 1)
    p.o = sum(1 << i for i, c in enumerate(cells) if c == 2)
    p.turn = draw(st.sampled_from((Side.X, Side.O)))
    return p


def test_examples_from_the_spec() -> None:
    assert Position("3/3/3 x") == Position("3x3")
    p = Position("o2/1x1/3 x")
    assert (p.mark_at(0), p.mark_at(4), p.turn) == (Side.O, Side.X, Side.X)
    q = Position("5/5/5/5/5 x 4")
    assert q.variant.name == "5x5k4" and q.to_string() == "5/5/5/5/5 x 4"
    assert Position("o../.x./... x").to_string() == "o2/1x1/3 x"
    assert Position("4x4x4").to_string() == "4/4/4/4:4/4/4/4:4/4/4/4:4/4/4/4 x"


@settings(max_examples=300, deadline=None)
@given(arbitrary_boards())
def test_notation_round_trip(p: Position) -> None:
    text = p.to_string()
    again = Position.from_string(text)
    assert again == p and again.to_string() == text
    assert eval(repr(p), {"Position": Position}) == p  # the repr pastes back
    expanded = "".join("." * int(t) if t.isdigit() else t
                       for t in _tokens(text.split()[0]))
    assert Position.from_string(" ".join([expanded, *text.split()[1:]])) == p


def _tokens(board: str) -> list[str]:
    out: list[str] = []
    for ch in board:
        if ch.isdigit() and out and out[-1].isdigit():
            out[-1] += ch
        else:
            out.append(ch)
    return out


@settings(max_examples=200, deadline=None)
@given(positions())
def test_push_pop_restores_the_position(p: Position) -> None:
    before = p.copy(stack=False)
    moves = p.legal_moves()
    for move in moves[:5]:
        p.push(move)
        assert p.pop() == move
        assert p == before
    history = p.move_stack
    while p.move_stack:
        p.pop()
    for move in history:
        p.push(move)
    assert p == before


@settings(max_examples=80, deadline=None)
@given(arbitrary_boards())
def test_winner_and_legality_unchanged_by_every_symmetry(p: Position) -> None:
    v = p.variant
    winner, status = p.winner(), p.status()
    for i in range(len(symmetries(v))):
        q = p.copy()
        q.x, q.o = transform_mask(v, i, p.x), transform_mask(v, i, p.o)
        assert q.winner() == winner
        assert q.status() == status
        assert q.canonical_key() == p.canonical_key()


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=80))
def test_random_junk_never_crashes_the_parser(text: str) -> None:
    try:
        Position.from_string(text)
    except InvalidPositionError as err:
        assert str(err)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="xo.0123456789/: XOk", max_size=40))
def test_near_miss_strings_never_crash_the_parser(text: str) -> None:
    try:
        Position.from_string(text)
    except InvalidPositionError as err:
        assert str(err)


@pytest.mark.parametrize(("text", "fragment"), [
    ("3/3/3", "expected 'BOARD SIDE'"),
    ("3/3/3 z", "side to move"),
    ("3/3/2 x", "row 3 has 2 cells"),
    ("3/3/3q x", "unexpected 'q' at character 6"),
    ("4/4/4/4:4/4/4 x", "layer 2 has 3 rows"),
    ("0/3/3 x", "must be 1-32"),
    ("33 x", "must be 1-32"),
    ("5/5/5/5/5 x 9", "k=9 does not fit"),
    ("5/5/5/5/5 x four", "k must be a whole number"),
    (":".join(["7/7/7/7/7/7/7"] * 7) + " x", "sides of at most 6"),
])
def test_malformed_strings_name_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(InvalidPositionError, match=fragment):
        Position.from_string(text)


def test_moves_and_errors() -> None:
    p = Position("3x3")
    p.push_name("b2")
    with pytest.raises(IllegalMoveError, match="b2 is already taken"):
        p.push_name("b2")
    with pytest.raises(InvalidMoveError, match="columns are a-c"):
        p.push_name("d1")
    with pytest.raises(InvalidMoveError, match="cannot read move"):
        p.push_name("bb")
    won = Position("xxx/oo1/3 o")
    with pytest.raises(IllegalMoveError, match="game is over"):
        won.push(8)
    # an agent's numpy integer is a move like any int (it once lost X's mark past bit 62):
    # anything with __index__ is, numpy's where it is installed (not with the core alone)
    class Index:
        def __index__(self) -> int:
            return 63

    moves: list[Any] = [Index()]
    with contextlib.suppress(ImportError):
        import numpy as np

        moves.append(np.int64(63))
    for move in moves:
        wide = Position("8x8")
        wide.push(move)
        assert wide.x == 1 << 63 and wide.move_stack == [63] and type(wide.move_stack[0]) is int
    for bad in (True, 1.5, "b2", None):
        with pytest.raises(InvalidMoveError, match="a move is a cell number"):
            Position("3x3").push(bad)  # type: ignore[arg-type]
    # not text where text is due: the package's errors, not AttributeError
    with pytest.raises(InvalidPositionError, match="a position is a string or a Variant"):
        Position(5)  # type: ignore[arg-type]
    with pytest.raises(VariantError, match="a variant name is text"):
        Variant.parse(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveError, match="a cell name is text"):
        Variant.parse("3x3").parse_cell(4)  # type: ignore[arg-type]
    assert won.legal_moves() == []
    with pytest.raises(IndexError):
        Position("3x3").pop()


def test_outcomes() -> None:
    assert Position("3x3").outcome() is None
    x = Position("xxx/oo1/3 o").outcome()
    assert x is not None and x.winner is Side.X and x.termination is Termination.LINE
    draw = Position("xox/xoo/oxx o").outcome()
    assert draw is not None and draw.winner is None and draw.result() == "draw"
    assert Position("xxx/oo1/3 o").winning_lines() == [(0, 1, 2)]


def test_cube_moves() -> None:
    p = Position("qubic")
    p.push_name("2:b3")
    assert p.move_stack == [16 + 8 + 1]
    assert p.move_name(25) == "2:b3"


def test_status_flags_and_messages() -> None:
    cases = {
        "xxx/3/3 o": Status.TOO_MANY_X,
        "ooo/3/3 x": Status.TOO_MANY_O,
        "xx1/o2/3 x": Status.WRONG_TURN,
        "xxx/ooo/3 x": Status.BOTH_WIN | Status.WINNER_NOT_LAST,
        "xxx/oo1/o2 x": Status.WINNER_NOT_LAST,
        "ooo/xx1/x2 x": Status.VALID,
        "xxx/ooo/xoo x": Status.TOO_MANY_O | Status.BOTH_WIN,
    }
    for text, expected in cases.items():
        p = Position(text)
        assert p.status() == expected, text
        assert len(p.problems()) == bin(int(expected)).count("1"), text
    disjoint = Position("xxxx/oooo/xxxx/oo2 o")
    assert disjoint.status() & Status.WIN_LINES_DISJOINT
    assert "share no cell" in " ".join(disjoint.problems())


@pytest.mark.parametrize("text", ["３/３/３ x", "x２/３/３ o", "3/3/3 x ３", "5/5/5/5/5 x ４"])
def test_positions_take_ascii_digits_only(text: str) -> None:
    with pytest.raises(InvalidPositionError):
        Position(text)


def test_variants_and_cells_take_ascii_only() -> None:
    for name in ("３x３", "3x3\u212a3", "5x5k４"):  # fullwidth digits, a Kelvin sign for k
        with pytest.raises(VariantError):
            Variant.parse(name)
    for cell in ("b２", "４", "1:ｂ1"):
        with pytest.raises(InvalidMoveError):
            Variant.parse("4x4x4" if ":" in cell else "3x3").parse_cell(cell)
    assert Variant.parse(" 5X5K4 ").name == "5x5k4" and Variant.parse("3x3").parse_cell(" B2") == 4


@given(positions(legal_play=False))
@settings(max_examples=150, deadline=None)
def test_threats_are_the_lines_one_move_from_done(p: Position) -> None:
    """Each threat is a line of k-1 marks of one side with its last cell empty, and every such
    line is listed: playing the threat's cell completes the line for its side."""
    v = p.variant
    expected = set()
    for line in v.lines:
        for side in (Side.X, Side.O):
            marks = [p.mark_at(c) for c in line]
            if marks.count(side) == v.k - 1 and marks.count(None) == 1:
                expected.add((side, line, line[marks.index(None)]))
    found = {(t.side, t.line, t.cell) for t in p.threats()}
    assert found == expected
    for t in p.threats():
        assert t.kind == v.line_kind(t.line)


def test_line_kinds_of_the_cubes() -> None:
    assert Variant.parse("3x3x3").line_kinds == {
        "row": 9, "column": 9, "layer diagonal": 6, "pillar": 9, "vertical diagonal": 12,
        "space diagonal": 4}
    assert sum(Variant.parse("qubic").line_kinds.values()) == 76
    assert Variant.parse("5x5k4").line_kinds == {"row": 10, "column": 10, "diagonal": 8}
    # a space diagonal of qubic, and a vertical diagonal: 1:a1, 2:a2, 3:a3, 4:a4
    q = Variant.parse("qubic")
    assert q.line_kind((0, 21, 42, 63)) == "space diagonal"
    assert q.line_kind(tuple(q.parse_cell(f"{i}:a{i}") for i in range(1, 5))) == "vertical diagonal"


@given(st.sampled_from([*VARIANTS, "9x9k5", "12x7k4", "5x5x5"]),
       st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_a_move_checked_by_its_own_lines_agrees_with_every_line(variant: str,
                                                               rng: random.Random) -> None:
    """`push` checks only the lines through the move; the outcome after every push and pop
    is the one a fresh position of the same marks finds by checking every line."""
    p = Position(variant)
    while not p.is_game_over():
        p.push(rng.choice(p.empty_cells()))
        assert p.outcome() == Position(p.to_string()).outcome()
    for _ in range(rng.randrange(1, 6)):
        if not p.move_stack:
            break
        p.pop()
        assert p.outcome() == Position(p.to_string()).outcome() is None


def test_marks_set_directly_are_checked_in_full() -> None:
    """A position whose marks are assigned (as the checker does) forgets what it knew."""
    p = Position("3x3")
    p.push(0)
    p.x, p.o = 0b111, 0b11000
    assert p.outcome() is not None and p.outcome().winner is Side.X  # type: ignore[union-attr]
    with pytest.raises(IllegalMoveError, match="game is over"):
        p.push(8)


def test_a_long_game_checks_the_lines_through_each_move_only(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """A game on 32x32 played from the empty board to its end never checks every line:
    each move reads the lines through its cell, and knows the win when it makes one."""
    calls: list[int] = []
    full_check = Position.has_line

    def counted(self: Position, side: Side) -> bool:
        calls.append(self.ply)
        return full_check(self, side)

    monkeypatch.setattr(Position, "has_line", counted)
    p = Position("32x32k5")
    rng = random.Random(3)
    while not p.is_game_over():
        p.push(rng.choice(p.empty_cells()))
    assert p.ply > 100 and p.outcome() is not None
    assert calls == []
    assert Position(p.to_string()).outcome() == p.outcome()  # the full check agrees


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["3x3", "4x4", "5x5k4", "3x3x3", "9x9k5", "11x11k5"]),
       st.integers(0, 2**32))
def test_legality_after_moves_is_the_full_checks(variant: str, seed: int) -> None:
    """A game under way knows nobody has a line, so its legality check (run before every
    computer move) reads no line; the answer is the full check's, at every ply and after
    undos."""
    rng = random.Random(seed)
    p = Position(variant)
    while not p.is_game_over():
        p.push(rng.choice(p.empty_cells()))
        if rng.random() < 0.2:
            p.pop()
        fresh = Position(p.to_string())
        assert (p.status(), p.problems()) == (fresh.status(), fresh.problems())
        assert p.empty_cells() == [c for c in range(p.variant.cells) if p.mark_at(c) is None]


def test_a_game_under_way_checks_its_legality_without_reading_lines(
        monkeypatch: pytest.MonkeyPatch) -> None:
    p = Position("19x19k5")
    for cell in (0, 40, 200):
        p.push(cell)
    monkeypatch.setattr(Position, "lines_of", lambda self, side: pytest.fail("read lines"))
    assert p.is_valid()


@given(st.integers(min_value=0, max_value=2**1100))
def test_the_cells_of_a_mask_are_its_set_bits(mask: int) -> None:
    """`cells_of` (binary digits read in C) lists the same cells as a loop over the bits."""
    from tictactoe.core.position import cells_of

    assert cells_of(mask) == [c for c in range(mask.bit_length()) if mask >> c & 1]


@pytest.mark.parametrize("variant", ["3x3", "4x4x4", "9x9k5", "19x19k5"])
def test_a_move_finds_a_line_through_it_as_the_full_check_does(variant: str) -> None:
    """`push` looks only at the lines through the move, and only once the mover has k marks;
    over random games its ending agrees with a check of every line."""
    rng = random.Random(variant)
    for _ in range(20):
        position = Position(variant)
        v = position.variant
        while not position.is_game_over():
            position.push(rng.choice(position.legal_moves()))
            mover = position.o if position.turn is Side.X else position.x
            won = any(mover & m == m for m in v.line_masks)
            outcome = position.outcome()
            assert (outcome is not None and outcome.winner is not None) == won
