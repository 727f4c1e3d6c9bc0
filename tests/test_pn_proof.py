"""Proofs written from proof-number search are accepted by the independent checker, and
``ttt prove`` writes them, reports figures, stops at limits and on Ctrl-C."""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
from pathlib import Path

import pytest
from subprocesses import ttt_stopped
from typer.testing import CliRunner

import tictactoe.proof
from tictactoe.cli import app
from tictactoe.core import Position
from tictactoe.proof import ProofCheckError, check_proof, read_header
from tictactoe.search import solve_value
from tictactoe.search.pn.proofs import ProofUnavailableError, write_pn_proof, write_proof

runner = CliRunner()


def expected_value(position: str) -> str:
    reference = solve_value(Position(position))
    assert reference.proven
    winner = reference.winner
    return "draw" if winner is None else winner.symbol


@pytest.mark.parametrize("position", [
    "3x3", "4x3", "4x4k3", "4x4k4", "6x5k4", "x2/1o1/3 x", "xx1/oo1/x2 o",
    # a mid-game cube position from Patashnik's strategy (X to move, ply 10)
    "xxo1/1o2/4/xo1x:4/4/1o2/4:4/1o2/4/4:1x2/4/4/4 x",
])
def test_pn_proofs_are_accepted_by_the_checker(position: str) -> None:
    buffer = io.BytesIO()
    written = write_pn_proof(position, buffer, table_mb=16)
    stats = check_proof(buffer.getvalue())
    assert stats.value == written.header.value == written.value.value
    if Position(position).variant.cells <= 30:
        assert stats.value == expected_value(position)
    else:
        assert stats.value == "x"
    assert stats.lines == written.header.lines


def test_a_corrupted_pn_proof_is_rejected() -> None:
    buffer = io.BytesIO()
    write_pn_proof("6x5k4", buffer, table_mb=16)
    lines = buffer.getvalue().decode().splitlines()
    first_reply = next(i for i, line in enumerate(lines) if line.startswith("R "))
    tokens = lines[first_reply].split()
    lines[first_reply] = "R " + " ".join([str(int(tokens[1]) - 1), *tokens[3:]])  # one less
    with pytest.raises(ProofCheckError):
        check_proof("\n".join(lines).encode())


def test_no_proof_is_written_when_the_search_stops_first(tmp_path: Path) -> None:
    target = tmp_path / "cube.proof"
    with pytest.raises(ProofUnavailableError, match="stopped before proving"):
        write_pn_proof("4x4x4", target, nodes=100, table_mb=16)
    assert not target.exists()


