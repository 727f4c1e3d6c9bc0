"""The page as a player meets it: a change of setup in a game under way asks first (in the
page's own dialog; once for arrow keys on a list, when the choice is committed) and the game
it leaves stays in History as unfinished, to be resumed; a continuation after undo says so;
the hints have a legend; the position box shows its error in sight and says when a position
changes the board, with an undo (and no longer once an error follows); a board of the Board
list typed as it is listed loads that board; loaded boards get readable names; the setup and
the Hints switch survive a reload."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from browser.conftest import YOUR_TURN, open_page, stored_game, wait_until
from tictactoe.players.levels import DEFAULT_LEVEL

OTHER_LEVEL = "easy"
"""A level other than the default, to change to."""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

Shot = Callable[[Any, str], None]
CURRENT = "(JSON.parse(localStorage.getItem('tictactoe.current')) || {}).id"  # null between games
ASKING = "document.querySelector('#confirm').open"


def play_in(page: Any, move: str) -> None:
    count = page.locator("#board .cell svg").count()
    page.click(f"[data-name='{move}']")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length > {count + 1}"
                     f" && ({YOUR_TURN})")


def test_a_setup_change_asks_and_the_left_game_resumes_from_history(page: Any, server: Any,
                                                                    shot: Shot) -> None:
    open_page(page, server.url)
    play_in(page, "b2")
    first = page.evaluate(CURRENT)
    board = page.locator("#position-text").input_value()
    page.select_option("#level", OTHER_LEVEL)
    wait_until(page, ASKING)
    dialog = page.get_by_role("dialog", name="Start a new game with these settings?")
    assert dialog.is_visible()
    assert "stays in History as unfinished" in dialog.inner_text()
    shot(page, "asks")
    dialog.get_by_role("button", name="Keep playing").click()
    wait_until(page, f"!({ASKING}) && document.querySelector('#level').value === '{DEFAULT_LEVEL}'")
    assert page.evaluate(CURRENT) == first
    assert page.locator("#position-text").input_value() == board
    # the n key asks too; Escape answers no
    page.locator("body").press("n")
    wait_until(page, ASKING)
    assert page.get_by_role("dialog", name="Start a new game?").is_visible()
    page.keyboard.press("Escape")
    wait_until(page, f"!({ASKING})")
    assert page.evaluate(CURRENT) == first
    # yes: a new game against the new level
    page.select_option("#level", OTHER_LEVEL)
    wait_until(page, ASKING)
    page.click("#confirm-yes")
    # the new game's board is drawn after its number is set: wait for the empty board
    wait_until(page, f"({CURRENT}) && {CURRENT} !== '{first}' && ({YOUR_TURN})"
                     " && document.querySelectorAll('#board .cell svg').length === 0")
    second = page.evaluate(CURRENT)
    assert stored_game(server.url, second)["game"]["players"] == {
        "x": "human", "o": OTHER_LEVEL}
    # the first game is listed as unfinished, and a click resumes it in the play view
    page.click("#tab-history")
    row = page.locator(".games tbody tr", has_text="Unfinished")
    row.first.wait_for()
    assert row.count() == 1
    number = stored_game(server.url, first)["game"]["number"]
    assert row.first.locator("td").first.inner_text() == str(number)
    shot(page, "unfinished")
    row.first.click()
    wait_until(page, f"location.hash === '#play' && {CURRENT} === '{first}'")
    wait_until(page, f"document.querySelector('#position-text').value === '{board}'")
    assert page.locator("#level").input_value() == DEFAULT_LEVEL
    assert page.locator("[data-name=b2]").get_attribute("aria-label") == "b2, X"


def test_a_question_asked_before_the_last_one_has_closed_waits_for_its_own_answer(
        page: Any, server: Any) -> None:
    """A dialog's ``close`` event comes a task after it closes. A new question asked in
    between (the level changed right after Escape) is answered by its own buttons, not by
    the earlier question's late event."""
    open_page(page, server.url)
    play_in(page, "b2")
    first = page.evaluate(CURRENT)
    page.locator("body").press("n")
    wait_until(page, ASKING)
    # Escape's "no" and the change of level in one task: the close event is still to come
    page.evaluate(f"""(() => {{
      document.querySelector('#confirm').close();
      const level = document.querySelector('#level');
      level.value = '{OTHER_LEVEL}';
      level.dispatchEvent(new Event('change'));
    }})()""")
    page.wait_for_timeout(300)
    assert page.evaluate(ASKING), "the new question is still open"
    assert page.locator("#level").input_value() == OTHER_LEVEL
    page.click("#confirm-yes")
    wait_until(page, f"({CURRENT}) && {CURRENT} !== '{first}' && ({YOUR_TURN})"
                     " && document.querySelectorAll('#board .cell svg').length === 0")
    assert stored_game(server.url, page.evaluate(CURRENT))["game"]["players"] == {
        "x": "human", "o": OTHER_LEVEL}


