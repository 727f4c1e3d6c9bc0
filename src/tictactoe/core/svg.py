"""SVG pictures of boards, in plain Python (the standard library only).

`draw` takes a board as plain data (the variant and each side's cells), so that `Position`
can use it for ``_repr_svg_`` without an import circle; `tictactoe.svg.board` is the public
entry point, which takes a position and the solver's scores. Colours and proportions follow
the web app: X blue, O orange, the winning line green, the last move a dot, and move values
(hints) green for a win, grey for a draw and red for a loss, the best ones outlined.

>>> from tictactoe.core.variant import Variant, column_name
>>> picture = draw(Variant.parse("3x3"), 0b1_0000, 0b1, lastmove=4)
>>> picture.startswith("<svg") and picture.count('class="mark x"'), picture.count("last-move")
(1, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Literal
from xml.sax.saxutils import escape, quoteattr

from tictactoe.core.errors import IllegalMoveError, InvalidMoveError
from tictactoe.core.variant import Variant, column_name

HintKind = Literal["win", "draw", "loss", "estimate"]

COLOURS = {
    "background": "#f4f5f9", "cell": "#ffffff", "cell-line": "#80869a", "text": "#1c1f2b",
    "muted": "#5c6378", "accent": "#4f46e5", "x": "#3552d0", "o": "#d9530b",
    "win": "#08743f", "win-bg": "#d3f4e2", "draw": "#5b6170", "draw-bg": "#e9ebf0",
    "loss": "#bd2358", "loss-bg": "#fde2ea", "estimate": "#5c6378", "estimate-bg": "#eef0f6",
}
"""The web app's light theme (``web/static/app.css``; an empty cell's edge is its
``--cell-edge``, 3:1 against the page)."""

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"

CELL = 100  # the geometry is in units of a hundredth of a cell
GAP = 6
MARGIN = 14
LABEL = 30  # room for the coordinate letters and numbers
LAYER_GAP = 44
TITLE = 34  # room for a cube layer's title
DEFAULT_SCALE = 0.8  # pixels per unit when no size is given
DEFAULT_MAX_WIDTH = 720


@dataclass(frozen=True)
class Hint:
    """A move's value written on its cell: ``text`` ("win in 3"), ``short`` ("W3", used on
    small cells), ``kind`` (the colour) and whether it is one of the best moves."""

    text: str
    short: str
    kind: HintKind
    best: bool = False


def draw(variant: Variant, x: int, o: int, *, lastmove: int | None = None,
         hints: Mapping[int, Hint] | None = None, winning: Collection[int] | None = None,
         size: int | None = None, coordinates: bool = True, title: str | None = None) -> str:
    """The board as an SVG document.

    `x` and `o` are bit masks of each side's cells; `winning` lists the cells to mark as a
    winning line (by default the cells of every completed line); `size` is the width in
    pixels (by default about 80 per cell, at most 720); a cube is drawn as its layers side by
    side. Hints go on empty cells only.
    """
    if x & o:
        raise IllegalMoveError("a cell cannot hold both an X and an O")
    if (x | o) & ~variant.full_mask:
        raise InvalidMoveError(f"a mark lies off the {variant.name} board")
    if lastmove is not None and not 0 <= lastmove < variant.cells:
        raise InvalidMoveError(f"last move {lastmove} is off the {variant.name} board "
                               f"(0-{variant.cells - 1})")
    hints = dict(hints or {})
    for cell in hints:
        if not 0 <= cell < variant.cells:
            raise InvalidMoveError(f"hint for cell {cell}, off the {variant.name} board")
        if (x | o) >> cell & 1:
            raise IllegalMoveError(f"hint for {variant.cell_name(cell)}, which is taken")
    if winning is None:
        winning_lines = [line for line, mask in zip(variant.lines, variant.line_masks,
                                                    strict=True)
                         if x & mask == mask or o & mask == mask]
    else:
        winning_lines = [tuple(winning)] if winning else []
    won = {cell for line in winning_lines for cell in line}

    label = LABEL if coordinates else 0
    title_room = TITLE if variant.is_3d else 0
    layer_width = label + variant.columns * CELL + (variant.columns - 1) * GAP
    layer_height = title_room + label + variant.rows * CELL + (variant.rows - 1) * GAP
    width = 2 * MARGIN + variant.layers * layer_width + (variant.layers - 1) * LAYER_GAP
    height = 2 * MARGIN + layer_height
    pixels = size if size is not None else min(round(width * DEFAULT_SCALE), DEFAULT_MAX_WIDTH)
    if pixels <= 0:
        raise ValueError(f"size must be a positive number of pixels, not {size}")

    def origin(cell: int) -> tuple[int, int]:
        layer, rest = divmod(cell, variant.rows * variant.columns)
        row, col = divmod(rest, variant.columns)
        left = MARGIN + layer * (layer_width + LAYER_GAP) + label
        top = MARGIN + title_room + label
        return left + col * (CELL + GAP), top + row * (CELL + GAP)

    text = title or "tic-tac-toe board"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{pixels}" height="{round(pixels * height / width)}" role="img" '
        f'aria-label={quoteattr(text)} font-family={quoteattr(FONT)}>',
        f"<title>{escape(text)}</title>",
        f'<rect class="background" width="{width}" height="{height}" rx="18" '
        f'fill="{COLOURS["background"]}"/>',
    ]
    for layer in range(variant.layers):
        left = MARGIN + layer * (layer_width + LAYER_GAP)
        if variant.is_3d:
            out.append(f'<text class="layer-title" x="{left + layer_width / 2:g}" '
                       f'y="{MARGIN + 22}" text-anchor="middle" font-size="22" '
                       f'font-weight="700" letter-spacing="1.5" fill="{COLOURS["muted"]}">'
                       f"LAYER {layer + 1}</text>")
        if coordinates:
            top = MARGIN + title_room
            for col in range(variant.columns):
                cx = left + label + col * (CELL + GAP) + CELL / 2
                out.append(f'<text class="coordinate" x="{cx:g}" y="{top + 21}" '
                           f'text-anchor="middle" font-size="20" font-weight="600" '
                           f'fill="{COLOURS["muted"]}">{column_name(col)}</text>')
            for row in range(variant.rows):
                cy = top + label + row * (CELL + GAP) + CELL / 2
                out.append(f'<text class="coordinate" x="{left + label / 2 - 2:g}" '
                           f'y="{cy + 7:g}" text-anchor="middle" font-size="20" '
                           f'font-weight="600" fill="{COLOURS["muted"]}">{row + 1}</text>')
    small = pixels * CELL / width < 64  # on-screen cell size in pixels: short hint labels
    for cell in range(variant.cells):
        out.extend(_cell(variant, cell, origin(cell), x, o, cell in won, cell == lastmove,
                         hints.get(cell), small))
    for line in winning_lines:
        out.extend(_line_stroke(variant, line, origin))
    out.append("</svg>")
    return "\n".join(out)


def _cell(variant: Variant, cell: int, at: tuple[int, int], x: int, o: int, winning: bool,
          last: bool, hint: Hint | None, small: bool) -> list[str]:
    left, top = at
    mark = "x" if x >> cell & 1 else "o" if o >> cell & 1 else None
    classes = " ".join(["cell", *(["winning"] if winning else []), *(["last"] if last else [])])
    name = variant.cell_name(cell)
    fill, stroke, width = ((COLOURS["win-bg"], COLOURS["win"], 4) if winning
                           else (COLOURS["cell"], COLOURS["cell-line"], 1.5))
    parts = [f'<g class="{classes}" data-cell="{name}" data-index="{cell}"'
             f'{f" data-mark={quoteattr(mark)}" if mark else ""}>',
             f'<rect x="{left + width / 2:g}" y="{top + width / 2:g}" width="{CELL - width:g}" '
             f'height="{CELL - width:g}" rx="12" fill="{fill}" stroke="{stroke}" '
             f'stroke-width="{width:g}"/>']
    cx, cy = left + CELL / 2, top + CELL / 2
    if mark == "x":
        d = 19  # half the cross's width: the web app's 22..78 of a mark box of 0.68 cell
        parts.append(f'<path class="mark x" d="M{cx - d:g} {cy - d:g} L{cx + d:g} {cy + d:g} '
                     f'M{cx + d:g} {cy - d:g} L{cx - d:g} {cy + d:g}" stroke="{COLOURS["x"]}" '
                     f'stroke-width="8" stroke-linecap="round" fill="none"/>')
    elif mark == "o":
        parts.append(f'<circle class="mark o" cx="{cx:g}" cy="{cy:g}" r="21" '
                     f'stroke="{COLOURS["o"]}" stroke-width="8" fill="none"/>')
    if last:
        parts.append(f'<circle class="last-move" cx="{left + CELL - 14:g}" cy="{top + 14:g}" '
                     f'r="6" fill="{COLOURS["accent"]}"/>')
    if hint is not None and mark is None:
        label = hint.short if small or len(hint.text) > 10 else hint.text
        font = 30 if label == hint.short else 17
        box = min(CELL - 12, 0.62 * font * len(label) + 14)
        colour, background = COLOURS[hint.kind], COLOURS[f"{hint.kind}-bg"]
        outline = (f' stroke="{colour}" stroke-width="3"' if hint.best else "")
        kind = f"hint {hint.kind}{' best' if hint.best else ''}"
        parts.extend([
            f'<g class="{kind}"><title>{escape(f"{name}: {hint.text}")}</title>',
            f'<rect x="{cx - box / 2:g}" y="{cy - font * 0.8:g}" width="{box:g}" '
            f'height="{font * 1.6:g}" rx="7" fill="{background}"{outline}/>',
            f'<text x="{cx:g}" y="{cy + font * 0.36:g}" text-anchor="middle" '
            f'font-size="{font}" font-weight="700" fill="{colour}">{escape(label)}</text>',
            "</g>"])
    parts.append("</g>")
    return parts


def _line_stroke(variant: Variant, line: tuple[int, ...],
                 origin: Callable[[int], tuple[int, int]]) -> list[str]:
    """A stroke through a winning line whose cells lie in one layer (a line through the
    layers of a cube is shown by its highlighted cells alone)."""
    per_layer = variant.rows * variant.columns
    if len({cell // per_layer for cell in line}) != 1:
        return []
    (x1, y1), (x2, y2) = origin(line[0]), origin(line[-1])
    half = CELL / 2
    return [f'<line class="winning-line" x1="{x1 + half:g}" y1="{y1 + half:g}" '
            f'x2="{x2 + half:g}" y2="{y2 + half:g}" stroke="{COLOURS["win"]}" '
            f'stroke-width="10" stroke-linecap="round" opacity="0.55"/>']


__all__ = ["COLOURS", "Hint", "HintKind", "draw"]
