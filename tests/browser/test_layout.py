"""The page's layout in a real browser, from a 320 px phone to a 2560 px screen and at 200%
zoom: every board (the five of the Board select and two big ones loaded as positions) fits the
width of the window next to or above the setup panel, with cells of 36 px or more wherever the
width allows; with a mouse on a wide window (two columns, 500 px high or more) the play view
fills the window without scrolling, status line, board and toolbar in sight, with cells down
to 24 px; the cube's layers go four in a row, else two by two, else one under
another; the board does not move between moves; the replay is as large as the play board.

Screenshots go to test-artifacts/; with ``TTT_SCREENS=1`` they are written (as small palette
PNGs) to docs/screens/ as well, for docs/web.md."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from browser.conftest import ARTIFACTS, ROOT, wait_until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

SIZES = [(320, 640), (390, 844), (900, 700), (1024, 768), (1366, 768), (2560, 1440)]
"""Window sizes in CSS pixels: small and usual phones, the two-column layout at its narrowest
and on a 1024x768 screen, a laptop, a big screen."""
ZOOM = (683, 384)
"""A 1366x768 window at 200% zoom: half the CSS pixels, each two device pixels wide."""
BOARDS = ["3x3", "4x4", "5x5k4", "6x6k4", "4x4x4", "10x6k5", "8x8k5"]
"""The boards of the Board select, then two bigger ones that only a loaded position gives."""
TOUCH = 36
"""px: the smallest cell where the width allows one."""
MOUSE = 24
"""px: the smallest cell of a flat board with a mouse on a wide window."""
SCREENS = ROOT / "docs" / "screens"
WIN_AT_ONCE = "xxx1/ooo1/4/4:4/4/4/4:4/4/4/4:4/4/4/4 x"
"""A cube position in which X wins by playing 1:d1."""

Box = dict[str, float]

MEASURE = """(selector) => {
  // boxes in page coordinates (the same wherever the page is scrolled)
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return {left: r.left + scrollX, top: r.top + scrollY, right: r.right + scrollX,
            bottom: r.bottom + scrollY, width: r.width, height: r.height};
  };
  const area = document.querySelector(selector);
  const view = area.closest('.view');
  const x = scrollX, y = scrollY;
  scrollTo(100000, y);
  const sideways = scrollX;
  scrollTo(x, y);
  return {
    cells: [...area.querySelectorAll('.cell')].map(box),
    layers: [...area.querySelectorAll('.layer')].map(box),
    area: box(area),
    toolbar: box(area.parentElement.querySelector(':scope > .toolbar')),
    panels: [...view.querySelectorAll('.panel, .history-side')].map(box),
    status: selector === '#board' ? box(document.querySelector('#status')) : null,
    header: box(document.querySelector('body > header')),
    // the play view fills the window (a mouse on a wide window): boxes seen from the window
    fitted: selector === '#board' && getComputedStyle(area.parentElement).overflowY === 'auto',
    seen: [area, area.parentElement.querySelector(':scope > .toolbar'),
           document.querySelector('#status')].map((e) => e.getBoundingClientRect())
      .map((r) => ({top: r.top, bottom: r.bottom})),
    column: (({top, bottom}) => ({top, bottom}))(area.parentElement.getBoundingClientRect()),
    scrollHeight: document.scrollingElement.scrollHeight,
    width: Math.min(document.documentElement.clientWidth,
                    document.documentElement.getBoundingClientRect().width),
    height: innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
    sideways,
  };
}"""


def settle(page: Any) -> None:
    """Wait two frames: the board is fitted to a new size before the next frame is drawn."""
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


@contextmanager
def window(page: Any, width: int, height: int, zoom: bool = False) -> Iterator[Any]:
    """The window at a size in CSS pixels; `zoom`: at 200%, each CSS pixel two device pixels
    wide as the browser's zoom makes them, for the block only. Yields the DevTools session
    that holds the zoom (a screenshot must be taken through it), else None."""
    session = None
    if zoom:
        session = page.context.new_cdp_session(page)
        session.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 2, "mobile": False})
    else:
        page.set_viewport_size({"width": width, "height": height})
    try:
        settle(page)
        assert page.evaluate("[innerWidth, innerHeight, devicePixelRatio]") == \
            [width, height, 2 if zoom else 1]
        yield session
    finally:
        if session:
            session.detach()


def choose(page: Any, board: str, variant: str | None = None) -> None:
    """Start a game on a board: from the Board select, or by loading its name (or a position on
    `variant`) in the position box."""
    if board in page.eval_on_selector_all("#variant option", "os => os.map(o => o.value)"):
        page.select_option("#variant", board)
    else:
        page.fill("#position-text", board)
        page.click("#load")
    if page.evaluate("document.querySelector('#confirm').open"):  # a game under way: it asks
        page.click("#confirm-yes")
    wait_until(page, f"document.querySelector('#board').getAttribute('aria-label') === "
                     f"'Board: {variant or board}'"
                     " && document.querySelector('.cell[aria-disabled=false]') !== null")
    settle(page)


def overlaps(a: Box, b: Box) -> bool:
    return min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5 and \
        min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5


def rows_of(boxes: list[Box]) -> list[int]:
    """How many boxes stand in each row (by their tops), top row first."""
    tops: dict[int, int] = {}
    for box in boxes:
        tops[round(box["top"])] = tops.get(round(box["top"]), 0) + 1
    return [tops[top] for top in sorted(tops)]


def layers_that_fit(width: float) -> int:
    """The cube's layers in a row: four where cells of 36 px fit with the smallest spacing
    (3 px between cells, 12 px of coordinates, 10 px between layers), else two, else one."""
    for across in (4, 2):
        if across * (12 + 4 * (TOUCH + 3)) + (across - 1) * 10 <= width:
            return across
    return 1


def check_fits(page: Any, board: str, size: str, selector: str = "#board") -> dict[str, Any]:
    """Check the board drawn in `selector` against the window; return the measurements."""
    m: dict[str, Any] = page.evaluate(MEASURE, selector)
    where = f"{board} at {size}"
    cells, area = m["cells"], m["area"]
    assert cells, where
    assert m["sideways"] == 0 and m["scrollWidth"] <= m["width"] + 1, \
        f"{where}: the page scrolls sideways ({m['scrollWidth']} > {m['width']})"
    for cell in cells:
        assert cell["left"] >= 0 and cell["right"] <= m["width"] + 0.5, f"{where}: {cell}"
        assert not overlaps(cell, m["toolbar"]), f"{where}: a cell under the toolbar"
        for panel in m["panels"]:
            assert not overlaps(cell, panel), f"{where}: a cell under the panel {panel}"
        if m["status"]:
            assert not overlaps(cell, m["status"]), f"{where}: a cell under the status line"
    sizes = {(round(c["width"]), round(c["height"])) for c in cells}
    assert len(sizes) == 1, f"{where}: cells of different sizes {sizes}"
    cell = min(min(pair) for pair in sizes)
    columns = int(board.split("x")[1].split("k")[0]) if board.count("x") == 1 else 4
    mouse = page.evaluate("matchMedia('(pointer: fine)').matches")
    wide = m["width"] > 860 and m["height"] >= 500
    assert m["fitted"] == (selector == "#board" and mouse and wide), f"{where}: {m['fitted']}"
    if m["fitted"]:  # status line, board and toolbar in the window, and the page still
        assert m["scrollHeight"] <= m["height"], f"{where}: the page scrolls"
        for seen in m["seen"]:  # in the window, and in the part of the column in sight
            assert seen["top"] >= max(m["header"]["bottom"], m["column"]["top"]) - 0.5 and \
                seen["bottom"] <= min(m["height"], m["column"]["bottom"]) + 0.5, \
                f"{where}: {seen} out of the window or the column {m['column']}"
    if board == "4x4x4":
        across = rows_of(m["layers"])
        expected = layers_that_fit(area["width"])
        assert across == [expected] * (4 // expected), f"{where}: layers {across}"
        assert cell >= (MOUSE if m["fitted"] else TOUCH), f"{where}: {cell} px cells"
    elif 12 + columns * (TOUCH + 3) <= area["width"]:
        assert cell >= (MOUSE if m["fitted"] else TOUCH), f"{where}: {cell} px cells"
    elif m["fitted"]:  # the window's height may be the limit: cells down to the mouse's
        assert cell >= MOUSE, f"{where}: {cell} px cells"
    else:  # too narrow for 36 px: the cells take the width there is
        assert columns * (cell + 3) >= 0.85 * area["width"], f"{where}: {cell} px cells"
    m["cell"] = cell
    return m


def save_screen(page: Any, name: str, session: Any = None) -> None:
    """A screenshot of the window (not the whole page) in test-artifacts/, through the
    DevTools `session` if one holds a zoom; with TTT_SCREENS=1 also in docs/screens/,
    reduced to a palette of 256 colours."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"layout-{name}.png"
    page.evaluate("scrollTo(0, 0)")
    if session:  # Playwright's own screenshot would draw the page at its own window size
        path.write_bytes(base64.b64decode(session.send("Page.captureScreenshot")["data"]))
    else:
        page.mouse.move(0, 0)  # no cell under the pointer
        page.screenshot(path=str(path), animations="disabled")
    if os.environ.get("TTT_SCREENS") == "1":
        from PIL import Image

        SCREENS.mkdir(exist_ok=True)
        with Image.open(path) as image:
            small = image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT)
            small.save(SCREENS / f"{name}.png", optimize=True)


