"""The compiled α-β search past 64 cells (`tictactoe.search.wide.alphabeta`) against a readable
Python search of the same definition, and its bookkeeping against a fresh count."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest
from needs import needs
from test_large_boards import near_centre_game, play_all
from threat_reference import ReferenceThreats

from tictactoe.core import Position, Side, Variant
from tictactoe.proof.threats import board_of, cells_of

if TYPE_CHECKING:
    import numpy as np

pytestmark = needs("fast")

MATE = 1_000_000
LEAF_WIN = 1_000
"""The readable search's wins by fours at the horizon: a mate of unstated length."""


class Readable:
    """The search of `tictactoe.search.wide.alphabeta` written plainly: no table, no beam, no
    α-β cut-offs (a cut-off does not change the value), every count taken afresh."""

    def __init__(self, variant: Variant, weights: list[int], tempo: int, quiet: int,
                 fours: bool = False) -> None:
        self.b = board_of(variant)
        self.fours = ReferenceThreats(variant) if fours else None
        self.k = variant.k
        self.w = weights
        self.tempo = tempo
        self.quiet = quiet
        self.near_cells = _near_masks(variant)

    def line_value(self, x: int, o: int) -> int:
        return self.w[x] if o == 0 else (-self.w[o] if x == 0 else 0)

    def evaluation(self, marks: tuple[int, int]) -> int:
        return sum(self.line_value((m & marks[0]).bit_count(), (m & marks[1]).bit_count())
                   for m in self.b.masks)

    def short(self, mine: int, theirs: int, by: int) -> list[int]:
        """The lines with k-`by` of `mine` and none of `theirs`."""
        return [m for m in self.b.masks if not m & theirs and (m & mine).bit_count()
                == self.k - by]

    def doubles(self, mine: int, theirs: int) -> int:
        partners: dict[int, set[int]] = {}
        for m in self.short(mine, theirs, 2):
            a, b = cells_of(m & ~mine)
            partners.setdefault(a, set()).add(b)
            partners.setdefault(b, set()).add(a)
        return sum(1 for p in partners.values() if len(p) > 1)

    def after_move(self, p: Position, cell: int, depth: int) -> int:
        """The value of `cell` for the side to move in `p`, searched `depth` plies."""
        side = 0 if p.turn is Side.X else 1
        after = [p.x, p.o]
        after[side] |= 1 << cell
        return -self.value((after[0], after[1]), 1 - side, depth - 1, 1)

    def value(self, marks: tuple[int, int], side: int, depth: int, ply: int) -> int:
        me, op = marks[side], marks[1 - side]
        if self.short(me, op, 1):
            return MATE - ply - 1
        blocks = set()
        for m in self.short(op, me, 1):
            blocks |= set(cells_of(m & ~op))
        if len(blocks) > 1:
            return -(MATE - ply - 2)
        quiet = depth <= 0
        stand = None
        if blocks:
            moves = list(blocks)
            depth += 1
        else:
            if self.doubles(me, op):
                return MATE - ply - 3
            on = self.doubles(op, me)
            if quiet:
                if self.fours is not None and self.fours.by_fours(me, op):
                    return MATE - ply - LEAF_WIN
                ev = self.evaluation(marks)
                stand = (ev if side == 0 else -ev) + self.w[1] * self.tempo
                if on:
                    stand -= self.w[self.k - 2] * 2 if on <= 2 else self.w[self.k - 1] * 2
                if depth <= -self.quiet:
                    return stand
                moves = sorted({c for m in self.short(me, op, 2) for c in cells_of(m & ~me)})
            elif on:
                moves = sorted({c for m in self.short(op, me, 2) + self.short(me, op, 2)
                                for c in cells_of(m & ~(me | op))})
            else:
                taken = me | op
                near = 0
                for c in cells_of(taken):
                    near |= self.near_cells[c]
                moves = cells_of(near & ~taken & self.b.full)
        best = stand
        for c in moves:
            after = list(marks)
            after[side] |= 1 << c
            v = -self.value((after[0], after[1]), 1 - side, depth - 1, ply + 1)
            best = v if best is None else max(best, v)
        return 0 if best is None else best


def _near_masks(variant: Variant) -> list[int]:
    from tictactoe.search.wide.engine import _box

    ptr, box = _box(variant)
    return [sum(1 << int(box[j]) for j in range(int(ptr[c]), int(ptr[c + 1])))
            for c in range(variant.cells)]


