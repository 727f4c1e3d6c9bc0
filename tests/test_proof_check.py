"""The proof checker: it accepts the reference prover's proofs and rejects corrupted ones
with a `ProofCheckError` or `ProofFormatError` naming the line, never another exception."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import minimax_for

from tictactoe.core import Position, Side, Variant, symmetries
from tictactoe.proof import (
    CheckStats,
    ProofCheckError,
    ProofError,
    ProofFormatError,
    check_proof,
)
from tictactoe.proof.format import iter_records
from tictactoe.proof.small import SmallProver
from tictactoe.proof.threats import ThreatSearch

# ----------------------------------------------------------------------------- helpers


@cache
def proof_lines(name: str, use_forced: bool = True, position: str | None = None
                ) -> tuple[str, ...]:
    """A reference proof as its lines (header first)."""
    variant = Variant.parse(name)
    root = Position(position) if position else Position(variant)
    buffer = io.BytesIO()
    SmallProver(variant, use_forced=use_forced).write(root, buffer)
    return tuple(buffer.getvalue().decode().splitlines())


def to_bytes(lines: list[str] | tuple[str, ...], *, fix_count: bool = True) -> bytes:
    lines = list(lines)
    if fix_count and lines:
        try:
            header = json.loads(lines[0])
            header["lines"] = len(lines) - 1
            lines[0] = json.dumps(header)
        except (ValueError, TypeError):
            pass
    return ("\n".join(lines) + "\n").encode()


def check(lines: list[str] | tuple[str, ...], *, fix_count: bool = True) -> CheckStats:
    return check_proof(to_bytes(lines, fix_count=fix_count))


def rejected(lines: list[str] | tuple[str, ...]) -> ProofCheckError:
    with pytest.raises(ProofCheckError) as caught:
        check(lines)
    return caught.value


@cache
def value_of(variant: Variant) -> Callable[[Position], str]:
    """The true value of a position by the plain reference minimax."""
    moves_of = minimax_for(variant)

    def value(position: Position) -> str:
        outcome = position.outcome()
        if outcome is not None:
            return outcome.result()
        best = max(result[0] for result in moves_of(position).values())
        return {1: position.turn.symbol, -1: position.turn.other.symbol, 0: "draw"}[best]

    return value


class Node:
    """A node of a proof, with its position, read by plain recursive descent."""

    def __init__(self, index: int, text: str, position: Position, prover: Side,
                 claim: str) -> None:
        self.index, self.text, self.position = index, text, position
        self.prover, self.claim = prover, claim
        self.end = index + 1  # one past the last line of its subtree

    @property
    def kind(self) -> str:
        return self.text.split(" ")[0]

    @property
    def cells(self) -> list[int]:
        tokens = self.text.split(" ")
        return [int(t) for t in tokens[2 if self.kind == "R" else 1:]]


def nodes_of(lines: tuple[str, ...]) -> list[Node]:
    """Every node of every section, in file order (index = index into `lines`)."""
    root = Position(json.loads(lines[0])["position"])
    found: list[Node] = []
    i = 1

    def descend(position: Position, prover: Side, claim: str) -> None:
        nonlocal i
        node = Node(i, lines[i], position, prover, claim)
        found.append(node)
        i += 1
        if node.kind == "M":
            descend(position.play(node.cells[0]), prover, claim)
        elif node.kind == "R":
            for c in node.cells:
                descend(position.play(c), prover, claim)
        node.end = i

    while i < len(lines):
        _, side, claim = lines[i].split(" ")
        i += 1
        descend(root.copy(), Side.parse(side), claim)
    return found


def stabiliser_brute(position: Position) -> list[tuple[int, ...]]:
    v = position.variant
    out = []
    for perm in symmetries(v):
        x = sum(1 << perm[c] for c in range(v.cells) if position.x >> c & 1)
        o = sum(1 << perm[c] for c in range(v.cells) if position.o >> c & 1)
        if (x, o) == (position.x, position.o):
            out.append(perm)
    return out


BASES = [("3x3", True), ("3x3", False), ("4x3", True), ("4x3", False), ("3x4k3", False),
         ("4x4k3", True), ("4x4k3", False)]


# ----------------------------------------------------------------------------- acceptance


@pytest.mark.parametrize(("name", "use_forced"), BASES)
def test_accepts_reference_proofs(name: str, use_forced: bool) -> None:
    lines = proof_lines(name, use_forced)
    stats = check(lines)
    header = json.loads(lines[0])
    variant = Variant.parse(name)
    assert header["value"] == ("draw" if name == "3x3" else "x")
    if name in ("3x3", "4x3"):  # plain minimax; the other boards are checked elsewhere
        assert header["value"] == value_of(variant)(Position(variant))
    nodes = nodes_of(lines)
    assert stats.positions == len(nodes)
    assert stats.prover_nodes + stats.opponent_nodes == len(nodes)
    assert sum(stats.leaves.values()) == sum(
        n.kind in "WFPE=" for n in nodes)
    sections = [line for line in lines if line.startswith("S ")]
    assert sections == (["S x hold", "S o hold"] if name == "3x3" else ["S x win"])
    if not use_forced:
        assert not any(n.kind == "F" for n in nodes)


def test_the_3x3_draw_in_detail() -> None:
    stats = check_proof(to_bytes(proof_lines("3x3")))
    assert stats.value == "draw"
    assert stats.max_depth == 9  # a hold proof plays out to the full board
    assert stats.leaves["E"] > 0 and stats.leaves["P"] > 0
    assert stats.replies_by_symmetry > 0 and stats.replies_by_win > 0
    assert "valid" in stats.summary()


def test_gzip_file_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "4x4k3.proof.gz"
    SmallProver(Variant.parse("4x4k3")).write(Position("4x4k3"), path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert check_proof(path).value == "x"


# ----------------------------------------------------------------------------- corruptions


@pytest.mark.parametrize(("name", "use_forced"), [("4x3", False), ("3x3", True)])
def test_every_losing_move_substitution_is_rejected(name: str, use_forced: bool) -> None:
    """Replace a prover's move by another legal move that does not keep its claim."""
    lines = proof_lines(name, use_forced)
    value = value_of(Variant.parse(name))
    tried = 0
    for node in nodes_of(lines):
        if node.kind != "M":
            continue
        mover = node.position.turn
        for c in node.position.legal_moves():
            if c == node.cells[0]:
                continue
            after = value(node.position.play(c))
            keeps = after == mover.symbol if node.claim == "win" else after != mover.other.symbol
            if keeps:
                continue
            corrupted = list(lines)
            corrupted[node.index] = f"M {c}"
            err = rejected(corrupted)
            assert err.line is not None and err.line >= node.index + 1
            assert err.position
            tried += 1
    assert tried > 5


