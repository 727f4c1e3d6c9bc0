"""Zone covers in proof files (format version 3): ``R n c1 ... cn Z z1 ... zj``.

A cover says: the prover holds even with every ``z`` the opponent's, so it holds after any
one of them (an extra mark never hurts its owner). The writer puts one where the table keeps
a child's relevance zone; the checker verifies the cover's cells and then the prover node
that follows for the position with all of them the opponent's.
"""

from __future__ import annotations

import io
import random

import pytest
from test_pn_zones import random_position

from tictactoe.core import Position
from tictactoe.proof import check_proof
from tictactoe.proof.errors import ProofCheckError, ProofFormatError
from tictactoe.proof.format import ProofReader, ProofWriter
from tictactoe.search.pn import PnSearch
from tictactoe.search.pn.proofs import write_pn_proof


def cover_proof(position: Position | str) -> bytes:
    buffer = io.BytesIO()
    write_pn_proof(position, buffer, table_mb=8, covers=True)
    return buffer.getvalue()


def test_the_checker_accepts_the_writers_covers_on_random_positions() -> None:
    rng = random.Random(7)
    covered = versions = 0
    plain = PnSearch("5x5k4", table_mb=8)
    for variant, low, high in [("5x5k4", 2, 8)] * 12 + [("6x6k5", 4, 10)] * 8:
        position = random_position(variant, rng, low, high)
        data = cover_proof(position)
        stats = check_proof(data)
        with ProofReader(data) as reader:
            version = reader.header.version
        assert (version == 3) == (stats.replies_by_zone > 0), "version 3 only with a cover"
        covered += stats.replies_by_zone
        versions += version == 3
        if variant == "5x5k4":  # the covers do not change the value proven
            assert stats.value == plain.value(position).value
    assert versions >= 3 and covered >= 50, (versions, covered)


def test_without_covers_the_proof_stays_version_2_or_lower() -> None:
    buffer = io.BytesIO()
    write_pn_proof("5x5k4", buffer, table_mb=8, stealing=False)
    with ProofReader(buffer.getvalue()) as reader:
        assert reader.header.version <= 2
        assert not any(record.cover for record in reader)


def draw_proof(position: str, body: list[tuple[str, tuple[int, ...], tuple[int, ...]]],
               version_check: bool = True) -> bytes:
    """A draw proof: 'S o hold' with `body` (kind, cells, cover), then a dummy 'S x hold'."""
    buffer = io.BytesIO()
    with ProofWriter(buffer, position=position, value="draw") as writer:
        writer.section("o", "hold")
        for kind, cells, cover in body:
            writer.node(kind, cells, cover=cover)
        writer.section("x", "hold")
        writer.node("E")
    return buffer.getvalue()


# X to move: X has a1 and b1 (cells 0, 1), so c1 (cell 2) completes X's row
THREAT = "xx1/o2/o2 x"


def test_a_cover_with_a_move_that_in_fact_wins_is_refused() -> None:
    empty = [2, 4, 5, 7, 8]
    proof = draw_proof(THREAT, [("R", (), tuple(empty)), ("E", (), ())])
    with pytest.raises(ProofCheckError, match=r"line 3: Z: with every cell of the cover, X "
                                               r"completes the line a1 b1 c1"):
        check_proof(proof)


def test_a_cover_must_be_empty_cells_not_listed() -> None:
    with pytest.raises(ProofCheckError, match=r"Z: cell 0 \(a1\) of the cover is taken"):
        check_proof(draw_proof(THREAT, [("R", (), (0, 4)), ("E", (), ())]))
    with pytest.raises(ProofCheckError, match=r"Z: cell 4 \(b2\) is listed twice"):
        check_proof(draw_proof(THREAT, [("R", (4,), (4, 5)), ("E", (), ()), ("E", (), ())]))


def test_every_reply_must_still_be_covered() -> None:
    # c1 is neither listed nor in the cover: X's winning move is not answered
    with pytest.raises(ProofCheckError, match=r"R: X's reply 2 \(c1\) is not covered"):
        check_proof(draw_proof(THREAT, [("R", (), (5, 8)), ("E", (), ())]))


def test_a_cover_gives_all_its_cells_to_the_opponent() -> None:
    """In the position of a cover every cell of it is the opponent's: a prover's move
    there is refused."""
    data = cover_proof("6x6k5")
    lines = data.decode().split("\n")
    records = list(ProofReader(data))
    for index, record in enumerate(records):
        if record.kind != "R" or not record.cover:
            continue
        children = [r for r in records[index + 1:] if r.kind != "S"]
        last = None
        for child in children:
            if child.depth <= record.depth:
                break
            if child.depth == record.depth + 1:
                last = child
        if last is not None and last.kind == "M":
            break
    else:
        pytest.fail("no cover whose position the prover answers with a move")
    lines[last.line - 1] = f"M {record.cover[0]}"
    with pytest.raises(ProofCheckError, match=rf"line {last.line}: M .*: the cell is taken"):
        check_proof("\n".join(lines).encode())
    check_proof(data)  # the proof as written is valid


@pytest.mark.parametrize(("line", "error"), [
    ("R 0 Z", "a zone cover 'Z' lists no cell"),
    ("R 1 4 Z 4 x", "bad token 'x'"),
    ("R 2 4 Z 5", "announces 2 replies but lists 3"),
])
def test_malformed_covers_are_format_errors(line: str, error: str) -> None:
    text = ('{"format": "tictactoe-proof", "version": 3, "variant": "3x3", '
            '"position": "xx1/o2/o2 x", "value": "draw", "lines": 4}\n'
            f"S o hold\n{line}\nE\nE\n")
    with pytest.raises(ProofFormatError, match=error):
        check_proof(text.encode())


def test_a_cover_needs_version_3_and_a_hold_section() -> None:
    body = "S o hold\nR 1 4 Z 5 7 8\nE\nE\nS x hold\nE\n"
    for version in (1, 2):
        text = ('{"format": "tictactoe-proof", "version": ' + str(version) + ', "variant": '
                '"3x3", "position": "xx1/o2/o2 x", "value": "draw", "lines": 6}\n' + body)
        with pytest.raises(ProofFormatError, match="needs format version 3"):
            check_proof(text.encode())
    win = ('{"format": "tictactoe-proof", "version": 3, "variant": "3x3", '
           '"position": "xx1/oo1/x2 o", "value": "o", "lines": 3}\nS o win\nR 0 Z 8\nW 5\n')
    with pytest.raises(ProofFormatError, match="hold sections only"):
        check_proof(win.encode())
