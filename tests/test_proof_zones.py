"""Pass subtrees in proof files (format version 4): ``R n c1 ... cn Y``.

After the listed replies' subtrees comes the *pass subtree* T, the prover's strategy for the
position where the opponent passed. The checker checks T in zone mode and gathers its zone;
every reply outside the zone is covered, since an extra mark of the opponent there changes
no check of T. The soundness test below checks exactly that claim with the ordinary checker:
for random positions and pass subtrees, and every cell z outside the zone, the file of the
position with z the opponent's, whose tree is T unchanged, checks.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from tictactoe.core import Position, Side, Variant
from tictactoe.proof import ProofCheckError, ProofError, ProofFormatError, check_proof
from tictactoe.proof.check import subtree_zone, zone_rules
from tictactoe.proof.format import (
    ProofWriter,
    format_node,
    iter_records,
    parse_nodes,
    read_header,
)
from tictactoe.proof.threats import (
    Board,
    ThreatSearch,
    board_of,
    cells_of,
    has_line,
    threat_cells,
    threats_through,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "proof-format.md"


# ----------------------------------------------------------------------------- helpers
def marks(variant: Variant, names: str) -> int:
    return sum(1 << variant.parse_cell(c) for c in names.split())


def cell(variant: Variant, name: str) -> int:
    return variant.parse_cell(name)


def header(variant: Variant, mine: int, theirs: int, prover_to_move: bool, lines: int,
           prover: str = "x", version: int = 4) -> str:
    """The header of a win proof for `prover`, whose marks are `mine`."""
    pos = Position(variant)
    pos.x, pos.o = (mine, theirs) if prover == "x" else (theirs, mine)
    side = Side.parse(prover)
    pos.turn = side if prover_to_move else side.other
    return json.dumps({"format": "tictactoe-proof", "version": version,
                       "variant": variant.name, "position": pos.to_string(),
                       "value": prover, "lines": lines})


def proof(variant: Variant, mine: int, theirs: int, prover_to_move: bool, body: list[str],
          prover: str = "x", version: int = 4) -> bytes:
    lines = [f"S {prover} win", *body]
    return "".join(line + "\n" for line in [
        header(variant, mine, theirs, prover_to_move, len(lines), prover, version),
        *lines]).encode()


def pass_proof(variant: Variant, mine: int, theirs: int, tree: list[str], *,
               omit: tuple[int, ...] = (), subtrees: dict[int, list[str]] | None = None
               ) -> bytes:
    """The win proof of X at the position (O to move) by ``R n ... Y``: T is `tree`, the
    replies listed are the zone's cells that immediate win does not cover (all but `omit`),
    each answered by its entry in `subtrees` or else by an ``F`` with the threat search's
    sequence as its hint."""
    board = board_of(variant)
    zone = subtree_zone(variant, mine, theirs, "x", tree)
    threats = threat_cells(board, mine, theirs)
    empty = board.full & ~(mine | theirs)
    if threats.bit_count() >= 2:
        zone = 0
    elif threats:
        zone &= threats
    listed = [c for c in cells_of(zone & empty) if c not in omit]
    search = ThreatSearch(variant)
    children = []
    for r in listed:
        if subtrees and r in subtrees:
            children += subtrees[r]
            continue
        hint = search.run(mine, theirs | 1 << r)
        assert hint is not None, f"no threat sequence after {variant.cell_name(r)}"
        children.append(format_node("F", hint))
    return proof(variant, mine, theirs, False,
                 [format_node("R", listed, passed=True), *children, *tree])


def check_error(data: bytes) -> str:
    with pytest.raises(ProofCheckError) as info:
        check_proof(data)
    return str(info.value)


def format_error(data: bytes) -> str:
    with pytest.raises(ProofFormatError) as info:
        check_proof(data)
    return str(info.value)


def names(variant: Variant, mask: int) -> list[str]:
    return [variant.cell_name(c) for c in cells_of(mask)]


# 7x7k4, O to move: X has two open twos, c2 d2 and c4 d4; O has three corners. After a pass
# X e4 makes c4 d4 e4 with threats at b4 and f4.
SEVEN = Variant.parse("7x7k4")
SEVEN_X = marks(SEVEN, "c2 d2 c4 d4")
SEVEN_O = marks(SEVEN, "g1 a7 g7")
SEVEN_T = ["M 25", "R 0"]
# 9x9k4, O to move: X has open twos c5 d5 and c2 d2, O three corners.
NINE = Variant.parse("9x9k4")
NINE_X = marks(NINE, "c5 d5 c2 d2")
NINE_O = marks(NINE, "a9 i9 i1")


# ----------------------------------------------------------------------------- accepted
def test_the_example_in_the_format_document_is_accepted_and_rebuilt() -> None:
    examples = re.findall(r"<!-- pass example -->\n```\n(.*?)```\n", DOC.read_text(),
                          flags=re.DOTALL)
    assert len(examples) == 1
    data = examples[0].encode()
    stats = check_proof(data)
    assert (stats.replies_listed, stats.replies_by_pass, stats.pass_subtrees) == (3, 39, 1)
    assert "39 by 1 pass subtree" in stats.summary()
    assert read_header(data).version == 4
    assert pass_proof(SEVEN, SEVEN_X, SEVEN_O, SEVEN_T) == data
    buffer = io.BytesIO()  # and the writer writes it too
    position = json.loads(examples[0].splitlines()[0])["position"]
    with ProofWriter(buffer, position=position, value="x") as writer:
        writer.section("x", "win")
        writer.replies([22, 25, 26], passed=True)
        for _ in range(3):
            writer.forced([8])
        writer.move(25)
        writer.replies([])
    assert buffer.getvalue() == data


def test_the_zone_of_the_example() -> None:
    zone = subtree_zone(SEVEN, SEVEN_X, SEVEN_O, "x", SEVEN_T)
    assert names(SEVEN, zone) == ["b4", "e4", "f4"]  # rule 1: e4; rule 3: b4 f4
    assert subtree_zone("7x7k4", SEVEN_X, SEVEN_O, "x", iter(SEVEN_T)) == zone


# O a7 b7: the line a7 b7 c7 d7 would be a threat of O with one more mark. After O c7 (or
# d7) X blocks at d7 (or c7), and the replay e4 covers O's replies but b4 e4 f4.
SEVEN_O2 = marks(SEVEN, "g1 a7 b7")
SEVEN_BLOCKS = {44: ["M 45", "R 3 22 25 26 V 25", "F 8", "F 8", "F 8"],
                45: ["M 44", "R 3 22 25 26 V 25", "F 8", "F 8", "F 8"]}


def test_rule_2_takes_the_lines_with_k_minus_2_marks_of_the_opponent() -> None:
    zone = subtree_zone(SEVEN, SEVEN_X, SEVEN_O2, "x", SEVEN_T)
    assert names(SEVEN, zone) == ["b4", "e4", "f4", "c7", "d7"]
    stats = check_proof(pass_proof(SEVEN, SEVEN_X, SEVEN_O2, SEVEN_T, subtrees=SEVEN_BLOCKS))
    assert (stats.replies_listed, stats.replies_by_pass) == (5 + 6, 37)


def test_zone_rules_counts_each_cell_once_by_its_first_rule() -> None:
    """The example: e4 by rule 1, b4 f4 by rule 3; with O's a7 b7, c7 d7 by rule 2; with a
    nested pass subtree, its cells by rule 4 (unless an earlier rule took them)."""
    assert zone_rules(SEVEN, SEVEN_X, SEVEN_O, "x", SEVEN_T) == {1: 1, 3: 2}
    assert zone_rules(SEVEN, SEVEN_X, SEVEN_O2, "x", SEVEN_T) == {1: 1, 2: 2, 3: 2}
    tree = ["M 13", "R 0 Y", "M 40", "R 0"]
    rules = zone_rules(NINE, NINE_X, NINE_O, "x", tree)
    assert sum(rules.values()) == subtree_zone(NINE, NINE_X, NINE_O, "x", tree).bit_count()
    assert rules[4] == len(["b5", "e5", "f5"])  # the nested pass subtree's own cells


def test_a_replay_inside_a_pass_subtree() -> None:
    """T: a quiet move (a1), then the replay V e5 (c5 d5 e5, threats b5 and f5); the replies
    it does not cover (b5, e5, f5) are listed, and after each X e2 makes b2 and f2 threats."""
    v = NINE
    tree = ["M 0", format_node("R", [37, 40, 41], replay=[40]), *["M 13", "R 0"] * 3]
    zone = subtree_zone(v, NINE_X, NINE_O, "x", tree)
    # rule 2 also looks at the position after each reply the replay covers: a reply next to
    # a corner of O (g1, with i1) makes a line with two marks of O (f1 g1 h1 i1)
    assert names(v, zone & ~corner_lines(v, NINE_O)) == ["a1", "b2", "e2", "f2", "b5", "e5",
                                                         "f5"]
    assert names(v, zone & marks(v, "f1 g1 h1 e1")) == ["f1", "g1", "h1"]
    stats = check_proof(pass_proof(v, NINE_X, NINE_O, tree))
    assert stats.replies_by_replay == 81 - 8 - 3  # at the V node
    assert stats.replies_by_pass == 81 - 7 - zone.bit_count()


def corner_lines(variant: Variant, theirs: int) -> int:
    """The cells of the lines through the opponent's marks."""
    board = board_of(variant)
    out = 0
    for c in cells_of(theirs):
        for m in board.through[c]:
            out |= m
    return out


