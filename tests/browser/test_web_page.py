"""The page in a real browser: whole games through the server-owned game endpoints (also from
two tabs on one game), undo and redo, hints, pasted positions, the cube, and the history (this
browser's or the whole server's) surviving a server restart. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from browser.conftest import YOUR_TURN, open_page, stored_game, wait_until
from tictactoe.core import Position
from tictactoe.players.levels import DEFAULT_LEVEL, LEVEL_DESCRIPTIONS
from tictactoe.search.solver import solve

pytestmark = [
    pytest.mark.browser,
    # pytest-base-url (a pytest-playwright dependency) still defines a fixture the old way
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

Shot = Callable[[Any, str], None]
FINISHED = "document.querySelector('#status').matches('.won, .lost, .drawn')"


def two_players(page: Any) -> None:
    """Switch to a game between two people and wait until the server has started it."""
    page.check("input[name=mode][value=humans]")
    wait_until(page, "document.querySelector('#status').textContent === 'X to move'")


def choose_level(page: Any, level: str) -> None:
    """Choose a level before any move (nothing to ask) and wait for the game against it."""
    page.select_option("#level", level)
    wait_until(page, "(() => { const s = JSON.parse(localStorage.getItem('tictactoe.setup')"
                     f" || '{{}}'); return s.level === '{level}'; }})()")
    wait_until(page, YOUR_TURN)


def marks(page: Any) -> int:
    return int(page.locator(".cell svg").count())


def test_whole_game_against_perfect(page: Any, server: Any, shot: Shot) -> None:
    sent: list[tuple[str, str, Any]] = []
    page.on("request", lambda r: sent.append((r.method, r.url.split("/", 3)[-1],
                                              r.post_data_json)))
    open_page(page, server.url)
    choose_level(page, "perfect")
    for _ in range(5):
        wait_until(page, f"({FINISHED}) || ({YOUR_TURN})")
        if page.evaluate(FINISHED):
            break
        before = marks(page)
        page.locator(".cell[aria-disabled=false]").first.click()
        wait_until(page, f"document.querySelectorAll('.cell svg').length > {before}")
        wait_until(page, f"({FINISHED}) || ({YOUR_TURN})")
        if not page.evaluate(FINISHED):  # 3x3 is always solved: the reply says it is proven
            reply = page.locator("#status .reply").inner_text()
            assert re.search(r": (I can force a win[^.]*|a draw with best play: neither of us "
                             r"can force a win)\.$", reply), reply
    wait_until(page, FINISHED)
    status = page.locator("#status").inner_text()
    assert status in ("It's a draw.",) or status.startswith("The computer wins"), status
    if status.startswith("The computer wins"):
        assert page.locator(".cell.winning").count() == 3
    assert page.locator(".cell[aria-disabled=false]").count() == 0
    assert page.locator("#moves li").count() == marks(page)
    shot(page, "finished")
    # every change went through the game endpoints; the computer's moves came from the server
    changes = [(method, path) for method, path, _ in sent
               if method != "GET" and path.startswith("api/")]
    game_id = page.evaluate("JSON.parse(localStorage.getItem('tictactoe.current')).id")
    assert ("POST", "api/games") in changes
    assert all(path in ("api/games", f"api/games/{game_id}/moves") and method == "POST"
               for method, path in changes), changes
    played = [body["move"] for method, path, body in sent if path.endswith("/moves")]
    stored = stored_game(server.url, game_id)
    assert stored["game"]["moves"][::2] == played  # the page's moves, and only those
    assert stored["game"]["result"] in ("draw", "o")
    assert [item.split()[-1] for item in page.locator("#moves li").all_inner_texts()] == \
        stored["game"]["moves"]


def test_undo_and_redo_with_keys(page: Any, server: Any, shot: Shot) -> None:
    open_page(page, server.url)
    page.locator(".cell").first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")  # b2
    wait_until(page, "document.querySelectorAll('.cell svg').length === 2")
    assert "X" in page.locator("[data-name=b2]").get_attribute("aria-label")
    after_reply = page.locator("#position-text").input_value()
    page.click("#undo")  # takes back the computer's reply and the move
    wait_until(page, "document.querySelectorAll('.cell svg').length === 0")
    assert page.locator("#position-text").input_value() == "3/3/3 x"
    assert page.locator("#moves li.undone").count() == 2
    shot(page, "undone")
    page.keyboard.press("r")
    wait_until(page, "document.querySelectorAll('.cell svg').length === 2")
    assert page.locator("#position-text").input_value() == after_reply
    assert page.is_disabled("#redo") and not page.is_disabled("#undo")
    shot(page, "redone")


def test_hints_show_the_values(page: Any, server: Any, shot: Shot) -> None:
    start = "x1x/1o1/o2 x"  # X to move; b1 wins at once
    open_page(page, server.url)
    page.fill("#position-text", start)
    page.click("#load")
    wait_until(page, "document.querySelector('#position-text').value === 'x1x/1o1/o2 x'")
    page.locator("label.switch:has(#hints)").click()
    page.wait_for_selector(".hint")
    position = Position(start)
    expected = {position.move_name(c): str(s) for c, s in solve(start).moves.items()}
    shown = {name: page.locator(f"[data-name={name}] .hint").inner_text() for name in expected}
    assert shown == expected and shown["b1"] == "win in 1"
    assert page.locator("[data-name=b1] .hint").get_attribute("class") == "hint win best"
    assert "win in 1" in page.locator("[data-name=b1]").get_attribute("aria-label")
    shot(page, "hints")


def test_each_level_is_described(page: Any, server: Any) -> None:
    """The default level is beginner, which a newcomer beats in two games in five; perfect
    is one click away."""
    open_page(page, server.url)
    description = page.locator("#level-description")
    assert DEFAULT_LEVEL == "beginner" and page.locator("#level").input_value() == "beginner"
    assert description.inner_text() == f"Beginner: {LEVEL_DESCRIPTIONS['beginner']}."
    assert "perfect" in page.eval_on_selector_all("#level option", "os => os.map(o => o.value)")
    stored = stored_game(server.url, page.evaluate(
        "JSON.parse(localStorage.getItem('tictactoe.current')).id"))
    assert stored["game"]["players"] == {"x": "human", "o": "beginner"}
    page.select_option("#level", "easy")
    wait_until(page, "document.querySelector('#level-description').textContent"
                           ".startsWith('Easy:')")
    assert description.inner_text() == f"Easy: {LEVEL_DESCRIPTIONS['easy']}."


def test_cube_hints_mark_the_moves_that_lose_at_once(page: Any, server: Any,
                                                     shot: Shot) -> None:
    start = "xxx1/4/4/4:4/1o2/4/4:4/2o1/4/4:4/4/4/4 o"  # O must block 1:d1
    open_page(page, server.url)
    page.fill("#position-text", start)
    page.click("#load")
    wait_until(page, f"document.querySelector('#position-text').value === '{start}'")
    page.locator("label.switch:has(#hints)").click()
    page.wait_for_selector(".hint", timeout=20_000)
    wait_until(page, "document.querySelectorAll('.hint').length === 59")
    best = page.locator(".hint.best")
    assert best.count() == 1
    assert page.locator("[data-name='1:d1'] .hint").get_attribute("class") in (
        "hint estimate best", "hint estimate")
    assert page.locator(".hint.loss").count() == 58
    shot(page, "cube-hints")


def test_paste_a_position_and_a_bad_one(page: Any, server: Any, shot: Shot) -> None:
    open_page(page, server.url)
    page.fill("#position-text", "3/3/2 x")
    page.click("#load")
    error = page.locator("#position-error")
    error.wait_for()
    assert "row 3 has 2 cells" in error.inner_text()
    assert page.locator("#position-text").get_attribute("aria-invalid") == "true"
    shot(page, "bad-paste")
    page.fill("#position-text", "o2/1x1/3 x")
    page.press("#position-text", "Enter")
    wait_until(page, "document.querySelectorAll('.cell svg').length === 2")
    assert error.inner_text() == ""
    assert page.locator("[data-name=a1]").get_attribute("aria-label") == "a1, O"
    assert page.locator("[data-name=b2]").get_attribute("aria-label") == "b2, X"


def test_a_move_on_the_cube(page: Any, server: Any, shot: Shot) -> None:
    open_page(page, server.url)
    choose_level(page, "perfect")
    page.select_option("#variant", "4x4x4")
    page.wait_for_selector("[data-name='2:b3']")
    assert page.locator(".layer").count() == 4 and page.locator(".cell").count() == 64
    tops = {round(box["y"]) for box in (page.locator(".layer").nth(i).bounding_box()
                                        for i in range(4))}
    assert len(tops) == 1, "the four layers sit side by side"
    page.click("[data-name='2:b3']")
    wait_until(page, "document.querySelectorAll('.cell svg').length === 2")
    wait_until(page, "document.querySelector('#status .reply') !== null")
    # the cube's opening is not proven within the server's bound, and the page says so
    reply = page.locator("#status .reply").inner_text()
    assert re.fullmatch(r"\s*· The computer \(perfect\) played layer [1-4], [a-d][1-4]: "
                        r"(I can force a win.*|.+ \(my estimate (0|[+-][\d.]+)\))\.",
                        reply), reply
    assert page.locator("[data-name='2:b3']").get_attribute("aria-label") == "layer 2, b3, X"
    assert page.locator("#moves li").first.inner_text().split() == ["1.", "X", "2:b3"]
    shot(page, "cube")


def test_perfect_plays_x_on_the_cube_from_the_proof(page: Any, server: Any, shot: Shot) -> None:
    """Playing O on the cube: every computer move comes from the shipped proof, labelled
    proven, and a naive defence (the first empty cell) loses."""
    open_page(page, server.url)
    choose_level(page, "perfect")
    page.select_option("#variant", "4x4x4")
    page.wait_for_selector("[data-name='2:b3']")
    page.check("input[name=side][value=o]")
    for _ in range(32):
        wait_until(page, f"({FINISHED}) || ({YOUR_TURN})")
        if page.evaluate(FINISHED):
            break
        reply = page.locator("#status .reply").inner_text()
        assert re.search(r": I can force a win[^.]*\.$", reply), reply
        before = marks(page)
        page.locator(".cell[aria-disabled=false]").first.click()
        wait_until(page, f"document.querySelectorAll('.cell svg').length > {before + 1}"
                               f" || ({FINISHED})")
    wait_until(page, FINISHED)
    assert page.locator("#status").inner_text().startswith("The computer wins")
    assert page.locator(".cell.winning").count() == 4
    shot(page, "cube-proof")


def test_history_survives_a_restart(page: Any, start_server: Any, tmp_path: Path,
                                    shot: Shot) -> None:
    first = start_server(tmp_path)
    open_page(page, first.url)
    two_players(page)
    for move in ("a1", "b1", "b2", "c1", "c3"):
        count = marks(page)
        page.click(f"[data-name={move}]")
        wait_until(page, f"document.querySelectorAll('.cell svg').length > {count}")
    wait_until(page, FINISHED)
    assert page.locator("#status").inner_text() == "X wins (a1 b2 c3)."
    assert len(httpx.get(f"{first.url}/api/history").json()["games"]) == 1  # saved by then
    first.stop()

    second = start_server(tmp_path, first.port)  # the same address: the same browser storage
    page.goto(f"{second.url}/#history")
    row = page.locator(".games tbody tr")
    row.first.wait_for()
    assert row.count() == 1 and "X won" in row.first.inner_text()
    row.first.click()
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 5")
    page.click("#replay-first")
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 0")
    page.click("#replay-next")
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 1")
    assert page.locator("#replay-move").inner_text() == "Move 1 of 5: a1"
    shot(page, "history")


def play_in(page: Any, move: str) -> None:
    """Play a move by clicking its cell and wait for the server's answer to be drawn."""
    count = marks(page)
    page.click(f"[data-name='{move}']")
    wait_until(page, f"document.querySelectorAll('.cell svg').length > {count}")


