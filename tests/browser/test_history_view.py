"""The History view: on a phone every game's result is in sight without scrolling sideways,
the chart shows one board at a time, chosen in a select, with titles that say which, a game
continued after its end stays listed as it ended, and the games say "you" and "You won" for
the human against the computer, and name boards as the Board list does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from browser.conftest import open_page, wait_until
from browser.test_layout import save_screen

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

PHONES = [(320, 640), (390, 844)]
CHART_COUNTS = ("[...document.querySelectorAll('#chart text.seg-text')]"
                ".reduce((sum, t) => sum + Number(t.textContent), 0)")


def finish(url: str, browser: str, variant: str, opponent: str, seed: int,
           position: str | None = None) -> str:
    """A game of X (the first legal move each time) against the computer, through the API
    as the page would play it for this browser, from the empty board or `position`; its
    result."""
    headers = {"X-Browser-Id": browser}
    start = {"position": position} if position else {"variant": variant}
    game = httpx.post(f"{url}/api/games", headers=headers, json={
        **start, "players": {"x": "human", "o": opponent}, "seed": seed}).json()
    while game["game"]["result"] is None:
        answer = httpx.post(f"{url}/api/games/{game['id']}/moves", headers=headers, json={
            "move": game["position"]["legal_moves"][0], "ply": game["ply"]})
        assert answer.status_code == 200, answer.text
        game = answer.json()
    return str(game["game"]["result"])


def games_on_two_boards(page: Any, url: str) -> dict[str, list[str]]:
    """This browser's finished games: one on 3x3 and two on 4x4, against the random player."""
    browser = page.evaluate("localStorage.getItem('tictactoe.browser')")
    assert browser
    return {"3x3": [finish(url, browser, "3x3", "random", 1)],
            "4x4": [finish(url, browser, "4x4", "random", seed) for seed in (2, 3)]}


def test_the_chart_shows_one_board_chosen_in_its_filter(
        page: Any, server: Any, shot: Callable[[Any, str], None]) -> None:
    open_page(page, server.url)
    results = games_on_two_boards(page, server.url)
    page.evaluate("location.hash = '#history'")
    wait_until(page, "document.querySelectorAll('.games tbody tr').length === 3 && "
                     "document.querySelector('#chart svg') !== null")
    select = page.locator("#chart-board")
    options = page.evaluate("[...document.querySelectorAll('#chart-board option')]"
                            ".map((o) => [o.value, o.textContent])")
    assert options == [["4x4", "4×4 (2 games)"], ["3x3", "3×3 (1 game)"]], \
        "the boards with games, the most played first"
    # the board of the play view first (3x3), its one game only
    assert select.input_value() == "3x3"
    assert page.locator("#chart-title").text_content() == "Your results by level on 3×3"
    assert page.evaluate(CHART_COUNTS) == 1
    name = page.locator("#chart svg").get_attribute("aria-label")
    assert name.startswith("Your results by level on 3×3. random: ")
    won = results["3x3"].count("x")
    assert f"random: {won} won" in name
    # the other board: its two games, and the titles follow
    select.select_option("4x4")
    wait_until(page, "document.querySelector('#chart').dataset.board === '4x4'")
    assert page.evaluate(CHART_COUNTS) == 2
    assert page.locator("#chart-title").text_content() == "Your results by level on 4×4"
    won = results["4x4"].count("x")
    assert f"random: {won} won" in page.locator("#chart svg").get_attribute("aria-label")
    assert page.locator("#games").get_attribute("aria-label") == \
        "Games in this browser, every board"
    # every game on the server: the titles say so, and the chosen board stays
    page.locator("label", has_text="All games on this server").click()
    wait_until(page, "document.querySelector('#chart-title').textContent === "
                     "'Results by level on 4×4, all players'")
    assert page.locator("#games").get_attribute("aria-label") == \
        "All games on this server, every board"
    assert select.input_value() == "4x4"
    shot(page, "4x4")


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_the_result_of_every_game_is_in_sight_on_a_phone(
        browser: Any, server: Any, width: int, height: int,
        shot: Callable[[Any, str], None]) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    open_page(page, server.url)
    games_on_two_boards(page, server.url)
    # a game from a set position: its row's board has a tag, and the moves still show
    finish(server.url, page.evaluate("localStorage.getItem('tictactoe.browser')"), "4x4",
           "random", 4, position="x3/4/4/4 o")
    page.evaluate("location.hash = '#history'")
    wait_until(page, "document.querySelectorAll('.games tbody tr').length === 4")
    assert page.locator(".games tbody tr .tag").count() == 1
    boxes = page.evaluate("""() => [...document.querySelectorAll('.games tbody tr')].map(
        (row) => ['result', 'board', 'x', 'o', 'moves'].map((name) => {
            const cell = row.querySelector(`td.${name}`);
            const box = cell.getBoundingClientRect();
            return [name, box.left, box.right, box.width, cell.scrollWidth - cell.clientWidth];
        }))""")
    for row in boxes:
        for name, left, right, size, hidden in row:
            assert size > 0 and left >= 0 and right <= width, (width, name, left, right)
            if name in ("result", "moves"):
                assert hidden <= 1, (width, name, "clipped")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "no sideways scroll"
    results = page.locator(".games tbody tr .result .badge").all_inner_texts()
    assert len(results) == 4 and all(text in ("You won", "You lost", "Draw") for text in results)
    shot(page, f"{width}")
    save_screen(page, f"history-{width}")  # with TTT_SCREENS=1 also in docs/screens/
    context.close()