def test_a_wrong_winning_move_names_the_line() -> None:
    head = json.dumps({"format": "tictactoe-proof", "version": 1, "variant": "3x3",
                       "position": "xx1/oo1/3 x", "value": "x", "lines": 0})
    assert check([head, "S x win", "W 2"]).leaves["W"] == 1
    err = rejected([head, "S x win", "W 5"])
    assert err.line == 3
    assert str(err) == ("line 3: W 5 (c2): X's move does not complete a line "
                        "(position 'xx1/oo1/3 x')")
    assert "W 4 (b2): the cell is taken" in str(rejected([head, "S x win", "W 4"]))
    err = rejected([head, "S x win", "M 2", "R 0"])
    assert "M 2 (c1) completes a line for X: write W" in str(err)


@pytest.mark.parametrize(("name", "use_forced"), [("4x3", False), ("3x3", True),
                                                  ("4x4k3", False)])
def test_every_missing_reply_is_rejected(name: str, use_forced: bool) -> None:
    """Delete one reply and its subtree (fixing the counts): the reply is then not
    covered."""
    lines = proof_lines(name, use_forced)
    nodes = nodes_of(lines)
    by_index = {n.index: n for n in nodes}
    tried = 0
    for node in nodes:
        if node.kind != "R" or not node.cells:
            continue
        child = by_index[node.index + 1]
        for k, reply in enumerate(node.cells):
            corrupted = list(lines)
            rest = [c for c in node.cells if c != reply]
            corrupted[node.index] = " ".join(["R", str(len(rest)), *map(str, rest)])
            del corrupted[child.index:child.end]
            err = rejected(corrupted)
            assert err.line == node.index + 1
            assert "is not covered" in str(err)
            tried += 1
            if k + 1 < len(node.cells):
                child = by_index[child.end]
    assert tried > 5


def test_a_missing_subtree_without_fixing_counts_is_a_format_error() -> None:
    lines = proof_lines("4x3", False)
    node = next(n for n in nodes_of(lines) if n.kind == "R" and len(n.cells) > 1)
    following = next(n for n in nodes_of(lines) if n.index == node.index + 1)
    corrupted = list(lines)
    del corrupted[following.index:following.end]
    with pytest.raises(ProofError):
        check(corrupted)  # the tree now ends early, or the moves no longer fit
    with pytest.raises(ProofFormatError, match="truncated file"):
        check(corrupted, fix_count=False)


