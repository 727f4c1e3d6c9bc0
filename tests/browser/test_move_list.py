"""Looking through a game and keeping it, in a real browser: the Moves list steps back and
forth (a click, or ←, →, Home and End) and shows the right board, read-only; Rematch keeps
the sides and Swap sides swaps them, with the session's score; Export writes the file the
terminal app loads, Import opens a file the terminal app saved, and a share link opens the
same game; bad links and files say what is wrong; the Sound switch is off at first (no audio
context made) and is remembered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from browser.conftest import YOUR_TURN, open_page, wait_until
from browser.test_layout import save_screen
from tictactoe.core import Side
from tictactoe.core.record import GameRecord
from tictactoe.tui import engine as tui_engine
from tictactoe.tui.game import HUMAN, Game

pytestmark = [
    pytest.mark.browser,
    # pytest-base-url (a pytest-playwright dependency) still defines a fixture the old way
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

STATUS = "document.querySelector('#status').textContent"
LOOKING = "document.querySelector('#status').classList.contains('looking')"


def board(page: Any, where: str = "#board") -> dict[str, str]:
    """The marks on a board by cell name: {'b2': 'x', 'a1': 'o'}."""
    return dict(page.evaluate(
        f"""[...document.querySelectorAll('{where} .cell')]
              .filter((c) => c.querySelector('svg'))
              .map((c) => [c.dataset.name, c.querySelector('svg').classList[0]])"""))


def shown_move(page: Any, where: str = "#moves") -> str:
    """The text of the move the list marks as shown (aria-current): "2. O a1"."""
    return str(page.evaluate(
        f"""(() => {{ const list = document.querySelector('{where}');
              const all = [list.previousElementSibling, ...list.querySelectorAll('button')];
              const shown = all.filter((b) => b.getAttribute('aria-current') === 'step');
              return shown.length === 1 ? shown[0].textContent : 'none'; }})()"""))


def two_players(page: Any, url: str, moves: list[str]) -> None:
    """A game between two people on 3x3 with these moves played."""
    open_page(page, url)
    page.check("input[name=mode][value=humans]")
    wait_until(page, f"{STATUS} === 'X to move'")
    for number, move in enumerate(moves, 1):
        page.click(f"#board [data-name='{move}']")
        wait_until(page, f"document.querySelectorAll('#board .cell svg').length === {number} "
                         f"&& ({YOUR_TURN})")


def until_board(page: Any, marks: dict[str, str], where: str = "#board") -> None:
    wait_until(page, f"""(() => {{
        const want = {json.dumps(marks)};
        const cells = [...document.querySelectorAll('{where} .cell')]
          .filter((c) => c.querySelector('svg'));
        return cells.length === Object.keys(want).length && cells.every(
          (c) => want[c.dataset.name] === c.querySelector('svg').classList[0]); }})()""")


def engine_ready(page: Any) -> None:
    """Wait until the server's engines are loaded (hints and the computer's moves need them;
    a fresh server on a busy machine may take minutes)."""
    wait_until(page, "document.querySelector('#engine-note').hidden", timeout=400_000)


GAME = ["b2", "a1", "c3", "a3"]
AFTER = [{}, {"b2": "x"}, {"b2": "x", "a1": "o"}, {"b2": "x", "a1": "o", "c3": "x"},
         {"b2": "x", "a1": "o", "c3": "x", "a3": "o"}]
"""The board after each number of moves of GAME."""


def test_the_move_list_steps_back_and_forth(page: Any, server: Any) -> None:
    two_players(page, server.url, GAME)
    # a click on move 2: that board, read-only, and the status says how to return
    page.click("#moves button[data-step='2']")
    until_board(page, AFTER[2])
    assert page.evaluate(STATUS) == "Move 2 of 4 — press → or End to return"
    assert page.evaluate(LOOKING)
    assert shown_move(page) == "2. O a1"
    assert page.locator("#board .cell[aria-disabled=false]").count() == 0
    assert page.locator("#undo").is_disabled()
    save_screen(page, "looking-back-1200")
    # in the list, the arrows step and the focus follows the shown move
    page.keyboard.press("ArrowLeft")
    until_board(page, AFTER[1])
    assert shown_move(page) == "1. X b2"
    assert page.evaluate("document.activeElement.getAttribute('aria-current')") == "step"
    page.keyboard.press("Home")
    until_board(page, AFTER[0])
    assert shown_move(page) == "Start"
    assert page.evaluate(STATUS).startswith("The start (move 0 of 4)")
    # with the focus on the page itself, the same keys step too
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("ArrowRight")
    until_board(page, AFTER[1])
    page.keyboard.press("ArrowRight")
    until_board(page, AFTER[2])
    assert page.evaluate(STATUS).startswith("Move 2 of 4")
    # End: back to the game, playable again
    page.keyboard.press("End")
    wait_until(page, f"{STATUS} === 'X to move' && ({YOUR_TURN})")
    assert board(page) == AFTER[4]
    assert not page.evaluate(LOOKING)
    assert shown_move(page) == "4. O a3"
    # on the board, the arrows move between cells and step through nothing
    page.click("#board [data-name='b1']")  # X plays b1
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === 5 && ({YOUR_TURN})")
    page.locator("#board [data-name='c1']").focus()
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.name") == "b1"
    assert not page.evaluate(LOOKING) and board(page)["b1"] == "x"
    # the "Back to the game" button returns too
    page.click("#moves button[data-step='1']")
    until_board(page, AFTER[1])
    page.click("#back-to-game")
    wait_until(page, f"{STATUS} === 'O to move'")
    assert len(board(page)) == 5


def test_a_position_looked_at_has_hints(page: Any, server: Any) -> None:
    two_players(page, server.url, GAME)
    engine_ready(page)
    page.locator("label.switch:has(#hints)").click()
    page.click("#moves button[data-step='1']")
    until_board(page, AFTER[1])
    # O to move after b2: every empty cell has its value, and a corner draws
    wait_until(page, "document.querySelectorAll('#board .hint').length === 8")
    hint = page.locator("#board [data-name='a1'] .hint")
    assert "draw" in (hint.get_attribute("class") or "")


def finish_against_the_computer(page: Any) -> None:
    """Win at once from a loaded position (X to move completes the top row)."""
    page.fill("#position-text", "xx1/oo1/3 x")
    page.click("#load")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === 4 && ({YOUR_TURN})")
    page.click("#board [data-name='c1']")
    wait_until(page, f"{STATUS} === 'You win! (a1 b1 c1)'")


def score(page: Any) -> str:
    return str(page.locator("#score").inner_text())


def test_rematch_keeps_the_sides_and_swap_sides_swaps_them(page: Any, server: Any) -> None:
    open_page(page, server.url)
    assert page.locator("#after-game").is_hidden()
    finish_against_the_computer(page)
    assert page.locator("#after-game").is_visible()
    assert score(page) == "This session on 3×3, Beginner: you 1 · computer 0 · draws 0"
    save_screen(page, "game-over-1200")
    # Rematch: the same start, board and level, you X again
    page.click("#rematch")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === 4 && ({YOUR_TURN})")
    assert page.locator("#after-game").is_hidden()
    assert page.is_checked("input[name=side][value=x]")
    page.click("#board [data-name='c1']")
    wait_until(page, f"{STATUS} === 'You win! (a1 b1 c1)'")
    assert score(page) == "This session on 3×3, Beginner: you 2 · computer 0 · draws 0"
    # Swap sides: you are O, so the computer (X, to move) moves first, and takes the win
    engine_ready(page)
    page.click("#swap")
    wait_until(page, "document.querySelector('#status').classList.contains('lost')")
    assert page.is_checked("input[name=side][value=o]")
    game = page.evaluate("JSON.parse(localStorage.getItem('tictactoe.current'))")
    stored = page.request.get(f"{server.url}/api/games/{game['id']}").json()
    assert stored["game"]["players"] == {"x": "beginner", "o": "human"}
    assert stored["game"]["moves"] == ["c1"]
    assert score(page) == "This session on 3×3, Beginner: you 2 · computer 1 · draws 0"
    # the score is this tab's, by board and level
    saved = json.loads(page.evaluate("sessionStorage.getItem('tictactoe.score')"))
    assert saved == {"3x3 beginner": {"you": 2, "computer": 1, "draws": 0}}
    # a swap back: you are X again and move first
    page.click("#swap")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === 4 && ({YOUR_TURN})")
    assert page.is_checked("input[name=side][value=x]")


def test_an_exported_game_loads_in_the_terminal_app(page: Any, server: Any,
                                                    tmp_path: Path) -> None:
    two_players(page, server.url, GAME)
    with page.expect_download() as download:
        page.click("#export")
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name.startswith("tictactoe-3x3-") and path.suffix == ".json"
    # what the terminal app does on "load": read the record, make its game
    record = GameRecord.from_json(path.read_text(encoding="utf-8"))
    game = tui_engine.game_from_record(record, {Side.X: HUMAN, Side.O: HUMAN})
    assert game.moves == GAME
    assert game.position.to_string() == "o2/1x1/o1x x"
    assert record.players == {"x": "human", "o": "human"}


def test_a_game_saved_by_the_terminal_app_imports(page: Any, server: Any,
                                                  tmp_path: Path) -> None:
    game = Game("4x4", players={Side.X: HUMAN, Side.O: "easy"})
    for move in ["a1", "b2", "a2"]:
        game.play_text(move)
    path = tmp_path / "saved.json"
    path.write_text(game.record().to_json() + "\n", encoding="utf-8")  # as the app saves it
    open_page(page, server.url)
    page.set_input_files("#import", str(path))
    wanted = {"a1": "x", "b2": "o", "a2": "x"}
    until_board(page, wanted)
    assert page.evaluate(STATUS) == "Game from saved.json: Move 3 of 3 · O to move"
    assert page.locator("#board .cell").count() == 16
    # looked through like any game: the list steps back
    page.click("#moves button[data-step='1']")
    until_board(page, {"a1": "x"})
    page.click("#moves button[data-step='3']")
    until_board(page, wanted)
    # and played on from there: between two people with its moves
    page.check("input[name=mode][value=humans]")  # a new game in this mode first
    wait_until(page, f"{STATUS} === 'X to move'")
    page.set_input_files("#import", str(path))
    until_board(page, wanted)
    page.click("#play-on")
    wait_until(page, f"{STATUS} === 'O to move' && ({YOUR_TURN})")
    assert board(page) == wanted
    assert page.locator("#moves li").count() == 3
    page.click("#board [data-name='c3']")
    wait_until(page, "document.querySelectorAll('#board .cell svg').length === 4")


def test_a_share_link_opens_the_same_game(page: Any, context: Any, server: Any) -> None:
    two_players(page, server.url, GAME)
    page.click("#share")
    wait_until(page, "!document.querySelector('#share-text').hidden")
    link = page.input_value("#share-text")
    assert link == f"{server.url}/#game=3x3:b2,a1,c3,a3"
    other = context.new_page()
    other.goto(link)
    other.wait_for_selector("body[data-ready=true]")
    until_board(other, AFTER[4])
    wait_until(other, f"{STATUS} === 'Shared game: Move 4 of 4 · X to move'")
    assert [b.split()[-1] for b in other.locator("#moves li").all_inner_texts()] == GAME
    save_screen(other, "shared-game-1200")
    other.keyboard.press("Home")
    until_board(other, AFTER[0])
    # back to one's own game: the address no longer names the shared one
    other.click("#close-opened")
    wait_until(other, f"!({LOOKING})")
    assert other.evaluate("location.hash") == "#play"
    # a cube's moves carry their layer ("1:a1")
    other.goto(f"{server.url}/#game=4x4x4:1:a1,2:b2")
    other.wait_for_selector("body[data-ready=true]")
    until_board(other, {"1:a1": "x", "2:b2": "o"})


@pytest.mark.parametrize(("fragment", "words"), [
    ("3x3:b2,b2",
     "This game link cannot be opened: bad game link: move 2 ('b2'): b2 is already taken"),
    ("zz9:a1", "unknown variant 'zz9'"),
    ("3x3", "expected BOARD:MOVES"),
    ("3x3:b2%E0%A4%A", "This game link is damaged"),
    ("", "no game after #game="),
])
def test_a_bad_share_link_says_what_is_wrong(page: Any, server: Any, fragment: str,
                                             words: str) -> None:
    open_page(page, f"{server.url}/#game={fragment}")
    wait_until(page, "document.querySelector('#record-error').textContent !== ''")
    assert words in page.locator("#record-error").inner_text()
    assert not page.evaluate(LOOKING)  # the page plays on as before
    page.click("#board [data-name='b2']")
    wait_until(page, "document.querySelectorAll('#board .cell svg').length >= 1")


def test_a_bad_file_says_what_is_wrong(page: Any, server: Any, tmp_path: Path) -> None:
    open_page(page, server.url)
    bad = {"notes.json": "this is not JSON",
           "wrong.json": '{"variant": "3x3", "moves": ["b2", "b2"]}',
           "result.json": '{"variant": "3x3", "moves": ["b2"], "result": "x"}'}
    expected = {"notes.json": "not JSON", "wrong.json": "move 2 ('b2')",
                "result.json": "does not match the moves"}
    for name, text in bad.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        page.set_input_files("#import", str(tmp_path / name))
        wait_until(page, f"document.querySelector('#record-error').textContent.includes('{name}')")
        message = page.locator("#record-error").inner_text()
        assert message.startswith(f"{name} is not a game record the page can open: bad record:")
        assert expected[name] in message
        assert not page.evaluate(LOOKING)


AUDIO_COUNTER = """
window.audioContexts = 0;
const Original = window.AudioContext;
window.AudioContext = class extends Original {
  constructor(...args) { super(...args); window.audioContexts += 1; }
};
"""


def test_sound_is_off_at_first_and_remembered(page: Any, server: Any) -> None:
    page.add_init_script(AUDIO_COUNTER)
    two_players(page, server.url, ["b2", "a1", "b1"])
    assert not page.is_checked("#sound")
    assert page.evaluate("window.audioContexts") == 0  # three moves, no sound, no context
    page.locator("label.switch:has(#sound)").click()
    assert page.evaluate("localStorage.getItem('tictactoe.sound')") == "on"
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    wait_until(page, YOUR_TURN)
    assert page.is_checked("#sound")
    assert page.evaluate("window.audioContexts") == 0  # none until a sound is played
    page.click("#board [data-name='a2']")
    wait_until(page, "window.audioContexts === 1")
    page.locator("label.switch:has(#sound)").click()
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert not page.is_checked("#sound")


def test_the_history_replay_has_the_move_list(page: Any, server: Any) -> None:
    two_players(page, server.url, ["b2", "a1", "b1", "a2"])
    page.click("#board [data-name='b3']")  # X completes column b
    wait_until(page, f"{STATUS}.startsWith('X wins')")
    page.evaluate("location.hash = '#history'")
    wait_until(page, "document.querySelectorAll('.games tbody tr').length >= 1")
    page.locator(".games tbody tr").first.click()
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 5")
    page.click("#replay-moves button[data-step='2']")
    until_board(page, {"b2": "x", "a1": "o"}, "#replay-board")
    assert shown_move(page, "#replay-moves") == "2. O a1"
    page.keyboard.press("Home")
    until_board(page, {}, "#replay-board")
    page.keyboard.press("End")
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 5")
    # with Hints on, the position looked at has its hints
    engine_ready(page)
    page.click("#replay-moves button[data-step='1']")
    page.locator("label.switch:has(#replay-hints)").click()
    wait_until(page, "document.querySelectorAll('#replay-board .hint').length === 8")
