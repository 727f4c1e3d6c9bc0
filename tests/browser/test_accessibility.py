"""Accessibility in a real browser, in the light and the dark colour scheme: axe-core (vendored in
tests/browser/vendor/, injected by the tests only) finds no serious or critical violation on
the play view (a game in progress, hints on; the cube with its threats and legend) or the
history view (finished games, a replay open; on a phone, as cards), and none at all on the
board and its controls with a cell selected by a tap (19x19 on a phone) or with 15x15's threes
shown; the contrast ratios read from the computed styles meet WCAG AA: 4.5:1 for text, 3:1 for
the empty cells' boundaries, the threats' rings, the threes' bars, a selected cell's ring, the
focus ring and the chart's segments; with reduced motion asked for, nothing moves (no pop,
glow or spinner)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from browser.conftest import YOUR_TURN, open_page, wait_until
from tictactoe.core import Position
from tictactoe.search.solver import solve

pytestmark = [
    pytest.mark.browser,
    # pytest-base-url (a pytest-playwright dependency) still defines a fixture the old way
    pytest.mark.filterwarnings("ignore:Session-scoped fixtures defined as instance methods"),
]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
AXE_URL = "/__tests__/axe.min.js"  # served to the page by a route, from its own origin
SCHEMES = ("light", "dark")
TEXT = 4.5  # WCAG 2 AA, 1.4.3: text (asked of all of it, large or not)
NON_TEXT = 3.0  # WCAG 2 AA, 1.4.11: the boundaries of controls, focus rings, chart segments
Colour = tuple[float, float, float, float]  # r, g, b in 0..255, alpha in 0..1

# ------------------------------------------------------------------ contrast from the styles

MEASURE = """(selector) => {
  const el = typeof selector === 'string' ? document.querySelector(selector) : selector;
  if (!el) return null;
  const style = getComputedStyle(el);
  const backgrounds = [];
  for (let e = el; e; e = e.parentElement) backgrounds.push(getComputedStyle(e).backgroundColor);
  const previous = el.previousElementSibling;
  return {
    color: style.color, fill: style.fill, opacity: style.opacity,
    border: style.borderTopColor, borderWidth: parseFloat(style.borderTopWidth),
    outline: style.outlineColor, outlineStyle: style.outlineStyle,
    outlineWidth: parseFloat(style.outlineWidth), outlineOffset: parseFloat(style.outlineOffset),
    backgrounds,
    previousFill: previous ? getComputedStyle(previous).fill : null,
    previousOpacity: previous ? getComputedStyle(previous).opacity : null,
    previousClass: previous ? previous.getAttribute('class') : null,
  };
}"""


def parse(css: str) -> Colour:
    """A computed colour: rgb(), rgba() or color(srgb ...) (what color-mix() computes to)."""
    found = re.fullmatch(r"rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)", css)
    if found:
        r, g, b, a = found.groups()
        return float(r), float(g), float(b), float(a if a is not None else 1)
    found = re.fullmatch(r"color\(srgb ([-\d.e]+) ([-\d.e]+) ([-\d.e]+)(?: / ([\d.]+))?\)", css)
    if found:
        r, g, b, a = found.groups()
        return (float(r) * 255, float(g) * 255, float(b) * 255,
                float(a if a is not None else 1))
    raise ValueError(f"not a colour: {css!r}")


def over(top: Colour, below: Colour, opacity: float = 1.0) -> Colour:
    """`top` (with its alpha, times `opacity`) painted over the opaque colour `below`."""
    alpha = top[3] * opacity
    r, g, b = (t * alpha + u * (1 - alpha) for t, u in zip(top[:3], below[:3], strict=True))
    return r, g, b, 1.0


def backdrop(backgrounds: list[str]) -> Colour:
    """The colour behind an element's content: its background and its ancestors', composed
    from the root (the list goes from the element up to the root)."""
    colour: Colour = (255, 255, 255, 1)
    for css in reversed(backgrounds):
        colour = over(parse(css), colour)
    return colour


def luminance(colour: Colour) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: Colour, b: Colour) -> float:
    """WCAG 2 contrast ratio of two opaque colours, from 1 to 21."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_contrast_formula() -> None:
    """The known values: black on white 21:1, and #767676 on white just above 4.5:1."""
    assert round(ratio(parse("rgb(0, 0, 0)"), parse("rgb(255, 255, 255)")), 2) == 21
    assert 4.5 < ratio(parse("rgb(118, 118, 118)"), parse("rgb(255, 255, 255)")) < 4.55
    assert parse("color(srgb 1 0.5 0 / 0.25)") == (255, 127.5, 0, 0.25)
    assert over(parse("rgba(0, 0, 0, 0.5)"), (255, 255, 255, 1)) == (127.5, 127.5, 127.5, 1)