def test_a_pass_subtree_inside_a_pass_subtree() -> None:
    """T: a quiet move (a1), then a nested ``Y`` whose own pass subtree is X e5 (zone b5 e5
    f5); those three replies are listed, each answered by X e2. In the nested pass subtree
    two extra marks of O are possible, so rule 2 takes there the lines with one mark of O
    (k - 3): every line through O's corners joins the zone."""
    v = NINE
    inner = ["M 40", "R 0"]
    assert names(v, subtree_zone(v, NINE_X | 1, NINE_O, "x", inner)) == ["b5", "e5", "f5"]
    tree = ["M 0", "R 3 37 40 41 Y", *["M 13", "R 0"] * 3, *inner]
    zone = subtree_zone(v, NINE_X, NINE_O, "x", tree)
    corners = corner_lines(v, NINE_O) & ~NINE_O
    assert zone == corners | marks(v, "a1 b2 e2 f2 b5 e5 f5")
    stats = check_proof(pass_proof(v, NINE_X, NINE_O, tree))
    assert (stats.pass_subtrees, stats.replies_listed) == (2, 3 + zone.bit_count())
    assert stats.replies_by_pass == (81 - 8 - 3) + (81 - 7 - zone.bit_count())
    # b8 is in the zone as a cell of the line a9 b8 c7 d6 with one mark of O, in the nested
    # pass subtree (its Y node is on line 4 + the replies listed)
    b8 = cell(v, "b8")
    message = check_error(pass_proof(v, NINE_X, NINE_O, tree, omit=(b8,)))
    nested = 4 + zone.bit_count() - 1 + 1
    assert f"R: O's reply {b8} (b8) is not covered: it is in the zone of the pass subtree " \
           f"(rule 2: the line d6 c7 b8 a9 has no mark of X and 1 of O after the pass of line " \
           f"{nested})" in message


