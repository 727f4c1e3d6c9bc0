"""Replays in proof files (format version 4): ``R n c1 ... cn V h1 ... hj``.

A replay covers every reply after which the prover wins by the threat sequence whose
prover moves are ``h1 ... hj``, followed strictly. The checker's rule is compared with a
literal reading of ``docs/proof-format.md`` and with its own threat search (``F``), which
must find a win after every reply a replay covers.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from tictactoe.core import Position, Side, Variant, symmetries
from tictactoe.proof import ProofCheckError, ProofFormatError, check_proof
from tictactoe.proof.format import (
    VERSION,
    VERSIONS,
    ProofWriter,
    format_node,
    iter_records,
    read_header,
)
from tictactoe.proof.threats import ThreatSearch

DOC = Path(__file__).resolve().parent.parent / "docs" / "proof-format.md"


# ----------------------------------------------------------------------------- helpers
def position(variant: str, x: str, o: str) -> Position:
    """The position with X and O on the named cells; O to move if X has one mark more."""
    v = Variant.parse(variant)
    out = Position(v)
    out.x = sum(1 << v.parse_cell(c) for c in x.split())
    out.o = sum(1 << v.parse_cell(c) for c in o.split())
    out.turn = Side.O if out.x.bit_count() > out.o.bit_count() else Side.X
    return out


def sides(pos: Position) -> tuple[int, int]:
    """(the prover's marks, the opponent's): the prover is the side not to move."""
    return (pos.o, pos.x) if pos.turn is Side.X else (pos.x, pos.o)


def threats(variant: Variant, mine: int, theirs: int) -> int:
    """The empty cells completing a line of `mine`, by the definition, line by line."""
    out = 0
    for line in variant.lines:
        own = [c for c in line if mine >> c & 1]
        empty = [c for c in line if not (mine | theirs) >> c & 1]
        if len(own) == variant.k - 1 and len(empty) == 1:
            out |= 1 << empty[0]
    return out


def replay_wins(variant: Variant, mine: int, theirs: int, hints: tuple[int, ...]) -> bool:
    """The replay's steps a-d as ``docs/proof-format.md`` states them, the prover to move."""
    i = 0
    while True:
        if threats(variant, mine, theirs):  # a
            return True
        blocks = threats(variant, theirs, mine)  # b
        if blocks.bit_count() >= 2:
            return False
        if blocks and (i >= len(hints) or blocks != 1 << hints[i]):
            return False
        if i >= len(hints) or (mine | theirs) >> hints[i] & 1:  # c
            return False
        mine |= 1 << hints[i]  # d
        made = threats(variant, mine, theirs)
        if made.bit_count() >= 2:
            return True
        if not made:
            return False
        theirs |= made
        i += 1


def uncovered(pos: Position, hints: tuple[int, ...]) -> list[int]:
    """The empty cells that neither immediate win nor the replay covers (symmetry aside)."""
    variant = pos.variant
    mine, theirs = sides(pos)
    out = []
    for r in range(variant.cells):
        if (mine | theirs) >> r & 1:
            continue
        completes = threats(variant, theirs, mine) >> r & 1  # a line of the opponent
        wins_at_once = threats(variant, mine, theirs | 1 << r)
        if completes or (not wins_at_once and not replay_wins(variant, mine, theirs | 1 << r,
                                                             hints)):
            out.append(r)
    return out


def replay_proof(pos: Position | str, hints: tuple[int, ...], *, omit: tuple[int, ...] = (),
                 listed: list[int] | None = None) -> bytes:
    """A win proof for the side not to move: ``R`` with the replay `hints`, listing the
    replies it does not cover (or `listed`), all but `omit`, each followed by ``F`` with the
    threat search's sequence as the hint (no cells if it finds none)."""
    pos = pos if isinstance(pos, Position) else Position.from_string(pos)
    mine, theirs = sides(pos)
    variant = pos.variant
    if listed is None:
        blocked = threats(variant, theirs, mine)  # such a reply cannot be listed
        listed = [c for c in uncovered(pos, hints) if c not in omit and not blocked >> c & 1]
    search = ThreatSearch(variant)
    buffer = io.BytesIO()
    prover = pos.turn.other
    with ProofWriter(buffer, position=pos, value=prover.symbol) as writer:
        writer.section(prover, "win")
        writer.replies(listed, replay=hints)
        for r in listed:
            writer.forced(search.run(mine, theirs | 1 << r) or ())
    return buffer.getvalue()


