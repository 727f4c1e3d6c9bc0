"""The cube made readable: the Threats switch outlines every open threat of both sides and
the cell that completes it, and a legend names the kinds of lines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from browser.conftest import YOUR_TURN, open_page, wait_until
from browser.test_layout import save_screen

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

# X has three of the pillar through a2 (4:a2 completes it), O three of the top row of layer
# 1 (1:a1 completes it); X to move
OPEN_THREES = "1ooo/x3/4/4:4/x3/4/4:4/x3/4/4:4/4/4/4 x"
RINGS = ("[...document.querySelectorAll('#board .cell')].filter((c) => "
         "c.matches('.threat-x, .threat-o')).map((c) => c.dataset.name + ' ' + "
         "(c.classList.contains('threat-x') ? 'x' : '') + (c.classList.contains('threat-o') "
         "? 'o' : ''))")


def load(page: Any, position: str) -> None:
    page.fill("#position-text", position)
    page.click("#load")
    board = position.split()[0]
    cells = sum(int(c) if c.isdigit() else 1 for c in board if c not in "/:")
    marks = sum(board.count(mark) for mark in "xo")
    wait_until(page, f"document.querySelectorAll('#board .cell').length === {cells} && "
                     f"document.querySelectorAll('#board .cell svg').length === {marks}")
    wait_until(page, YOUR_TURN)


def test_threats_on_the_cube_are_outlined_and_the_switch_is_kept(
        page: Any, server: Any, shot: Callable[[Any, str], None]) -> None:
    open_page(page, server.url)
    assert not page.locator("#threats").is_checked(), "off by default on a flat board"
    load(page, OPEN_THREES)
    # on the cube the switch is on at first, and both sides' threats are shown
    assert page.locator("#threats").is_checked()
    rings = wait_until(page, f"(() => {{ const r = {RINGS}; return r.length ? r : null; }})()")
    assert sorted(rings) == ["1:a1 o", "4:a2 x"]
    pillar = page.locator("[data-name='4:a2']")
    row = page.locator("[data-name='1:a1']")
    # not by colour alone: the tag names the side, the label says what the cell completes
    assert pillar.locator(".threat-tag").inner_text() == "X"
    assert row.locator(".threat-tag").inner_text() == "O"
    assert pillar.get_attribute("aria-label") == "layer 4, a2, empty, X completes a pillar here"
    assert row.get_attribute("aria-label") == "layer 1, a1, empty, O completes a row here"
    # the two rings differ in their line style, not only in their colour
    styles = page.evaluate("""() => [['4:a2', '::after'], ['1:a1', '::before']].map(
        ([name, part]) => getComputedStyle(document.querySelector(`[data-name='${name}']`),
                                           part).borderTopStyle)""")
    assert styles == ["dashed", "dotted"]
    # the marks of the threatening lines have a thin edge of their side's kind
    lines = page.evaluate("""() => ['x', 'o'].map((side) => [...document.querySelectorAll(
        `#board .cell.in-threat-${side}`)].map((c) => c.dataset.name).sort())""")
    assert lines == [["1:a2", "2:a2", "3:a2"], ["1:b1", "1:c1", "1:d1"]]
    assert page.locator("#threat-key").is_visible()
    shot(page, "cube-threats")
    save_screen(page, "cube-threats-1200")  # with TTT_SCREENS=1 also in docs/screens/

    # the legend: the cube's kinds of lines, with their counts
    assert page.locator("#line-kinds").is_visible()
    kinds = page.evaluate("[...document.querySelectorAll('#line-kinds li')].map((li) => "
                          "[li.dataset.kind, li.querySelector('b').textContent])")
    assert kinds == [["row", "16"], ["column", "16"], ["layer diagonal", "8"],
                     ["pillar", "16"], ["vertical diagonal", "16"], ["space diagonal", "4"]]
    assert page.locator("#line-kinds h2").inner_text() == "The 76 lines of four on this board"

    # the switch off: no ring, no tag, no edge, no words in the labels
    page.locator("label.switch:has(#threats)").click()
    wait_until(page, "document.querySelectorAll('#board [class*=threat], .threat-tag')"
                     ".length === 0")
    assert pillar.get_attribute("aria-label") == "layer 4, a2, empty"
    assert page.locator("#threat-key").is_hidden()
    assert page.locator("#line-kinds").is_visible(), "the legend stays with the cube"

    # kept over a reload (the game is resumed), and on again with the key t
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    wait_until(page, YOUR_TURN)
    wait_until(page, "document.querySelectorAll('#board .cell').length === 64")
    assert not page.locator("#threats").is_checked()
    assert page.locator("#board .threat-tag").count() == 0
    page.locator("body").press("t")
    wait_until(page, "document.querySelectorAll('#board .threat-tag').length === 2")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    wait_until(page, YOUR_TURN)
    wait_until(page, "document.querySelectorAll('#board .threat-tag').length === 2")
    assert page.locator("#threats").is_checked()


def test_threats_on_a_flat_board_when_switched_on(page: Any, server: Any) -> None:
    open_page(page, server.url)
    load(page, "xx1/3/o1o x")  # X completes the top row at c1, O the bottom one at b3
    assert page.locator("#board .threat-tag").count() == 0, "off on a flat board at first"
    assert page.locator("#line-kinds").is_hidden(), "the lines' legend is the cube's"
    page.locator("label.switch:has(#threats)").click()
    wait_until(page, "document.querySelectorAll('#board .threat-tag').length === 2")
    assert page.locator("[data-name=c1]").get_attribute("aria-label") == \
        "c1, empty, X completes a row here"
    assert page.locator("[data-name=b3]").get_attribute("aria-label") == \
        "b3, empty, O completes a row here"
    # with the hints on too, the letter moves to the corner and the hint takes the middle
    page.locator("label.switch:has(#hints)").click()
    page.wait_for_selector("[data-name=c1] .hint")
    corner = page.evaluate("""() => {
        const tag = document.querySelector('[data-name=c1] .threat-tag');
        const cell = tag.parentElement.getBoundingClientRect();
        const box = tag.getBoundingClientRect();
        return [getComputedStyle(tag).position, box.top - cell.top < cell.height / 3,
                cell.right - box.right < cell.width / 3];
    }""")
    assert corner == ["absolute", True, True]
    assert page.locator("[data-name=c1]").get_attribute("aria-label").startswith(
        "c1, empty, X completes a row here, ")
    # X plays c1 and wins: no threats on a finished game
    page.click("[data-name=c1]")
    wait_until(page, "document.querySelector('#status').textContent.startsWith('You win')")
    assert page.locator("#board .threat-tag").count() == 0


def test_open_threes_on_15x15_are_marked_with_a_legend(page: Any, server: Any) -> None:
    open_page(page, server.url)
    # X g8 h8 i8 with both ends open (O on the edge): X makes an open four at f8 or j8
    page.fill("#position-text", "o14/15/o14/15/o14/15/15/6xxx6/15/15/15/15/15/15/15 x 5")
    page.click("#load")
    wait_until(page, "document.querySelectorAll('#board .cell').length === 225 && "
                     "document.querySelectorAll('#board .cell svg').length === 6")
    wait_until(page, YOUR_TURN)
    assert page.locator("#board .three-x").count() == 0, "off on a flat board at first"
    page.locator("label.switch:has(#threats)").click()
    wait_until(page, "document.querySelectorAll('#board .three-x').length === 2")
    names = page.evaluate("[...document.querySelectorAll('#board .three-x')]"
                          ".map((c) => c.dataset.name).sort()")
    assert names == ["f8", "j8"]
    assert page.locator("#three-key").is_visible()
    assert page.locator("[data-name=f8]").get_attribute("aria-label") == \
        "f8, empty, X makes an open four here"
    assert page.locator("#board .three-o").count() == 0
    load(page, "3/3/3 x")  # fewer than five in a row: no key for threes
    assert page.locator("#three-key").is_hidden()


def test_open_and_broken_threes_are_underlined_and_named(page: Any, server: Any) -> None:
    """On 15x15 the Threats switch underlines X's open three g8 h8 i8 with a solid bar and O's
    broken three c10 c11 c13 with a dashed one; the legend names both, in gomoku's words."""
    rows = ["15"] * 15
    rows[7] = "6xxx6"
    rows[9] = rows[10] = rows[12] = "2o12"
    open_page(page, server.url)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.check("input[name=mode][value=humans]")
    wait_until(page, YOUR_TURN)
    page.fill("#position-text", f"{'/'.join(rows)} x 5")
    page.click("#load")
    wait_until(page, "document.querySelectorAll('#board .cell').length === 225 && "
                     f"document.querySelectorAll('#board .cell svg').length === 6 && {YOUR_TURN}")
    page.locator("label.switch:has(#threats)").click()
    wait_until(page, "document.querySelectorAll('#board [class*=-three-]').length === 6")
    underlined = page.evaluate("""() => ['open', 'broken'].map((shape) => ['x', 'o'].map(
        (side) => [...document.querySelectorAll(`#board .${shape}-three-${side}`)]
          .map((c) => c.dataset.name).sort()))""")
    assert underlined == [[["g8", "h8", "i8"], []], [[], ["c10", "c11", "c13"]]]
    # a solid bar and a dashed one: the two shapes differ in more than colour
    bars = page.evaluate("""() => ['h8', 'c11'].map((name) => getComputedStyle(
        document.querySelector(`[data-name='${name}']`)).backgroundImage.split('(')[0])""")
    assert bars == ["linear-gradient", "repeating-linear-gradient"]
    assert page.locator("[data-name=h8]").get_attribute("aria-label") == \
        "h8, X, in X’s open three"
    assert page.locator("[data-name=c13]").get_attribute("aria-label") == \
        "c13, O, in O’s broken three"
    # the cells that make the open fours keep their corners: f8 and j8 for X, c12 for O
    corners = page.evaluate("""() => ['x', 'o'].map((side) => [...document.querySelectorAll(
        `#board .three-${side}`)].map((c) => c.dataset.name).sort())""")
    assert corners == [["f8", "j8"], ["c12"]]
    # the legend: what each shape means, and the threes on the board now
    key = page.locator("#three-key")
    assert key.is_visible()
    assert key.locator("[data-shape=four]").inner_text().endswith(
        "wins next move unless blocked there.")
    assert "becomes an open four" in key.locator("[data-shape=open]").inner_text()
    assert key.locator("[data-shape=broken]").inner_text().startswith("Broken three")
    assert key.locator(".three-now").inner_text() == (
        "On the board now: X: an open three, g8 h8 i8 (an open four at f8 or j8). "
        "O: a broken three, c10 c11 c13 (an open four at c12).")
    # the legend is under the toolbar, in the board's column, which scrolls inside itself
    page.evaluate("document.querySelector('#three-key').scrollIntoView({block: 'end'})")
    assert key.evaluate("(e) => e.getBoundingClientRect().bottom <= innerHeight")
    save_screen(page, "gomoku-threes-1366")
    # X plays j8: an open four now (rings at f8 and k8), no longer a three
    page.click("[data-name=j8]")
    wait_until(page, "document.querySelectorAll('#board .open-three-x').length === 0 && "
                     "document.querySelectorAll('#board .threat-x').length === 2")
    assert page.locator("#board .broken-three-o").count() == 3
    page.locator("label.switch:has(#threats)").click()
    wait_until(page, "document.querySelectorAll('#board [class*=-three-]').length === 0")