def moves_shown(page: Any) -> list[str]:
    return [item.split()[-1] for item in page.locator("#moves li:not(.undone)").all_inner_texts()]


def test_two_tabs_play_one_game(context: Any, server: Any, shot: Shot) -> None:
    first, second = context.new_page(), context.new_page()
    open_page(first, server.url)
    two_players(first)
    open_page(second, server.url)  # the same browser: it resumes the game of the first tab
    game_id = first.evaluate("JSON.parse(localStorage.getItem('tictactoe.current')).id")
    # X wins on the diagonal; the tabs take turns, each following the other's moves
    line = ["a1", "b1", "b2", "c1", "c3"]
    for number, move in enumerate(line):
        page, other = (first, second) if number % 2 == 0 else (second, first)
        page.bring_to_front()
        wait_until(page, f"document.querySelectorAll('.cell svg').length === {number}")
        play_in(page, move)
        wait_until(other, f"document.querySelectorAll('.cell svg').length === {number + 1}")
    for page in (first, second):
        wait_until(page, FINISHED)
        assert page.locator("#status").inner_text() == "X wins (a1 b2 c3)."
        assert moves_shown(page) == line
    stored = stored_game(server.url, game_id)
    assert stored["game"]["moves"] == line and stored["game"]["result"] == "x"
    assert stored["ply"] == len(line)  # one stored change per move: none lost, none doubled
    shot(second, "second-tab")


