"""The Textual app, driven by Pilot: keys, mouse, typed moves, undo/redo, hints, save/load."""

from __future__ import annotations

import io
import json
import re
from functools import cache
from pathlib import Path

import pytest
from rich.console import Console
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Input, Static

from tictactoe.core import Position, Side
from tictactoe.core.record import GameRecord
from tictactoe.search.score import Win
from tictactoe.tui.app import (
    COMPACT_LEGEND,
    HINT_LEGEND,
    KEYS,
    ConfirmScreen,
    FileScreen,
    HelpScreen,
    MoveBox,
    TicTacToeApp,
)
from tictactoe.tui.board import EMPTY, BoardView, CellView, RowView
from tictactoe.tui.game import HUMAN, Game

SIZE = (110, 34)


def text(app: TicTacToeApp, selector: str) -> str:
    return str(app.query_one(selector, Static).content)


def vs_perfect(variant: str = "3x3", human: Side = Side.X, start: str | None = None) -> Game:
    players = {human: HUMAN, human.other: "perfect"}
    if start is not None:
        return Game(players=players, start=Position(start))
    return Game(variant, players=players)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the computer and the hints have finished and their results are shown."""
    app = pilot.app
    assert isinstance(app, TicTacToeApp)
    for _ in range(200):
        await app.workers.wait_for_complete()
        await pilot.pause()
        busy = app.thinking or any(w.is_running for w in app.workers)
        if not busy and not (app.hints_on and app.game.human_to_move and not app.hints):
            return
    raise AssertionError("the app did not settle")


@cache
def brute(x: int, o: int, turn: Side) -> tuple[str, int]:
    """Independent negamax on 3x3 for the side to move: ('win'|'loss'|'draw', plies)."""
    position = Position("3x3")
    position.x, position.o, position.turn = x, o, turn
    best: tuple[str, int] | None = None
    for cell in position.legal_moves():
        value = move_value(position, cell)
        if best is None or rank(value) > rank(best):
            best = value
    return best if best is not None else ("draw", 0)


def move_value(position: Position, cell: int) -> tuple[str, int]:
    child = position.play(cell)
    if child.winner() is not None:
        return ("win", 1)
    if child.is_game_over():
        return ("draw", 1)
    kind, plies = brute(child.x, child.o, child.turn)
    return ({"win": "loss", "loss": "win", "draw": "draw"}[kind], plies + 1)


def rank(value: tuple[str, int]) -> tuple[int, int]:
    kind, plies = value
    return (1, -plies) if kind == "win" else (-1, plies) if kind == "loss" else (0, 0)


def arrows_to(board: BoardView, target: int) -> list[str]:
    """The arrow keys that take the cursor to a cell of a flat board."""
    variant = board.variant
    (row, col), (trow, tcol) = variant.coordinates(board.cursor), variant.coordinates(target)
    keys = ["down" if trow > row else "up"] * abs(trow - row)
    return keys + ["right" if tcol > col else "left"] * abs(tcol - col)


@pytest.mark.asyncio
async def test_full_game_against_perfect_by_keys_loses_and_shows_the_line() -> None:
    app = TicTacToeApp(vs_perfect())
    async with app.run_test(size=SIZE) as pilot:
        board = app.board
        assert board.has_focus and board.cursor == 4
        while not app.game.position.is_game_over():
            target = app.game.position.legal_moves()[0]  # a naive player: first empty cell
            await pilot.press(*arrows_to(board, target), "enter")
            await settle(pilot)
            assert app.game.position.mark_at(target) is Side.X
            if not app.game.position.is_game_over():  # the reply says what it is worth
                assert re.search(r"O played [a-c][1-3] \(proven: (win in \d+|draw)\)$",
                                 app.status_text), app.status_text
        position = app.game.position
        assert position.winner() is Side.O  # perfect punishes the naive player
        line = position.winning_lines()[0]
        for cell in range(9):
            assert ("winning" in board.classes_of(cell)) == (cell in line)
            mark = position.mark_at(cell)
            assert board.text_of(cell) == (EMPTY if mark is None else mark.symbol.upper())
        assert app.status_text.startswith("O (perfect) wins: ")
        assert position.to_string() in text(app, "#position")
        await pilot.press("enter")  # a move after the end is refused, not a crash
        assert "the game is over" in app.status_text


@pytest.mark.asyncio
async def test_full_game_against_perfect_by_mouse_draws() -> None:
    app = TicTacToeApp(vs_perfect(human=Side.O))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.game.moves) == 1  # the computer opened
        while not app.game.position.is_game_over():
            position = app.game.position
            best = max(position.legal_moves(), key=lambda c: rank(move_value(position, c)))
            await pilot.click(f"#cell-{best}")
            await settle(pilot)
            assert app.game.position.mark_at(best) is Side.O
        assert app.game.position.outcome() is not None
        assert app.game.position.winner() is None
        assert app.status_text.startswith("Draw")
        pairs = app.game.move_pairs()
        assert text(app, "#moves") == "\n".join(pairs) and len(pairs) == 5


@pytest.mark.asyncio
async def test_typed_moves_typos_and_illegal_moves() -> None:
    app = TicTacToeApp(Game("3x3"))  # two people
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one("#move", Input)
        await pilot.press("tab")
        assert box.has_focus
        for text in ("b2", "zz", "b2", "d1", "a1"):
            await pilot.press(*text, "enter")
            if text == "zz":
                assert "cannot read move 'zz'" in app.status_text
        assert app.game.moves == ["b2", "a1"]
        assert box.value == ""
        await pilot.press("escape", "u")
        assert app.board.has_focus and app.game.moves == ["b2"]  # two people: one move back


@pytest.mark.asyncio
async def test_illegal_typed_move_names_the_problem() -> None:
    app = TicTacToeApp(Game("3x3"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("tab", "b", "2", "enter", "b", "2", "enter")
        assert app.game.moves == ["b2"]
        assert "b2 is already taken" in app.status_text
        await pilot.press("d", "1", "enter")
        assert "'d1' is off the 3x3 board" in app.status_text


@pytest.mark.asyncio
async def test_undo_and_redo_against_the_computer_take_both_plies() -> None:
    app = TicTacToeApp(vs_perfect())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        first_two = app.game.moves
        assert len(first_two) == 2
        target = app.game.position.legal_moves()[0]
        await pilot.press(*arrows_to(app.board, target), "enter")
        await settle(pilot)
        assert len(app.game.moves) == 4
        await pilot.press("u")
        await settle(pilot)
        assert app.game.moves == first_two and app.game.human_to_move
        await pilot.press("u")
        await settle(pilot)
        assert app.game.moves == []
        await pilot.press("u")
        assert "nothing to undo" in app.status_text
        await pilot.press("r")
        await settle(pilot)
        assert app.game.moves == first_two
        await pilot.press("r")
        await settle(pilot)
        assert len(app.game.moves) == 4 and app.game.moves[:2] == first_two
        await pilot.press("r")
        assert "nothing to redo" in app.status_text
        await pilot.press("n", "y")  # a game under way: new asks first
        await settle(pilot)
        assert app.game.moves == [] and not app.game.can_redo


@pytest.mark.asyncio
@pytest.mark.parametrize("start", ["x1o/1x1/o2 x", "o2/1x1/3 x", "x1o/3/3 x"])
async def test_hints_show_each_cells_value(start: str) -> None:
    app = TicTacToeApp(vs_perfect(start=start))
    async with app.run_test(size=SIZE) as pilot:
        board = app.board
        assert all(board.text_of(c) == EMPTY for c in app.game.position.empty_cells())
        await pilot.press("h")
        await settle(pilot)
        position = app.game.position
        seen = set()
        for cell in position.empty_cells():
            kind, plies = move_value(position, cell)
            expected = "draw" if kind == "draw" else f"{kind} {plies}"
            assert board.text_of(cell) == expected, position.move_name(cell)
            assert f"hint-{kind}" in board.classes_of(cell)
            seen.add(kind)
        await pilot.press("h")
        await settle(pilot)
        assert all(board.text_of(c) == EMPTY for c in position.empty_cells())
        assert seen


def test_hint_positions_cover_every_kind() -> None:
    kinds = {move_value(p, c)[0] for s in ("x1o/1x1/o2 x", "o2/1x1/3 x", "x1o/3/3 x")
             for p in [Position(s)] for c in p.legal_moves()}
    assert kinds == {"win", "loss", "draw"}


async def answer_file_prompt(pilot: Pilot[None], path: Path) -> None:
    await pilot.pause()
    assert isinstance(pilot.app.screen, FileScreen)
    box = pilot.app.screen.query_one("#file-path", Input)
    assert box.value == "tictactoe-game.json" or box.value.endswith(".json")
    box.value = str(path)
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.asyncio
async def test_save_and_load_a_game(tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    app = TicTacToeApp(vs_perfect())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        moves = app.game.moves
        await pilot.press("s")
        await answer_file_prompt(pilot, saved)
        assert f"saved {saved}" in app.status_text
        data = json.loads(saved.read_text())
        assert data["moves"] == moves and data["players"] == {"x": "human", "o": "perfect"}
        assert data["format"] == "tictactoe-game/1" and data["result"] is None
        await pilot.press("n", "y")
        await settle(pilot)
        assert app.game.moves == []
        await pilot.press("l")
        await answer_file_prompt(pilot, saved)
        await settle(pilot)
        assert app.game.moves == moves and app.game.human_to_move

        (tmp_path / "bad.json").write_text('{"variant": "3x3", "moves": ["b2", "b2"]}')
        await pilot.press("l", "y")
        await answer_file_prompt(pilot, tmp_path / "bad.json")
        assert "bad record: move 2" in app.status_text and app.game.moves == moves
        await pilot.press("l", "y")
        await answer_file_prompt(pilot, tmp_path / "missing.json")
        assert "cannot load" in app.status_text
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("escape")  # cancel: nothing written
        await pilot.pause()
        assert not isinstance(app.screen, FileScreen)


@pytest.mark.asyncio
async def test_loading_a_cube_record_redraws_the_board(tmp_path: Path) -> None:
    record = GameRecord.from_moves("4x4x4", ["1:a1", "2:b2"],
                                   players={"x": HUMAN, "o": HUMAN})
    path = tmp_path / "cube.json"
    path.write_text(record.to_json())
    app = TicTacToeApp(Game("3x3"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l")
        await answer_file_prompt(pilot, path)
        await settle(pilot)
        assert app.game.variant.name == "4x4x4" and app.board.variant.name == "4x4x4"
        assert app.board.text_of(21) == "O" and app.board.has_focus


@pytest.mark.asyncio
async def test_cube_is_four_layers_and_arrows_cross_them() -> None:
    app = TicTacToeApp(Game("4x4x4"))
    async with app.run_test(size=SIZE) as pilot:
        titles = [str(w.content) for w in app.query(".layer-title").results(Static)]
        assert titles == ["layer 1", "layer 2", "layer 3", "layer 4"]
        board = app.board
        start = board.cursor
        assert board.variant.cell_name(start) == "3:c3"
        await pilot.press("right", "right")  # 3:d3, then across into layer 4
        assert board.variant.cell_name(board.cursor) == "4:a3"
        await pilot.press("up", "up", "up")  # 4:a1, then up into layer 2
        assert board.variant.cell_name(board.cursor) == "2:a4"
        await pilot.press("space")
        await pilot.press("tab", *"1:b2", "enter")
        assert app.game.moves == ["2:a4", "1:b2"]
        assert board.text_of(board.variant.parse_cell("1:b2")) == "O"


def test_help_lists_every_key() -> None:
    """The help's list (read whole on screen below) names every key the footer shows."""
    bound = {b.key_display or b.key for b in [*TicTacToeApp.BINDINGS, *MoveBox.BINDINGS]
             if isinstance(b, Binding) and b.show}
    listed = {key for key, _ in KEYS}
    assert bound - {"ctrl+q", "escape"} <= listed and {"Ctrl+Q", "Escape"} <= listed