def quiet_positions(name: str, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    v = Variant.parse(name)
    return [near_centre_game(v, rng.randint(3, 12), rng) for _ in range(count)]


@pytest.mark.parametrize(("name", "depth", "quiet"), [
    ("9x9k5", 1, 1), ("9x9k5", 2, 0), ("9x9k5", 2, 1), ("7x7k4", 2, 1), ("4x4x5k4", 1, 1),
])
def test_the_compiled_search_gives_the_readable_values(name: str, depth: int,
                                                      quiet: int) -> None:
    from tictactoe.search.wide.engine import ShapeSearch, ShapeSettings

    settings = ShapeSettings(beam=10_000, quiet=quiet, leaf_fours=0)
    for p in quiet_positions(name, 6, depth * 10 + quiet):
        if p.is_game_over():
            continue
        search = ShapeSearch(p.variant, settings, table_bits=16)
        search.load(p)
        readable = Readable(p.variant, [int(w) for w in search.weights], settings.tempo, quiet)
        cells = sorted(p.legal_moves())[:12]
        values = search.values(cells, depth)
        for c in cells:
            assert values[c] == readable.after_move(p, c, depth), (p.to_string(),
                                                                   p.move_name(c))


def _verdict(value: int) -> int | str:
    """A value, with every mate reduced to who wins it."""
    if value > MATE - 2 * LEAF_WIN:
        return "win"
    if value < -(MATE - 2 * LEAF_WIN):
        return "loss"
    return value


@pytest.mark.parametrize(("name", "depth", "stones"), [
    ("9x9k5", 1, (12, 22)), ("9x9k5", 2, (12, 22)), ("7x7k4", 2, (8, 16)),
])
def test_wins_by_fours_at_the_horizon_are_the_readable_ones(
        name: str, depth: int, stones: tuple[int, int]) -> None:
    from tictactoe.search.wide.engine import ShapeSearch, ShapeSettings

    settings = ShapeSettings(beam=10_000, quiet=1, leaf_fours=10**7, fours_depth=40)
    without = ShapeSettings(beam=10_000, quiet=1, leaf_fours=0)
    rng = random.Random(depth)
    v = Variant.parse(name)
    seen_only_by_fours = 0
    for p in [near_centre_game(v, rng.randint(*stones), rng) for _ in range(8)]:
        if p.is_game_over():
            continue
        search = ShapeSearch(p.variant, settings, table_bits=16)
        search.load(p)
        readable = Readable(p.variant, [int(w) for w in search.weights], settings.tempo, 1,
                            fours=True)
        cells = sorted(p.legal_moves())[:10]
        values = search.values(cells, depth)
        plain = ShapeSearch(p.variant, without, table_bits=16)
        plain.load(p)
        plain_values = plain.values(cells, depth)
        for c in cells:
            expected = readable.after_move(p, c, depth)
            assert _verdict(values[c]) == _verdict(expected), (p.to_string(), p.move_name(c))
            seen_only_by_fours += _verdict(plain_values[c]) != _verdict(values[c])
    assert (depth == 2 and name == "9x9k5") or seen_only_by_fours > 0


def test_a_search_leaves_its_tables_as_a_fresh_load_makes_them() -> None:
    from tictactoe.search.wide.engine import ShapeSearch

    for p in quiet_positions("15x15k5", 5, 3):
        search = ShapeSearch(p.variant, table_bits=16)
        search.load(p)
        search.deepen(search.order(p.legal_moves())[:10], depth=4, nodes=20_000)
        after = [a.copy() for a in (search.counts, search.near)]
        evaluation = int(search.misc[4])
        lists = filed(search.members, search.where)
        search.load(p)
        assert evaluation == int(search.misc[4])
        assert lists == filed(search.members, search.where)
        for a, b in zip(after, (search.counts, search.near), strict=True):
            assert (a == b).all()


def filed(members: np.ndarray, where: np.ndarray) -> list[set[int]]:
    """The lists of lines short of a threat as sets, checking that `where` indexes them."""
    out = []
    for row in range(members.shape[0]):
        lines = [int(x) for x in members[row, 1:int(members[row, 0]) + 1]]
        assert all(int(where[line, row]) == i + 1 for i, line in enumerate(lines))
        assert int((where[:, row] != 0).sum()) == len(lines)
        out.append(set(lines))
    return out


def test_the_search_sees_a_win_and_answers_an_open_three() -> None:
    from tictactoe.search.wide.engine import ShapeSearch

    three = play_all(Position("15x15k5"), "h8 a1 i8 a3 j8")   # O must answer X's three
    search = ShapeSearch(three.variant)
    search.load(three)
    found = search.deepen(three.legal_moves(), depth=3, nodes=100_000)
    assert three.move_name(found.best) in ("g8", "k8", "f8", "l8")
    won = play_all(Position("15x15k5"), "h8 a1 i8 a3 j8 a5")   # X makes an open four
    search.load(won)
    found = search.deepen(won.legal_moves(), depth=3, nodes=100_000)
    assert won.move_name(found.best) in ("g8", "k8") and found.values[found.best] > 900_000