def test_a_stale_tab_gets_the_game_as_it_stands(page: Any, server: Any, shot: Shot) -> None:
    open_page(page, server.url)
    play_in(page, "b2")  # against perfect: X b2, then the computer's reply
    state = page.evaluate("JSON.parse(localStorage.getItem('tictactoe.current'))")
    game = stored_game(server.url, state["id"])
    # another client plays in this game behind the page's back
    legal = game["position"]["legal_moves"]
    moved = httpx.post(f"{server.url}/api/games/{state['id']}/moves",
                       json={"move": legal[0], "ply": game["ply"]})
    assert moved.status_code == 200, moved.text
    now = moved.json()
    # the page still shows the old position; its move is refused and it shows the new one
    target = next(m for m in now["position"]["legal_moves"] if m in legal[1:])
    page.click(f"[data-name='{target}']")
    page.locator("#game-note").wait_for()
    assert "changed in another tab" in page.locator("#game-note").inner_text()
    wait_until(page, f"document.querySelectorAll('.cell svg').length === "
                           f"{len(now['game']['moves'])}")
    assert moves_shown(page) == now["game"]["moves"]
    after = stored_game(server.url, state["id"])
    assert after["ply"] == now["ply"] and after["game"]["moves"] == now["game"]["moves"]
    shot(page, "stale")