def test_a_won_game_stays_listed_after_its_continuation_is_lost(page: Any, server: Any) -> None:
    """Undo after a win, then play on to a loss: the History lists the win as it ended and
    the continuation as its own row, marked as continuing it."""
    open_page(page, server.url)
    headers = {"X-Browser-Id": page.evaluate("localStorage.getItem('tictactoe.browser')")}

    def send(game: dict[str, Any], action: str, **body: Any) -> dict[str, Any]:
        answer = httpx.post(f"{server.url}/api/games/{game['id']}/{action}", headers=headers,
                            json={"ply": game["ply"], **body})
        assert answer.status_code in (200, 201), answer.text
        data: dict[str, Any] = answer.json()
        return data

    game = httpx.post(f"{server.url}/api/games", headers=headers, json={
        "variant": "3x3", "players": {"x": "human", "o": "human"}}).json()
    for move in ("a1", "b1", "b2", "c1", "c3"):  # X wins
        game = send(game, "moves", move=move)
    fork = send(game, "undo")
    for move in ("a2", "c2", "b3", "c3"):  # then O wins
        fork = send(fork, "moves", move=move)
    assert (game["game"]["result"], fork["game"]["result"]) == ("x", "o")
    page.evaluate("location.hash = '#history'")
    numbers = [str(game["game"]["number"]), str(fork["game"]["number"])]
    wait_until(page, "[...document.querySelectorAll('.games tbody tr')]"
                     f".map((row) => row.dataset.number).join() === '{numbers[1]},{numbers[0]}'")
    rows = page.locator(".games tbody tr")
    assert "O won" in rows.nth(0).inner_text()
    assert f"continues {numbers[0]}" in rows.nth(0).inner_text()
    assert "X won" in rows.nth(1).inner_text() and "continues" not in rows.nth(1).inner_text()


def test_the_games_say_you_and_name_boards_as_the_board_list(page: Any, server: Any) -> None:
    """Against the computer the human side reads "you" and the result is the human's; two
    people keep X and O; a board reads as in the Board list (gomoku's 15x15k5 too)."""
    open_page(page, server.url)
    browser = page.evaluate("localStorage.getItem('tictactoe.browser')")
    headers = {"X-Browser-Id": browser}
    against = finish(server.url, browser, "5x5k4", "random", 5)
    two = httpx.post(f"{server.url}/api/games", headers=headers, json={
        "variant": "3x3", "players": {"x": "human", "o": "human"},
        "moves": ["a1", "b1", "b2", "c1", "c3"]})
    assert two.status_code == 201 and two.json()["game"]["result"] == "x", two.text
    gomoku = httpx.post(f"{server.url}/api/games", headers=headers, json={
        "variant": "15x15k5", "players": {"x": "easy", "o": "human"}, "seed": 1}).json()
    answer = httpx.post(f"{server.url}/api/games/{gomoku['id']}/moves", headers=headers,
                        json={"move": gomoku["position"]["legal_moves"][0], "ply": gomoku["ply"]})
    assert answer.status_code == 200, answer.text
    page.evaluate("location.hash = '#history'")
    wait_until(page, "document.querySelectorAll('.games tbody tr').length === 3")

    def row(n: int) -> dict[str, str]:
        cells: dict[str, str] = page.evaluate(
            f"Object.fromEntries([...document.querySelectorAll('.games tbody tr')[{n}].cells]"
            ".map((td) => [td.className, td.textContent]))")
        return cells

    unfinished, humans, computer = row(0), row(1), row(2)
    assert unfinished["board"] == "15×15, five in a row (gomoku)"
    assert (unfinished["x"], unfinished["o"], unfinished["result"]) == ("easy", "you",
                                                                        "Unfinished")
    assert (humans["board"], humans["x"], humans["o"], humans["result"]) == (
        "3×3", "human", "human", "X won")
    mine = {"x": "You won", "o": "You lost", "draw": "Draw"}[against]
    assert (computer["board"], computer["x"], computer["o"], computer["result"]) == (
        "5×5, four in a row", "you", "random", mine)
    page.locator(".games tbody tr").nth(2).click()
    wait_until(page, "document.querySelector('#replay-info').textContent.includes('you')")
    assert page.locator("#replay-info").inner_text().endswith(
        f" · 5×5, four in a row · X you, O random · {mine}")
    # among every game on the server, the human is not "you"
    page.locator("label", has_text="All games on this server").click()
    wait_until(page, "document.querySelector('.games').getAttribute('aria-label')"
                     ".startsWith('All games')")
    texts = page.locator(".games tbody tr").all_inner_texts()
    assert not any("you" in text.lower().split() for text in texts), texts
