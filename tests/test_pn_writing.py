"""``ttt prove`` sizes its table to the board and the node limit, and its limits bound the
writing of the proof: it shows its progress, stops at the limits and on Ctrl-C, and leaves no
partial file."""

from __future__ import annotations

import io
import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from subprocesses import take_ctrl_c
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core import Position, Variant, canonical_masks, symmetries, transform_mask
from tictactoe.proof import check_proof
from tictactoe.proof.threats import board_of, threat_cells
from tictactoe.search.pn import PnSearch, dfpn, driver
from tictactoe.search.pn.dfpn import BUCKET
from tictactoe.search.pn.proofs import (
    PROVE_TABLE_MB,
    ProofWritingStoppedError,
    Writing,
    _Extractor,
    _Recorded,
    positions_bound,
    table_mb_for,
    write_pn_proof,
)

runner = CliRunner()


@pytest.mark.parametrize("name", ["3x3", "4x4", "2x2k2", "5x5k4", "4x8k4", "4x4x4"])
def test_the_writers_compiled_threats_and_position_keys_agree_with_the_readable_ones(
        name: str) -> None:
    """The writer's threat cells and its key for positions met before (the least image
    under the symmetries) are compiled; the readable ones are the checker's and the core's."""
    variant = Variant.parse(name)
    board = board_of(variant)
    extractor = _Extractor(PnSearch(variant, table_mb=1), _Recorded())
    rng = random.Random(name)
    for _ in range(200):
        cells = rng.sample(range(variant.cells), variant.cells)
        n = rng.randint(0, variant.cells // 2)
        mine = sum(1 << c for c in cells[:n])
        theirs = sum(1 << c for c in cells[n:n + rng.randint(max(0, n - 1), n)])
        assert extractor.threats(mine, theirs) == threat_cells(board, mine, theirs)
        key = canonical_masks(variant, mine, theirs)
        assert extractor.canonical(mine, theirs) == key
        g = rng.randrange(len(symmetries(variant)))
        image = (transform_mask(variant, g, mine), transform_mask(variant, g, theirs))
        assert extractor.canonical(*image) == key


def test_positions_bound_counts_every_placing_of_the_marks_to_come() -> None:
    # 3x3: 6,046 placings with X's count equal to O's or one more (the 5,478 legal positions
    # among them); from a position, only the marks to come count
    assert positions_bound(Position("3x3")) == 6046
    assert positions_bound(Position("xx1/oo1/3 x")) == 1 + 5 + 10 * 2 + 10 * 3 + 5 * 6 + 10
    assert positions_bound(Position("xxo/oox/xo1 x")) == 2  # the position, and one move


def test_the_table_is_sized_to_the_board_and_the_node_limit() -> None:
    small = table_mb_for(Position("3x3"))
    assert small < 1  # room for 2 x 6,046 entries, not the 1 GB of the large boards
    search = PnSearch("3x3", table_mb=small)
    assert search.tt.shape[0] * BUCKET >= 2 * positions_bound(Position("3x3"))
    assert search.table_bytes < 1 << 20
    assert table_mb_for(Position("4x8k4")) == PROVE_TABLE_MB == 1024
    assert table_mb_for(Position("4x4x4")) == PROVE_TABLE_MB
    # 1,000 nodes store at most 1,001 x 33 entries on 32 cells: room for twice that
    limited = table_mb_for(Position("4x8k4"), nodes=1000)
    assert limited == 4.0  # 32,768 rows of 128 bytes
    assert table_mb_for(Position("4x8k4"), nodes=10**9) == PROVE_TABLE_MB


def test_ttt_prove_reports_the_table_it_sized_and_keeps_an_explicit_size() -> None:
    result = runner.invoke(app, ["prove", "3x3", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["value"] == "draw" and figures["table_mb"] == table_mb_for(Position("3x3"))
    result = runner.invoke(app, ["prove", "4x8k4", "--nodes", "1000", "--json"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["table_mb"] == table_mb_for(Position("4x8k4"), nodes=1000)
    result = runner.invoke(app, ["prove", "3x3", "--json", "--table-mb", "16"])
    assert result.exit_code == 0 and json.loads(result.stdout)["table_mb"] == 16


# --------------------------------------------------------------------------- the limits
# bound the writing of the proof too

def _no_files_left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


SLOW = 0.02
"""Seconds of pause at each position the writing reads off, in the tests that need a
writing longer than their limit: 5x6 k=5 is proven in 282 nodes, and its proof (about 500
lines) is then written in about 5 s instead of a fraction of one, as a large board's is."""


def _slowed(tick: Callable[[_Extractor], None]) -> Callable[[_Extractor], None]:
    def slowed(self: _Extractor) -> None:
        time.sleep(SLOW)
        tick(self)
    return slowed


def _without_zones(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search as before relevance zones, shared pairs and dead cells: zones and shared
    pairs prove these boards in a few thousand nodes, too fast for a limit to stop the
    writing."""
    monkeypatch.setitem(driver.DEFAULTS, dfpn.ZONES, 0)
    monkeypatch.setitem(driver.DEFAULTS, dfpn.SHARED, 0)
    monkeypatch.setitem(driver.DEFAULTS, dfpn.DEAD, 0)


def test_the_time_limit_stops_the_writing_and_leaves_no_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1.5 s limit stops a writing that takes longer, says how far it got, and leaves
    nothing at the target; so does Ctrl-C (below)."""
    _without_zones(monkeypatch)
    monkeypatch.setattr(_Extractor, "tick", _slowed(_Extractor.tick))
    target = tmp_path / "draw.proof"
    started = time.perf_counter()
    result = runner.invoke(app, ["prove", "5x6k5", "--seconds", "1.5", "--out", str(target),
                                 "--json", "--table-mb", "16"])
    took = time.perf_counter() - started
    assert result.exit_code == 1, result.output
    # X's question is answered (no): at the empty board that is a draw (strategy stealing),
    # and O's hold is being written
    assert ("the time limit (1.5 s) stopped the writing of the proof that 6/6/6/6/6 x is a "
            "draw (proven in") in result.stderr
    assert "no proof file was written" in result.stderr
    figures = json.loads(result.stdout)
    assert figures["value"] == "draw" and figures["written"] is False
    assert figures["lines"] > 0 and 0 < figures["share"] < 1
    assert 1.5 <= figures["total_seconds"] < 1.5 + 0.5 and took < 1.5 + 5
    assert _no_files_left(tmp_path) == []


def test_the_node_limit_bounds_the_searches_of_the_writing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a 1 MB table, 5x5 k=4's search (without zones) loses entries that the writing
    needs, so the writing searches positions again: X's question takes 126,456 nodes (at
    the empty board, a draw by strategy stealing), and a limit of 300,000 stops the writing
    of O's hold section. Asked to prove both sides' holds, the writing stops before O's
    question is asked."""
    _without_zones(monkeypatch)
    target = tmp_path / "5x5k4.proof"
    result = runner.invoke(app, ["prove", "5x5k4", "--nodes", "120000", "--out", str(target),
                                 "--json", "--table-mb", "1"])
    assert result.exit_code == 1, result.output
    assert "the node limit (120,000 nodes) stopped the writing" in result.stderr
    assert "the proof that 5/5/5/5/5 x 4 is a draw (proven in 96,814 nodes" in result.stderr
    figures = json.loads(result.stdout)
    assert figures["value"] == "draw" and figures["nodes"] == 96_814
    assert figures["searched_again"] > 0 and figures["lines"] > 0
    assert 110_000 < figures["total_nodes"] <= 120_001  # a search may pass it by one
    assert _no_files_left(tmp_path) == []
    with pytest.raises(ProofWritingStoppedError) as stopped:
        write_pn_proof("5x5k4", target, nodes=120_000, table_mb=1, stealing=False)
    assert stopped.value.limit == "nodes" and stopped.value.nodes <= 120_001
    assert "X not winning" in str(stopped.value) and "O's win not yet asked" in str(
        stopped.value)
    assert not stopped.value.value.proven and stopped.value.writing.researched > 0
    assert _no_files_left(tmp_path) == []
    # with room for its searches, a proof is written and checks: 3x3 takes 50 nodes
    written = write_pn_proof("3x3", target, nodes=60, table_mb=1)
    assert written.search_nodes + written.research_nodes <= 60
    assert check_proof(target).value == "draw"


def test_a_proof_for_the_side_not_to_move_drops_the_hold_section_read_first() -> None:
    """X to move, and O wins (4x4, three in a row): X's question is answered no first,
    O's hold is read off, then O's win is proven and written alone."""
    states: list[Writing] = []
    buffer = io.BytesIO()
    written = write_pn_proof("x3/2oo/4/3x x 3", buffer, table_mb=1,
                             write_progress=states.append)
    assert written.value.value == "o" and [q.outcome for q in written.value.questions] == [
        "no-win", "win"]
    assert buffer.getvalue().decode().splitlines()[1] == "S o win"
    assert check_proof(buffer.getvalue()).value == "o"
    assert states[-1].share == 1 and states[-1].lines == written.header.lines


def test_the_writing_reports_its_progress() -> None:
    states: list[Writing] = []
    buffer = io.BytesIO()
    written = write_pn_proof("5x6k5", buffer, table_mb=16, write_progress=states.append)
    assert states[0].lines == 0 and states[0].share == 0
    assert states[-1].share == 1 and states[-1].lines == written.header.lines
    assert all(a.lines <= b.lines and a.share <= b.share for a, b in pairwise(states))
    assert check_proof(buffer.getvalue()).lines == written.header.lines


def test_a_small_proof_is_written_whole_and_checks(tmp_path: Path) -> None:
    target = tmp_path / "3x3.proof.gz"
    result = runner.invoke(app, ["prove", "3x3", "--out", str(target), "--seconds", "60"])
    assert result.exit_code == 0, result.output
    assert _no_files_left(tmp_path) == ["3x3.proof.gz"]
    checked = runner.invoke(app, ["check-proof", str(target)])
    assert checked.exit_code == 0 and "valid" in checked.stdout


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_while_the_proof_is_written_stops_cleanly(tmp_path: Path) -> None:
    """The progress shows on a terminal (here a pipe taken for one); Ctrl-C as soon as it
    says the proof is being written (slowed as above) stops the writing, leaves no file and
    says how far the writing got."""
    target = tmp_path / "5x6k5.proof"
    code = ("import time\n"
            "from tictactoe.search.pn.proofs import _Extractor\n"
            "tick = _Extractor.tick\n"
            f"_Extractor.tick = lambda self: (time.sleep({SLOW}), tick(self))[1]\n"
            "from tictactoe.cli import main; main()")
    env = {**os.environ, "TTY_COMPATIBLE": "1", "COLUMNS": "200"}
    with subprocess.Popen(
            [sys.executable, "-c", code, "prove", "5x6k5", "--out", str(target),
             "--table-mb", "16"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, preexec_fn=take_ctrl_c) as process:
        try:
            shown = _read_until(process, b"writing the proof:", timeout=120)
            sent = time.monotonic()
            process.send_signal(signal.SIGINT)
            _, rest = process.communicate(timeout=30)
            stopped_after = time.monotonic() - sent
        finally:
            process.kill()
    err = (shown + rest).decode(errors="replace")
    assert process.returncode == 130, err
    assert "of the tree" in err  # the progress: lines and the share of the tree
    assert "interrupted while writing the proof" in err and "no proof file was written" in err
    assert "Traceback" not in err
    assert stopped_after < 5
    assert _no_files_left(tmp_path) == []


def _read_until(process: subprocess.Popen[bytes], text: bytes, timeout: float) -> bytes:
    """Read the process's stderr until `text` shows (or fail after `timeout` seconds)."""
    assert process.stderr is not None
    stream = process.stderr.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    while text not in seen:
        left = deadline - time.monotonic()
        assert left > 0 and process.poll() is None, seen.decode(errors="replace")
        ready, _, _ = select.select([stream], [], [], min(left, 1.0))
        if ready:
            seen += os.read(stream, 65536)
    return seen