def test_arrow_keys_on_a_select_ask_once_when_the_choice_is_committed(page: Any,
                                                                     server: Any) -> None:
    """Arrow keys step through the Level and Board lists without asking at each step: the
    page asks once, on Enter or when the focus leaves the list; a list stepped back to the
    game's own choice asks nothing."""
    open_page(page, server.url)
    play_in(page, "b2")
    first = page.evaluate(CURRENT)
    page.focus("#level")
    assert page.locator("#level").input_value() == DEFAULT_LEVEL == "beginner"
    for _ in range(2):
        page.keyboard.press("ArrowDown")
        page.wait_for_timeout(200)
        assert not page.evaluate(ASKING), "no question at a keyboard step"
    assert page.locator("#level").input_value() == "medium"
    assert page.locator("#level-description").inner_text().startswith("Medium")
    page.keyboard.press("Enter")
    wait_until(page, ASKING)
    page.get_by_role("dialog", name="Start a new game with these settings?").get_by_role(
        "button", name="Keep playing").click()
    wait_until(page, f"!({ASKING}) && document.querySelector('#level').value === "
                     f"'{DEFAULT_LEVEL}'")
    # down and back up, then away: nothing to ask
    page.focus("#variant")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Tab")
    page.wait_for_timeout(300)
    assert not page.evaluate(ASKING) and page.evaluate(CURRENT) == first
    # a step, then away: asked once, and yes starts the game on that board
    page.focus("#variant")
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(200)
    assert not page.evaluate(ASKING)
    page.keyboard.press("Tab")
    wait_until(page, ASKING)
    page.click("#confirm-yes")
    # between the two games the page holds no id for a moment: wait for the new one
    wait_until(page, f"({CURRENT}) && {CURRENT} !== '{first}' && ({YOUR_TURN})")
    assert stored_game(server.url, page.evaluate(CURRENT))["game"][
        "variant"] == "4x4"


def test_undo_after_the_end_says_it_continues_the_game(page: Any, server: Any) -> None:
    open_page(page, server.url)
    page.check("input[name=mode][value=humans]")
    wait_until(page, "document.querySelector('#status').textContent === 'X to move'")
    for move in ("a1", "b1", "b2", "c1", "c3"):
        count = page.locator("#board .cell svg").count()
        page.click(f"[data-name={move}]")
        wait_until(page, f"document.querySelectorAll('#board .cell svg').length > {count}")
    wait_until(page, "document.querySelector('#status').textContent.startsWith('X wins')")
    finished = stored_game(server.url, page.evaluate(CURRENT))
    page.click("#undo")
    note = page.locator("#game-note")
    note.wait_for()
    assert f"Game {finished['game']['number']} is over and kept in History" in note.inner_text()
    page.click("[data-name=c2]")  # play on, then look at the history
    wait_until(page, "document.querySelectorAll('#board .cell svg').length === 5")
    page.click("#tab-history")
    row = page.locator(".games tbody tr", has_text="Unfinished")
    row.first.wait_for()
    assert f"continues {finished['game']['number']}" in row.first.inner_text()
    row.first.click()  # back to it, to its end: listed beside the game it continues
    wait_until(page, "location.hash === '#play'")
    for move in ("a2", "c3"):
        count = page.locator("#board .cell svg").count()
        page.click(f"[data-name={move}]")
        wait_until(page, f"document.querySelectorAll('#board .cell svg').length > {count}")
    wait_until(page, "document.querySelector('#status').textContent.startsWith('X wins')")
    page.click("#tab-history")
    page.locator(".games tbody tr").first.wait_for()
    wait_until(page, "!document.querySelector('.games').textContent.includes('Unfinished')")
    row = page.locator(".games tbody tr")
    assert row.count() == 2 and all("X won" in text for text in row.all_inner_texts())
    assert f"continues {finished['game']['number']}" in row.first.inner_text()
    assert row.nth(1).get_attribute("data-number") == str(finished["game"]["number"])
    row.first.click()
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 7")
    assert page.locator("#replay-title").inner_text().lower() == \
        f"replay · continues game {finished['game']['number']}"


