"""Relevance zones, shared-pair pairings and dead cells in df-pn (`tictactoe.search.pn.dfpn`).

A disproven node's zone claims: the attacker's extra marks on any empty cells outside it
leave the win disproven. By monotonicity (an extra mark never hurts its owner) the claim
holds for every such set of marks once it holds for all of them at once, so the tests check
zones by proving, with the plain search (no zones, no shared pairs), that the attacker does
not win after taking every empty cell outside the zone.
"""

from __future__ import annotations

import random

import pytest

from tictactoe.core import Position, Side
from tictactoe.search.pn import PnSearch

PLAIN = {"zones": 0, "shared": 0, "dead": 0}


def random_position(variant: str, rng: random.Random, low: int, high: int) -> Position:
    """A position after a random number of random moves, in [low, high], game not over."""
    while True:
        position = Position(variant)
        for _ in range(rng.randint(low, high)):
            position = position.play(rng.choice(list(position.legal_moves())))
            if position.is_game_over():
                break
        if not position.is_game_over():
            return position


def with_extra(position: Position, attacker: Side, extra: int) -> Position:
    """The position with `attacker` holding the cells of `extra` too (same side to move)."""
    out = Position(position.variant)
    out.x, out.o, out.turn = position.x, position.o, position.turn
    if attacker is Side.X:
        out.x |= extra
    else:
        out.o |= extra
    return out


def zone_holds(plain: PnSearch, position: Position, attacker: Side, zone: int) -> bool:
    """Whether `attacker` still cannot win with every empty cell outside `zone` added to
    its marks (a completed line there fails the zone)."""
    full = (1 << position.variant.cells) - 1
    empty = full & ~(position.x | position.o)
    bigger = with_extra(position, attacker, empty & ~zone)
    if bigger.has_line(attacker):
        return False
    if bigger.is_game_over():
        return True  # the defender has a line, or the board is full
    return plain.prove(bigger, attacker=attacker, interruptible=False).outcome == "no-win"


@pytest.mark.parametrize(("variant", "count", "low", "high"), [
    ("5x5k4", 150, 5, 12), ("6x6k5", 100, 8, 16), ("6x5k4", 150, 5, 12)])
def test_zones_and_shared_pairs_agree_with_the_plain_search(variant: str, count: int,
                                                            low: int, high: int) -> None:
    """Both questions of hundreds of random positions get the same answer with and without
    zones and shared pairs."""
    rng = random.Random(f"zones {variant}")
    new = {side: PnSearch(variant, table_mb=16) for side in Side}
    old = {side: PnSearch(variant, table_mb=16, **PLAIN) for side in Side}
    outcomes = set()
    for _ in range(count):
        position = random_position(variant, rng, low, high)
        for side in Side:
            a = new[side].prove(position, attacker=side, interruptible=False).outcome
            b = old[side].prove(position, attacker=side, interruptible=False).outcome
            assert a == b, (position.to_string(), side)
            outcomes.add(a)
    assert outcomes == {"win", "no-win"}


def test_the_zones_kept_in_the_table_are_sound() -> None:
    """Every zone the search keeps for a disproven position (the root's and its
    children's) holds: the attacker given every cell outside it still cannot win."""
    rng = random.Random("zone soundness")
    plain = PnSearch("5x5k4", table_mb=8, **PLAIN)
    checked = 0
    for _ in range(60):
        position = random_position("5x5k4", rng, 4, 9)
        side = position.turn
        search = PnSearch("5x5k4", table_mb=8)
        if search.prove(position, attacker=side, interruptible=False).outcome != "no-win":
            continue
        for move in position.legal_moves():
            child = position.play(move)
            if child.is_game_over():
                continue
            zone = search.zone(child, side)
            if zone is None:
                continue
            assert zone_holds(plain, child, side, zone), (child.to_string(), hex(zone))
            checked += 1
    assert checked > 100


