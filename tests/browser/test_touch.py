"""Big boards on a touch screen: on a phone, 19x19's cells are under 24 px, so a tap selects a
cell (highlighted, named in a bar with Play here, said to a screen reader) and a second tap,
or Play here, plays it; a tap elsewhere moves the selection. The "Confirm taps on small cells"
switch turns this off, and the page keeps the choice. A mouse, on the same cells, plays at
once; so does the keyboard."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browser.conftest import YOUR_TURN, wait_until
from browser.test_layout import choose, save_screen, settle

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

MARKS = "document.querySelectorAll('#board .cell svg').length"


@pytest.fixture
def phone(browser: Any, server: Any) -> Iterator[Any]:
    """A phone-sized page with a touch screen, two players on 19x19."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    page.check("input[name=mode][value=humans]")
    choose(page, "19x19k5")
    yield page
    context.close()


def selected(page: Any) -> list[str]:
    return list(page.evaluate(
        "[...document.querySelectorAll('#board .cell.selected')].map((c) => c.dataset.name)"))


def test_a_tap_selects_and_a_second_tap_plays(phone: Any) -> None:
    page = phone
    assert page.evaluate("matchMedia('(pointer: coarse)').matches")
    cell = page.evaluate("document.querySelector('#board .cell').getBoundingClientRect().width")
    assert cell < 24, f"{cell} px cells"
    switch = page.locator("#confirm-taps")
    assert switch.is_visible() and switch.is_checked()
    assert page.locator("#tap-confirm").is_hidden()

    page.tap("[data-name=j10]")
    wait_until(page, "document.querySelector('#board .cell.selected') !== null")
    assert selected(page) == ["j10"]
    assert page.evaluate(MARKS) == 0, "a first tap does not play"
    j10 = page.locator("[data-name=j10]")
    assert j10.get_attribute("aria-label") == "j10, empty, selected: tap again to play here"
    assert page.locator("#tap-confirm").is_visible()
    assert page.locator("#tap-selected").inner_text() == "j10 selected"
    assert page.locator("#tap-said").inner_text() == \
        "j10 selected: tap it again, or Play here, to play there."
    # clearly highlighted: a thick ring in the focus colour
    ring = page.evaluate("""() => { const s = getComputedStyle(
        document.querySelector("[data-name='j10']")); return [s.outlineStyle, s.outlineWidth]; }""")
    assert ring == ["solid", "3px"]
    save_screen(page, "touch-select-390")  # with TTT_SCREENS=1 also in docs/screens/

    page.tap("[data-name=k10]")  # elsewhere: the selection moves
    wait_until(page, "document.querySelector(\"[data-name='k10']\").classList.contains('selected')")
    assert selected(page) == ["k10"]
    assert page.evaluate(MARKS) == 0
    assert j10.get_attribute("aria-label") == "j10, empty"

    page.tap("[data-name=k10]")  # the same cell again: played
    wait_until(page, f"{MARKS} === 1 && {YOUR_TURN}")
    assert page.locator("[data-name=k10] svg.x").count() == 1
    assert selected(page) == []
    assert page.locator("#tap-confirm").is_hidden()
    assert page.locator("#tap-said").inner_text() == ""

    page.tap("[data-name=l11]")  # Play here plays the selected cell
    wait_until(page, "document.querySelector('#board .cell.selected') !== null")
    page.tap("#tap-play")
    wait_until(page, f"{MARKS} === 2 && {YOUR_TURN}")
    assert page.locator("[data-name=l11] svg.o").count() == 1

    page.tap("[data-name=a1]")  # Cancel drops the selection
    wait_until(page, "document.querySelector('#board .cell.selected') !== null")
    page.tap("#tap-cancel")
    wait_until(page, "document.querySelector('#board .cell.selected') === null")
    assert page.evaluate(MARKS) == 2
    assert page.locator("#tap-confirm").is_hidden()

    page.tap("[data-name=k11]")  # a tap on a taken cell drops the selection too
    wait_until(page, "document.querySelector('#board .cell.selected') !== null")
    page.locator("[data-name=k10]").tap(force=True)  # aria-disabled: forced
    settle(page)
    assert selected(page) == [] and page.evaluate(MARKS) == 2


def test_the_switch_off_plays_at_once_and_is_kept(phone: Any) -> None:
    page = phone
    page.locator("label.switch:has(#confirm-taps)").tap()
    assert not page.locator("#confirm-taps").is_checked()
    page.tap("[data-name=j10]")
    wait_until(page, f"{MARKS} === 1 && {YOUR_TURN}")
    assert selected(page) == []
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert not page.locator("#confirm-taps").is_checked(), "kept in this browser"
    page.locator("label.switch:has(#confirm-taps)").tap()  # on again: asks again
    wait_until(page, YOUR_TURN)
    page.tap("[data-name=a1]")
    wait_until(page, "document.querySelector('#board .cell.selected') !== null")
    assert page.locator("#tap-confirm").is_visible()


def test_a_mouse_and_the_keyboard_play_at_once(page: Any, server: Any) -> None:
    """The same small cells with a mouse (a fine pointer): no selection, no switch."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    page.check("input[name=mode][value=humans]")
    choose(page, "19x19k5")
    assert page.evaluate("document.querySelector('#board .cell').getBoundingClientRect()"
                         ".width") < 24
    assert page.locator("#confirm-taps").is_hidden()
    page.click("[data-name=j10]")
    wait_until(page, f"{MARKS} === 1 && {YOUR_TURN}")
    page.locator("[data-name=j10]").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    wait_until(page, f"{MARKS} === 2 && {YOUR_TURN}")
    assert page.locator("[data-name=k10] svg.o").count() == 1
    assert selected(page) == []