def test_the_hints_have_a_legend(page: Any, server: Any) -> None:
    open_page(page, server.url)
    legend = page.locator("#hint-legend")
    assert legend.is_hidden()
    page.locator("label.switch:has(#hints)").click()
    legend.wait_for()
    text = legend.inner_text()
    for code in ("W3", "L2", "D", "≈+7", "estimate"):
        assert code in text, code
    page.locator("label.switch:has(#hints)").click()
    wait_until(page, "document.querySelector('#hint-legend').hidden")


def test_the_position_error_is_in_sight_at_1366x768(page: Any, server: Any,
                                                     shot: Shot) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    open_page(page, server.url)
    page.fill("#position-text", "3/3/2 x")
    # the box at the very bottom of the window, as after scrolling down just far enough to it
    page.evaluate("document.querySelector('#position-text').scrollIntoView({block: 'end'})")
    page.press("#position-text", "Enter")
    error = page.locator("#position-error")
    error.wait_for()
    assert "row 3 has 2 cells" in error.inner_text()
    box = page.evaluate("(() => { const r = document.querySelector('#position-error')"
                        ".getBoundingClientRect(); return [r.top, r.bottom]; })()")
    assert box[0] >= 0 and box[1] <= 768 + 1, box  # (sub-pixel rounding)
    shot(page, "error-in-sight")


def test_a_position_on_another_board_says_so_and_undo_restores_the_game(
        page: Any, server: Any, shot: Shot) -> None:
    open_page(page, server.url)
    play_in(page, "b2")
    first = page.evaluate(CURRENT)
    board = page.locator("#position-text").input_value()
    page.fill("#position-text", "3/3 x")  # a typo for 3/3/3 x: a 2×3 board
    page.click("#load")
    wait_until(page, ASKING)
    page.click("#confirm-yes")
    note = page.locator("#position-note")
    note.wait_for()
    assert note.inner_text().startswith("Loaded a 2×3 board (two in a row) instead of 3×3.")
    assert page.locator("#variant option:checked").inner_text() == "2×3, two in a row"
    shot(page, "board-changed")
    note.get_by_role("button", name="Undo").click()
    wait_until(page, f"{CURRENT} === '{first}'")
    wait_until(page, f"document.querySelector('#position-text').value === '{board}'")
    assert page.locator("#variant").input_value() == "3x3"
    assert note.is_hidden()
    # loaded boards get readable names, and the list keeps the last three of them
    for position, name in (("4/4 x", "2×4"), ("5/5 x", "2×5"), ("2/2/2 x", "3×2"),
                           ("6/6 x", "2×6")):
        listed = ("[...document.querySelectorAll('#variant option[data-custom]')]"
                  f".some(o => o.text.startsWith('{name},'))")
        page.fill("#position-text", position)
        page.click("#load")
        if wait_until(page, f"({ASKING}) ? 'asking' : ({listed}) && 'listed'") == "asking":
            page.click("#confirm-yes")
        wait_until(page, listed)
    custom = page.eval_on_selector_all("#variant option[data-custom]", "os => os.map(o => o.text)")
    assert custom == ["2×5, two in a row", "3×2, two in a row", "2×6, two in a row"], custom