def test_the_zone_of_a_nested_pass_subtree_joins_the_zone() -> None:
    """Rule 4: at the nested ``Y`` node X has two threats (c2 d2 e2), so no reply is listed;
    its pass subtree's move e5 is in the zone by rule 4 only."""
    v = NINE
    tree = ["M 13", "R 0 Y", "M 40", "R 0"]
    zone = subtree_zone(v, NINE_X, NINE_O, "x", tree)
    assert zone == corner_lines(v, NINE_O) & ~NINE_O | marks(v, "b2 e2 f2 b5 e5 f5")
    e5 = cell(v, "e5")
    message = check_error(pass_proof(v, NINE_X, NINE_O, tree, omit=(e5,)))
    line = 3 + zone.bit_count() - 1 + 2
    assert f"R: O's reply {e5} (e5) is not covered: it is in the zone of the pass subtree " \
           f"(rule 4: it is in the zone of the pass subtree of line {line}: rule 1: X plays " \
           f"it on line {line + 1})" in message


def test_the_nested_zone_needs_k_minus_3_lines() -> None:
    """A case the randomised test below found when rule 2 used k - 2 in nested pass
    subtrees too. With O's extra mark on e1, O's listed reply d2 in T and the nested node's
    quiet reply c3 make e1 d2 c3 with a threat at b4, which no check of the nested pass
    subtree looked at. With k - 3 there, e1 is in the zone."""
    v = Variant.parse("6x6k4")
    mine, theirs = marks(v, "c2 e2 d5"), marks(v, "e5 f5")
    tree = ["M 21", "R 1 9 V 9", "M 20", "R 3 6 13 34 Y", "F 14", "F 14", "F 14", "F 13"]
    zone = subtree_zone(v, mine, theirs, "x", tree)
    e1 = cell(v, "e1")
    assert zone >> e1 & 1
    message = check_error(proof(v, mine, theirs | 1 << e1, True, tree))
    assert message.startswith(
        "line 6: R: O's reply 14 (c3) is not covered: it is in the zone of the pass subtree "
        "(rule 2: the line e1 d2 c3 b4 has no mark of X and 2 of O after the pass of line 6)")


def test_a_listed_reply_in_the_pass_subtree_is_in_the_zone() -> None:
    """T lists a reply that immediate win covers anyway (a1): an extra mark of O there would
    make the listed reply illegal, so rule 1 puts it in the zone."""
    tree = ["M 25", "R 1 0", "W 22"]
    zone = subtree_zone(SEVEN, SEVEN_X, SEVEN_O, "x", tree)
    assert names(SEVEN, zone) == ["a1", "b4", "e4", "f4"]
    message = check_error(proof(SEVEN, SEVEN_X, SEVEN_O | 1, True, tree))
    assert "R: reply 0 (a1) is on a taken cell" in message


def test_symmetry_still_covers_replies_at_the_outermost_pass_node() -> None:
    """3 corners of O made symmetric: the mirror a <-> g keeps the position, and a listed
    reply's image in the zone is covered by symmetry."""
    v = SEVEN
    mine, theirs = marks(v, "c2 e2 c4 e4"), marks(v, "a7 g7 d1")  # mirror about column d
    tree = ["M 24", "R 0"]  # c4 d4 e4: threats b4 and f4
    assert names(v, subtree_zone(v, mine, theirs, "x", tree)) == ["b4", "d4", "f4"]
    search = ThreatSearch(v)
    body = ["R 2 22 24 Y", format_node("F", search.run(mine, theirs | 1 << 22) or ()),
            format_node("F", search.run(mine, theirs | 1 << 24) or ()), *tree]
    stats = check_proof(proof(v, mine, theirs, False, body))
    assert (stats.replies_listed, stats.replies_by_symmetry) == (2, 1)


