"""The status line on a phone: it keeps its height so that the board stays put, and where the
computer's comment is longer than its lines a More button (a real button, with
aria-expanded) opens it to the whole text, Less closes it, and the next message comes
closed again."""

from __future__ import annotations

from typing import Any

import pytest

from browser.conftest import YOUR_TURN, open_page, wait_until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

SHOWN = """() => {
  const status = document.querySelector('#status');
  const text = document.querySelector('#status .status-text');
  const box = status.getBoundingClientRect();
  const inner = text.getBoundingClientRect();
  const more = document.querySelector('#status .status-more');
  return {
    text: text.textContent, scrollWidth: text.scrollWidth, clientWidth: text.clientWidth,
    scrollHeight: text.scrollHeight, clientHeight: text.clientHeight,
    inside: inner.top >= box.top - 0.5 && inner.bottom <= box.bottom + 0.5
      && inner.left >= box.left - 0.5 && inner.right <= box.right + 0.5,
    statusHeight: box.height, overflow: getComputedStyle(text).overflow,
    more: more && {text: more.textContent, expanded: more.getAttribute('aria-expanded'),
                   controls: more.getAttribute('aria-controls'), tag: more.tagName,
                   width: more.getBoundingClientRect().width,
                   height: more.getBoundingClientRect().height},
  };
}"""


def test_a_long_comment_can_be_read_whole_at_320_px(browser: Any, server: Any) -> None:
    context = browser.new_context(viewport={"width": 320, "height": 640}, has_touch=True,
                                  is_mobile=True)
    page = context.new_page()
    open_page(page, server.url)
    page.select_option("#level", "perfect")
    wait_until(page, f"document.querySelector('#level').value === 'perfect' && ({YOUR_TURN})")
    page.tap("[data-name=b2]")
    wait_until(page, "document.querySelector('#status .reply') !== null")
    reply = page.locator("#status .reply").text_content()
    assert reply is not None and "a draw with best play" in reply  # the computer's comment
    closed = page.evaluate(SHOWN)
    # too long for the status line's three lines: cut, with a button to open it
    assert closed["scrollHeight"] > closed["clientHeight"] + 1, closed
    more = closed["more"]
    assert more and more["tag"] == "BUTTON" and more["expanded"] == "false", closed
    assert more["text"] == "More" and more["controls"] == "status-text", more
    assert more["width"] >= 24 and more["height"] >= 24, more  # a target a finger can hit
    page.tap("#status .status-more")
    opened = page.evaluate(SHOWN)
    assert opened["more"]["expanded"] == "true" and opened["more"]["text"] == "Less", opened
    assert opened["text"] == closed["text"] and opened["text"].endswith(reply)
    # the whole text is in sight: nothing scrolls or is clipped, sideways or down
    assert opened["scrollWidth"] <= opened["clientWidth"], opened
    assert opened["scrollHeight"] <= opened["clientHeight"] + 1, opened
    assert opened["inside"], opened
    assert opened["statusHeight"] > closed["statusHeight"]
    page.tap("#status .status-more")
    again = page.evaluate(SHOWN)
    assert again["more"]["expanded"] == "false" and again["statusHeight"] == closed["statusHeight"]
    # opened again, then the next message comes closed, at the line's own height
    page.tap("#status .status-more")
    cells = page.locator("#board .cell svg").count()
    page.tap("#board .cell[aria-disabled=false]")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length > {cells + 1} || "
                     "document.querySelector('#status.won, #status.lost, #status.drawn')")
    wait_until(page, "!document.querySelector('#status.open')")
    assert page.locator("#status").bounding_box()["height"] == closed["statusHeight"]
    context.close()
