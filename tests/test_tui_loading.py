"""Loading game records that are not records (binary, not UTF-8) in every front end, the
move box's example after a record of another board is loaded, and which games the session's
score counts (only those a person moved in)."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest
from test_tui import settle
from textual.pilot import Pilot
from textual.widgets import Input, Static
from typer.testing import CliRunner

from tictactoe.cli import app as cli
from tictactoe.core import Position, Side
from tictactoe.core.record import GameRecord, InvalidRecordError
from tictactoe.tui.app import ConfirmScreen, FileScreen, MoveBox, TicTacToeApp
from tictactoe.tui.game import HUMAN, Game, SessionScore

SIZE = (110, 34)

runner = CliRunner()

Maker = Callable[[Path], Path]


def not_utf8(folder: Path) -> Path:
    path = folder / "latin.json"
    path.write_bytes(b"\xff\xfe{}")
    return path


def gzipped(folder: Path) -> Path:
    path = folder / "game.json.gz"
    record = GameRecord.from_moves("3x3", ["b2"], players={"x": HUMAN, "o": HUMAN})
    path.write_bytes(gzip.compress(record.to_json().encode()))
    return path


async def load(pilot: Pilot[None], path: Path) -> None:
    """Press l, say yes if asked, and give this file."""
    await pilot.press("l")
    await pilot.pause()
    if isinstance(pilot.app.screen, ConfirmScreen):
        await pilot.press("y")
        await pilot.pause()
    assert isinstance(pilot.app.screen, FileScreen)
    pilot.app.screen.query_one("#file-path", Input).value = str(path)
    await pilot.press("enter")
    await settle(pilot)


# ------------------------------------------------------------------- records not UTF-8


@pytest.mark.parametrize("make", [not_utf8, gzipped])
def test_a_file_that_is_not_utf8_is_a_bad_record(tmp_path: Path, make: Maker) -> None:
    with pytest.raises(InvalidRecordError, match=r"^bad record: not JSON \(not UTF-8 text"):
        GameRecord.from_file(make(tmp_path))


def test_a_number_too_long_for_python_is_a_bad_record() -> None:
    with pytest.raises(InvalidRecordError, match=r"^bad record: not JSON"):
        GameRecord.from_json('{"variant": "3x3", "moves": [], "started": ' + "1" * 5000 + "}")


@pytest.mark.parametrize("make", [not_utf8, gzipped])
def test_play_load_of_a_binary_file_is_a_one_line_error(tmp_path: Path, make: Maker) -> None:
    result = runner.invoke(cli, ["play", "--plain", "--load", str(make(tmp_path))], input="")
    assert result.exit_code == 2, result.output
    assert "error: bad record: not JSON (not UTF-8 text" in result.output
    assert not isinstance(result.exception, UnicodeDecodeError)


def test_plain_load_of_a_binary_file_says_so_and_goes_on(tmp_path: Path) -> None:
    path = not_utf8(tmp_path)
    result = runner.invoke(cli, ["play", "--plain", "--player", "human"],
                           input=f"b2\nload {path}\n")
    assert result.exit_code == 0, result.output
    assert (f"Cannot load {path}: bad record: not JSON (not UTF-8 text: byte 0xff at "
            "position 0).") in result.output
    assert result.output.splitlines()[-1] == "Unfinished after 1 move: O to move."


@pytest.mark.asyncio
async def test_the_app_reports_a_gzipped_record_and_keeps_the_game(tmp_path: Path) -> None:
    app = TicTacToeApp(Game("3x3"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # b2
        await settle(pilot)
        await load(pilot, gzipped(tmp_path))
        assert app.is_running and app.game.moves == ["b2"]
        assert "✗" in app.status_text and "bad record: not JSON (not UTF-8 text" in app.status_text


# ------------------------------------------------------------------- the move box's example


@pytest.mark.asyncio
async def test_the_move_box_example_follows_a_loaded_board(tmp_path: Path) -> None:
    cube = tmp_path / "cube.json"
    cube.write_text(GameRecord.from_moves("4x4x4", ["1:a1"],
                                          players={"x": HUMAN, "o": HUMAN}).to_json())
    flat = tmp_path / "flat.json"
    flat.write_text(GameRecord.from_moves("3x3", [], players={"x": HUMAN, "o": HUMAN}).to_json())
    app = TicTacToeApp(Game("3x3"))
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one("#move", MoveBox)
        assert box.placeholder == "type a move (b2) + Enter"
        await load(pilot, cube)
        assert app.board.variant.name == "4x4x4"
        assert box.placeholder == "type a move (3:c3) + Enter"
        await load(pilot, flat)
        assert box.placeholder == "type a move (b2) + Enter"


# ------------------------------------------------------------------- the score


def test_a_finished_start_does_not_count_in_the_score() -> None:
    score = SessionScore()
    game = Game(players={Side.X: HUMAN, Side.O: "easy"}, start=Position("xxx/oo1/3 o"))
    assert not score.count(game) and score.text() == ""


def test_plain_mode_from_a_finished_position_gives_no_score() -> None:
    result = runner.invoke(cli, ["play", "--plain", "--start", "xxx/oo1/3 o"], input="")
    assert result.exit_code == 0, result.output
    assert "Game over. X (you) wins: a1 b1 c1." in result.output
    assert "Score" not in result.output


@pytest.mark.asyncio
async def test_the_app_counts_no_game_you_did_not_play() -> None:
    app = TicTacToeApp(Game(players={Side.X: HUMAN, Side.O: "easy"},
                            start=Position("xxx/oo1/3 o")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.game.position.is_game_over()
        assert str(app.query_one("#score", Static).content) == ""


@pytest.mark.asyncio
async def test_leaving_before_your_first_move_does_not_ask() -> None:
    """The computer opened as X and you have not moved: n starts again at once; once you
    have moved, n asks first."""
    app = TicTacToeApp(Game("3x3", players={Side.X: "perfect", Side.O: HUMAN}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.game.moves) == 1 and not app.game_under_way
        serial = app.game.serial
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen) and app.game.serial != serial
        assert len(app.game.moves) == 1  # it opened again
        app.play(app.game.position.legal_moves()[0])
        await settle(pilot)
        assert app.game_under_way
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "(3 moves)" in str(app.screen.query_one("#question", Static).content)
        await pilot.press("n")
        await pilot.pause()