def test_the_writer_and_the_reader() -> None:
    records = list(iter_records(pass_proof(SEVEN, SEVEN_X, SEVEN_O, SEVEN_T)))
    assert [(r.kind, r.cells, r.passed) for r in records[1:3]] == [
        ("R", (22, 25, 26), True), ("F", (8,), False)]
    assert format_node("R", (), passed=True) == "R 0 Y"
    for passed, version in [(False, 1), (True, 4)]:
        buffer = io.BytesIO()
        with ProofWriter(buffer, position="6o/2xx3/7/2xx3/7/7/o5o o 4", value="x") as writer:
            writer.section("x", "win")
            writer.node("R", [22, 25, 26] if passed else [], passed=passed)
            if passed:
                for _ in range(3):
                    writer.forced([8])
                writer.move(25)
                writer.replies([])
        assert read_header(buffer.getvalue()).version == version


@pytest.mark.parametrize(("call", "message"), [
    (lambda w: w.node("M", (1,), passed=True), "only an 'R' node has a pass subtree"),
    (lambda w: w.replies([], cover=(1,), passed=True), "has no zone cover and no replay"),
    (lambda w: w.replies([], replay=(1,), passed=True), "has no zone cover and no replay"),
])
def test_the_writer_refuses_bad_pass_nodes(call: object, message: str) -> None:
    writer = ProofWriter(io.BytesIO(), position="6o/2xx3/7/2xx3/7/7/o5o o 4", value="x")
    writer.section("x", "win")
    with pytest.raises(ValueError, match=message):
        call(writer)  # type: ignore[operator]
    writer.discard()


def test_the_writer_refuses_a_pass_subtree_in_a_hold_section() -> None:
    writer = ProofWriter(io.BytesIO(), position="3/3/3 x", value="draw")
    writer.section("o", "hold")
    with pytest.raises(ProofFormatError, match="allowed in win sections only"):
        writer.replies([], passed=True)
    writer.discard()


def test_parse_nodes() -> None:
    records = list(parse_nodes(SEVEN, ["M 25", "R 0 Y", "M 22", "R 0"], "x"))
    assert [(r.line, r.kind, r.depth, r.side, r.passed) for r in records] == [
        (1, "M", 0, "x", False), (2, "R", 1, "o", True), (3, "M", 2, "x", False),
        (4, "R", 3, "o", False)]


# ----------------------------------------------------------------------------- rejected
def test_a_reply_in_the_zone_that_is_not_listed_rule_3() -> None:
    assert check_error(pass_proof(SEVEN, SEVEN_X, SEVEN_O, SEVEN_T, omit=(22,))) == (
        "line 3: R: O's reply 22 (b4) is not covered: it is in the zone of the pass subtree "
        "(rule 3: it is a threat cell of X that the check of line 7 relies on) "
        "(position '6o/2xx3/7/2xx3/7/7/o5o o 4')")


def test_a_reply_in_the_zone_that_is_not_listed_rules_1_and_2() -> None:
    message = check_error(pass_proof(SEVEN, SEVEN_X, SEVEN_O, SEVEN_T, omit=(25,)))
    assert "R: O's reply 25 (e4) is not covered: it is in the zone of the pass subtree (rule 1: " \
           "X plays it on line 6)" in message
    message = check_error(pass_proof(SEVEN, SEVEN_X, SEVEN_O2, SEVEN_T, omit=(45,),
                                     subtrees=SEVEN_BLOCKS))
    assert message.startswith(
        "line 3: R: O's reply 45 (d7) is not covered: it is in the zone of the pass subtree "
        "(rule 2: the line a7 b7 c7 d7 has no mark of X and 2 of O after the pass of line 3)")


def test_a_reply_that_completes_a_line_of_the_opponent() -> None:
    theirs = marks(SEVEN, "g1 a7 b7 c7")
    mine = SEVEN_X | marks(SEVEN, "a1")
    message = check_error(proof(SEVEN, mine, theirs, False, ["R 0 Y", *SEVEN_T]))
    assert message.startswith("line 3: R: O's reply 45 (d7) is not covered: it completes a "
                              "line for O")


def edited(line: str, version: int = 4, claim: str = "win") -> bytes:
    text = pass_proof(SEVEN, SEVEN_X, SEVEN_O, SEVEN_T).decode()
    text = text.replace("R 3 22 25 26 Y", line).replace("S x win", f"S x {claim}")
    return text.replace('"version": 4', f'"version": {version}').encode()