def test_a_wrong_zone_is_refuted() -> None:
    """The check above rejects a zone missing a cell that matters, and a zone that would
    cover a move that in fact wins: in positions the attacker wins, each losing move's
    zone holds and contains every winning move, and without that move it fails."""
    rng = random.Random("wrong zones")
    plain = PnSearch("5x5k4", table_mb=8, **PLAIN)
    missing = covering = 0
    for _ in range(200):
        position = random_position("5x5k4", rng, 3, 8)
        side = position.turn
        if plain.prove(position, attacker=side, interruptible=False).outcome != "win":
            continue
        wins, zones = [], []
        for move in position.legal_moves():
            child = position.play(move)
            if child.is_game_over():
                wins.append(move)
                continue
            search = PnSearch("5x5k4", table_mb=8)
            if search.prove(child, attacker=side, interruptible=False).outcome == "win":
                wins.append(move)
                continue
            zone = search.zone(child, side)
            if zone is not None:
                zones.append((child, zone))
        for child, zone in zones:
            assert zone_holds(plain, child, side, zone)
            for win in wins:
                assert zone >> win & 1  # no winning move is covered
                assert not zone_holds(plain, child, side, zone & ~(1 << win))
                covering += 1
            for c in range(25):  # a cell that matters taken out: refuted
                if zone >> c & 1 and not zone_holds(plain, child, side, zone & ~(1 << c)):
                    missing += 1
                    break
        if missing >= 20 and covering >= 20:
            break
    assert missing >= 20 and covering >= 20


def dead_cells(position: Position) -> int:
    """The empty cells every line through which holds marks of both sides, by the rules
    core's lines (the slow route)."""
    variant = position.variant
    out = 0
    for cell in range(variant.cells):
        if (position.x | position.o) >> cell & 1:
            continue
        through = [line for line in variant.line_masks if line >> cell & 1]
        if all(line & position.x and line & position.o for line in through):
            out |= 1 << cell
    return out


@pytest.mark.parametrize(("variant", "least"), [("5x5k4", 20), ("6x5k4", 20), ("4x4x4", 1)])
def test_live_cells_match_the_rules(variant: str, least: int) -> None:
    """The kernel's live cells are the empty cells that are not dead by the rules."""
    import numpy as np

    from tictactoe.search.pn import dfpn
    from tictactoe.search.pn.tables import tables

    t = tables(Position(variant).variant)
    rng = random.Random(f"dead {variant}")
    found = 0
    for _ in range(200):
        position = random_position(variant, rng, 6, 30)
        empty = position.variant.full_mask & ~(position.x | position.o)
        live = int(dfpn.live_cells(np.uint64(position.x), np.uint64(position.o), t.full,
                                   t.lines))
        assert live == empty & ~dead_cells(position), position.to_string()
        found += bool(empty & ~live)
    assert found >= least  # positions with dead cells were met


@pytest.mark.parametrize(("variant", "count", "low", "high"), [
    ("5x5k4", 150, 10, 16), ("6x5k4", 150, 10, 16)])
def test_dead_cells_left_out_agree_with_the_plain_search(variant: str, count: int, low: int,
                                                         high: int) -> None:
    """Leaving out moves on dead cells keeps the answer to both questions on positions
    late enough to have dead cells, and does leave moves out."""
    rng = random.Random(f"dead cells {variant}")
    new = {side: PnSearch(variant, table_mb=16, zones=0, shared=0) for side in Side}
    old = {side: PnSearch(variant, table_mb=16, **PLAIN) for side in Side}
    cuts = 0
    outcomes = set()
    for _ in range(count):
        position = random_position(variant, rng, low, high)
        for side in Side:
            result = new[side].prove(position, attacker=side, interruptible=False)
            b = old[side].prove(position, attacker=side, interruptible=False).outcome
            assert result.outcome == b, (position.to_string(), side)
            outcomes.add(b)
            cuts += result.stats["dead_cuts"]
    assert outcomes == {"win", "no-win"}
    assert cuts > 0