def load_board(page: Any, text: str, variant: str) -> None:
    """Type ``text`` into Position and Load it (saying yes if the page asks); wait until the
    Board list shows ``variant``."""
    page.fill("#position-text", text)
    page.click("#load")
    chosen = f"document.querySelector('#variant').value === '{variant}'"
    if wait_until(page, f"({ASKING}) ? 'asking' : ({chosen}) && 'chosen'") == "asking":
        page.click("#confirm-yes")
    wait_until(page, f"({chosen}) && ({YOUR_TURN})")


def test_a_board_of_the_list_typed_into_position_loads_that_board(page: Any,
                                                                  server: Any) -> None:
    """"9x9" and "15×15" (as the Board list names them) load the listed boards, five in a
    row, not nine or fifteen in a row; a later error takes the note of the load away."""
    open_page(page, server.url)
    play_in(page, "b2")
    load_board(page, "9x9", "9x9k5")
    assert page.locator("#variant option:checked").inner_text() == "9×9, five in a row"
    note = page.locator("#position-note")
    assert note.inner_text().startswith("Loaded a 9×9 board (five in a row) instead of 3×3.")
    load_board(page, " 15×15 ", "15x15k5")
    assert page.locator("#variant option:checked").inner_text() == \
        "15×15, five in a row (gomoku)"
    load_board(page, "15x15k15", "15x15")  # a board name says what it means
    load_board(page, "15×15, five in a row (gomoku)", "15x15k5")  # and so does a label
    load_board(page, "9x9", "9x9k5")
    note.wait_for()
    page.fill("#position-text", "3/3/2 x")
    page.press("#position-text", "Enter")
    wait_until(page, "document.querySelector('#position-error').textContent !== ''")
    assert "row 3 has 2 cells" in page.locator("#position-error").inner_text()
    assert note.is_hidden(), "the note of the earlier load does not stay under the error"


def test_the_setup_and_hints_survive_a_reload(page: Any, server: Any) -> None:
    open_page(page, server.url)
    page.select_option("#level", "hard")
    wait_until(page, "JSON.parse(localStorage.getItem('tictactoe.setup')).level === 'hard'")
    page.fill("#position-text", "xxx1/ooo1/4/4 x")  # on 4×4, X wins at d1
    page.click("#load")
    wait_until(page, "document.querySelector('#position-text').value === 'xxx1/ooo1/4/4 x'")
    page.click("[data-name=d1]")
    wait_until(page, "document.querySelector('#status').textContent.startsWith('You win')")
    page.click("#tab-history")  # the history and the replay say where the game began
    row = page.locator(".games tbody tr")
    row.first.wait_for()
    assert "from a position" in row.first.inner_text()
    row.first.click()
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 7")
    assert page.locator("#replay-title").inner_text().lower() == \
        "replay · from a loaded position"
    page.click("#tab-play")
    page.locator("label.switch:has(#hints)").click()
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    wait_until(page, YOUR_TURN)
    assert page.locator("#variant").input_value() == "4x4"
    assert page.locator("#level").input_value() == "hard"
    assert page.locator("#hints").is_checked()
    assert page.locator("#board .cell").count() == 16
    assert page.locator("#board .cell svg").count() == 0, "a new game on the empty board"


def test_a_game_from_a_position_with_k_keeps_its_marks_and_its_start(page: Any,
                                                                     server: Any) -> None:
    """A loaded position that names k ("... x 3"): the moves list says X and O (not 3),
    leaving the game asks first, and after a reload (the game resumed) a new game starts
    from the loaded position, not the empty board."""
    start = "x2/1o1/3 x 3"
    open_page(page, server.url)
    page.fill("#position-text", start)
    page.click("#load")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === 2 && ({YOUR_TURN})")
    play_in(page, "c3")
    items = page.locator("#moves li").all_inner_texts()
    assert [item.split()[-2:] for item in items[:2]] == [["X", "c3"], ["O", items[1].split()[-1]]]
    page.locator("body").press("n")
    wait_until(page, ASKING)
    page.keyboard.press("Escape")
    wait_until(page, f"!({ASKING})")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === 4 && ({YOUR_TURN})")
    page.locator("body").press("n")
    wait_until(page, ASKING)
    page.click("#confirm-yes")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === 2 && ({YOUR_TURN})")
    assert page.locator("#position-text").input_value() == "x2/1o1/3 x"