@pytest.mark.parametrize(("line", "message"), [
    ("R 3 22 25 26 Y 5", "'R 3 22 25 26 Y 5': a pass subtree 'Y' ends the line (it lists no "
                         "cell)"),
    ("R 3 22 25 26 Y Y", "a pass subtree 'Y' ends the line"),
    ("R 3 22 25 26 Z 5 Y", "has both a zone cover 'Z' and a pass subtree 'Y'"),
    ("R 3 22 25 26 Y Z 5", "has both a zone cover 'Z' and a pass subtree 'Y'"),
    ("R 3 22 25 26 V 5 Y", "has both a replay 'V' and a pass subtree 'Y'"),
    ("R 3 22 25 26 Y V 5", "has both a replay 'V' and a pass subtree 'Y'"),
    ("R 3 22 25 Y", "bad token 'Y' in 'R 3 22 25 Y'"),
])
def test_malformed_pass_nodes(line: str, message: str) -> None:
    error = format_error(edited(line))
    assert error.startswith("line 3: ")
    assert message in error


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_pass_subtree_needs_version_4(version: int) -> None:
    assert format_error(edited("R 3 22 25 26 Y", version)) == (
        f"line 3: a pass subtree 'Y' needs format version 4; this file is version {version}")


def test_a_pass_subtree_is_for_win_sections_only() -> None:
    data = edited("R 3 22 25 26 Y", claim="hold").replace(b'"value": "x"', b'"value": "draw"')
    assert format_error(data) == ("line 3: a pass subtree 'Y' shows a win: it is allowed in "
                                  "win sections only")


# the mirror about column e keeps T's R node: X d5 f5 d1 f1 e9, O a9 i9 e7
MIRROR_X = marks(NINE, "d5 f5 d1 f1")
MIRROR_O = marks(NINE, "a9 i9 e7")
MIRROR_T = ["M 76", "R 2 40 38 V 40", "F 4", "F 4"]


def test_symmetry_covers_nothing_inside_a_pass_subtree() -> None:
    """g5 fails the replay (one threat, at c5) and is the image of the listed c5: symmetry
    would cover it, but not inside a pass subtree."""
    expected = (
        "R: O's reply 42 (g5) is not covered: after it V's move 40 (e5) makes one threat of X, "
        "at 38 (c5); O blocks it and V has no move left (step 2); only symmetry would cover "
        "it, and inside {} symmetry covers nothing")
    message = check_error(proof(NINE, MIRROR_X, MIRROR_O, False, ["R 0 Y", *MIRROR_T]))
    assert message == "line 5: " + expected.format("the pass subtree of line 3") + (
        " (position '3x1x3/9/9/9/3x1x3/9/4o4/9/o3x3o o 4')")
    with pytest.raises(ProofCheckError) as info:
        subtree_zone(NINE, MIRROR_X, MIRROR_O, "x", MIRROR_T)
    assert str(info.value).startswith("line 2: " + expected.format("a pass subtree"))
    # the same R node checks where symmetry applies: at the position itself
    x, o = MIRROR_X | marks(NINE, "e9"), MIRROR_O | marks(NINE, "e3")
    check_proof(proof(NINE, x, o, False, MIRROR_T[1:]))


@pytest.mark.parametrize(("tree", "text"), [
    (["= 3"], "'= 3'"),
    (["E"], "'E'"),
    (["P 0 1"], "'P 0 1'"),
])
def test_nodes_that_are_not_allowed_inside_a_pass_subtree(tree: list[str], text: str) -> None:
    message = check_error(proof(SEVEN, SEVEN_X, SEVEN_O, False, ["R 0 Y", *tree]))
    assert f"{text} inside the pass subtree of line 3: a pass subtree has only M, W, F and R " \
           "nodes (no '=', 'P', 'E' or 'T')" in message


def test_an_f_inside_a_pass_subtree_is_followed_strictly() -> None:
    """F a1: the threat search finds X's win (e4) anyway, so the same F after a real move
    checks; inside a pass subtree a1 is followed and makes no threat."""
    assert ThreatSearch(SEVEN).run(SEVEN_X, SEVEN_O, (0,)) is not None
    message = check_error(proof(SEVEN, SEVEN_X, SEVEN_O, False, ["R 0 Y", "F 0"]))
    assert message.startswith(
        "line 4: F: inside a pass subtree an F is followed strictly as its cells give it, with "
        "no threat search: F's move 0 (a1) makes no threat of X (step 1)")
    message = check_error(proof(SEVEN, SEVEN_X, SEVEN_O, False, ["R 0 Y", "F"]))
    assert "X has no threat and F gives no move (step 1)" in message
    assert names(SEVEN, subtree_zone(SEVEN, SEVEN_X, SEVEN_O, "x", ["F 25"])) == [
        "b4", "e4", "f4"]


@pytest.mark.parametrize(("lines", "error", "message"), [
    (["M 25"], ProofFormatError, "line 2: the lines end while the tree still expects 1 more"),
    (["M 25", "R 0", "W 22"], ProofFormatError, "line 3: the tree ends at line 2"),
    (["S x win", "M 25"], ProofFormatError, "line 1: 'S x win': the lines of a tree have no"),
    (["M 99"], ProofFormatError, "line 1: bad node line 'M 99'"),
    (["R 0"], ProofFormatError, "line 1: expected a node of the prover X"),
    (["M 9"], ProofCheckError, "line 1: M 9 (c2): the cell is taken"),
    (["M 25", "R 1 22", "W 25"], ProofCheckError, "line 3: W 25 (e4): the cell is taken"),
])
def test_subtree_zone_errors(lines: list[str], error: type[ProofError], message: str) -> None:
    with pytest.raises(error) as info:
        subtree_zone(SEVEN, SEVEN_X, SEVEN_O, "x", lines)
    assert str(info.value).startswith(message)


