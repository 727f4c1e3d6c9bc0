"""The terminal app on the big boards, driven by Pilot in an 80×24 terminal: the compact view
shows the whole of 15×15 (gomoku) and 19×19 with their coordinates, and moves can be played
by keys, by mouse and by name against a cheap computer player."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tui import settle
from textual.geometry import Region
from textual.widgets import Static

from tictactoe.core import Side
from tictactoe.tui.app import MoveBox, TicTacToeApp
from tictactoe.tui.board import BoardView, CellView
from tictactoe.tui.game import HUMAN, Game

SIZE = (80, 24)


def check_whole_board(app: TicTacToeApp, rows: int, columns: int) -> None:
    """Every cell and label is on screen, whole (two characters by one line), and the
    cells of a row sit next to each other."""
    screen = Region(0, 0, *SIZE)
    cells = list(app.query(CellView))
    assert len(cells) == rows * columns
    for view in cells:
        region = view.region
        assert region.size == (2, 1) and screen.contains_region(region), (view.cell, region)
    first, last = cells[0].region, cells[-1].region
    assert last.y - first.y == rows - 1 and last.x - first.x == 2 * (columns - 1)
    labels = [str(s.content) for s in app.query(".collabel").results(Static)]
    assert labels == [chr(ord("a") + c) for c in range(columns)]
    rowlabels = [s for s in app.query(".rowlabel").results(Static)]
    assert [str(s.content) for s in rowlabels] == [str(r) for r in range(1, rows + 1)]
    assert all(screen.contains_region(s.region) and s.region.width for s in rowlabels)
    move_box = app.query_one(MoveBox)
    assert move_box.region.height >= 1 and screen.contains_region(move_box.region)
    status = app.query_one("#status", Static)
    assert status.region.height >= 1 and not status.region.overlaps(move_box.region)


@pytest.mark.asyncio
@pytest.mark.parametrize("variant,rows", [("15x15k5", 15), ("19x19k5", 19)])
async def test_the_whole_big_board_fits_80x24_and_plays(variant: str, rows: int,
                                                       tmp_path: Path) -> None:
    game = Game(variant, players={Side.X: HUMAN, Side.O: "random"})
    app = TicTacToeApp(game, seed=3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        board = app.query_one(BoardView)
        assert board.has_class("-compact")
        check_whole_board(app, rows, rows)
        # the cursor starts in the middle; Enter plays there
        centre = game.variant.index((rows // 2, rows // 2))
        assert "cursor" in board.classes_of(centre)
        await pilot.press("enter")
        await settle(pilot)
        assert board.text_of(centre) == "X" and len(game.position.move_stack) == 2
        reply = game.position.move_stack[-1]
        assert "last" in board.classes_of(reply) and board.text_of(reply) == "O"
        # arrows move the cursor (now on the reply); a click plays the clicked cell
        assert board.cursor == reply
        await pilot.press(*(["right"] * rows), *(["down"] * rows))  # stops at the edge
        assert board.cursor == rows * rows - 1
        await pilot.press("up", "left")
        up_left = rows * rows - rows - 2
        free = game.position.mark_at(up_left) is None
        assert "cursor" in board.classes_of(up_left)
        await pilot.press("enter")
        await settle(pilot)
        assert board.text_of(up_left) == ("X" if free else "O")
        assert len(game.position.move_stack) == (4 if free else 2)
        target = next(c for c in (0, rows - 1, rows * (rows - 2))
                      if game.position.mark_at(c) is None)
        await pilot.click(f"#cell-{target}")
        await settle(pilot)
        assert board.text_of(target) == "X"
        # a move by name in the move box
        name = f"{game.variant.cell_name(rows * (rows - 1))}"
        if game.position.mark_at(rows * (rows - 1)) is None:
            app.query_one(MoveBox).focus()
            await pilot.press(*name, "enter")
            await settle(pilot)
            assert board.text_of(rows * (rows - 1)) == "X"
        check_whole_board(app, rows, rows)  # still whole after the messages
        app.save_screenshot(f"tui-{variant}.svg", path=str(tmp_path))
