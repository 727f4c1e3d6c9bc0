"""The threes of boards of five or more in a row (`Position.live_threes`): open and broken
threes of both sides, the ones a mark or the board's edge blocks, and agreement with a
reference that walks the board's rows, columns and diagonals by coordinates."""

from __future__ import annotations

import random

import pytest

from tictactoe import Position, Side
from tictactoe.core import Three


def row(pattern: str, k: int = 5) -> Position:
    """A one-row board from a pattern such as ``..xxx..`` (``.`` an empty cell)."""
    return Position(f"{pattern} x {k}")


def found(p: Position) -> list[tuple[str, tuple[int, ...], tuple[int, ...], str]]:
    return [(t.side.symbol, t.marks, t.cells, t.shape) for t in p.live_threes()]


@pytest.mark.parametrize(("pattern", "expected"), [
    # open: three in a row, an open four on either side
    ("..xxx..", [("x", (2, 3, 4), (1, 5), "open")]),
    # open, one way only: O at one end leaves a single way to an open four
    ("o.xxx...", [("x", (2, 3, 4), (5,), "open")]),
    # broken: the gap makes the open four, and only the gap
    (".xx.x.", [("x", (1, 2, 4), (3,), "broken")]),
    (".x.xx.", [("x", (1, 3, 4), (2,), "broken")]),
    # O's threes too
    ("..ooo..", [("o", (2, 3, 4), (1, 5), "open")]),
    (".oo.o.", [("o", (1, 2, 4), (3,), "broken")]),
])
def test_open_and_broken_threes(pattern: str, expected: list[object]) -> None:
    assert found(row(pattern)) == expected


@pytest.mark.parametrize("pattern", [
    "oxxx....",   # blocked at one end: one more mark makes a four, never an open four
    "..xxxo",     # blocked at the other end, the edge two cells on
    ".xxx.",      # the board's edges leave no room for an open four (six cells)
    "xxx....",    # against the edge
    ".x..xx.",    # two gaps: one more mark is still a three
    ".xxox..",    # O inside
    ".xx.xo",     # broken, with O where the open four's end would be
    "......",     # nothing
    "..xx...",    # a two
])
def test_blocked_and_missing_threes(pattern: str) -> None:
    assert found(row(pattern)) == []


def test_both_sides_x_first_then_by_marks() -> None:
    # O's open three on row 1, X's broken three on row 3 and X's open three on row 5
    p = Position("2ooo3/8/1xx1x3/8/2xxx3/8/8/8 o 5")
    assert found(p) == [
        ("x", (17, 18, 20), (19,), "broken"),
        ("x", (34, 35, 36), (33, 37), "open"),
        ("o", (2, 3, 4), (1, 5), "open"),
    ]
    assert {t.kind for t in p.live_threes()} == {"row"}


def test_columns_and_diagonals_and_no_wrapping() -> None:
    p = Position("15x15k5")
    for name in ("e5", "a15", "f6", "b15", "g7", "c15"):  # X: e5 f6 g7, a diagonal
        p.push_name(name)
    [three] = p.live_threes()
    assert (three.side, three.kind, three.shape) == (Side.X, "diagonal", "open")
    assert [p.move_name(c) for c in three.cells] == ["d4", "h8"]
    # O's a15 b15 c15 lie against the edge: d15 makes a four, not an open four
    assert all(t.side is Side.X for t in p.live_threes())
    # marks in consecutive cells across the end of a row are no line: n1 o1 then a2
    q = Position("15x15k5")
    for name in ("n1", "h8", "o1", "h10", "a2", "h12"):
        q.push_name(name)
    assert q.live_threes() == []


def test_none_below_five_in_a_row() -> None:
    assert Position("..xxx.. x 4").live_threes() == []
    assert Position("4x4x4").live_threes() == []
    assert Position("xx1/3/o1o x").live_threes() == []


def reference(p: Position) -> set[tuple[Side, tuple[int, ...], tuple[int, ...], str]]:
    """The threes by coordinates: every k+1 cells in a row of a flat board whose two ends are
    empty and whose inside holds k-2 marks of one side and one empty cell."""
    v = p.variant
    rows, columns, k = v.rows, v.columns, v.k
    threes: dict[tuple[Side, tuple[int, ...]], set[int]] = {}
    for r in range(rows):
        for c in range(columns):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = r + dr * k, c + dc * k
                if not (0 <= end_r < rows and 0 <= end_c < columns):
                    continue
                cells = [(r + dr * i) * columns + c + dc * i for i in range(k + 1)]
                if p.mark_at(cells[0]) is not None or p.mark_at(cells[-1]) is not None:
                    continue
                inside = cells[1:-1]
                for side in (Side.X, Side.O):
                    gaps = [cell for cell in inside if p.mark_at(cell) is not side]
                    if len(gaps) == 1 and p.mark_at(gaps[0]) is None:
                        marks = tuple(sorted(cell for cell in inside if cell != gaps[0]))
                        threes.setdefault((side, marks), set()).add(gaps[0])
    # open: the cells that make the open four lie outside the marks; broken: inside them
    return {(side, marks, tuple(sorted(gaps)),
             "broken" if any(marks[0] < g < marks[-1] for g in gaps) else "open")
            for (side, marks), gaps in threes.items()}


@pytest.mark.parametrize("board", ["9x9k5", "7x11k5", "10x10k6"])
def test_agrees_with_a_walk_by_coordinates(board: str) -> None:
    generator = random.Random(board)
    for _ in range(60):
        p = Position(board)
        cells = list(range(p.variant.cells))
        generator.shuffle(cells)
        # a crowded corner makes threes likely: marks in a quarter of the board
        near = [c for c in cells if p.variant.coordinates(c)[0] < 6
                and p.variant.coordinates(c)[1] < 7][:generator.randrange(4, 22)]
        for cell in near:
            if p.outcome() is not None:
                break
            p.push(cell)
        assert {(t.side, t.marks, t.cells, t.shape) for t in p.live_threes()} == reference(p)


def test_each_cell_makes_an_open_four() -> None:
    """Adding the side's mark at any listed cell gives it two cells that complete a line
    through the three (an open four)."""
    p = Position("2ooo3/8/1xx1x3/8/2xxx3/8/8/8 o 5")
    assert len(p.live_threes()) == 3
    for three in p.live_threes():
        assert isinstance(three, Three)
        for cell in three.cells:
            after = Position(_with_mark(p, cell, three.side))
            completing = {t.cell for t in after.threats() if t.side is three.side
                          and set(t.line) >= set(three.marks)}
            assert len(completing) == 2, (three, cell, completing)


def _with_mark(p: Position, cell: int, side: Side) -> str:
    """The position string of `p` with `side`'s mark added at `cell` (turn and k kept)."""
    v = p.variant
    rows = []
    for r in range(v.rows):
        marks = [side if r * v.columns + c == cell else p.mark_at(r * v.columns + c)
                 for c in range(v.columns)]
        rows.append("".join("." if mark is None else mark.symbol for mark in marks))
    return f"{'/'.join(rows)} {p.turn.symbol} {v.k}"