@pytest.mark.parametrize(("name", "use_forced"), [("4x3", False), ("3x3", True),
                                                  ("4x4k3", False)])
def test_wrong_symmetry_claims_are_rejected(name: str, use_forced: bool) -> None:
    """List g(r) instead of r, for a symmetry g of the board that does not map r's class
    (under the position's own symmetries) onto itself: r is then not covered."""
    lines = proof_lines(name, use_forced)
    perms = symmetries(Variant.parse(name))
    tried = 0
    for node in nodes_of(lines):
        if node.kind != "R" or not node.cells:
            continue
        position = node.position
        fixing = stabiliser_brute(position)
        for reply in node.cells:
            orbit = {perm[reply] for perm in fixing}
            images = [perm[reply] for perm in perms
                      if perm[reply] not in orbit and position.mark_at(perm[reply]) is None
                      and perm[reply] not in node.cells]
            if not images:
                continue
            corrupted = list(lines)
            cells = [images[0] if c == reply else c for c in node.cells]
            corrupted[node.index] = " ".join(["R", str(len(cells)), *map(str, cells)])
            err = rejected(corrupted)
            assert err.line == node.index + 1
            assert "is not covered" in str(err)
            tried += 1
            break
    assert tried >= 2


def test_wrong_reference_is_rejected() -> None:
    lines = proof_lines("3x3", True)
    nodes = nodes_of(lines)
    prover_lines = {n.index: n for n in nodes if n.kind != "R"}
    ref = next(n for n in nodes if n.kind == "=")
    # a prover node of the same section, earlier, not an ancestor, not equivalent
    others = [n for i, n in prover_lines.items()
              if i < ref.index and n.prover == ref.prover and n.end <= ref.index
              and n.position.canonical_key() != ref.position.canonical_key()]
    corrupted = list(lines)
    corrupted[ref.index] = f"= {others[0].index + 1}"
    err = rejected(corrupted)
    assert (err.line, "no symmetry maps the position of line" in str(err)) == (
        ref.index + 1, True)
    corrupted[ref.index] = f"= {ref.index + 1}"
    assert "must come earlier" in str(rejected(corrupted))
    corrupted[ref.index] = "= 1"
    assert "is not a node of the prover" in str(rejected(corrupted))
    ancestors = [n for n in nodes if n.kind == "M" and n.index < ref.index <= n.end - 1
                 and n.prover == ref.prover]
    corrupted[ref.index] = f"= {ancestors[0].index + 1}"
    assert "is an ancestor of this node" in str(rejected(corrupted))
    other_section = next(n for n in nodes if n.prover != ref.prover and n.kind == "M")
    if other_section.index < ref.index:
        corrupted[ref.index] = f"= {other_section.index + 1}"
        assert "another section" in str(rejected(corrupted))


def threat_win_brute(variant: Variant, mine: int, theirs: int) -> bool:
    """The definition of a threat-sequence win, literally."""
    lines = variant.line_masks

    def threats(a: int, b: int) -> int:
        out = 0
        for m in lines:
            rest = m & ~a
            if not m & b and rest.bit_count() == 1:
                out |= rest
        return out

    @cache
    def wins(a: int, b: int) -> bool:
        if threats(a, b):
            return True
        blocks = threats(b, a)
        if blocks.bit_count() > 1:
            return False
        empty = variant.full_mask & ~(a | b)
        for c in range(variant.cells):
            if not empty >> c & 1 or (blocks and not blocks >> c & 1):
                continue
            made = threats(a | 1 << c, b)
            if made.bit_count() >= 2:
                return True
            if made.bit_count() == 1 and wins(a | 1 << c, b | made):
                return True
        return False

    return wins(mine, theirs)


def test_forced_leaf_that_is_no_threat_win_is_rejected() -> None:
    lines = proof_lines("4x3", False)
    variant = Variant.parse("4x3")
    for node in nodes_of(lines):
        if node.kind != "M":
            continue
        position = node.position
        mine, theirs = position.marks(position.turn), position.marks(position.turn.other)
        if threat_win_brute(variant, mine, theirs):
            continue
        corrupted = [*lines[:node.index], "F 1 2 3", *lines[node.end:]]
        err = rejected(corrupted)
        assert err.line == node.index + 1
        assert "F: the threat search finds no forced win for X here" in str(err)
        assert position.to_string() in str(err)
        return
    raise AssertionError("no M node without a threat win")


def test_a_true_forced_leaf_is_accepted_even_with_a_bad_hint() -> None:
    lines = proof_lines("4x3", True)
    node = next(n for n in nodes_of(lines) if n.kind == "F")
    corrupted = list(lines)
    corrupted[node.index] = "F 11 10 9"
    assert check(corrupted).forced_derived > 0


