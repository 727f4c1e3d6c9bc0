"""The terminal app on the big boards, driven by Pilot in an 80×24 terminal: the compact view
shows the whole of 15×15 (gomoku) and 19×19 with their coordinates, and moves can be played
by keys, by mouse and by name against a cheap computer player."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_tui import settle
from textual.geometry import Region
from textual.widgets import Static

from tictactoe.core import Side
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Loss, Score, Win
from tictactoe.tui.app import MoveBox, TicTacToeApp
from tictactoe.tui.board import EMPTY, BoardView, CellView, compact_text
from tictactoe.tui.engine import compact_hint, hint_label
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
async def test_a_move_on_19x19_repaints_only_the_cells_that_change() -> None:
    """A move repaints the cell played and the previous move's (its underline goes): two
    cells, not 361; the cursor repaints the two cells it leaves and enters. The screen work
    of a move (drawing, layout, rendering; no engine: two people play) is timed too."""
    game = Game("19x19k5", players={Side.X: HUMAN, Side.O: HUMAN})
    app = TicTacToeApp(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        assert board.repainted == 361  # the first drawing
        await app.workers.wait_for_complete()  # the search loading in the background
        times = []
        for n, cell in enumerate((0, 20, 40, 60, 80, 100)):
            start = time.perf_counter()
            app.play(cell)
            await pilot.pause()
            times.append(time.perf_counter() - start)
            # the cell played (and the cursor moved there), the previous move's underline
            assert board.repainted == (1 if n == 0 else 2), n
        await pilot.press("down")
        assert board.repainted == 2
        print(f"screen work of a 19x19 move: {[round(t, 3) for t in times]} s")
        assert sorted(times)[len(times) // 2] < 0.5  # generous: CI has slow cores