def check_error(data: bytes) -> str:
    with pytest.raises(ProofCheckError) as info:
        check_proof(data)
    return str(info.value)


def format_error(data: bytes) -> str:
    with pytest.raises(ProofFormatError) as info:
        check_proof(data)
    return str(info.value)


# X c3 d3 c4, O a1 f6, O to move: X b3 makes b3 c3 d3 with threats at a3 and e3
SIX = position("6x6k4", "c3 d3 c4", "a1 f6")
# X e5 f5 d3, O g5 a9, O to move: X d5 threatens c5 only (g5 is O's), O blocks, and X d4
# makes d3 d4 d5 with threats at d2 and d6
NINE = position("9x9k4", "e5 f5 d3", "g5 a9")


# ----------------------------------------------------------------------------- accepted
def test_the_example_in_the_format_document_is_accepted_and_rebuilt() -> None:
    """The replay example in docs/proof-format.md: the checker accepts it, and
    `replay_proof` (the replies the replay leaves, each with the threat search's ``F``)
    writes it again byte for byte."""
    examples = re.findall(r"<!-- replay example: (.+?); V ([\d ]+) -->\n```\n(.*?)```\n",
                          DOC.read_text(), flags=re.DOTALL)
    assert len(examples) == 1
    for text, hint, body in examples:
        assert text == SIX.to_string()
        data = body.encode()
        stats = check_proof(data)
        assert (stats.value, stats.replies_listed, stats.replies_by_replay) == ("x", 3, 28)
        assert "28 by replays" in stats.summary()
        assert read_header(data).version == 4
        assert replay_proof(text, tuple(map(int, hint.split()))) == data


def test_a_replay_of_two_moves_on_a_board_past_64_cells() -> None:
    data = replay_proof(NINE, (39, 30))
    assert data.decode().splitlines()[2] == "R 5 12 30 38 39 48 V 39 30"
    stats = check_proof(data)
    assert (stats.replies_listed, stats.replies_by_replay, stats.forced_derived) == (5, 71, 5)


def test_a_replay_on_32x32_checks_a_thousand_replies_quickly() -> None:
    """Gomoku's typical case on the largest board: X has two open threes, and V m17 makes
    the one on row 17 an open four; the three replies at its ends are listed (X then wins on
    row 10)."""
    pos = position("32x32k5", "n17 o17 p17 n10 o10 p10", "a1 af32 a32 af1 d21")
    hints = (Variant.parse("32x32k5").parse_cell("m17"),)
    data = replay_proof(pos, hints, listed=[523, 524, 528])
    assert data.decode().splitlines()[2:] == ["R 3 523 524 528 V 524"] + ["F 300"] * 3
    started = time.perf_counter()
    stats = check_proof(data)
    assert stats.replies_by_replay == 1024 - 11 - 3
    assert time.perf_counter() - started < 0.5  # about 0.01 s: microseconds per reply


def test_a_replay_in_a_hold_section() -> None:
    """3x3, X a1 c3, O b2, O to move: a draw. In X's hold proof O's corner c1 (cell 2) loses
    to X a3, which blocks O's threat and makes two threats; V 6 covers it."""
    lines = ["S x hold", "R 2 1 6 V 6", "M 7", "R 1 6", "M 2", "R 1 5", "M 3", "R 0",
             "F 2", "S o hold", "M 1", "R 1 7", "M 6", "R 1 2", "M 5", "R 1 3", "E"]
    header = ('{"format": "tictactoe-proof", "version": 4, "variant": "3x3", '
              f'"position": "x2/1o1/2x o", "value": "draw", "lines": {len(lines)}}}')
    stats = check_proof("\n".join([header, *lines]).encode())
    assert (stats.value, stats.replies_by_replay) == ("draw", 1)


