"""The hints on the board and their legend: the legend lists every kind of hint the library
has (`tictactoe.search.words.HINT_CODES`), and every hint drawn in a game, in its long words
or its short code, on a board of any size, has exactly one entry there."""

from __future__ import annotations

from typing import Any

import pytest

from browser.conftest import YOUR_TURN, open_page, wait_until
from tictactoe.search.words import HINT_CODES

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

DRAWN = """() => {
  const entries = [...document.querySelectorAll('#hint-codes li[data-pattern]')];
  const patterns = entries.map((li) => new RegExp(`^(?:${li.dataset.pattern})$`));
  return [...document.querySelectorAll('#board .hint')].map((hint) => [
    hint.textContent, entries.filter((li, i) => patterns[i].test(hint.textContent))
      .map((li) => li.querySelector('b') ? li.querySelector('b').textContent : li.id)]);
}"""
"""Each hint on the board, with the legend entries (by their code) whose pattern it matches."""


GOMOKU = "oooo11/15/15/15/15/15/15/7x7/7x7/7x7/15/12x2/15/15/15 x 5"
"""15x15, five in a row: O's four on the first row, X to move must block it (a proven
loss everywhere else)."""


def load(page: Any, position: str, stones: int) -> None:
    page.fill("#position-text", position)
    page.click("#load")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === {stones} && "
                     f"({YOUR_TURN})")


def hints_on(page: Any) -> None:
    if not page.locator("#hints").is_checked():
        page.locator("label.switch:has(#hints)").click()


def drawn(page: Any, count: int) -> list[tuple[str, list[str]]]:
    """The hints once `count` of them (or more) are drawn."""
    wait_until(page, f"document.querySelectorAll('#board .hint').length >= {count} || "
                     "document.querySelector('#hint-note').textContent.startsWith('No hints')",
               60_000)
    assert not page.locator("#hint-note").inner_text().startswith("No hints"), \
        page.locator("#hint-note").inner_text()
    return [(text, entries) for text, entries in page.evaluate(DRAWN)]


def test_the_legend_lists_every_kind_of_hint(page: Any, server: Any) -> None:
    open_page(page, server.url)
    legend = page.locator("#hint-legend")
    assert legend.is_hidden()
    hints_on(page)
    legend.wait_for()
    entries = page.locator("#hint-codes li[data-pattern]")
    assert entries.count() == len(HINT_CODES) + 1  # and the note on the outline and the dot
    for i, entry in enumerate(HINT_CODES):
        text = entries.nth(i).inner_text()
        assert text.startswith(f"{entry.code} or {entry.text}: {entry.meaning}"), text
        assert entries.nth(i).get_attribute("data-pattern") == entry.pattern
    assert "a dot" in entries.nth(len(HINT_CODES)).inner_text()


@pytest.mark.parametrize(("width", "height"), [(1200, 860), (320, 640)])
def test_every_hint_drawn_has_a_legend_entry(page: Any, server: Any, width: int,
                                             height: int) -> None:
    """Games on 3x3 (wins, losses and draws, in words on a wide window and in codes on a
    phone), the cube (a proven win of unknown length and estimates) and 15x15 (on a phone,
    cells too small for numbers: letters): every hint drawn matches one legend entry."""
    page.set_viewport_size({"width": width, "height": height})
    open_page(page, server.url)
    hints_on(page)
    seen: list[tuple[str, list[str]]] = []
    for position, stones, count in (("xx1/oo1/3 x", 4, 5), ("x2/1o1/2x o", 3, 6),
                                    ("4x4x4", 0, 1), (GOMOKU, 8, 1)):
        load(page, position, stones)
        found = drawn(page, count)
        assert found, position
        seen += found
    unexplained = [(text, entries) for text, entries in seen if len(entries) != 1]
    assert not unexplained, unexplained
    codes = {entries[0] for _, entries in seen}
    assert {"W3", "L2", "D"} <= codes, codes  # wins, losses and draws were all drawn