@pytest.fixture
def light(page: Any) -> Iterator[Any]:
    """The page in the light scheme (the screenshots do not depend on the machine's)."""
    page.emulate_media(color_scheme="light")
    yield page


def test_every_board_fits_every_window(light: Any, server: Any) -> None:
    page = light
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    for board in BOARDS:
        choose(page, board)
        for width, height in [*SIZES, ZOOM]:
            zoom = (width, height) == ZOOM
            size = "200% zoom" if zoom else f"{width}x{height}"
            with window(page, width, height, zoom) as session:
                m = check_fits(page, board, size)
                if height >= 700:  # a window of laptop height or more shows the whole board
                    assert max(c["bottom"] for c in m["cells"]) <= m["height"], \
                        f"{board} at {size}"
                if board == "4x4x4":
                    save_screen(page, f"cube-{'200pct' if zoom else width}", session)
                if board == "10x6k5" and width == 1366:
                    save_screen(page, "10x6k5-1366")


def test_the_board_stays_put_between_moves(light: Any, server: Any) -> None:
    """The status line keeps its height whatever it says (the computer's reply wraps to two
    or three lines), so the board never moves: its position is recorded at every frame from
    the click to the answer."""
    page = light
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    for board, (width, height), moves in (("4x4x4", (320, 640), ["1:b2", "1:c3"]),
                                          ("3x3", (1024, 768), ["b2", "a1"])):
        page.set_viewport_size({"width": width, "height": height})
        choose(page, board)
        page.evaluate("""() => { const tops = window.boardTops = [];
          const record = () => {
            const r = document.querySelector('#board .cell').getBoundingClientRect();
            tops.push([r.top + scrollY, r.left, r.width].join());
            if (window.boardTops === tops) requestAnimationFrame(record);
          };
          requestAnimationFrame(record); }""")
        status = page.locator("#status").bounding_box()["height"]
        for move in moves:
            if page.locator(f"[data-name='{move}'][aria-disabled=false]").count() == 0:
                continue  # the computer took it
            count = page.locator("#board .cell svg").count()
            page.click(f"[data-name='{move}']")
            wait_until(page, f"document.querySelectorAll('#board .cell svg').length > {count + 1}"
                             " && document.querySelector('#status .reply')")
        assert page.locator("#status").bounding_box()["height"] == status
        assert page.locator("#board .cell.last").count() == 1
        tops = set(page.evaluate("window.boardTops"))
        assert len(tops) == 1, f"{board} at {width}x{height}: the board moved: {tops}"
        if board == "4x4x4":
            save_screen(page, "cube-moves-320")