def test_ttt_prove_writes_a_checked_proof_and_reports_figures(tmp_path: Path) -> None:
    target = tmp_path / "6x5k4.proof.gz"
    result = runner.invoke(app, ["prove", "6x5k4", "--out", str(target), "--json",
                                 "--table-mb", "16"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["value"] == expected_value("6x5k4")
    assert figures["bytes"] == target.stat().st_size and figures["lines"] > 10
    assert gzip.decompress(target.read_bytes()).startswith(b'{"format": "tictactoe-proof"')
    checked = runner.invoke(app, ["check-proof", str(target)])
    assert checked.exit_code == 0 and "valid" in checked.stdout
    plain = runner.invoke(app, ["prove", "4x3", "--table-mb", "4"])
    assert plain.exit_code == 0 and "X wins" in plain.stdout


def test_ttt_prove_stops_at_a_limit_and_refuses_bad_input(tmp_path: Path) -> None:
    target = tmp_path / "cube.proof"
    result = runner.invoke(app, ["prove", "4x4x4", "--nodes", "100", "--out", str(target),
                                 "--table-mb", "16"])
    assert result.exit_code == 1 and "stopped before proving" in result.output
    assert not target.exists()
    result = runner.invoke(app, ["prove", "4x4x4", "--nodes", "100", "--json",
                                 "--table-mb", "16"])
    assert result.exit_code == 1 and json.loads(result.stdout)["value"] == "unknown"
    result = runner.invoke(app, ["prove", "xxx/oo1/3 o"])
    assert result.exit_code == 2 and "game is over" in result.output
    result = runner.invoke(app, ["prove", "3x3x3x3x3"])
    assert result.exit_code == 2 and "Traceback" not in result.output


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_stops_ttt_prove_cleanly(tmp_path: Path) -> None:
    target = tmp_path / "cube.proof"
    code, err, stopped_after = ttt_stopped(
        ["prove", "4x4x4", "--out", str(target), "--table-mb", "32"], signal.SIGINT,
        5)  # past start-up: well into the search
    assert code == 130
    assert "interrupted" in err and "Traceback" not in err
    assert stopped_after < 5
    assert not target.exists()


def test_ttt_solve_method_pn_agrees_with_ab_and_auto_picks_pn_on_the_cube() -> None:
    for position in ("5x4k4", "x2/1o1/3 x", "xx1/oo1/x2 o", "6x5k4"):
        pn = runner.invoke(app, ["solve", position, "--method", "pn", "--json"])
        ab = runner.invoke(app, ["solve", position, "--method", "ab", "--json", "--value"])
        assert pn.exit_code == ab.exit_code == 0, pn.output + ab.output
        found, reference = json.loads(pn.stdout), json.loads(ab.stdout)
        assert found["method"] == "pn" and found["proven"]
        assert found["winner"] == reference["winner"]
    cube = "xxo1/1o2/4/xo1x:4/4/1o2/4:4/1o2/4/4:1x2/4/4/4 x"
    auto = runner.invoke(app, ["solve", cube, "--value", "--json"])
    assert auto.exit_code == 0 and json.loads(auto.stdout)["method"] == "pn"
    assert json.loads(auto.stdout)["winner"] == "x"
    text = runner.invoke(app, ["solve", cube, "--value"])
    assert "X wins (proof-number search" in text.stdout
    refused = runner.invoke(app, ["solve", "3x3", "--method", "pn", "--moves"])
    assert refused.exit_code == 2 and "value only" in refused.output


def test_a_proof_found_by_replies_is_accepted(tmp_path: Path) -> None:
    target = tmp_path / "6x5k4.proof"
    result = runner.invoke(app, ["prove", "6x5k4", "--by-replies", "--threads", "1", "--out",
                                 str(target), "--json", "--table-mb", "16"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["search_nodes"] > figures["nodes"]  # the parts were searched first
    assert check_proof(target).value == figures["value"] == "x"


def test_prove_seeks_replies_first_on_the_empty_cube_only(tmp_path: Path) -> None:
    """Without --by-replies, the empty cube is proven by replies (on one thread per core),
    and the flat boards by one search."""
    flat = runner.invoke(app, ["prove", "6x5k4", "--json", "--table-mb", "16"])
    assert flat.exit_code == 0, flat.output
    figures = json.loads(flat.stdout)
    assert figures["replies_first"] is False and figures["threads"] == 1
    assert "search_nodes" not in figures  # one search, no parts
    target = tmp_path / "cube.proof"
    cube = runner.invoke(app, ["prove", "4x4x4", "--threads", "2", "--seconds", "0.5",
                               "--table-mb", "16", "--out", str(target)])
    # by replies on two threads (no "--threads works with --by-replies" refusal), stopped
    assert cube.exit_code == 1 and "stopped before proving" in cube.output
    assert not target.exists()
    limited = runner.invoke(app, ["prove", "4x4x4", "--threads", "2", "--nodes", "1000",
                                  "--table-mb", "16", "--json"])
    assert limited.exit_code == 1, limited.output
    figures = json.loads(limited.stdout)
    assert figures["value"] == "unknown" and figures["replies_first"] is True
    assert 0 < figures["nodes"] <= 1002  # the threads share the limit (each may pass it by one)


def test_replies_on_threads_fall_back_to_one_search_when_the_move_is_refuted(
        tmp_path: Path) -> None:
    """On a draw, a reply refutes the first move: one search proves the value instead (this
    was reported as stopped when the other thread had not finished its part)."""
    target = tmp_path / "4x4k4.proof"
    result = runner.invoke(app, ["prove", "4x4k4", "--by-replies", "--threads", "2",
                                 "--out", str(target), "--json", "--table-mb", "16"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["value"] == "draw" and figures["threads"] == 1
    assert check_proof(target).value == "draw"


def test_write_proof_falls_back_to_one_search_and_says_so() -> None:
    """`write_proof` (what ``ttt prove --out`` and ``ttt bench`` call) reports the threads
    that proved the value: 1 when a reply refuted the first move on threads (a draw)."""
    buffer = io.BytesIO()
    written = write_proof("4x4k4", buffer, by_replies=True, threads=2, table_mb=16)
    assert written.value.value == "draw" and written.threads == 1
    assert written.header.lines > 0 and buffer.getvalue()
    with pytest.raises(ValueError, match="needs by_replies"):
        write_proof("4x4k4", io.BytesIO(), by_replies=False, threads=2, table_mb=16)


def test_replies_proven_on_two_threads_give_an_accepted_proof(tmp_path: Path) -> None:
    for position, name in [("6x5k4", "a.proof"),
                           ("x3/4/1o2/4:4/4/4/4:4/4/4/4:4/4/4/4 x", "b.proof.gz")]:
        target = tmp_path / name
        result = runner.invoke(app, ["prove", position, "--by-replies", "--threads", "2",
                                     "--out", str(target), "--json", "--table-mb", "64"])
        assert result.exit_code == 0, result.output
        figures = json.loads(result.stdout)
        assert figures["threads"] == 2 and figures["value"] == "x"
        assert figures["lines"] > 100 and figures["bytes"] == target.stat().st_size
        stats = check_proof(target)
        assert stats.value == "x" and stats.lines == figures["lines"]
    # the value only: the same parts on threads, with no subtree read off the tables
    result = runner.invoke(app, ["prove", "6x5k4", "--by-replies", "--threads", "2", "--json",
                                 "--table-mb", "64"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["threads"] == 2 and figures["value"] == "x" and "lines" not in figures
    result = runner.invoke(app, ["prove", "4x4x4", "--no-by-replies", "--threads", "2"])
    assert result.exit_code == 2 and "--threads works with --by-replies" in result.output
    target = tmp_path / "cube.proof"
    result = runner.invoke(app, ["prove", "4x4x4", "--by-replies", "--threads", "2",
                                 "--seconds", "0.5", "--table-mb", "16", "--out", str(target)])
    assert result.exit_code == 1 and "stopped before proving" in result.output
    assert not target.exists()


SHIPPED = Path(tictactoe.proof.__file__).resolve().parent / "reference" / "qubic.proof.gz"


@pytest.mark.slow
def test_the_shipped_qubic_proof_passes_the_checker() -> None:
    """The first player wins 4x4x4 from the empty board: the shipped proof (about 15 s)."""
    header = read_header(SHIPPED)
    assert header.variant.name == "4x4x4" and header.value == "x"
    assert Position(header.position) == Position("4x4x4")
    stats = check_proof(SHIPPED)
    assert stats.value == "x" and stats.lines == header.lines


def test_six_by_six_k5_is_proven_a_draw_with_a_checked_proof(tmp_path: Path) -> None:
    """(6,6,5): df-pn disproves both wins and the proof, two hold sections closed mostly by
    pairings whose pairs overlapping windows share, passes the checker."""
    target = tmp_path / "665.proof"
    result = runner.invoke(app, ["prove", "6x6k5", "--out", str(target), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["value"] == "draw"
    stats = check_proof(target.read_bytes())
    assert stats.value == "draw" and stats.lines == report["lines"]
    checked = runner.invoke(app, ["check-proof", str(target)])
    assert checked.exit_code == 0 and "valid" in checked.output


def test_draw_proofs_close_with_pairings_at_the_attackers_turn() -> None:
    """Df-pn disproves a win mostly by pairings with the attacker to move; the proof shows
    them there (format version 2), not as the holder's answer to each move into a pair:
    5x5 k=4's proof has under 10,000 lines where it had 138,843. The only positions
    searched again are attacker moves the search disproved by a sibling's relevance zone
    (the writer expands them into ordinary nodes), a small share of the search; X's
    question is not asked again (O's hold is read off its table before O's question is
    asked)."""
    from tictactoe.proof.format import iter_records

    buffer = io.BytesIO()
    written = write_pn_proof("5x5k4", buffer, table_mb=64, stealing=False)
    data = buffer.getvalue()
    assert written.value.value == "draw" and written.header.version == 2
    assert written.header.lines < 10_000
    assert written.research_nodes <= written.search_nodes // 4
    assert written.search_nodes == written.value.nodes
    records = list(iter_records(data))
    provers = {r.line: r.side for r in records if r.kind == "S"}
    prover = ""
    at_attackers_turn = 0
    for record in records:
        if record.kind == "S":
            prover = provers[record.line]
        elif record.kind == "P" and record.side != prover:
            at_attackers_turn += 1
    assert at_attackers_turn > 100
    stats = check_proof(data)
    assert stats.value == "draw" and stats.leaves["P"] >= at_attackers_turn


def test_pairing_leaves_are_valid_and_found_at_least_as_often_as_by_the_readable_search(
) -> None:
    """The writer's pairing leaves (`pairing_leaf`, the compiled search for shared pairs)
    against `find_pairing` (readable, same step budget) on random 6x6k5 and 4x8k4
    positions: every pairing returned holds by the definition, and none is missed that the
    readable search finds."""
    import random

    from tictactoe.core import Variant
    from tictactoe.proof.small import find_pairing
    from tictactoe.proof.threats import board_of
    from tictactoe.search.pn.proofs import pairing_leaf

    for name in ("6x6k5", "4x8k4"):
        board = board_of(Variant.parse(name))
        rng = random.Random(name)
        compiled = readable = 0
        for _ in range(150):
            cells = rng.sample(range(board.cells), rng.randrange(8, 18))
            split = rng.randrange(1, len(cells))
            mine = sum(1 << c for c in cells[:split])
            theirs = sum(1 << c for c in cells[split:])
            pairs = pairing_leaf(board, mine, theirs)
            reference = find_pairing(board, mine, theirs)
            if reference is not None:
                readable += 1
                assert pairs is not None, (name, mine, theirs)
            if pairs is None:
                continue
            compiled += 1
            used = [c for pair in pairs for c in pair]
            assert len(used) == len(set(used))
            assert not any((mine | theirs) >> c & 1 for c in used)
            for m in board.masks:
                if not m & mine:
                    assert any(m >> a & 1 and m >> b & 1 for a, b in pairs), (name, mine, m)
        assert compiled >= readable > 0


@pytest.mark.parametrize("variant", ["5x5k4", "4x8k4", "7x7k5", "4x4x4"])
def test_the_compiled_matching_agrees_with_the_readable_one(variant: str) -> None:
    """The proof writer's compiled matching (`matched_pairs`) finds pairs exactly where the
    readable matching (`find_pairing` with no shared-pair budget) does, and its pairs are
    a pairing: disjoint empty cells, both cells of a pair inside every line free of the
    holder's marks."""
    import random

    from tictactoe.proof.small import find_pairing
    from tictactoe.proof.threats import board_of
    from tictactoe.search.pn.proofs import matched_pairs

    board = board_of(Position(variant).variant)
    rng = random.Random(f"matching {variant}")
    found = 0
    for _ in range(300):
        marks = rng.sample(range(board.variant.cells), rng.randint(2, board.variant.cells // 2))
        split = rng.randint(0, len(marks))
        mine = sum(1 << c for c in marks[:split])
        theirs = sum(1 << c for c in marks[split:])
        fast = matched_pairs(board, mine, theirs)
        slow = find_pairing(board, mine, theirs, budget=0)
        assert (fast is None) == (slow is None), (hex(mine), hex(theirs))
        if fast is None:
            continue
        found += 1
        used = 0
        for a, b in fast:
            pair = 1 << a | 1 << b
            assert a != b and not pair & (used | mine | theirs)
            used |= pair
        for line in board.masks:
            if not line & mine:
                assert any(line >> a & 1 and line >> b & 1 for a, b in fast)
    assert found >= 20