@dataclass
class Pair:
    """One measured pair: what it is, its ratio and the ratio it needs."""

    what: str
    ratio: float
    needs: float

    def __str__(self) -> str:
        mark = "ok " if self.ratio >= self.needs else "LOW"
        return f"{mark} {self.ratio:5.2f}:1 (needs {self.needs}:1)  {self.what}"


class Contrast:
    """Measures pairs of colours on a page and keeps them for one report."""

    def __init__(self, page: Any, scheme: str) -> None:
        self.page = page
        self.scheme = scheme
        self.pairs: list[Pair] = []

    def styles(self, selector: str) -> dict[str, Any]:
        found = self.page.evaluate(MEASURE, selector)
        assert found is not None, f"nothing matches {selector}"
        return dict(found)

    def add(self, what: str, value: float, needs: float) -> None:
        self.pairs.append(Pair(f"{self.scheme}: {what}", value, needs))

    def text(self, selector: str, what: str, prop: str = "color") -> None:
        """Text (its `color`, or `fill` in SVG) against the background behind it."""
        s = self.styles(selector)
        below = backdrop(s["backgrounds"])
        self.add(what, ratio(over(parse(s[prop]), below), below), TEXT)

    def boundary(self, selector: str, what: str) -> None:
        """An element's edge against what surrounds it: its border if it has one, else its
        background, against its parent's backdrop; the better of the two counts."""
        s = self.styles(selector)
        around = backdrop(s["backgrounds"][1:])
        fill = over(parse(s["backgrounds"][0]), around)
        best = ratio(fill, around)
        if s["borderWidth"] > 0:
            best = max(best, ratio(over(parse(s["border"]), around), around))
        self.add(what, best, NON_TEXT)

    def focus_ring(self, selector: str, what: str) -> None:
        """The focus outline against the colours next to it: the backdrop it is drawn on
        (outside the element), and the element's own background too when the outline
        touches it (no offset)."""
        s = self.styles(selector)
        assert s["outlineStyle"] == "solid" and s["outlineWidth"] >= 2, (what, s)
        around = backdrop(s["backgrounds"][1:])
        ring = over(parse(s["outline"]), around)
        self.add(f"{what} against the page", ratio(ring, around), NON_TEXT)
        if s["outlineOffset"] < 1:
            inside = backdrop(s["backgrounds"])
            self.add(f"{what} against the element", ratio(ring, inside), NON_TEXT)

    def segments(self) -> None:
        """Each chart segment against the card, and each count on a segment against it."""
        page = self.page
        for cls in ("seg-win", "seg-draw", "seg-loss"):
            selector = f"#chart rect.{cls}"
            s = self.styles(selector)
            card = backdrop(s["backgrounds"][1:])  # the svg's own background is transparent
            fill = over(parse(s["fill"]), card, float(s["opacity"]))
            self.add(f"chart segment {cls} against the card", ratio(fill, card), NON_TEXT)
        labels = page.locator("#chart text.seg-text")
        assert labels.count() >= 3
        for i in range(labels.count()):
            s = page.evaluate(MEASURE, labels.nth(i).element_handle())
            card = backdrop(s["backgrounds"])
            segment = over(parse(s["previousFill"]), card, float(s["previousOpacity"]))
            label = over(parse(s["fill"]), segment, float(s["opacity"]))
            self.add(f"chart count {labels.nth(i).text_content()} on {s['previousClass']}",
                     ratio(label, segment), TEXT)

    def check(self) -> None:
        print("\n".join(str(p) for p in self.pairs))
        low = [str(p) for p in self.pairs if p.ratio < p.needs]
        assert not low, "contrast below WCAG AA:\n" + "\n".join(low)


