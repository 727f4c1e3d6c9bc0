"""``T`` in proof files (format version 3): the first player's hold at the empty board, by
strategy stealing, in place of a second hold tree."""

from __future__ import annotations

import io

import pytest

from tictactoe.proof import check_proof
from tictactoe.proof.errors import ProofCheckError, ProofFormatError
from tictactoe.proof.format import ProofReader
from tictactoe.search.pn import PnSearch
from tictactoe.search.pn.proofs import write_proof


def header(position: str, value: str, lines: int, version: int = 3) -> str:
    return ('{"format": "tictactoe-proof", "version": ' + str(version) + ', "variant": "3x3", '
            f'"position": "{position}", "value": "{value}", "lines": {lines}}}\n')


@pytest.mark.parametrize("variant", ["6x6k5", "5x5k4", "4x4"])
def test_a_draw_from_the_empty_board_asks_one_question(variant: str) -> None:
    stolen, full = io.BytesIO(), io.BytesIO()
    one = write_proof(variant, stolen, table_mb=8)
    two = write_proof(variant, full, table_mb=8, stealing=False)
    assert one.value.value == two.value.value == PnSearch(variant, table_mb=8).value(
        variant).value == "draw"
    assert (len(one.value.questions), len(two.value.questions)) == (1, 2)
    with ProofReader(stolen.getvalue()) as reader:
        assert reader.header.version == 3
        kinds = [(r.kind, r.side, r.claim) for r in reader]
    assert kinds[-2:] == [("S", "x", "hold"), ("T", "x", "")]
    assert check_proof(stolen.getvalue()).leaves["T"] == 1
    assert check_proof(full.getvalue()).leaves["T"] == 0
    assert one.header.lines < two.header.lines


def test_stealing_is_refused_past_the_empty_board() -> None:
    # X to move after x b2, o a1: a real hold section for O, then X's "by stealing"
    position = "o2/1x1/3 x"
    text = header(position, "draw", 2) + "S x hold\nT\n"
    with pytest.raises(ProofCheckError, match="at the empty board only"):
        check_proof(text.encode())


@pytest.mark.parametrize(("text", "message"), [
    (header("3/3/3 x", "draw", 2, version=2) + "S x hold\nT\n", "needs format version 3"),
    (header("3/3/3 x", "x", 2) + "S x win\nT\n", "is a hold section's whole tree"),
    (header("3/3/3 x", "draw", 2) + "S o hold\nT\n", "expected the opponent's node"),
    (header("3/3/3 x", "draw", 5) + "S x hold\nM 4\nR 2 0 1\nT\nE\n",
     "is a hold section's whole"),
    (header("3/3/3 x", "draw", 2) + "S x hold\nT 4\n", "'T' alone"),
])
def test_misplaced_stealing_is_a_format_error(text: str, message: str) -> None:
    with pytest.raises(ProofFormatError, match=message):
        check_proof(text.encode())