def test_subtree_zone_for_o() -> None:
    """The same with the colours swapped: O is the prover."""
    zone = subtree_zone(SEVEN, SEVEN_X, SEVEN_O, "o", SEVEN_T)
    assert zone == subtree_zone(SEVEN, SEVEN_X, SEVEN_O, "x", SEVEN_T)
    with pytest.raises(ProofCheckError, match="the game is over"):
        subtree_zone(SEVEN, marks(SEVEN, "a1 b1 c1 d1"), 0, "x", ["W 5"])


# ----------------------------------------------------------------------------- soundness
def strict_wins(board_variant: Variant, mine: int, theirs: int, hints: tuple[int, ...]
                ) -> bool:
    """The replay's steps as the format document states them, the prover to move."""
    board = board_of(board_variant)
    i = 0
    while True:
        if threat_cells(board, mine, theirs):
            return True
        blocks = threat_cells(board, theirs, mine)
        if blocks.bit_count() >= 2 or (blocks and (i >= len(hints) or blocks != 1 << hints[i])):
            return False
        if i >= len(hints) or (mine | theirs) >> hints[i] & 1:
            return False
        mine |= 1 << hints[i]
        made = threat_cells(board, mine, theirs)
        if made.bit_count() != 1:
            return bool(made)
        theirs |= made
        i += 1


def random_marks(variant: Variant, rng: random.Random) -> tuple[int, int] | None:
    """X's and O's marks at random, X one ahead (O to move), or None if either has a line."""
    board = board_of(variant)
    n_o = rng.randint(1, 4)
    cells = rng.sample(range(variant.cells), 2 * n_o + 1)
    mine = sum(1 << c for c in cells[:n_o + 1])
    theirs = sum(1 << c for c in cells[n_o + 1:])
    if has_line(board, mine) or has_line(board, theirs):
        return None
    return mine, theirs


class Prover:
    """A tiny randomised prover for the prover's win in zone mode: ``W``, an ``F`` from the
    threat search, or a random move and an ``R`` node listing what immediate win, a replay
    or a nested pass subtree (whose zone `subtree_zone` gives) leaves."""

    def __init__(self, variant: Variant, rng: random.Random, nested: bool,
                 extra: float = 0.0) -> None:
        self.variant = variant
        self.board = board_of(variant)
        self.search = ThreatSearch(variant, max_positions=2000)
        self.rng = rng
        self.nested = nested
        self.extra = extra
        """The chance that a reply a replay covers is listed all the same."""

    def prover(self, mine: int, theirs: int, depth: int) -> list[str] | None:
        board = self.board
        threats = threat_cells(board, mine, theirs)
        if threats:
            return [f"W {cells_of(threats)[0]}"]
        sequence = self.search.run(mine, theirs)
        if sequence is not None and self.rng.random() < 0.8:
            return [format_node("F", sequence)]
        if depth <= 0:
            return None
        empty = cells_of(board.full & ~(mine | theirs))
        for m in self.rng.sample(empty, min(5, len(empty))):
            after = mine | 1 << m
            if any(after & line == line for line in board.through[m]):
                continue
            node = self.opponent(after, theirs, depth - 1)
            if node is not None:
                return [f"M {m}", *node]
        return None

    def opponent(self, mine: int, theirs: int, depth: int) -> list[str] | None:
        board = self.board
        empty = board.full & ~(mine | theirs)
        if not empty or threat_cells(board, theirs, mine):
            return None
        threats = threat_cells(board, mine, theirs)
        need = 0 if threats.bit_count() >= 2 else threats or empty
        mode = self.rng.choice(["plain", "V", "Y", "Y"] if self.nested else ["plain", "V"])
        hints: tuple[int, ...] = ()
        passed = None
        if need and mode == "V":
            sequence = self.search.run(mine, theirs)
            if sequence:
                hints = tuple(sequence)
                need = sum(1 << r for r in cells_of(need)
                           if not strict_wins(self.variant, mine, theirs | 1 << r, hints)
                           or self.rng.random() < self.extra)
        elif need and mode == "Y":
            passed = self.prover(mine, theirs, depth)
            if passed is None:
                return None
            try:
                need &= subtree_zone(self.variant, mine, theirs, "x", passed)
            except ProofCheckError:
                return None
        listed = cells_of(need)
        if len(listed) > 6:
            return None
        children = []
        for r in listed:
            child = self.prover(mine, theirs | 1 << r, depth)
            if child is None:
                return None
            children += child
        return [format_node("R", listed, replay=hints, passed=passed is not None), *children,
                *(passed or [])]