# ------------------------------------------------------------------ setting the scene


def open_in_scheme(page: Any, url: str, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)
    open_page(page, url)


def game_in_progress_with_hints(page: Any, url: str, scheme: str) -> None:
    """The play view: a move of yours and the computer's reply, hints on."""
    open_in_scheme(page, url, scheme)
    page.click("[data-name=b2]")
    wait_until(page, f"document.querySelectorAll('#board .cell svg').length === 2 && "
                     f"({YOUR_TURN})")
    page.locator("label.switch:has(#hints)").click()
    wait_until(page, "document.querySelectorAll('#board .hint').length === 7")


def play_to_the_end(url: str, browser: str, opponent: str, lose: bool, seed: int) -> str:
    """Play a game as X from the empty board through the API, as the page would for this
    browser: the best moves, or (`lose`) a losing move whenever there is one. The result."""
    headers = {"X-Browser-Id": browser}
    game = httpx.post(f"{url}/api/games", headers=headers, json={
        "variant": "3x3", "players": {"x": "human", "o": opponent}, "seed": seed}).json()
    while game["game"]["result"] is None:
        position = game["position"]["position"]
        values = solve(position).moves
        losing = [c for c, v in values.items() if str(v).startswith("loss")]
        cell = losing[0] if lose and losing else solve(position).best[0]
        move = Position(position).move_name(cell)
        answer = httpx.post(f"{url}/api/games/{game['id']}/moves", headers=headers,
                            json={"move": move, "ply": game["ply"]})
        assert answer.status_code == 200, answer.text
        game = answer.json()
    return str(game["game"]["result"])


def load_position(page: Any, text: str, ready: str) -> None:
    """Load a position string in the play view and wait until `ready` (JavaScript) holds
    and the person at the keyboard is to move."""
    page.fill("#position-text", text)
    page.click("#load")
    wait_until(page, f"({ready}) && ({YOUR_TURN})")


def marks_drawn(n: int) -> str:
    """JavaScript: the board shows `n` marks."""
    return f"document.querySelectorAll('#board .cell svg').length === {n}"


CUBE_THREATS = "1ooo/x3/4/4:4/x3/4/4:4/x3/4/4:4/4/4/4 x"
"""On the cube, X's open pillar (4:a2 completes it) and O's open row (1:a1), X to move."""


def cube_with_threats(page: Any, url: str, scheme: str) -> None:
    """The play view on the cube: an open threat of each side outlined, the legend shown."""
    open_in_scheme(page, url, scheme)
    load_position(page, CUBE_THREATS,
                  "document.querySelectorAll('#board .threat-tag').length === 2")


def finished_games_and_a_replay(page: Any, url: str, scheme: str) -> None:
    """The history view: this browser won, drew and lost games against the computer (so the
    chart has every segment), and the replay of one is open."""
    open_in_scheme(page, url, scheme)
    browser = page.evaluate("localStorage.getItem('tictactoe.browser')")
    assert browser
    play_to_the_end(url, browser, "perfect", lose=False, seed=1)  # a draw
    assert play_to_the_end(url, browser, "perfect", lose=True, seed=2) == "o"
    assert any(play_to_the_end(url, browser, "random", lose=False, seed=seed) == "x"
               for seed in range(3, 20))
    page.evaluate("location.hash = '#history'")
    wait_until(page, "document.querySelectorAll('.games tbody tr').length >= 3 && "
                     "document.querySelectorAll('#chart text.seg-text').length >= 3")
    page.locator(".games tbody tr").first.click()
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length >= 5")