def test_history_shows_this_browsers_games_or_all(browser: Any, server: Any,
                                                  shot: Shot) -> None:
    pages = []
    requests: list[Any] = []
    for _ in range(2):  # two browsers: separate storage, separate ids
        page = browser.new_context(viewport={"width": 1200, "height": 860}).new_page()
        page.on("request", lambda request: requests.append(request))
        open_page(page, server.url)
        two_players(page)
        for move in ("a1", "b1", "b2", "c1", "c3"):
            play_in(page, move)
        wait_until(page, FINISHED)
        pages.append(page)
    everything = len(httpx.get(f"{server.url}/api/history").json()["games"])
    page = pages[0]
    page.goto(f"{server.url}/#history")
    rows = page.locator(".games tbody tr")
    rows.first.wait_for()
    assert rows.count() == 1, "only this browser's game"
    assert page.locator("#chart-title").text_content() == "Your results by level"
    page.locator("label", has_text="All games on this server").click()
    wait_until(page, f"document.querySelectorAll('.games tbody tr').length === {everything}")
    assert everything >= 2
    # (on the board of the games other tests played against the computer on this server)
    assert re.fullmatch(r"Results by level( on \S+)?, all players",
                        page.locator("#chart-title").text_content() or "")
    shot(page, "all-games")
    # the browser id travels in a header, never in a URL: the same one for its games and its
    # history, none when the history asks for every game
    assert not [r.url for r in requests if "browser" in r.url.lower()]
    api = [(r.method, r.url.split("/api/")[1], r.headers.get("x-browser-id"))
           for r in requests if "/api/games" in r.url or "/api/history" in r.url]
    ids = [browser_id for method, path, browser_id in api
           if (method, path) == ("POST", "games")]
    assert all(ids) and len(set(ids)) == 2, api  # each browser's games carry its own id
    histories = [browser_id for method, path, browser_id in api if path.startswith("history")]
    assert histories == [ids[0], None], api
    for opened in pages:
        opened.context.close()


def test_the_page_runs_under_a_policy_that_blocks_inline_code(browser: Any, server: Any) -> None:
    """The page works under its Content-Security-Policy (every test fails on a violation),
    and the policy is in force: an inline script added to the page does not run."""
    page = browser.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.goto(server.url)
    wait_until(page, YOUR_TURN)
    ran = page.evaluate("""() => { const script = document.createElement('script');
        script.textContent = 'window.inlineRan = true'; document.head.append(script);
        return window.inlineRan === true; }""")
    assert ran is False
    assert any("Content Security Policy" in text for text in messages)
    page.close()


def test_games_started_faster_than_the_limit_wait_instead_of_failing(
        page: Any, start_server: Any, tmp_path: Path) -> None:
    # two games at once, then one a second: a quick third and fourth new game are refused
    # with 429, and the page sends them again after the server's Retry-After
    limited = start_server(tmp_path, env={"TICTACTOE_GAME_LIMIT": "2,1"})
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status)
            if r.request.method == "POST" and r.url.endswith("/api/games") else None)
    open_page(page, limited.url)
    for _ in range(3):
        started = sum(status < 300 for status in statuses)
        page.click("#new-game")
        wait_until(page, f"document.querySelector('#status').textContent.startsWith('Your move')"
                         f" && {YOUR_TURN}")
        assert sum(status < 300 for status in statuses) == started + 1
    assert 429 in statuses, statuses
    assert "Cannot start" not in page.locator("#status").inner_text()


def test_the_page_says_when_the_computer_is_not_ready(page: Any, start_server: Any,
                                                     tmp_path: Path) -> None:
    """A fresh install compiles its engines for minutes (here: an empty kernel cache): the
    page is served at once, and says that the computer is getting ready."""
    cold = start_server(tmp_path / "data", env={"NUMBA_CACHE_DIR": str(tmp_path / "cold")})
    try:
        open_page(page, cold.url)
        assert httpx.get(f"{cold.url}/api/options").json()["ready"] is False
        note = page.locator("#engine-note")
        note.wait_for(state="visible")
        assert "getting ready" in note.inner_text()
        assert page.locator("#board .cell").count() == 9  # the game is there meanwhile
    finally:
        cold.stop()
