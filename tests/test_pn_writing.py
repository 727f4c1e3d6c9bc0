"""``ttt prove`` sizes its table to the board and the node limit."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core import Position
from tictactoe.search.pn import PnSearch
from tictactoe.search.pn.proofs import PROVE_TABLE_MB, positions_bound, table_mb_for

runner = CliRunner()


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
    assert search.tt.shape[0] * 4 >= 2 * positions_bound(Position("3x3"))
    assert search.table_bytes < 1 << 20
    assert table_mb_for(Position("4x8k4")) == PROVE_TABLE_MB == 1024
    assert table_mb_for(Position("4x4x4")) == PROVE_TABLE_MB
    # 1,000 nodes store at most 1,001 x 33 entries on 32 cells: room for twice that
    limited = table_mb_for(Position("4x8k4"), nodes=1000)
    assert limited == 5.0
    assert table_mb_for(Position("4x8k4"), nodes=10**9) == PROVE_TABLE_MB


def test_ttt_prove_reports_the_table_it_sized_and_keeps_an_explicit_size() -> None:
    result = runner.invoke(app, ["prove", "3x3", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["value"] == "draw" and figures["table_mb"] == table_mb_for(Position("3x3"))
    result = runner.invoke(app, ["prove", "4x8k4", "--nodes", "1000", "--json"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["table_mb"] == 5.0
    result = runner.invoke(app, ["prove", "3x3", "--json", "--table-mb", "16"])
    assert result.exit_code == 0 and json.loads(result.stdout)["table_mb"] == 16