# ----------------------------------------------------------------------------- rejected
def test_a_reply_that_takes_the_first_hint() -> None:
    assert check_error(replay_proof(SIX, (13,), omit=(13,))) == (
        "line 3: R: O's reply 13 (b3) is not covered: it takes V's move 13 (b3) (step 1) "
        "(position 'o5/6/2xx2/2x3/6/5o o 4')")


def test_a_reply_that_blocks_the_final_double_threat() -> None:
    assert check_error(replay_proof(SIX, (13,), omit=(16,))) == (
        "line 3: R: O's reply 16 (e3) is not covered: after it V's move 13 (b3) makes one "
        "threat of X, at 12 (a3); O blocks it and V has no move left (step 2) "
        "(position 'o5/6/2xx2/2x3/6/5o o 4')")


def test_a_replay_whose_moves_run_out_without_a_double_threat() -> None:
    message = check_error(replay_proof(NINE, (39, 30), omit=(12,)))
    assert message.startswith(
        "line 3: R: O's reply 12 (d2) is not covered: after it V's move 30 (d4) makes one "
        "threat of X, at 48 (d6); O blocks it and V has no move left (step 3)")


def test_a_hint_that_makes_no_threat() -> None:
    message = check_error(replay_proof(NINE, (39, 30), omit=(38,)))
    assert "reply 38 (c5) is not covered: after it V's move 39 (d5) makes no threat of X " \
           "(step 1)" in message


def test_a_hint_taken_by_the_opponents_forced_block() -> None:
    message = check_error(replay_proof(NINE, (39, 38), listed=[]))
    assert "reply 0 (a1) is not covered: after it V's move 38 (c5) is taken by O's forced " \
           "block (step 2)" in message


def test_a_reply_that_makes_a_threat_of_the_opponent_elsewhere() -> None:
    pos = position("6x6k4", "c3 d3 c4", "e6 f6")
    message = check_error(replay_proof(pos, (13,), omit=(33,)))
    assert message == (
        "line 3: R: O's reply 33 (d6) is not covered: after it O has a threat at 32 (c6), not "
        f"at V's move 13 (b3) (step 1) (position {pos.to_string()!r})")


def test_a_reply_that_makes_threats_of_the_opponent_on_two_cells() -> None:
    pos = position("6x6k4", "c3 d3 c4", "d6 e6")
    message = check_error(replay_proof(pos, (13,), omit=(32,)))
    assert "R: O's reply 32 (c6) is not covered: after it O has threats on two cells, 31 (b6) " \
           "and 35 (f6) (step 1)" in message


def test_a_threat_of_the_opponent_after_the_last_hint() -> None:
    """X b5 makes b3 b4 b5 with one threat, b2 (O has b6); O's forced block there makes b2 c2
    d2, a threat at a2 (X has e2), and no hint is left to answer it."""
    pos = position("6x6k4", "b3 b4 e2 f6", "b6 c2 d2")
    message = check_error(replay_proof(pos, (25,), listed=[]))
    assert "R: O's reply 0 (a1) is not covered: after it O has a threat at 6 (a2) and V has " \
           "no move left (step 2)" in message


def test_a_reply_that_completes_a_line_of_the_opponent() -> None:
    pos = position("6x6k4", "c3 d3 c4 a1", "d6 e6 f6")
    message = check_error(replay_proof(pos, (13,), omit=(32,)))
    assert message.startswith("line 3: R: O's reply 32 (c6) is not covered: it completes a "
                              "line for O")


def test_a_hint_taken_at_the_node() -> None:
    assert check_error(replay_proof(SIX, (14,), listed=[])) == (
        "line 3: V: cell 14 (c3) of the replay is taken (position 'o5/6/2xx2/2x3/6/5o o 4')")