def test_the_replay_is_as_large_as_the_play_board(light: Any, server: Any) -> None:
    page = light
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    choose(page, WIN_AT_ONCE, "4x4x4")  # loaded as a position: X to move, and you are X
    page.click("[data-name='1:d1']")
    wait_until(page, "document.querySelector('#status').textContent.startsWith('You win')")
    page.evaluate("location.hash = '#history'")
    page.locator(".games tbody tr").first.click()
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 7")
    for width, height in [(390, 844), (1024, 768), (1366, 768)]:
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        replay = check_fits(page, "4x4x4", f"{width}x{height}", "#replay-board")
        assert page.locator("#replay-board .cell.last").get_attribute("data-name") == "1:d1"
        if width == 1366:
            save_screen(page, "replay-1366")
        page.evaluate("location.hash = '#play'")
        settle(page)
        play = check_fits(page, "4x4x4", f"{width}x{height}")
        assert rows_of(replay["layers"]) == rows_of(play["layers"])
        assert replay["cell"] >= 0.85 * play["cell"], (width, replay["cell"], play["cell"])
        page.evaluate("location.hash = '#history'")
        settle(page)


DOCUMENTED = {
    "19x19k5": {(1366, 768): 25, (1024, 768): 24, (1280, 800): 26, (1920, 1080): 39},
    "15x15k5": {(1366, 768): 31, (1024, 768): 30, (1280, 800): 33, (1920, 1080): 49},
    "4x4x4": {(900, 700): 33, (1024, 768): 48},
    "10x6k5": {(1366, 768): 47},
}
"""The cell sizes (px) that docs/web-reference.md and docs/web.md give, by board and window."""
SAID = {
    "web-reference.md": [
        "the cube at 900×700 gets 33 px and at 1024×768 48 px",
        "19×19 gets 25 px cells at 1366×768, 24 px (the floor) at 1024×768, 26 px at 1280×800 "
        "and 39 px at 1920×1080, and 15×15 31, 30, 33 and 49 px",
        "`10x6k5` gets 47 px cells on a 1366×768 screen",
        "| 1024×768 (two by two, 48 px) |",
        "with 33 and 26 px cells (49 and 39 px at 1920×1080",
    ],
    "web.md": ["19×19 gets 25 px cells at 1366×768, 15×15 31 px; 39 and 49 px at 1920×1080"],
}
"""Where the docs give them (whitespace as one space)."""


def test_the_documented_cell_sizes_are_the_ones_drawn(page: Any, server: Any) -> None:
    """The docs' cell sizes with a mouse are what the page draws (19×19 at 1024×768 gets
    the board's --min-cell, 24 px, as a floor)."""
    for name, phrases in SAID.items():
        text = " ".join((ROOT / "docs" / name).read_text().split())
        for phrase in phrases:
            assert phrase in text, f"docs/{name} no longer says: {phrase}"
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    page.check("input[name=mode][value=humans]")
    drawn = {}
    for board, sizes in DOCUMENTED.items():
        choose(page, board)
        for width, height in sizes:
            with window(page, width, height):
                drawn[board, width, height] = round(
                    check_fits(page, board, f"{width}x{height}")["cell"])
    assert drawn == {(board, *size): cell for board, sizes in DOCUMENTED.items()
                     for size, cell in sizes.items()}
