"""The proof file reader and writer: round trips, gzip, and a clear error for each way a
file can break the format."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from tictactoe.core import TicTacToeError
from tictactoe.proof import (
    ProofCheckError,
    ProofFormatError,
    ProofReader,
    ProofWriter,
    read_header,
)
from tictactoe.proof.format import VERSION, iter_records

HEADER = {"format": "tictactoe-proof", "version": 1, "variant": "3x3",
          "position": "xx1/oo1/3 x", "value": "x"}


def proof_bytes(body: list[str], *, lines: int | None = None,
                changes: dict[str, object] | None = None) -> bytes:
    """A file with this body; the header's `lines` is the body's length unless given."""
    header = dict(HEADER, lines=len(body) if lines is None else lines)
    header.update(changes or {})
    return ("\n".join([json.dumps(header), *body]) + "\n").encode()


def records(data: bytes) -> list[tuple[int, str, tuple[int, ...]]]:
    with ProofReader(data) as reader:
        return [(r.line, r.kind, r.cells) for r in reader]


def format_error(data: bytes) -> ProofFormatError:
    with pytest.raises(ProofFormatError) as caught:
        records(data)
    return caught.value


def test_errors_are_value_errors() -> None:
    assert issubclass(ProofFormatError, TicTacToeError)
    assert issubclass(ProofCheckError, ValueError)
    err = ProofCheckError("boom", line=4, position="3/3/3 x")
    assert (err.line, err.position, err.detail) == (4, "3/3/3 x", "boom (position '3/3/3 x')")


def test_round_trip_with_every_node_kind() -> None:
    buffer = io.BytesIO()
    with ProofWriter(buffer, position="3/3/3 x", value="draw", seconds=1.5) as writer:
        assert writer.section("x", "hold") == 2
        assert writer.move(4) == 3
        assert writer.replies([0, 1]) == 4
        writer.pairing([(2, 6), (3, 5)])
        writer.forced([8, 2])
        assert writer.section("o", "hold") == 7
        writer.replies([4])
        writer.move(0)
        writer.replies([8])
        writer.same(3)
    data = buffer.getvalue()
    header = read_header(data)
    assert (header.variant.name, header.value, header.lines) == ("3x3", "draw", 10)
    assert header.extra == {"seconds": 1.5}
    got = list(iter_records(data))
    assert [(r.kind, r.cells, r.depth, r.side) for r in got] == [
        ("S", (), 0, "x"), ("M", (4,), 0, "x"), ("R", (0, 1), 1, "o"), ("P", (2, 6, 3, 5), 2, "x"),
        ("F", (8, 2), 2, "x"), ("S", (), 0, "o"), ("R", (4,), 0, "x"), ("M", (0,), 1, "o"),
        ("R", (8,), 2, "x"), ("=", (), 3, "o")]
    assert got[-1].target == 3
    assert got[5].claim == "hold"
    assert data.decode().splitlines()[1:] == [
        "S x hold", "M 4", "R 2 0 1", "P 2 6 3 5", "F 8 2", "S o hold", "R 1 4", "M 0",
        "R 1 8", "= 3"]


def test_a_pairing_at_the_opponents_turn_makes_the_file_version_2() -> None:
    """Version 2 allows a pairing (P) in place of the opponent's node in a hold section; the
    writer marks a file version 2 only when it has one, and a version-1 file with one is
    refused."""
    buffer = io.BytesIO()
    with ProofWriter(buffer, position="x1o/1o1/x2 x", value="draw") as writer:
        writer.section("x", "hold")
        writer.move(5)
        writer.pairing([(1, 7)])  # O to move
        writer.section("o", "hold")
        writer.pairing([(1, 7)])  # X to move
    data = buffer.getvalue()
    assert read_header(data).version == 2 and b'"version": 2' in data
    assert [(r.kind, r.depth, r.side) for r in iter_records(data)] == [
        ("S", 0, "x"), ("M", 0, "x"), ("P", 1, "o"), ("S", 0, "o"), ("P", 0, "x")]
    old = data.replace(b'"version": 2', b'"version": 1')
    err = format_error(old)
    assert err.line == 4 and "format version 2 allows it, this file is version 1" in str(err)
    plain = io.BytesIO()
    with ProofWriter(plain, position="x1o/1o1/x2 x", value="draw") as writer:
        writer.section("x", "hold")
        writer.move(5)
        writer.replies([1])
        writer.move(7)
        writer.replies([])
        writer.section("o", "hold")
        writer.replies([5])
        writer.pairing([(1, 7)])  # O to move, its own pairing: version 1 has it
    assert read_header(plain.getvalue()).version == 1
    with pytest.raises(ProofFormatError, match="or 'P' in a hold section"), \
            ProofWriter(io.BytesIO(), position="x1o/1o1/x2 x", value="x") as writer:
        writer.section("x", "win")
        writer.move(5)
        writer.pairing([(1, 7)])


def test_gzip_by_name_and_by_magic(tmp_path: Path) -> None:
    path = tmp_path / "p.proof.gz"
    with ProofWriter(path, position="xx1/oo1/3 x", value="x") as writer:
        writer.section("x", "win")
        writer.win(2)
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert records(raw) == [(2, "S", ()), (3, "W", (2,))]  # bytes: found by the magic
    assert [r.kind for r in iter_records(path)] == ["S", "W"]
    plain = tmp_path / "p.proof"
    plain.write_bytes(gzip.decompress(raw))
    assert read_header(plain).lines == 2
    misnamed = tmp_path / "plain.gz"
    misnamed.write_bytes(gzip.decompress(raw))
    assert "cannot read" in str(format_error(raw[:20]))
    with pytest.raises(ProofFormatError, match="cannot read"):
        read_header(misnamed)


def test_truncated_gzip() -> None:
    data = gzip.compress(proof_bytes(["S x win", "W 2"]))
    err = format_error(data[: len(data) - 12])
    assert "truncated" in str(err) or "cannot read" in str(err)


@pytest.mark.parametrize(("changes", "message"), [
    ({"version": 5}, "unknown format version 5: this reader knows versions 1, 2, 3, 4"),
    ({"version": "1"}, "unknown format version '1'"),
    ({"version": True}, "unknown format version True"),
    ({"format": "tictactoe-game/1"}, "not a proof file"),
    ({"variant": "3x3x"}, "bad header: unknown variant"),
    ({"variant": "4x4"}, "is on 3x3, but the variant is 4x4"),
    ({"position": "xx1/oo1/3 q"}, "bad header: the side to move must be 'x' or 'o'"),
    ({"position": "xx1/oo1 x"}, "the position 'xx1/oo1 x' is on 2x3, but the variant is 3x3"),
    ({"value": "X"}, "'value' is 'X'"),
    ({"lines": -1}, "'lines' is -1"),
    ({"lines": 2.0}, "'lines' is 2.0"),
])
def test_bad_header(changes: dict[str, object], message: str) -> None:
    err = format_error(proof_bytes(["S x win", "W 2"], changes=changes))
    assert err.line == 1
    assert message in str(err)
    assert VERSION == 4


@pytest.mark.parametrize(("data", "message"), [
    (b"", "the file is empty"),
    (b"not json\nS x win\n", "not valid JSON"),
    (b"[1, 2]\n", "not a JSON object"),
    (b'{"format": "tictactoe-proof", "version": 1}\n', "the header has no 'variant'"),
])
def test_bad_header_line(data: bytes, message: str) -> None:
    err = format_error(data)
    assert (err.line, message in str(err)) == (1, True)


@pytest.mark.parametrize(("body", "line", "message"), [
    (["S x win", "Q 2"], 3, "bad token 'Q'"),
    (["S x win", "W 9"], 3, "expected 'W c' with one cell c"),
    (["S x win", "W  2"], 3, "bad node line"),
    (["S x win", "W 02"], 3, "bad node line"),
    (["S x win", "W +2"], 3, "bad node line"),
    (["S x win", "W 2 "], 3, "bad node line"),
    (["S x win", "W 2\r"], 3, "bad node line"),
    (["S x win", "M 2", "R 2 5"], 4, "announces 2 replies but lists 1"),
    (["S x win", "M 2", "R x"], 4, "expected 'R n c1 ... cn'"),
    (["S x win", "F 2 10"], 3, "bad token '10'"),
    (["S x hold", "P 2 5 6"], 3, "odd number of cells"),
    (["S x hold", "E 1"], 3, "'E' alone"),
    (["S x win", "= 02"], 3, "'= n' with a line number"),
    (["S x win", "= x"], 3, "'= n' with a line number"),
    (["S x wins", "W 2"], 2, "bad section line"),
    (["S y win", "W 2"], 2, "bad section line"),
    (["W 2"], 2, "before the first section"),
    (["S x win", "R 0"], 3, "expected a node of the prover X"),
    (["S x win", "M 2", "W 5"], 4, "expected the opponent's node 'R n ...' (O to move)"),
    (["S x win", "W 2", "W 5"], 4, "after the end of the tree of the section on line 2"),
    (["S x win", "M 2", "S o win"], 4, "still expects 1 more node(s)"),
    (["S x win", "W 2", ""], 4, "bad token ''"),
    (["S x win", "W \u00e92"], 3, "not ASCII"),
])
def test_bad_body_line(body: list[str], line: int, message: str) -> None:
    err = format_error(proof_bytes(body))
    assert err.line == line
    assert message in str(err)
    assert str(err).startswith(f"line {line}: ")


def test_truncated_and_trailing() -> None:
    err = format_error(proof_bytes(["S x win", "M 2", "R 1 5"], lines=5))
    assert (err.line, "truncated file: the header says 5 lines" in str(err)) == (5, True)
    err = format_error(proof_bytes(["S x win", "M 2", "R 1 5"]))
    assert "truncated tree: the file ends while the section on line 2 still expects 1" \
        in str(err)
    err = format_error(proof_bytes(["S x win", "W 2", "W 3"], lines=2))
    assert (err.line, "trailing garbage" in str(err)) == (4, True)
    err = format_error(proof_bytes([]))
    assert "no section" in str(err)
    # a blank line after the last one counts as trailing garbage
    err = format_error(proof_bytes(["S x win", "W 2"]) + b"\n")
    assert (err.line, "trailing garbage" in str(err)) == (4, True)


def test_missing_final_newline_is_fine() -> None:
    assert records(proof_bytes(["S x win", "W 2"])[:-1])[-1] == (3, "W", (2,))


def test_writer_refuses_bad_trees() -> None:
    writer = ProofWriter(io.BytesIO(), position="xx1/oo1/3 x", value="x")
    with pytest.raises(ProofFormatError, match="before the first section"):
        writer.win(2)
    writer.section("x", "win")
    with pytest.raises(ProofFormatError, match="expected a node of the prover"):
        writer.replies([2])
    writer.move(2)
    with pytest.raises(ProofFormatError, match="cannot close the proof"):
        writer.close()
    with pytest.raises(ValueError, match="off the 3x3 board"):
        writer.win(9)
    with pytest.raises(ValueError, match="value must be"):
        ProofWriter(io.BytesIO(), position="3/3/3 x", value="X")


def test_a_path_is_written_whole_or_not_at_all(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is written under a temporary name beside the target and renamed when
    complete: a failure while it is written (a full disk, Ctrl-C) leaves the target as it
    was and no temporary file."""
    target = tmp_path / "win.proof"
    target.write_bytes(b"an older file\n")

    def broken(self: ProofWriter, header: object, out: io.BufferedWriter) -> None:
        out.write(b'{"format": "tictactoe-proof", ')
        raise KeyboardInterrupt

    monkeypatch.setattr(ProofWriter, "_copy", broken)
    with pytest.raises(KeyboardInterrupt), ProofWriter(target, position="xx1/oo1/3 x",
                                                       value="x") as writer:
        writer.section("x", "win")
        writer.win(2)
    assert target.read_bytes() == b"an older file\n"
    assert [p.name for p in tmp_path.iterdir()] == ["win.proof"]
    monkeypatch.undo()
    with ProofWriter(target, position="xx1/oo1/3 x", value="x") as writer:
        writer.section("x", "win")
        writer.win(2)
    assert read_header(target).lines == 2
    assert [p.name for p in tmp_path.iterdir()] == ["win.proof"]


def test_missing_file() -> None:
    with pytest.raises(ProofFormatError, match="cannot open"):
        read_header("no/such/file.proof")


def test_the_proof_package_imports_only_the_rules_core_and_the_standard_library() -> None:
    """The independent route: no numpy, no numba, no search code."""
    import ast
    import sys

    package = Path(__file__).resolve().parent.parent / "src" / "tictactoe" / "proof"
    modules = sorted(package.glob("*.py"))
    assert len(modules) >= 7
    for module in modules:
        tree = ast.parse(module.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                top = name.split(".")[0]
                allowed = top in sys.stdlib_module_names or top == "__future__" or \
                    name.startswith(("tictactoe.core", "tictactoe.proof"))
                assert allowed, f"{module.name} imports {name}"