def test_a_bound_too_small_rejects_forced_leaves() -> None:
    lines = proof_lines("4x4k3", True)
    node = next(n for n in nodes_of(lines) if n.kind == "F" and n.cells)
    with pytest.raises(ProofCheckError, match="stopped at the bound of 0 positions") as caught:
        check_proof(to_bytes(lines), max_threat_positions=0)
    assert caught.value.line == node.index + 1


def header_with(lines: tuple[str, ...], **changes: object) -> list[str]:
    header = json.loads(lines[0])
    header.update(changes)
    return [json.dumps(header), *lines[1:]]


def test_section_and_value_mismatches() -> None:
    win = proof_lines("4x3", True)
    draw = proof_lines("3x3", True)
    assert "the value is 'o', so the section is 'S o win'" in str(
        rejected(header_with(win, value="o")))
    assert "the value is draw, so the sections are" in str(
        rejected(header_with(win, value="draw")))
    second = draw.index("S o hold")
    assert "there is no 'S o hold' section" in str(rejected(draw[:second]))
    assert "a second 'S x hold' section" in str(
        rejected([*draw[:second], *draw[1:second]]))
    assert "the value is 'x', so the section is 'S x win', not 'S x hold'" in str(
        rejected(header_with(draw[:second], value="x")))
    twice = [*win, *win[1:]]
    assert "a win proof has one section" in str(rejected(twice))


def test_leaves_that_only_hold_are_rejected_in_win_sections() -> None:
    # X to move on 3x3 with one empty cell that does not complete a line: a draw.
    root = "xox/oxx/o1o x"
    assert Position(root).is_valid()
    base = [json.dumps({"format": "tictactoe-proof", "version": 1, "variant": "3x3",
                        "position": root, "value": "x", "lines": 0}), "S x win"]
    assert "the board is full: a draw, not a win" in str(rejected([*base, "M 7", "R 0"]))
    assert "E: the game is a draw here, not a win" in str(rejected([*base, "E"]))
    assert "P: a pairing shows a hold" in str(rejected([*base, "P"]))
    hold = [base[0].replace('"value": "x"', '"value": "draw"'), "S x hold", "M 7", "R 0",
            "S o hold", "R 1 7", "E"]
    assert check(hold).leaves["E"] == 1
    assert "E: the board is not full" in str(rejected([*hold[:2], "E", *hold[4:]]))


def test_pairing_checks() -> None:
    root = "x1o/1o1/x2 x"  # lines without X: b1-b3, a2-c2, c1-c3
    head = json.dumps({"format": "tictactoe-proof", "version": 1, "variant": "3x3",
                       "position": root, "value": "draw", "lines": 0})
    assert "is in two pairs" in str(rejected([head, "S x hold", "P 1 7 3 3"]))
    assert "cell 4 (b2) is taken" in str(rejected([head, "S x hold", "P 1 4"]))
    err = rejected([head, "S x hold", "P 1 7 3 5"])
    assert "the line c1 c2 c3 has no mark of X and holds no pair" in str(err)
    assert err.line == 3


def test_pairing_checks_at_the_opponents_turn() -> None:
    """Version 2: a pairing in place of the opponent's node, checked by the same definition
    (whoever moves, the prover answers each move into a pair with the other cell)."""
    root = "x1o/1o1/x2 x"  # after X's c2 (5), only the line b1-b3 is without X
    head = json.dumps({"format": "tictactoe-proof", "version": 2, "variant": "3x3",
                       "position": root, "value": "draw", "lines": 0})
    # accepted: the check goes on to the end, where O's hold section is missing
    assert "there is no 'S o hold' section" in str(rejected([head, "S x hold", "M 5", "P 1 7"]))
    err = rejected([head, "S x hold", "M 5", "P 3 8"])
    assert "the line b1 b2 b3 has no mark of X and holds no pair" in str(err)
    assert err.line == 4 and "x1o/1ox/x2 o" in str(err)  # the position with O to move
    assert "cell 4 (b2) is taken" in str(rejected([head, "S x hold", "M 5", "P 1 4"]))
    # O's threat on c1-c3 cannot be paired off
    head = head.replace(root, "x1o/3/x1o x")
    assert "holds no pair" in str(rejected([head, "S x hold", "M 1", "P 4 7"]))
    version_1 = head.replace('"version": 2', '"version": 1')
    with pytest.raises(ProofFormatError, match="format version 2 allows it"):
        check([version_1, "S x hold", "M 5", "P 4 7"])