@pytest.mark.parametrize(("variant", "seed", "nested"), [
    ("5x5k3", 1, False), ("5x5k3", 2, True), ("6x6k4", 3, False), ("6x6k4", 4, True),
    ("7x7k4", 5, False), ("7x7k4", 6, True)])
def test_every_reply_outside_the_zone_leaves_the_pass_subtree_valid(
        variant: str, seed: int, nested: bool) -> None:
    """For random positions (O to move) and pass subtrees T that check in zone mode, and
    every empty cell z outside T's zone: the ordinary proof of the position with z the
    opponent's and the prover to move, whose tree is T unchanged, checks; and the proof at
    the position itself, ``R ... Y`` listing the zone's replies, checks too."""
    v = Variant.parse(variant)
    board = board_of(v)
    rng = random.Random(seed)
    prover = Prover(v, rng, nested)
    kinds: Counter[str] = Counter()
    cases = outside_total = 0
    while cases < 40:
        kinds["attempts"] += 1
        assert kinds["attempts"] < 2000
        marked = random_marks(v, rng)
        if marked is None:
            continue
        mine, theirs = marked
        tree = prover.prover(mine, theirs, 2 if nested else 1)
        if tree is None or (tree[0][0] in "WF" and rng.random() < 0.7):
            continue
        zone = subtree_zone(v, mine, theirs, "x", tree)
        cases += 1
        text = " ".join(tree)
        kinds["V"] += " V " in text
        kinds["Y"] += " Y" in text
        kinds["R"] += "R " in text
        empty = board.full & ~(mine | theirs)
        outside = cells_of(empty & ~zone)
        kinds["trivial"] += not outside
        outside_total += len(outside)
        their_threats = threat_cells(board, theirs, mine)
        for z in outside:
            assert not their_threats >> z & 1  # rule 2 holds every such cell
            check_proof(proof(v, mine, theirs | 1 << z, True, tree))
        # the Y node itself: list the replies in the zone that immediate win leaves
        if their_threats:
            continue
        threats = threat_cells(board, mine, theirs)
        need = 0 if threats.bit_count() >= 2 else threats or empty
        listed = cells_of(zone & need)
        children = [prover.prover(mine, theirs | 1 << r, 1) for r in listed]
        if all(c is not None for c in children):
            body = [format_node("R", listed, passed=True),
                    *[line for c in children for line in c or ()], *tree]
            stats = check_proof(proof(v, mine, theirs, False, body))
            if not any(line.endswith(" Y") for line in body[1:]):
                assert stats.replies_by_pass == (need & ~zone).bit_count()
            kinds["whole"] += 1
    assert kinds["trivial"] <= 4, kinds  # the zone leaves cells outside in most cases
    assert outside_total >= 5 * cases, (outside_total, kinds)
    assert kinds["R"] >= 3 and kinds["whole"] >= 2, kinds
    if v.k > 3:
        assert kinds["V"] >= 2, kinds
    if nested:
        assert kinds["Y"] >= 1, kinds


# 8x8 k=4: X a1 makes threats at d1, a4 and b2 (X b1 c1, a2 a3, c3 d4); g7 e7 f7 would be an
# open three of X (threats at d7 and h7). T: a quiet h8, then O's replies a1 (the V cell), b2
# and a4 listed, each answered by g7; the replay a1 covers the rest.
CORNER_X = ("b1", "c1", "a2", "a3", "c3", "d4", "e7", "f7")
CORNER_T = ["M 63", "R 3 0 9 24 V 0", "M 54", "R 0", "M 54", "R 0", "M 54", "R 0"]


def test_a_reply_on_the_replays_lines_is_no_model_for_the_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """O's first unlisted reply d1 blocks one of the three threats: its replay wins, adding
    b2 and a4 only. The replies off the lines through a1 add d1 as well, so d1's replay is
    not the one after a pass, and they are replayed: d1 is in the zone."""
    from tictactoe.proof import check as checker

    v = Variant.parse("8x8k4")
    mine = marks(v, " ".join(CORNER_X))
    for same in (True, False):
        monkeypatch.setattr(checker, "SAME_REPLAYS", same)
        assert names(v, subtree_zone(v, mine, 0, "x", CORNER_T)) == [
            "a1", "d1", "b2", "a4", "d7", "g7", "h7", "h8"]


def test_a_reply_that_makes_a_threat_is_replayed() -> None:
    """With O on a6 b6, the reply c6 makes a threat of O at d6, and the replay a1 no longer
    wins after it; c6 is off the lines through a1, but it is replayed all the same."""
    v = Variant.parse("8x8k4")
    with pytest.raises(ProofCheckError, match=re.escape(
            "R: O's reply 42 (c6) is not covered: after it O has a threat at 43 (d6), not at "
            "V's move 0 (a1) (step 1)")):
        subtree_zone(v, marks(v, " ".join(CORNER_X)), marks(v, "a6 b6"), "x", CORNER_T)


_COMPARED: list[bool | None] = [None]
"""The flag's setting while `_same_zone_either_way` checks a zone with it, else None."""