def looking_back(page: Any, url: str, scheme: str) -> None:
    """The play view looking at an earlier move of a game under way (read-only, marked), its
    hints shown, and a share link made."""
    game_in_progress_with_hints(page, url, scheme)
    page.click("#moves button[data-step='1']")
    wait_until(page, "document.querySelector('#status').classList.contains('looking') && "
                     "document.querySelectorAll('#board .hint').length === 8")
    page.click("#share")
    wait_until(page, "!document.querySelector('#share-text').hidden")


def game_over_with_score(page: Any, url: str, scheme: str) -> None:
    """A game won against the computer: Rematch, Swap sides and the session's score."""
    open_in_scheme(page, url, scheme)
    load_position(page, "xx1/oo1/3 x", marks_drawn(4))  # X wins at c1
    page.click("[data-name=c1]")
    wait_until(page, "!document.querySelector('#after-game').hidden && "
                     "!document.querySelector('#score').hidden")


def shared_game_and_a_bad_file(page: Any, url: str, scheme: str, folder: Path) -> None:
    """A game opened from a share link, looked through; then a bad file's message."""
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{url}/#game=3x3:b2,a1,c3,a3")
    page.wait_for_selector("body[data-ready=true]")
    wait_until(page, "document.querySelector('#status').textContent.startsWith('Shared game')")
    bad = folder / "bad.json"
    bad.write_text("not a record", encoding="utf-8")
    page.set_input_files("#import", str(bad))
    wait_until(page, "document.querySelector('#record-error').textContent !== ''")


# ------------------------------------------------------------------ axe-core


def axe_violations(page: Any, include: list[str] | None = None) -> list[dict[str, Any]]:
    """Run axe-core on the page, or on the elements the selectors `include` match (loaded
    from the page's own origin through a route, as the page's policy allows scripts from
    there only) and return its violations."""
    page.route(f"**{AXE_URL}", lambda route: route.fulfill(
        path=str(AXE), content_type="text/javascript; charset=utf-8"))
    page.add_script_tag(url=AXE_URL)
    result = page.evaluate("(include) => axe.run(include ? {include: include.map((s) => [s])} "
                           ": document, {resultTypes: ['violations']})", include)
    return list(result["violations"])