def test_replies_that_are_illegal_or_lose_at_once() -> None:
    lines = proof_lines("4x3", False)
    node = next(n for n in nodes_of(lines) if n.kind == "R" and len(n.cells) >= 2)
    taken = next(c for c in range(12) if node.position.mark_at(c) is not None)
    corrupted = list(lines)
    corrupted[node.index] = f"R {len(node.cells)} {taken} " + " ".join(
        map(str, node.cells[1:]))
    assert "is on a taken cell" in str(rejected(corrupted))
    corrupted[node.index] = f"R {len(node.cells)} {node.cells[1]} " + " ".join(
        map(str, node.cells[1:]))
    assert "is listed twice" in str(rejected(corrupted))
    # an opponent reply that completes its line
    root = "xx1/oo1/x2 o"
    head = json.dumps({"format": "tictactoe-proof", "version": 1, "variant": "3x3",
                       "position": root, "value": "x", "lines": 0})
    assert "completes a line for O" in str(rejected([head, "S x win", "R 1 5", "W 2"]))
    assert "it completes a line for O" in str(rejected([head, "S x win", "R 1 2", "W 5"]))


def test_root_checks() -> None:
    head = {"format": "tictactoe-proof", "version": 1, "variant": "3x3",
            "position": "xxx/oo1/3 o", "value": "x", "lines": 0}
    err = rejected([json.dumps(head), "S x win", "R 0"])
    assert (err.line, "already over" in str(err)) == (1, True)
    head["position"] = "xx1/3/3 x"
    assert "cannot arise in play" in str(rejected([json.dumps(head), "S x win", "W 2"]))


# ----------------------------------------------------------------------------- fuzzing

TOKENS = ["R", "M", "W", "F", "P", "E", "=", "S", "x", "o", "win", "hold", "", "-1", "99",
          "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "15", "16"]


@st.composite
def corruptions(draw: st.DrawFn) -> tuple[str, list[str], bool]:
    name, use_forced = draw(st.sampled_from([("3x3", True), ("4x3", False), ("3x4k3", True)]))
    lines = list(proof_lines(name, use_forced))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "token", "value"]))
        i = draw(st.integers(1, len(lines) - 1))
        if op == "delete" and len(lines) > 2:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(1, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "token":
            tokens = lines[i].split(" ")
            k = draw(st.integers(0, len(tokens)))
            new = draw(st.sampled_from(TOKENS))
            if k == len(tokens):
                tokens.append(new)
            else:
                tokens[k] = new
            lines[i] = " ".join(tokens)
        else:
            lines = header_with(tuple(lines), value=draw(st.sampled_from(["x", "o", "draw"])))
    return name, lines, draw(st.booleans())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corruptions())
def test_random_corruptions_are_rejected_cleanly_or_still_valid(
        case: tuple[str, list[str], bool]) -> None:
    _name, lines, fix_count = case
    try:
        stats = check(lines, fix_count=fix_count)
    except ProofError as err:
        assert str(err).startswith("line ") or err.line is None
        return
    # accepted: then the claim must be true
    header = json.loads(lines[0])
    root = Position(header["position"])
    assert header["value"] == value_of(root.variant)(root)
    assert stats is not None


def test_iter_records_after_check_round_trip() -> None:
    data = to_bytes(proof_lines("3x3"))
    assert sum(1 for r in iter_records(data) if r.kind == "S") == 2


def test_threat_search_confirms_the_prover_sequences() -> None:
    lines = proof_lines("4x4k3", True)
    variant = Variant.parse("4x4k3")
    search = ThreatSearch(variant)
    for node in nodes_of(lines):
        if node.kind == "F":
            position = node.position
            mine, theirs = position.marks(position.turn), position.marks(position.turn.other)
            assert search.run(mine, theirs, node.cells) == node.cells
            assert search.positions == len(node.cells)  # the hint is followed directly


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tictactoe.proof.__main__ import main

    path = tmp_path / "3x3.proof.gz"
    assert main(["small", "3x3", str(path)]) == 0
    assert "wrote a proof of 'draw'" in capsys.readouterr().out
    assert main(["check", str(path)]) == 0
    assert "proof of 'draw' on 3x3: valid" in capsys.readouterr().out
    lines = proof_lines("3x3")
    bad = tmp_path / "bad.proof"
    bad.write_bytes(to_bytes([*lines[:2], "P 0 1", *lines[3:]]))
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}: invalid proof: line 3: ")
    assert main(["small", "6x6", str(tmp_path / "big.proof")]) == 1
    assert "at most 25" in capsys.readouterr().err
