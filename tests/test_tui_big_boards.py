"""The terminal app on the big boards, driven by Pilot in an 80×24 terminal: the compact view
shows the whole of 15×15 (gomoku) and 19×19 with their coordinates, and moves can be played
by keys, by mouse and by name against a cheap computer player."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from rich.style import Style
from test_tui import click_cell, drawn_at, screen_lines, settle
from textual.geometry import Region
from textual.widgets import Static

from tictactoe.core import Side
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Loss, Score, Win
from tictactoe.tui.app import MoveBox, TicTacToeApp
from tictactoe.tui.board import (
    EMPTY,
    BoardView,
    CellView,
    RowView,
    column_labels,
    compact_text,
)
from tictactoe.tui.engine import compact_hint, hint_label
from tictactoe.tui.game import HUMAN, Game

SIZE = (80, 24)


def check_whole_board(app: TicTacToeApp, rows: int, columns: int) -> None:
    """Every cell and label is on screen, whole (two characters by one line), the cells of
    a row next to each other and each drawn where the board says it is."""
    screen = Region(0, 0, *SIZE)
    board = app.query_one(BoardView)
    assert not app.query(CellView) and len(app.query(RowView)) == rows  # a widget a row
    for cell in range(rows * columns):
        region = board.cell_region(cell)
        assert region.size == (2, 1) and screen.contains_region(region), (cell, region)
        assert drawn_at(app, region.x, region.y) == drawn_at(app, region.x + 1, region.y) == cell
    first, last = board.cell_region(0), board.cell_region(rows * columns - 1)
    assert last.y - first.y == rows - 1 and last.x - first.x == 2 * (columns - 1)
    lines = screen_lines(app)
    assert lines[first.y - 1][first.x - 3:last.right] == column_labels(columns)
    labels = [lines[first.y + r][first.x - 3:first.x].strip() for r in range(rows)]
    assert labels == [str(r) for r in range(1, rows + 1)]
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
        await click_cell(pilot, target)
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


def test_compact_hints_are_never_cut() -> None:
    """Every hint fits two characters whole: the review saw ``≈+16`` drawn as ``+1``, ``W11``
    as ``W1`` and ``L12`` as ``L1``."""
    scores: list[Score] = [Win(n) for n in range(1, 60)] + [Loss(n) for n in range(1, 60)]
    scores += [Heuristic(v / 4) for v in range(-420, 421)]
    scores += [ForcedWin(), ForcedLoss(), ForcedWin(within=7), ForcedLoss(within=12), Draw()]
    for score in scores:
        code = compact_hint(score)
        assert 1 <= len(code) <= 2 and compact_text(code) == code, (score, code)
    assert [compact_hint(s) for s in (Heuristic(16.0), Win(11), Loss(12), Win(9), Loss(2))] == [
        "++", "W+", "L+", "W9", "L2"]
    bands = {compact_hint(Heuristic(v)) for v in (-95, -50, -10, -1, 0, 1, 10, 50, 95)}
    assert len(bands) == 9  # each band its own code


@pytest.mark.asyncio
async def test_compact_hints_on_the_board_and_the_cursors_full_value() -> None:
    game = Game("19x19k5", players={Side.X: HUMAN, Side.O: HUMAN})
    app = TicTacToeApp(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        centre = board.cursor
        scores: dict[int, Score] = {centre: Win(11), centre + 1: Heuristic(16.0),
                                    centre - 1: Loss(12), centre + 19: Heuristic(-0.2)}
        app.hints_on, app.hints = True, scores  # as if the hint search had answered
        app._redraw()
        await pilot.pause()
        assert [board.text_of(c) for c in scores] == ["W+", "++", "L+", "="]
        assert "hint-win" in board.classes_of(centre)
        state = str(app.query_one("#hint-state", Static).content)
        assert state.endswith(f"j10 (cursor): {hint_label(Win(11))}"), state
        await pilot.press("right")
        state = str(app.query_one("#hint-state", Static).content)
        assert state.endswith(f"k10 (cursor): {hint_label(Heuristic(16.0))}"), state


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", ["3x3", "19x19k5"])
async def test_empty_cells_show_a_dot_without_colours(variant: str) -> None:
    game = Game(variant, players={Side.X: HUMAN, Side.O: HUMAN})
    app = TicTacToeApp(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.play(0)
        await pilot.pause()
        board = app.query_one(BoardView)
        assert board.text_of(0) == "X"
        assert all(board.text_of(c) == EMPTY for c in range(1, game.variant.cells))
        # on screen, not only in the widget: the rendered board has a dot per empty cell
        screen = "\n".join(line.text for line in app.screen._compositor.render_strips())
        assert screen.count(EMPTY) == game.variant.cells - 1


@pytest.mark.asyncio
async def test_a_move_on_19x19_redraws_only_the_rows_that_change() -> None:
    """The board is a widget a row: a move (Enter) redraws the row played and the previous
    move's (its underline goes), one or two rows, not 19; the cursor the rows it leaves and
    enters. The screen work of a move (from the key to the app idle; no engine: two people
    play) is timed too, the wall clock and the process's CPU time."""
    game = Game("19x19k5", players={Side.X: HUMAN, Side.O: HUMAN})
    app = TicTacToeApp(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        assert board.repainted == 361  # the first drawing
        await app.workers.wait_for_complete()  # the search loading in the background
        await pilot.pause()
        wall, cpu = [], []
        for n, key in enumerate(["right"] * 5 + ["down"] + ["left"] * 4):
            await pilot.press(key)
            await pilot.pause()
            drawn = board.rows_drawn
            start, start_cpu = time.perf_counter(), time.process_time()
            await pilot.press("enter")
            await pilot.pause()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            assert len(game.moves) == n + 1
            # the cell played (the cursor is there), the previous move's underline
            assert 1 <= board.rows_drawn - drawn <= 2, n
        drawn = board.rows_drawn
        await pilot.press("down")
        await pilot.pause()
        assert board.rows_drawn - drawn == 2
        drawn = board.rows_drawn
        await pilot.press("right")
        await pilot.pause()
        assert board.rows_drawn - drawn == 1
        median_wall, median_cpu = sorted(wall)[len(wall) // 2], sorted(cpu)[len(cpu) // 2]
        print(f"screen work of a 19x19 move, median of {len(wall)}: "
              f"{median_wall * 1000:.0f} ms wall clock, {median_cpu * 1000:.0f} ms CPU")
        assert median_wall < 0.5  # generous: CI has slow cores


def on_screen(app: TicTacToeApp, x: int, y: int) -> tuple[str, Style]:
    """The character drawn at this place of the screen, and its style."""
    strip = app.screen._compositor.render_strips()[y]
    left = 0
    for segment in strip:
        if left <= x < left + len(segment.text):
            return segment.text[x - left], segment.style or Style()
        left += len(segment.text)
    raise AssertionError(f"nothing drawn at {x},{y}")


@pytest.mark.asyncio
async def test_compact_rows_draw_each_cells_style() -> None:
    """A row is one widget, but each cell has its own look: X's colour, the last move
    underlined, the cursor's tint (stronger while the board has the focus), light and dark
    squares; a style change of the board (the focus) redraws the rows."""
    game = Game("19x19k5", players={Side.X: HUMAN, Side.O: HUMAN})
    app = TicTacToeApp(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        centre = board.cursor
        await pilot.press("enter", "right")
        await pilot.pause()
        played, cursor = board.cell_region(centre), board.cell_region(centre + 1)
        text, style = on_screen(app, played.x, played.y)
        assert text == "X" and style.color is not None
        assert style.color.triplet is not None and style.color.triplet.hex == "#ff8c5a"
        assert style.bold and style.underline
        text, focused = on_screen(app, cursor.x, cursor.y)
        _, plain = on_screen(app, *board.cell_region(centre + 3).offset)  # the same shade
        assert text == EMPTY and not focused.underline and focused.bgcolor != plain.bgcolor
        await pilot.press("tab")  # the move box takes the focus: the cursor's tint weakens
        await pilot.pause()
        _, blurred = on_screen(app, cursor.x, cursor.y)
        assert blurred.bgcolor not in (focused.bgcolor, plain.bgcolor)
        await pilot.press("escape")
        await pilot.pause()
        assert on_screen(app, cursor.x, cursor.y)[1].bgcolor == focused.bgcolor
        light, dark = (on_screen(app, *board.cell_region(c).offset)[1].bgcolor for c in (0, 1))
        assert light != dark