def _same_zone_either_way(monkeypatch: pytest.MonkeyPatch, variant: str, seed: int,
                          flag: str, nested: bool = False) -> None:
    """Check 25 random pass subtrees with a replay at the top, with the checker's `flag`
    on and off: the zone (or the error) is the same."""
    from tictactoe.proof import check as checker

    v = Variant.parse(variant)
    board = board_of(v)
    rng = random.Random(seed)
    prover = Prover(v, rng, nested=nested, extra=0.2)
    compared = 0
    for _ in range(20_000):
        marked = random_marks(v, rng)
        if marked is None:
            continue
        mine, theirs = marked
        m = rng.choice(cells_of(board.full & ~(mine | theirs)))
        after = mine | 1 << m
        if has_line(board, after) or threat_cells(board, theirs, after):
            continue
        node = prover.opponent(after, theirs, 1)
        if node is None or " V " not in node[0]:
            continue
        tree = [f"M {m}", *node]
        results: list[int | str] = []
        for on in (True, False):
            monkeypatch.setattr(checker, flag, on)
            _COMPARED[0] = on
            try:
                results.append(subtree_zone(v, mine, theirs, "x", tree))
            except ProofCheckError as error:
                results.append(str(error))
            finally:
                _COMPARED[0] = None
        assert results[0] == results[1], tree
        compared += 1
        if compared == 25:
            break
    assert compared == 25


@pytest.mark.parametrize(("variant", "seed"), [("5x5k4", 11), ("6x6k4", 12), ("7x7k4", 13)])
def test_replays_left_out_as_the_same_give_the_same_zone(
        monkeypatch: pytest.MonkeyPatch, variant: str, seed: int) -> None:
    """Inside a pass subtree the checker replays a ``V`` after each reply it covers, but
    leaves out the replies that provably replay it as an earlier one did
    (`SAME_REPLAYS`): on random pass subtrees with replays, the zone (or the error) is the
    same either way, and some replays are left out."""
    from tictactoe.proof import check as checker

    calls = Counter[bool]()
    strict = checker._Walk._strict

    def counted(self: checker._Walk, *args: object, **kwargs: object) -> str | None:
        run = _COMPARED[0]
        if run is not None:  # not while the trees are made
            calls[run] += 1
        return strict(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checker._Walk, "_strict", counted)
    _same_zone_either_way(monkeypatch, variant, seed, "SAME_REPLAYS")
    assert calls[True] < calls[False], calls


@pytest.mark.parametrize(("variant", "seed", "nested"),
                         [("5x5k4", 21, False), ("6x6k4", 22, False), ("7x7k4", 23, False),
                          ("6x6k4", 24, True), ("5x5k4", 25, True)])
def test_rule_2_stops_early_where_no_line_can_meet_its_bound(
        monkeypatch: pytest.MonkeyPatch, variant: str, seed: int, nested: bool) -> None:
    """Rule 2's look at the lines through a cell stops at once when the opponent's marks
    on all of them together are too few for one line (`REACH_BOUND`): with nested pass
    subtrees and without, the zone (or the error) is the same either way, and with the
    bound the lines through a cell are read fewer times."""
    from tictactoe.proof import check as checker

    # the lines through a cell read by rule 2 in the compared runs (not while the nested
    # trees are made, which uses the checker too), by the flag
    reads = Counter[bool]()

    class Watched:
        """The walk's board, counting the reads of the lines through a cell."""

        def __init__(self, board: Board) -> None:
            self.board = board

        def __getattr__(self, name: str) -> object:
            run = _COMPARED[0]
            if name == "through" and run is not None:
                reads[run] += 1
            return getattr(self.board, name)

    through = checker._Walk._through

    def counted(self: checker._Walk, cell: int, mine: int, theirs: int, line: int) -> None:
        board = self.board
        self.board = Watched(board)  # type: ignore[assignment]
        try:
            through(self, cell, mine, theirs, line)
        finally:
            self.board = board

    monkeypatch.setattr(checker._Walk, "_through", counted)
    _same_zone_either_way(monkeypatch, variant, seed, "REACH_BOUND", nested)
    assert 0 < reads[True] < reads[False], reads


def test_threats_through_a_cell_agree_with_every_line_looked_at() -> None:
    """`threats_through` returns at once when the marks on all the lines through the cell
    are too few for a threat: on random positions it agrees with a look at every line, and
    the shortcut is taken."""
    rng = random.Random(31)
    taken = 0
    for variant in ("5x5k4", "7x7k4", "9x9k5", "4x4x4"):
        board = board_of(Variant.parse(variant))
        for _ in range(300):
            marked = random_marks(Variant.parse(variant), rng)
            if marked is None:
                continue
            mine, theirs = marked
            cell = rng.randrange(board.variant.cells)
            every = 0
            for m in board.through[cell]:
                rest = m & ~mine
                if not m & theirs and rest and not rest & (rest - 1):
                    every |= rest
            assert threats_through(board, cell, mine, theirs) == every
            taken += (board.reach[cell] & mine).bit_count() < board.k - 1
    assert taken > 0