# ----------------------------------------------------------------------------- the format
def test_the_reader_keeps_the_replay() -> None:
    records = list(iter_records(replay_proof(NINE, (39, 30))))
    assert (records[1].kind, records[1].cells, records[1].replay) == (
        "R", (12, 30, 38, 39, 48), (39, 30))
    assert records[1].cover == () and records[2].replay == ()
    assert format_node("R", (12, 30), replay=(39, 30)) == "R 2 12 30 V 39 30"
    assert (VERSION, VERSIONS) == (4, (1, 2, 3, 4))


def edited(line: str, version: int = 4) -> bytes:
    """The 6x6 example with its ``R`` line replaced."""
    text = replay_proof(SIX, (13,)).decode().replace("R 3 12 13 16 V 13", line)
    return text.replace('"version": 4', f'"version": {version}').encode()


@pytest.mark.parametrize(("line", "message"), [
    ("R 3 12 13 16 V", "'R 3 12 13 16 V': a replay 'V' lists no cell"),
    ("R 3 12 13 16 V 13 x", "bad token 'x' in 'R 3 12 13 16 V 13 x'"),
    ("R 3 12 13 16 V 36", "bad token '36'"),
    ("R 3 12 13 16 V 13 4 13", "'R 3 12 13 16 V 13 4 13': the replay 'V' lists cell 13 twice"),
    ("R 3 12 13 16 Z 5 V 13", "has both a zone cover 'Z' and a replay 'V'"),
    ("R 3 12 13 16 V 13 Z 5", "has both a zone cover 'Z' and a replay 'V'"),
    ("R 3 12 13 V 13", "'R 3 12 13 V 13' announces 3 replies but lists 4"),
])
def test_malformed_replays(line: str, message: str) -> None:
    assert format_error(edited(line)).startswith("line 3: ")
    assert message in format_error(edited(line))


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_replay_needs_version_4(version: int) -> None:
    assert format_error(edited("R 3 12 13 16 V 13", version)) == (
        f"line 3: a replay 'V' needs format version 4; this file is version {version}")


def test_the_writer_marks_version_4_only_with_a_replay() -> None:
    for replay, version in [((), 1), ((13,), 4)]:
        buffer = io.BytesIO()
        with ProofWriter(buffer, position=SIX, value="x") as writer:
            writer.section("x", "win")
            writer.replies([12], replay=replay)
            writer.forced([8])
        assert read_header(buffer.getvalue()).version == version
        assert buffer.getvalue().decode().splitlines()[2] == format_node("R", [12], replay=replay)
    for order in ("VT", "TV"):  # a zone cover or T (version 3) does not lower it again
        buffer = io.BytesIO()
        with ProofWriter(buffer, position="3/3/3 x", value="draw") as writer:
            for part in order:
                if part == "V":
                    writer.section("o", "hold")
                    writer.replies([], replay=(4,))
                else:
                    writer.section("x", "hold")
                    writer.stealing()
        assert read_header(buffer.getvalue()).version == 4, order


@pytest.mark.parametrize(("call", "message"), [
    (lambda w: w.node("M", (1,), replay=(2,)), "only an 'R' node has a zone cover or a replay"),
    (lambda w: w.replies([], cover=(1,), replay=(2,)), "at most one of a zone cover and a"),
    (lambda w: w.replies([], replay=(2, 2)), "lists a cell twice"),
    (lambda w: w.replies([], replay=(9,)), "off the 3x3 board"),
])
def test_the_writer_refuses_bad_replays(call: object, message: str) -> None:
    writer = ProofWriter(io.BytesIO(), position="x2/1o1/2x o", value="x")
    writer.section("x", "win")
    with pytest.raises(ValueError, match=message):
        call(writer)  # type: ignore[operator]
    writer.discard()


# ----------------------------------------------------------------------------- properties
BOARDS = ["4x4k3", "5x5k3", "5x5k4", "6x6k4", "5x6k4", "3x3"]


