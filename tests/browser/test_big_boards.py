"""The big boards in a real browser: gomoku (15×15, five in a row) played through the page on a
phone and on a desktop window, and 19×19 on the narrowest phone, all without sideways scrolling
and with readable coordinates; with a mouse, 15×15 and 19×19 fit a laptop's or a desktop's
window whole (status line, board, Undo and New game) without scrolling."""

from __future__ import annotations

from typing import Any

import pytest

from browser.conftest import YOUR_TURN, open_page, wait_until
from browser.test_layout import check_fits, choose, settle, window

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

MOVES = ["h8", "c3", "m13", "c13", "m3", "f11"]
"""Moves of the person at the keyboard, the first three still free (the computer, easy,
answers each, near the marks)."""

PLAYED = 3


def play_gomoku(page: Any, server: Any, width: int, height: int) -> dict[str, Any]:
    open_page(page, server.url)
    page.select_option("#level", "easy")
    wait_until(page, YOUR_TURN)
    with window(page, width, height):
        choose(page, "15x15k5")
        assert page.locator("#board .cell").count() == 225
        m = check_fits(page, "15x15k5", f"{width}x{height}")
        coords = page.eval_on_selector_all("#board .coord", "cs => cs.map(c => c.textContent)")
        assert coords[:15] == [chr(ord("a") + c) for c in range(15)]
        assert coords[15:] == [str(r) for r in range(1, 16)]
        wanted = list(MOVES)
        for n in range(1, PLAYED + 1):
            move = next(m for m in wanted if page.get_attribute(
                f"#board [data-name='{m}']", "aria-disabled") == "false")
            wanted.remove(move)
            cell = page.locator(f"#board [data-name='{move}']")
            cell.click()
            wait_until(page, f"document.querySelectorAll('#board .cell svg').length === {2 * n}"
                             f" && {YOUR_TURN}")
            assert cell.get_attribute("aria-label") == f"{move}, X"
        settle(page)
        assert page.locator("#moves li").count() == 2 * PLAYED
        # the last move (the computer's) is marked
        assert page.locator("#board .cell.last").count() == 1
        check_fits(page, "15x15k5", f"{width}x{height} after {PLAYED} moves")
    return m


HINTS_INSIDE = """() => [...document.querySelectorAll('#board .hint')].every((hint) => {
  const h = hint.getBoundingClientRect(), c = hint.closest('.cell').getBoundingClientRect();
  return h.left >= c.left - 0.5 && h.right <= c.right + 0.5 && h.top >= c.top - 0.5
    && h.bottom <= c.bottom + 0.5;
})"""


def test_gomoku_on_a_phone(page: Any, server: Any) -> None:
    m = play_gomoku(page, server, 390, 844)
    assert m["cell"] >= 18, f"{m['cell']} px cells on a 390 px phone"
    # hints on cells this small: a letter for a proven value, a dot on the best estimate,
    # each inside its cell, and still no sideways scrolling
    with window(page, 390, 844):
        page.locator("#board [data-name='h8']").focus()
        page.keyboard.press("h")
        wait_until(page, "document.querySelector('#board .hint') !== null", 60_000)
        texts = set(page.eval_on_selector_all("#board .hint", "hs => hs.map(h => h.textContent)"))
        assert texts <= {"W", "L", "D", "•"}, texts
        assert page.evaluate(HINTS_INSIDE)
        check_fits(page, "15x15k5", "390x844 with hints")


def test_gomoku_on_a_desktop(page: Any, server: Any) -> None:
    m = play_gomoku(page, server, 1280, 800)
    assert m["fitted"] and m["cell"] >= 30, f"{m['cell']} px cells on a 1280x800 window"


SEEN = """() => ['#status', '#board', '#undo', '#new-game'].map((selector) => {
  const r = document.querySelector(selector).getBoundingClientRect();
  const column = document.querySelector('#board').parentElement.getBoundingClientRect();
  const header = document.querySelector('body > header').getBoundingClientRect();
  return [selector, r.top >= Math.max(header.bottom, column.top) && r.left >= 0
          && r.bottom <= Math.min(innerHeight, column.bottom) && r.right <= innerWidth];
})"""


@pytest.mark.parametrize("board", ["15x15k5", "19x19k5"])
def test_big_boards_fit_a_desktop_window(page: Any, server: Any, board: str) -> None:
    """With a mouse, the page does not scroll and the status line, the whole board, Undo
    and New game are in the window; cells go under 36 px where the height asks for it."""
    open_page(page, server.url)
    page.check("input[name=mode][value=humans]")
    for width, height in ((1366, 768), (1280, 800), (1024, 768), (1920, 1080), (2560, 1440)):
        with window(page, width, height):
            choose(page, board)
            m = check_fits(page, board, f"{width}x{height}")
            assert m["fitted"]
            assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
            assert page.evaluate(SEEN) == [[s, True] for s in
                                           ("#status", "#board", "#undo", "#new-game")]
            assert m["cell"] >= 24, f"{board} at {width}x{height}: {m['cell']} px"
            if height >= 1080:
                assert m["cell"] >= 36, f"{board} at {width}x{height}: {m['cell']} px"


def test_19x19_fits_the_smallest_phone(page: Any, server: Any) -> None:
    open_page(page, server.url)
    page.check("input[name=mode][value=humans]")
    for width, height in ((320, 640), (390, 844), (1366, 768)):
        with window(page, width, height):
            choose(page, "19x19k5")
            m = check_fits(page, "19x19k5", f"{width}x{height}")
            assert page.locator("#board .cell").count() == 361
            assert m["cell"] >= (12 if width == 320 else 15 if width == 390 else 24), m["cell"]
            page.click("#board [data-name='j10']")
            wait_until(page, "document.querySelector(\"#board [data-name='j10'] svg\") !== null")