def readable(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']}: {v['help']} ({v['helpUrl']})")
        for node in v["nodes"]:
            lines.append(f"    {' '.join(map(str, node['target']))}: {node['html'][:160]}")
            lines.extend(f"        {line}" for line in node["failureSummary"].splitlines())
    return "\n".join(lines)


def long_comment_opened(page: Any, url: str, scheme: str) -> None:
    """The play view on a phone: the perfect level's comment, longer than the status line,
    opened whole by its More button."""
    page.set_viewport_size({"width": 320, "height": 640})
    open_in_scheme(page, url, scheme)
    page.select_option("#level", "perfect")
    wait_until(page, f"document.querySelector('#level').value === 'perfect' && ({YOUR_TURN})")
    page.click("[data-name=b2]")
    wait_until(page, "document.querySelector('#status .status-more') !== null")
    page.click("#status .status-more")
    wait_until(page, "document.querySelector('#status.open') !== null")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("view", ["play", "history", "cube", "phone history", "looking back",
                                  "game over", "shared game", "phone status"])
def test_axe_finds_no_serious_violations(page: Any, server: Any, view: str,
                                         scheme: str, tmp_path: Path) -> None:
    if view == "play":
        game_in_progress_with_hints(page, server.url, scheme)
    elif view == "looking back":
        looking_back(page, server.url, scheme)
    elif view == "game over":
        game_over_with_score(page, server.url, scheme)
    elif view == "shared game":
        shared_game_and_a_bad_file(page, server.url, scheme, tmp_path)
    elif view == "phone status":
        long_comment_opened(page, server.url, scheme)
    elif view == "cube":
        cube_with_threats(page, server.url, scheme)
    else:
        if view == "phone history":  # the games as cards
            page.set_viewport_size({"width": 320, "height": 640})
        finished_games_and_a_replay(page, server.url, scheme)
    violations = axe_violations(page)
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    if violations:
        print(readable(violations))
    assert not serious, f"axe-core, {view} view, {scheme}:\n{readable(serious)}"
    if view in ("looking back", "game over", "shared game"):  # not even a minor one
        assert not violations, f"axe-core, {view} view, {scheme}:\n{readable(violations)}"


NEW_CONTROLS = ["#status", "#board", "#tap-confirm", "#tap-said", ".stage > .toolbar",
                "#board-legend", ".touch-only"]
"""The board, its status line, toolbar and legend, and the tap confirmation's bar, live
region and switch."""
GOMOKU_THREES = "15/15/15/15/15/15/15/6xxx6/15/2o12/2o12/15/2o12/15/15 x 5"
"""On 15x15, X's open three g8 h8 i8 and O's broken three c10 c11 c13, X to move."""


def gomoku_with_threes(page: Any, url: str, scheme: str) -> None:
    """The play view on 15x15 with the threats on: both threes underlined, their legend."""
    open_in_scheme(page, url, scheme)
    load_position(page, GOMOKU_THREES, marks_drawn(6))
    page.locator("label.switch:has(#threats)").click()
    wait_until(page, "document.querySelectorAll('#board [class*=-three-]').length === 6")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("view", ["tap selection", "threes"])
def test_axe_finds_nothing_on_the_new_controls(browser: Any, server: Any, view: str,
                                               scheme: str) -> None:
    """No violation at all on the board and the controls around it: on a phone with a touch
    screen, a 19x19 cell selected by a tap (the bar with Play here, the Confirm taps switch);
    the threes of 15x15 and their legend."""
    touch = view == "tap selection"
    context = browser.new_context(viewport={"width": 390, "height": 844} if touch
                                  else {"width": 1366, "height": 768},
                                  has_touch=touch, is_mobile=touch)
    page = context.new_page()
    try:
        if touch:
            open_in_scheme(page, server.url, scheme)
            page.fill("#position-text", "19x19k5")
            page.click("#load")
            wait_until(page, "document.querySelectorAll('#board .cell').length === 361 && "
                             f"({YOUR_TURN})")
            page.tap("[data-name=j10]")
            wait_until(page, "document.querySelector('#board .cell.selected') !== null")
            assert page.locator("#tap-confirm").is_visible()
            assert page.locator("#confirm-taps").is_checked()
        else:
            gomoku_with_threes(page, server.url, scheme)
            assert page.locator("#three-key").is_visible()
        violations = axe_violations(page, NEW_CONTROLS)
    finally:
        context.close()
    assert not violations, f"axe-core, {view}, {scheme}:\n{readable(violations)}"


# ------------------------------------------------------------------ contrast ratios


@pytest.mark.parametrize("scheme", SCHEMES)
def test_contrast_of_the_play_view(page: Any, server: Any, scheme: str) -> None:
    contrast = Contrast(page, scheme)
    game_in_progress_with_hints(page, server.url, scheme)
    contrast.text("body", "page text")
    contrast.text(".foot", "footer text (muted)")
    contrast.text("#level-description", "muted text on a card")
    contrast.text(".card h2", "card heading")
    contrast.text(".tab:not([aria-current])", "the other tab")
    contrast.text(".coord", "a coordinate")
    contrast.text("#moves li .n", "a move's number")
    contrast.text("#moves li .side-x", "X in the move list")
    contrast.text("#moves li .side-o", "O in the move list")
    contrast.text("#moves li.current .n", "the current move's number")
    contrast.text("#moves li.current [class^=side]", "the current move's side")
    contrast.text(".btn.primary", "primary button")
    contrast.text(".foot a", "link")
    contrast.text("#status .status-text", "status text")
    contrast.text("#status .mark-x", "X in the status")
    contrast.text("#status .reply", "the computer's reply in the status")

    # every kind of hint badge, on one empty cell
    badge = "#board .hint"
    for cls in ("win", "draw", "loss", "estimate"):
        page.evaluate(f"document.querySelector('{badge}').className = 'hint {cls}'")
        contrast.text(badge, f"hint badge ({cls})")

    # the result line: a finished game's status in each of its colours
    status = "document.querySelector('#status')"
    for cls, what in (("won", "You win!"), ("lost", "The computer wins."),
                      ("drawn", "It's a draw."), ("error", "an error")):
        page.evaluate(f"{status}.className = 'status {cls}'")
        contrast.text("#status .status-text", f"status '{what}'")
    page.evaluate(f"{status}.className = 'status'")

    # an empty cell (the hints off) against the page; the focus ring, from the keyboard
    page.locator("label.switch:has(#hints)").click()
    wait_until(page, "document.querySelectorAll('#board .hint').length === 0")
    contrast.boundary("#board .cell:not(:has(svg))", "an empty cell against the page")
    page.locator("#board .cell").first.focus()
    page.keyboard.press("ArrowRight")
    wait_until(page, "document.activeElement.matches('#board .cell:focus-visible')")
    contrast.focus_ring("#board .cell:focus", "the focus ring on a cell")
    page.locator("#new-game").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    wait_until(page, "document.activeElement.id === 'new-game' && "
                     "document.activeElement.matches(':focus-visible')")
    contrast.focus_ring("#new-game", "the focus ring on a button")
    contrast.check()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_contrast_of_the_threats_and_the_legend(page: Any, server: Any, scheme: str) -> None:
    contrast = Contrast(page, scheme)
    cube_with_threats(page, server.url, scheme)
    contrast.text("[data-name='4:a2'] .threat-x-text", "X's threat letter in its cell")
    contrast.text("[data-name='1:a1'] .threat-o-text", "O's threat letter in its cell")
    contrast.text("#threat-key", "the threat key (muted)")
    contrast.text("#threat-key .threat-x-text", "X in the threat key")
    contrast.text("#threat-key .threat-o-text", "O in the threat key")
    contrast.text("#line-kinds li", "the lines' legend (muted)")
    contrast.text("#line-kinds h2", "the lines' legend's title")
    # each ring against the cell it is drawn in
    for name, part, what in (("4:a2", "::after", "X's dashed ring"),
                             ("1:a1", "::before", "O's dotted ring")):
        ring = page.evaluate(f"""() => {{
            const cell = document.querySelector("[data-name='{name}']");
            const style = getComputedStyle(cell, '{part}');
            return [style.borderTopColor, parseFloat(style.borderTopWidth)];
        }}""")
        assert ring[1] >= 2, (what, ring)
        cell = backdrop(contrast.styles(f"[data-name='{name}']")["backgrounds"])
        contrast.add(f"{what} against its cell", ratio(over(parse(ring[0]), cell), cell),
                     NON_TEXT)
    contrast.check()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_contrast_of_looking_back_and_after_a_game(page: Any, server: Any, scheme: str) -> None:
    contrast = Contrast(page, scheme)
    looking_back(page, server.url, scheme)
    contrast.text("#status.looking .status-text", "the status while looking back")
    contrast.text("#moves .move[aria-current] .n", "the shown move's number")
    contrast.text("#moves .move[aria-current] [class^=side]", "the shown move's side")
    contrast.text(".moves-start", "the list's Start")
    contrast.text("#share-text", "the share link")
    for selector, what in (("#board", "the frame of a board looked back at"),
                           ("#status", "the frame of the status while looking back")):
        s = contrast.styles(selector)
        around = backdrop(s["backgrounds"][1:])
        contrast.add(f"{what} against the page", ratio(over(parse(s["outline"]), around), around),
                     NON_TEXT)
    page.evaluate("localStorage.clear()")  # a fresh page: no game under way to leave
    game_over_with_score(page, server.url, scheme)
    contrast.text("#score", "the session's score")
    contrast.text("#rematch", "the Rematch button")
    contrast.text("#swap", "the Swap sides button")
    contrast.check()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_contrast_of_the_threes_and_the_tap_selection(browser: Any, server: Any,
                                                      scheme: str) -> None:
    """The threes' bars (solid and dashed, in the side's colour) against the cell they are
    drawn in, the legend's text; on a phone, a selected cell's ring against the page."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    try:
        contrast = Contrast(page, scheme)
        gomoku_with_threes(page, server.url, scheme)
        for name, what in (("h8", "X's open three bar"), ("c11", "O's broken three bar")):
            s = contrast.styles(f"[data-name='{name}']")
            image = page.evaluate(f"""getComputedStyle(document.querySelector(
                "[data-name='{name}']")).backgroundImage""")
            bar = parse(re.search(r"rgba?\([^)]*\)", image).group(0))  # type: ignore[union-attr]
            cell = backdrop(s["backgrounds"])
            contrast.add(f"{what} against its cell", ratio(over(bar, cell), cell), NON_TEXT)
        contrast.text("#three-key li[data-shape=open]", "the threes' legend (muted)")
        contrast.text("#three-key .three-now", "the threes on the board, in words")
        contrast.text("#three-key .legend-title", "the threes' legend's title")
    finally:
        context.close()
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    page = context.new_page()
    try:
        contrast.page = page
        open_in_scheme(page, server.url, scheme)
        page.fill("#position-text", "19x19k5")
        page.click("#load")
        wait_until(page, "document.querySelectorAll('#board .cell').length === 361 && "
                         f"({YOUR_TURN})")
        page.tap("[data-name=j10]")
        wait_until(page, "document.querySelector('#board .cell.selected') !== null")
        contrast.focus_ring("#board .cell.selected", "the selected cell's ring")
        contrast.text("#tap-selected", "the selected cell's name in the bar")
        contrast.text("label:has(#confirm-taps) > span:last-child", "the Confirm taps switch")
        contrast.text("#confirm-taps-help", "the Confirm taps switch's help (muted)")
    finally:
        context.close()
    contrast.check()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_contrast_of_the_history_view(page: Any, server: Any, scheme: str) -> None:
    contrast = Contrast(page, scheme)
    finished_games_and_a_replay(page, server.url, scheme)
    contrast.text(".games th", "table heading")
    contrast.text(".games td", "table cell")
    contrast.text("#replay-info", "replay's description (muted)")
    contrast.text("#chart-scope", "chart's note (muted, small)")
    contrast.text("#chart-board-field > span", "the chart's Board label")
    contrast.text("#chart-board", "the chart's board choice")
    for cls in ("x", "o", "draw"):
        contrast.text(f".badge.{cls}", f"result badge ({cls})")
    contrast.text("#chart text:not(.seg-text):not(.axis-label)", "chart's level", "fill")
    contrast.text("#chart text.axis-label", "chart's legend", "fill")
    contrast.segments()
    page.click("#replay-first")
    wait_until(page, "document.querySelectorAll('#replay-board .cell svg').length === 0")
    contrast.boundary("#replay-board [data-name=a1]", "an empty replay cell against the card")
    contrast.check()


# ------------------------------------------------------------------ marks and switches

TINTS = ("", "last", "winning", "last winning", "threat-x", "threat-o", "hover")
"""The tints a cell with a mark may have: none, the last move, the winning line (also the
last move), a threat's tint, and the hover (selection) tint of a cell that can be played."""

MARK_ON_TINT = """(selector) => {
  const cell = document.querySelector(selector);
  const style = getComputedStyle(cell.querySelector('svg path, svg circle'));
  const backgrounds = [];
  for (let e = cell; e; e = e.parentElement) backgrounds.push(getComputedStyle(e).backgroundColor);
  return {stroke: style.stroke, width: parseFloat(style.strokeWidth), backgrounds};
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_contrast_of_the_marks_and_the_switches(browser: Any, server: Any, scheme: str) -> None:
    """Every mark (X's strokes, O's ring) on every cell tint, and the Hints and Threats
    switches' tracks, off and on, against what is around them: 3:1 at least (WCAG 1.4.11),
    in the light and the dark scheme. Reduced motion, so that no transition is caught
    half-way."""
    context = browser.new_context(viewport={"width": 1200, "height": 860},
                                  color_scheme=scheme, reduced_motion="reduce")
    page = context.new_page()
    contrast = Contrast(page, scheme)
    open_page(page, server.url)
    load_position(page, "xo1/3/3 x", marks_drawn(2))
    for side in ("x", "o"):
        selector = f"#board .cell:has(svg.{side})"
        assert page.locator(selector).count() == 1
        for tint in TINTS:
            page.evaluate("""([selector, tint]) => {
              const cell = document.querySelector(selector);
              cell.classList.remove('last', 'winning', 'threat-x', 'threat-o');
              if (tint && tint !== 'hover') cell.classList.add(...tint.split(' '));
              cell.setAttribute('aria-disabled', tint === 'hover' ? 'false' : 'true');
            }""", [selector, tint])
            page.mouse.move(0, 0)
            if tint == "hover":
                page.hover(selector)
            found = page.evaluate(MARK_ON_TINT, selector)
            assert found["width"] > 0, found
            cell = backdrop(found["backgrounds"])
            contrast.add(f"{side.upper()} on a cell tinted {tint or 'not at all'}",
                         ratio(over(parse(found["stroke"]), cell), cell), NON_TEXT)
    page.mouse.move(0, 0)
    for switch in ("hints", "threats"):
        track = f"label.switch:has(#{switch}) .track"
        for on in (False, True):
            if page.locator(f"#{switch}").is_checked() != on:
                page.locator(f"label.switch:has(#{switch})").click()
            assert page.locator(f"#{switch}").is_checked() == on
            contrast.boundary(track, f"the {switch} switch's track, {'on' if on else 'off'}")
    context.close()
    contrast.check()


# ------------------------------------------------------------------ reduced motion

ANIMATIONS = """() => {
  const spinner = document.createElement('span');  // as the status shows while busy
  spinner.className = 'spinner';
  document.querySelector('#status').append(spinner);
  const names = (selector) => [...document.querySelectorAll(selector)].map(
    (el) => getComputedStyle(el).animationName);
  const found = {placed: names('#board .cell.placed svg'), winning: names('#board .cell.winning'),
                 spinner: names('#status .spinner'),
                 sound: getComputedStyle(document.querySelector('#sound + .track'))
                   .transitionDuration,
                 transition: getComputedStyle(document.querySelector('#board .cell'))
                   .transitionDuration};
  spinner.remove();
  return found;
}"""


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_nothing_moves_when_reduced_motion_is_asked_for(browser: Any, server: Any,
                                                        motion: str) -> None:
    """Under ``prefers-reduced-motion: reduce`` the marks do not pop, the winning line does
    not glow, the spinner does not spin, nothing slides and the replay does not scroll
    smoothly into sight; without it, they do."""
    context = browser.new_context(viewport={"width": 1200, "height": 860},
                                  reduced_motion=motion)
    page = context.new_page()
    open_page(page, server.url)
    page.fill("#position-text", "xx1/oo1/3 x")  # X wins at c1
    page.click("#load")
    wait_until(page, "document.querySelector('#position-text').value === 'xx1/oo1/3 x' && "
                     f"({YOUR_TURN})")
    page.click("[data-name=c1]")
    wait_until(page, "document.querySelectorAll('#board .cell.winning').length === 3")
    found = page.evaluate(ANIMATIONS)
    # the replay opened from the history comes into sight at once, not scrolling smoothly
    page.evaluate("""() => {
      const scroll = Element.prototype.scrollIntoView;
      window.scrolls = [];
      Element.prototype.scrollIntoView = function (options) {
        window.scrolls.push(options && options.behavior);
        return scroll.call(this, options);
      };
    }""")
    page.click("#tab-history")
    page.locator(".games tbody tr").first.click()
    scrolls = wait_until(page, "window.scrolls.length > 0 && window.scrolls")
    context.close()
    assert found["placed"] and found["winning"] and found["spinner"], found
    names = {*found["placed"], *found["winning"], *found["spinner"]}
    if motion == "reduce":
        assert names == {"none"} and found["transition"] == "0s", found
        assert found["sound"] == "0s", found  # the Sound switch does not slide
        assert "smooth" not in scrolls, scrolls
    else:
        assert {"pop", "glow", "spin"} <= names, found
        assert "smooth" in scrolls, scrolls
