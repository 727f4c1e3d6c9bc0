"""The hints (`tictactoe.search.knowledge.analyse`) give moves that a symmetry of the position
maps onto each other one value, the best known in their class, and still agree with a
brute-force evaluation of every move."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from needs import needs

from tictactoe.core import Position
from tictactoe.core.symmetry import equivalent_cells, symmetries
from tictactoe.search.knowledge import analyse, by_symmetry, move_classes
from tictactoe.search.score import Draw, ForcedWin, Heuristic, Score, Win
from tictactoe.search.solution import Solution
from tictactoe.search.solver import solve


def random_position(variant: str, marks: int, seed: int) -> Position:
    """A position `marks` random moves from the empty board, not over (fewer if the game
    would end)."""
    rng = random.Random(seed)
    position = Position(variant)
    for _ in range(marks):
        moves = [m for m in position.legal_moves() if not position.play(m).is_game_over()]
        if not moves:
            break
        position = position.play(rng.choice(moves))
    return position


def equal_in_every_class(position: Position, moves: dict[int, Score]) -> list[str]:
    """The classes of equivalent moves whose values differ, in words (empty if none)."""
    name = position.move_name
    return [f"{[name(c) for c in cells]}: {[str(moves[c]) for c in cells]}"
            for cells in equivalent_cells(position.variant, position.x, position.o)
            if len({moves[c] for c in cells}) > 1]


def test_equivalent_cells_are_the_orbits_of_the_positions_symmetries() -> None:
    """Two empty cells share a class exactly when a symmetry that keeps the position maps
    one onto the other (checked against every symmetry of the board, one by one)."""
    for variant, marks, seed in (("3x3", 0, 0), ("3x3", 1, 1), ("4x4", 2, 2), ("4x4x4", 1, 3),
                                 ("4x4x4", 0, 0), ("5x5k4", 2, 4)):
        position = random_position(variant, marks, seed)
        v = position.variant
        keeping = [p for p in symmetries(v)
                   if {p[c] for c in range(v.cells) if position.x >> c & 1}
                   == {c for c in range(v.cells) if position.x >> c & 1}
                   and {p[c] for c in range(v.cells) if position.o >> c & 1}
                   == {c for c in range(v.cells) if position.o >> c & 1}]
        classes = equivalent_cells(v, position.x, position.o)
        assert sorted(c for cells in classes for c in cells) == position.legal_moves()
        for cells in classes:
            assert {p[cells[0]] for p in keeping} == set(cells), (variant, cells)
    assert len(equivalent_cells(Position("4x4x4").variant, 0, 0)) == 2  # 16 and 48 cells


def test_a_proof_for_one_move_holds_for_its_equivalents() -> None:
    """`by_symmetry` gives every class its best known value: a proof over an estimate, an
    exact length over a bound; classes with nothing known stay as they are."""
    empty = Position("3x3")
    base = Solution(score=Heuristic(0.0), moves={c: Heuristic(0.5) for c in range(9)},
                    best=list(range(9)), proven=False, nodes=0, seconds=0.0)
    found = by_symmetry(empty, replace(base, moves={
        **base.moves, 2: ForcedWin(within=9), 8: ForcedWin(), 4: Heuristic(3.0)}))
    assert {found.moves[c] for c in (0, 2, 6, 8)} == {ForcedWin(within=9)}
    assert {found.moves[c] for c in (1, 3, 5, 7)} == {Heuristic(0.5)}
    assert found.moves[4] == Heuristic(3.0)
    assert found.score == ForcedWin(within=9) and found.best == [0, 2, 6, 8]
    exact = by_symmetry(empty, replace(base, moves={
        **base.moves, 0: Win(5), 2: ForcedWin(within=7)}))
    assert {exact.moves[c] for c in (0, 2, 6, 8)} == {Win(5)}
    assert by_symmetry(empty, base) is base  # nothing to copy: the same solution
    assert move_classes(Position("15x15k5")) is None  # past 64 cells: left alone


@needs("fast")
def test_the_empty_cube_hints_are_the_same_on_equivalent_cells() -> None:
    """On the empty cube the shipped strategy proves one corner; the 15 cells equivalent to
    it (the other corners and the 8 centre cells) read the same forced win, and the 48
    others one estimate."""
    position = Position("4x4x4")
    moves = analyse(position, seconds=1.0).moves
    assert not equal_in_every_class(position, moves)
    corners = [0, 3, 12, 15, 48, 51, 60, 63]
    assert {moves[c] for c in corners} == {ForcedWin()}
    assert sum(isinstance(s, ForcedWin) for s in moves.values()) == 16


@pytest.mark.parametrize(("variant", "marks", "seconds"), [
    ("3x3", 0, None), ("3x3", 2, None), ("4x4", 0, 0.5), ("4x4", 3, 0.5),
    ("4x4x4", 1, 0.5), ("4x4x4", 2, 0.5), ("5x5k4", 1, 0.5)])
def test_equivalent_moves_have_equal_hints(variant: str, marks: int,
                                           seconds: float | None) -> None:
    for seed in range(3):
        position = random_position(variant, marks, seed)
        moves = analyse(position, seconds=seconds).moves
        assert set(moves) == set(position.legal_moves())
        assert not equal_in_every_class(position, moves), position.to_string()


def test_the_hints_agree_with_each_move_solved_alone_on_3x3() -> None:
    """Every move's hint on 3x3 is the value of the position after it, solved on its own
    (by the readable solver), seen from the side that moved."""
    for seed in range(12):
        position = random_position("3x3", seed % 6, seed)
        hints = analyse(position, seconds=1.0).moves
        for move in position.legal_moves():
            after = position.play(move)
            outcome = after.outcome()
            if outcome is None:
                alone = solve(after, engine="python").score.after_move()
            else:  # the move ends the game: a win at once, or a draw on the last cell
                alone = Win(1) if outcome.winner is not None else Draw()
            assert hints[move] == alone, (position.to_string(), position.move_name(move))