@st.composite
def nodes(draw: st.DrawFn) -> tuple[Position, tuple[int, ...], int | None]:
    """A position that can arise (game not over, the prover not to move), a replay (mostly
    on empty cells) and one uncovered reply to leave out of the listing, or None."""
    variant = Variant.parse(draw(st.sampled_from(BOARDS)))
    cells = draw(st.permutations(range(variant.cells)))
    n_o = draw(st.integers(1, min(7, variant.cells // 2 - 1)))
    n_x = n_o + draw(st.integers(0, 1))
    pos = Position(variant)
    pos.x = sum(1 << c for c in cells[:n_x])
    pos.o = sum(1 << c for c in cells[n_x:n_x + n_o])
    pos.turn = Side.O if n_x > n_o else Side.X
    assume(not pos.problems() and not pos.is_game_over())
    empty = [c for c in range(variant.cells) if not (pos.x | pos.o) >> c & 1]
    mine, theirs = sides(pos)
    # mostly the sequence the prover would win by if the opponent passed, else cells that
    # make threats, else any empty cell, else any cell
    sequence = ThreatSearch(variant).run(mine, theirs)
    useful = sorted({c for line in variant.lines if not any(theirs >> c & 1 for c in line)
                     and sum(mine >> c & 1 for c in line) == variant.k - 2
                     for c in line if not (mine | theirs) >> c & 1})
    kind = draw(st.integers(0, 9))
    if sequence and kind < 6:
        return pos, tuple(sequence), draw(st.none() | st.integers(0, variant.cells))
    near = st.sampled_from(useful) if useful and kind < 8 else st.sampled_from(
        empty if kind < 9 else cells)
    hints = tuple(draw(st.lists(near, min_size=1, max_size=3, unique=True)))
    drop = draw(st.none() | st.integers(0, variant.cells))
    return pos, hints, drop


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.filter_too_much])
@given(nodes())
def test_the_checker_follows_the_definition_and_its_own_threat_search(
        case: tuple[Position, tuple[int, ...], int | None]) -> None:
    """List the replies the literal definition leaves uncovered, maybe but one: the ``R``
    node passes exactly when nothing is left out (or symmetry covers what is), and then the
    threat search finds a win after every reply the replay covers."""
    pos, hints, drop = case
    variant = pos.variant
    mine, theirs = sides(pos)
    taken = mine | theirs
    left = uncovered(pos, hints)
    blocked = threats(variant, theirs, mine)
    omit = left[drop % len(left)] if left and drop is not None else None
    listed = [c for c in left if c != omit and not blocked >> c & 1]
    data = replay_proof(pos, hints, listed=listed)
    try:
        check_proof(data)
        node_ok = True
    except ProofCheckError as err:
        node_ok = err.line != 3
        if not node_ok:
            event("R rejected")
        if not node_ok:
            assert "is not covered" in str(err) or "of the replay is taken" in str(err), err
    keeping = [perm for perm in symmetries(variant)
               if all((mine >> perm[c] & 1, theirs >> perm[c] & 1)
                      == (mine >> c & 1, theirs >> c & 1) for c in range(variant.cells))]
    images = {perm[c] for perm in keeping for c in listed}
    missing = {c for c in left if c not in listed and c not in images}
    hints_empty = not any(taken >> h & 1 for h in hints)
    assert node_ok == (hints_empty and not missing), (pos.to_string(), hints, listed, missing)
    if node_ok:
        by_replay = [r for r in range(variant.cells) if not taken >> r & 1 and r not in left
                     and not threats(variant, mine, theirs | 1 << r)]
        event(f"R accepted, {'some' if by_replay else 'no'} replies by the replay alone")
        search = ThreatSearch(variant)
        for r in range(variant.cells):
            if taken >> r & 1 or r in listed or r in images:
                continue
            assert not blocked >> r & 1
            assert search.run(mine, theirs | 1 << r, hints) is not None, (pos.to_string(), r)