def screen_lines(app: TicTacToeApp) -> list[str]:
    """The text on the screen, one string per row (what a terminal of this size shows)."""
    width, height = app.size
    console = Console(width=width, height=height, record=True, file=io.StringIO())
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text().splitlines()[:height]


def words(text: str) -> str:
    return " ".join(text.split())


async def footer(pilot: Pilot[None]) -> str:
    """The footer's words, once it is drawn (its first frame can come late under load)."""
    app = pilot.app
    assert isinstance(app, TicTacToeApp)
    for _ in range(100):
        text = words(screen_lines(app)[-1])
        if text:
            return text
        await pilot.pause(0.05)
    raise AssertionError("the footer was never drawn")


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (60, 20), SIZE, (110, 48)])
async def test_help_fits_the_screen_and_scrolls_to_its_end(size: tuple[int, int]) -> None:
    """Read the help as a player would: row by row inside the box, scrolling down with the
    arrow key; every key, the hint legend and how to close it are there whole."""
    width, height = size
    app = TicTacToeApp(Game("3x3"))
    async with app.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        box = app.screen.query_one("#help", VerticalScroll)
        assert box.region.x >= 0 and box.region.right <= width
        assert box.region.y >= 0 and box.region.bottom < height  # the footer stays below it
        assert box.max_scroll_x == 0  # nothing runs past the right edge
        inside = box.scrollable_content_region
        rows = [line[inside.x:inside.right] for line in screen_lines(app)]
        read = rows[inside.y:inside.bottom]
        while box.scroll_y < box.max_scroll_y:
            await pilot.press("down")
            await pilot.pause()
            read.append(screen_lines(app)[inside.bottom - 1][inside.x:inside.right])
        text = words(" ".join(read))
        for key, meaning in KEYS:
            assert words(f"{key} {meaning}") in text
        assert words(f"Hints — {HINT_LEGEND}. Press Escape to close.") in text
        assert words(f"Hints on big boards — {COMPACT_LEGEND}.") in text
        assert text.startswith("Keys") and text.endswith("Press Escape to close.")
        assert (box.max_scroll_y > 0) == (height < 48)  # a short terminal needs the scrolling
        assert words(screen_lines(app)[-1]) == "esc Close"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_footer_always_says_how_to_quit(size: tuple[int, int]) -> None:
    app = TicTacToeApp(Game("3x3"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        drawn = await footer(pilot)
        shown = [f"{b.key_display or b.key} {b.description}" for b in app.BINDINGS
                 if isinstance(b, Binding) and b.show]
        assert shown[:2] == ["q Quit", "? Help"]
        assert drawn == " ".join(shown)  # every key, none cut off
        await pilot.press("tab")  # the move box takes the letter keys
        await pilot.pause()
        assert words(screen_lines(app)[-1]) == "^q Quit esc Board"
        await pilot.press("q")
        assert app.query_one("#move", Input).value == "q" and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


@pytest.mark.asyncio
@pytest.mark.parametrize(("variant", "move"), [("3x3", "3:z9"), ("4x4x4", "3:z9")])
async def test_a_long_status_message_wraps_and_the_board_stays_whole(variant: str,
                                                                     move: str) -> None:
    app = TicTacToeApp(Game(variant, players={Side.X: HUMAN, Side.O: HUMAN}))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("tab", *move, "enter")
        await pilot.pause()
        status = app.query_one("#status", Static)
        assert len(app.status_text) > 60 and status.region.height >= 2
        rows = screen_lines(app)[status.region.y:status.region.bottom]
        assert words(" ".join(rows)) == words(app.status_text)
        assert hidden_cells(app) == []


@pytest.mark.asyncio
async def test_resizing_under_the_help_fits_the_board_when_it_closes() -> None:
    app = TicTacToeApp(Game("4x4x4", players={Side.X: HUMAN, Side.O: HUMAN}))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("question_mark")
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not app.query_one("#side").display and hidden_cells(app) == []


def drawn_at(app: TicTacToeApp, x: int, y: int) -> int | None:
    """The cell drawn at this place of the screen (by its own widget, or by a compact row),
    or None: off the screen, or another widget."""
    try:
        shown, _ = app.screen.get_widget_at(x, y)
    except Exception:  # outside the screen
        return None
    if isinstance(shown, CellView):
        return shown.cell
    if isinstance(shown, RowView):
        return shown.cell_at(x - shown.region.x)
    return None


def hidden_cells(app: TicTacToeApp) -> list[str]:
    """Cells whose middle is not that cell on screen (cut off, or covered by another widget)."""
    board, hidden = app.board, []
    for cell in range(app.game.variant.cells):
        region = board.cell_region(cell)
        middle = (region.x + region.width // 2, region.y + region.height // 2)
        if region.width == 0 or drawn_at(app, *middle) != cell:
            hidden.append(app.game.variant.cell_name(cell))
    return hidden


async def click_cell(pilot: Pilot[None], cell: int) -> None:
    """Click a cell where it is on the screen (its own widget, or its place in a row)."""
    app = pilot.app
    assert isinstance(app, TicTacToeApp)
    region = app.board.cell_region(cell)
    await pilot.click(offset=(region.x, region.y))


@pytest.mark.asyncio
@pytest.mark.parametrize(("variant", "size", "side_panel"), [
    ("4x4x4", (80, 24), True), ("4x4x4", (60, 20), False), ("4x4x4", SIZE, True),
    ("3x3", (60, 20), True), ("8x8k5", (80, 24), True), ("3x3x3", (80, 24), False),
    ("5x5x5", (80, 24), True), ("5x5x5", (60, 20), False), ("6x6x6", (80, 24), True),
    ("6x6x6", (60, 20), False), ("19x19k5", (80, 23), True), ("19x19k5", (60, 23), False),
    ("15x15k5", (60, 20), True)])
async def test_every_cell_is_on_screen(variant: str, size: tuple[int, int],
                                       side_panel: bool) -> None:
    """The whole board and the move box fit these terminals (the sizes the docs name)."""
    app = TicTacToeApp(Game(variant, players={Side.X: HUMAN, Side.O: HUMAN}))
    async with app.run_test(size=size) as pilot:
        await pilot.press("tab", *app.game.example_move(), "enter")
        await pilot.pause()
        assert hidden_cells(app) == []
        assert app.query_one("#side").display is side_panel
        assert app.game.moves == [app.game.example_move()]
        box = app.query_one(MoveBox).region
        assert box.height >= 1 and Region(0, 0, *size).contains_region(box)


@pytest.mark.asyncio
async def test_a_big_cube_is_compact_and_plays_by_click_and_arrows() -> None:
    """5x5x5 is drawn compact, its layers three then two: a click on a layer plays there, the
    arrows cross from one layer into the next, and its hints take two characters."""
    app = TicTacToeApp(Game("5x5x5", players={Side.X: HUMAN, Side.O: HUMAN}))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        board, v = app.board, app.game.variant
        assert board.has_class("-compact") and len(app.query(RowView)) == 25
        titles = [str(w.content) for w in app.query(".layer-title").results(Static)]
        assert titles == [f"layer {n}" for n in range(1, 6)]
        target = v.parse_cell("5:e5")
        await click_cell(pilot, target)
        assert board.text_of(target) == "X" and board.cursor == target
        assert board.cell_region(target).y > board.cell_region(v.parse_cell("1:a1")).y
        await pilot.press("up", "up", "up", "up", "up")  # from 5:e1 up into layer 2
        assert v.cell_name(board.cursor) == "2:e5"
        await pilot.press("right")  # across into layer 3
        assert v.cell_name(board.cursor) == "3:a5"
        app.hints_on, app.hints = True, {board.cursor: Win(11)}  # as if searched
        app._redraw()
        await pilot.pause()
        assert board.text_of(board.cursor) == "W+"


@pytest.mark.asyncio
async def test_the_side_panel_comes_back_when_the_terminal_grows() -> None:
    app = TicTacToeApp(Game("4x4x4", players={Side.X: HUMAN, Side.O: HUMAN}))
    async with app.run_test(size=(60, 20)) as pilot:
        assert not app.query_one("#side").display
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert app.query_one("#side").display and hidden_cells(app) == []


@pytest.mark.asyncio
async def test_perfect_as_x_on_the_cube_plays_the_proof_and_wins() -> None:
    """The cube's perfect level plays X from the shipped proof: every move is labelled
    proven, and a naive defence (the first empty cell, typed) loses."""
    app = TicTacToeApp(vs_perfect("4x4x4", human=Side.O))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab")
        while not app.game.position.is_game_over():
            assert re.search(r"X played \d:[a-d][1-4] \(proven: forced win\)$",
                             app.status_text), app.status_text
            target = app.game.position.legal_moves()[0]
            await pilot.press(*app.game.position.move_name(target), "enter")
            await settle(pilot)
        assert app.game.position.winner() is Side.X
        assert app.status_text.startswith("X (perfect) wins: ")


@pytest.mark.asyncio
@pytest.mark.parametrize("start", [
    None,  # X to move on the empty cube: the shipped proof's move is a forced win
    "xxx1/4/4/4:4/1o2/4/4:4/2o1/4/4:4/4/4/4 o",  # O must block 1:d1; the rest lose at once
])
async def test_cube_hints_show_values_not_question_marks(start: str | None) -> None:
    """At 80x24 the cube's hints show proven values and marked estimates on every cell."""
    human = Side.X if start is None else Side.O
    game = (vs_perfect("4x4x4", human=human) if start is None
            else vs_perfect(human=human, start=start))
    app = TicTacToeApp(game, hint_seconds=0.5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        position = app.game.position
        board = app.board
        texts = {position.move_name(c): board.text_of(c) for c in position.empty_cells()}
        assert "?" not in texts.values() and all(texts.values())
        # (a "!" before the hint: a side completes a line there, the threats being on)
        assert all(re.fullmatch(r"!?([WL](\d+|≤\d+)?|D|≈[+-]?\d+)", t) for t in texts.values()), \
            texts
        if start is None:
            assert texts["1:a1"] == "W" and "hint-win" in board.classes_of(0)
        else:
            block = position.parse_move("1:d1")
            assert texts["1:d1"].startswith("!≈"), "X's threat, which O must block"
            assert "hint-unknown" in board.classes_of(block)
            assert all(t == "L2" for name, t in texts.items() if name != "1:d1")


@pytest.mark.asyncio
async def test_threats_are_shown_on_the_cube_and_t_toggles_them() -> None:
    """On a cube X's open pillar and O's open row are marked where they complete (in words,
    not colour alone), their marks reversed and listed in the side panel; t hides them."""
    start = "1ooo/x3/4/4:4/x3/4/4:4/x3/4/4:4/4/4/4 x"
    app = TicTacToeApp(Game(players={Side.X: HUMAN, Side.O: HUMAN}, start=Position(start)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board, v = app.board, app.game.variant
        pillar, row = v.parse_cell("4:a2"), v.parse_cell("1:a1")
        assert board.text_of(pillar) == "!x" and "threat-x" in board.classes_of(pillar)
        assert board.text_of(row) == "!o" and "threat-o" in board.classes_of(row)
        marked = {v.cell_name(c) for c in range(v.cells) if "in-threat" in board.classes_of(c)}
        assert marked == {"1:a2", "2:a2", "3:a2", "1:b1", "1:c1", "1:d1"}
        assert text(app, "#threat-state").splitlines()[1:] == [
            "X at 4:a2 (pillar)", "O at 1:a1 (row)"]
        assert text(app, "#lines").splitlines() == [
            "16 rows", "16 columns", "8 layer diagonals", "16 pillars", "16 vertical diagonals",
            "4 space diagonals"]
        await pilot.press("t")
        await pilot.pause()
        assert board.text_of(pillar) == EMPTY and not any(
            {"threat-x", "threat-o", "in-threat"} & board.classes_of(c) for c in range(v.cells))
        assert text(app, "#threat-state") == "off (press t)"
        await pilot.press("t")
        await pilot.press("tab", *"4:a2", "enter")  # X completes the pillar: nothing open now
        await pilot.pause()
        assert app.game.position.winner() is Side.X
        assert board.text_of(pillar) == "X" and board.text_of(row) == EMPTY
        assert text(app, "#threat-state") == "on (t: off): none open"


@pytest.mark.asyncio
async def test_threats_are_off_at_first_on_a_flat_board() -> None:
    app = TicTacToeApp(Game(players={Side.X: HUMAN, Side.O: HUMAN},
                            start=Position("xx1/3/o1o x")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.board.text_of(2) == EMPTY and text(app, "#threat-state") == "off (press t)"
        assert not app.query_one("#lines").display
        await pilot.press("t")
        await pilot.pause()
        assert app.board.text_of(2) == "!x" and app.board.text_of(7) == "!o"


@pytest.mark.asyncio
@pytest.mark.parametrize("key", ["n", "l", "q"])
async def test_leaving_a_game_under_way_asks_first(key: str) -> None:
    """n, l and q drop the game only after a yes; with no move played, or the game over,
    they act at once."""
    app = TicTacToeApp(Game(players={Side.X: HUMAN, Side.O: HUMAN}))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(key)  # nothing played yet: no question
        await pilot.pause()
        if key == "q":
            assert not app.is_running
            return
        assert not isinstance(app.screen, ConfirmScreen)
        if key == "l":
            assert isinstance(app.screen, FileScreen)
            await pilot.press("escape")
        await pilot.press("enter")  # b2
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "A game is under way (1 move)" in str(
            app.screen.query_one("#question", Static).content)
        await pilot.press("n")  # no: the game stays
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen) and app.game.moves == ["b2"]
        assert app.is_running
        await pilot.press(key)
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        if key == "n":
            assert app.game.moves == [] and "new game" in app.status_text
        elif key == "l":
            assert isinstance(app.screen, FileScreen)
        else:
            assert not app.is_running


@pytest.mark.asyncio
async def test_a_finished_game_is_left_without_asking() -> None:
    app = TicTacToeApp(Game(players={Side.X: HUMAN, Side.O: HUMAN},
                            start=Position("xx1/oo1/3 x")))
    async with app.run_test(size=SIZE) as pilot:
        app.play("c1")
        await pilot.pause()
        assert app.game.position.is_game_over()
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen) and app.game.moves == []


@pytest.mark.asyncio
async def test_the_move_box_takes_plain_modes_words(tmp_path: Path) -> None:
    """Typed into the box and submitted, the words of plain mode work there too; Tab goes
    from the board to the box and back, never to the side panel."""
    app = TicTacToeApp(Game(players={Side.X: HUMAN, Side.O: HUMAN}))
    saved = tmp_path / "typed.json"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.board.has_focus
        await pilot.press("tab")
        box = app.query_one(MoveBox)
        assert box.has_focus

        async def submit(line: str) -> None:
            box.focus()
            await pilot.press(*line, "enter")
            await pilot.pause()

        await submit("b2")
        await submit("a1")
        await submit("undo")
        assert app.game.moves == ["b2"]
        await submit("redo")
        assert app.game.moves == ["b2", "a1"]
        await submit("hint")
        assert app.hints_on
        await submit("h")
        assert not app.hints_on
        await submit(f"save {saved}")
        assert json.loads(saved.read_text())["moves"] == ["b2", "a1"]
        await submit("?")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        await submit("new")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert app.game.moves == []
        await submit(f"load {saved}")
        assert app.game.moves == ["b2", "a1"]
        await submit("board")
        assert app.board.has_focus
        await pilot.press("tab", "tab")
        assert app.board.has_focus  # the side panel takes no focus
        await submit("quit")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


async def _lose_as_fast_as_possible(pilot: Pilot[None]) -> None:
    """Play the first empty cell until the game ends (perfect wins against that)."""
    app = pilot.app
    assert isinstance(app, TicTacToeApp)
    while not app.game.position.is_game_over():
        await pilot.click(f"#cell-{app.game.position.legal_moves()[0]}")
        await settle(pilot)


@pytest.mark.asyncio
async def test_swap_sides_and_the_session_score() -> None:
    """w starts again with the marks exchanged (the computer opens when you play O); each
    finished game counts once in the score, from your side, also after an undo at the end."""
    app = TicTacToeApp(vs_perfect())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert text(app, "#score") == ""
        await _lose_as_fast_as_possible(pilot)
        assert app.game.position.winner() is Side.O
        assert text(app, "#score") == "Score: you 0 · computer 1 · draws 0"
        await pilot.press("u")
        await settle(pilot)
        await _lose_as_fast_as_possible(pilot)
        assert text(app, "#score") == "Score: you 0 · computer 1 · draws 0"  # the same game
        await pilot.press("w")
        await settle(pilot)
        assert app.game.players == {Side.X: "perfect", Side.O: HUMAN}
        assert len(app.game.moves) == 1  # the computer opened as X
        await _lose_as_fast_as_possible(pilot)
        assert app.game.position.winner() is Side.X
        assert text(app, "#score") == "Score: you 0 · computer 2 · draws 0"
        await pilot.press("w")  # from a finished game: no question
        await settle(pilot)
        assert app.game.players == {Side.X: HUMAN, Side.O: "perfect"} and not app.game.moves


@pytest.mark.asyncio
async def test_the_threats_panel_lists_gomokus_threes() -> None:
    """On 15x15 the Threats panel names each side's open and broken threes with the cells that
    make them open fours, as the rules core finds them (`Position.live_threes`)."""
    start = Position("15x15k5")
    for name in ("g8", "a1", "h8", "c10", "i8", "c11", "o15", "c13"):
        start.push_name(name)
    app = TicTacToeApp(Game(players={Side.X: HUMAN, Side.O: HUMAN}, start=start))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        panel = text(app, "#threat-state").splitlines()
        assert "X open three g8 h8 i8 (open four at f8 or j8)" in panel
        assert "O broken three c10 c11 c13 (open four at c12)" in panel
        assert len(panel) - 1 == len(start.threats()) + len(start.live_threes())
