"""The board widget: cells with coordinate labels, a keyboard cursor, clicks, hints, open
threats and the highlighted winning line. A cube is drawn as its layers, side by side or two
by two. Small boards are one widget a cell; compact boards (`compact_cells`) one widget a
row, so that a move on 19×19 redraws a row or two, not 361 cells."""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from __future__ import annotations

from tictactoe.extras import require

require("tui", "the terminal app")

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.containers import Horizontal, Vertical
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from tictactoe.core import Position, Side, Threat, Variant
from tictactoe.core.variant import column_name


@dataclass(frozen=True)
class Hint:
    """What the hint shows on one empty cell: its text and kind (win, loss, draw, unknown)."""

    text: str
    kind: str


def threat_text(sides: list[Side]) -> str:
    """What an empty cell that completes a threat shows: ``!x``, ``!o`` or ``!xo`` (small
    letters, unlike the marks, and the ``!`` of a warning), so that the side is named in
    words and not by colour alone.

    >>> threat_text([Side.X]), threat_text([Side.X, Side.O])
    ('!x', '!xo')
    """
    return "!" + "".join(side.symbol for side in sides)


def layer_columns(variant: Variant) -> int:
    """How many layers sit side by side: all of them up to 3, 2 by 2 on 4x4x4, else 3 a row
    (5x5x5 and 6x6x6 as two rows of layers).

    >>> [layer_columns(Variant.parse(name)) for name in ("3x3", "3x3x3", "4x4x4", "5x5x5")]
    [1, 3, 2, 3]
    """
    if variant.layers <= 3:
        return variant.layers
    return 2 if variant.layers == 4 else 3


def big_cells(variant: Variant) -> bool:
    """Small flat boards get tall cells; larger boards and cubes one line per row."""
    return not variant.is_3d and variant.rows <= 5 and variant.columns <= 6


COMPACT_SIDE = 10
"""Flat boards with more rows or columns than this (15×15 gomoku, 19×19) get the compact
view: two characters a cell, one line a row, so that 19×19 fits an 80×24 terminal."""

COMPACT_LAYERS = 4
"""Cubes with more layers than this (5×5×5, 6×6×6) are drawn compact too, so that 5×5×5
fits 60×20."""


def compact_cells(variant: Variant) -> bool:
    """Whether a board is drawn compact (two characters a cell).

    >>> [compact_cells(Variant.parse(name)) for name in ("15x15k5", "10x6k5", "4x4x4", "5x5x5")]
    [True, False, False, True]
    """
    if variant.is_3d:
        return variant.layers > COMPACT_LAYERS
    return max(variant.rows, variant.columns) > COMPACT_SIDE


def cell_size(variant: Variant) -> tuple[int, int]:
    """A cell's width and height in characters.

    >>> [cell_size(Variant.parse(name)) for name in ("3x3", "4x4x4", "19x19k5")]
    [(9, 3), (5, 1), (2, 1)]
    """
    if big_cells(variant):
        return 9, 3
    return (2, 1) if compact_cells(variant) else (5, 1)


def compact_text(text: str) -> str:
    """A threat mark or a threat-marked hint in the two characters of a compact cell: ``!x``,
    ``xo`` (both sides complete a line there), a hint without its ``!`` (the tint says it is
    a threat). Hints come compact already (`tictactoe.tui.engine.compact_hint`).

    >>> [compact_text(t) for t in ("W3", "≈W", "!x", "!xo", "!W3", "!=")]
    ['W3', '≈W', '!x', 'xo', 'W3', '!=']
    """
    if text.startswith("!") and len(text) > 2:
        text = text[1:]
    return text[:2]


EMPTY = "·"
"""What an empty cell shows, so that the board is visible without colours."""

STATE_CLASSES = ("x", "o", "hint-win", "hint-loss", "hint-draw", "hint-unknown", "last",
                 "winning", "cursor", "threat-x", "threat-o", "in-threat")
"""The style classes a cell's state sets (its shade, light or dark, never changes)."""

COMPONENT_ORDER = ("x", "o", "hint-win", "hint-loss", "hint-draw", "hint-unknown", "threat-x",
                   "threat-o", "threat-xo", "in-threat", "last", "winning", "cursor")
"""The order in which a compact cell's styles apply, each later one winning where they differ
(as `CellView`'s CSS rules do)."""

CellState = tuple[str, frozenset[str]]
"""What a cell shows: its text and its `STATE_CLASSES`."""


class CellView(Static):
    """One square of the board. Clicking it asks to play there."""

    def __init__(self, cell: int, *, classes: str) -> None:
        super().__init__("", id=f"cell-{cell}", classes=classes)
        self.cell = cell

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(BoardView.Chosen(self.cell))
        board = next((a for a in self.ancestors if isinstance(a, BoardView)), None)
        if board is not None:
            board.cursor = self.cell


ROW_LABEL = 3
"""The width of a compact row's number (right-aligned, then a space)."""


def row_label(row: int) -> str:
    """A compact row's number, as wide as `ROW_LABEL`.

    >>> row_label(0), row_label(18)
    (' 1 ', '19 ')
    """
    return f"{row + 1:>{ROW_LABEL - 1}} "


def column_labels(columns: int) -> str:
    """The line of column letters over a compact board, two characters each.

    >>> column_labels(3)
    '   a b c '
    """
    return " " * ROW_LABEL + "".join(f"{column_name(c):<2}" for c in range(columns))


class RowView(Widget):
    """One row of a compact board, drawn as one line: its number, then each cell's two
    characters in that cell's style. Clicking a cell asks to play there."""

    DEFAULT_CSS = "RowView { width: auto; height: 1; }"

    def __init__(self, board: BoardView, row: int, first: int) -> None:
        super().__init__(id=f"row-{first // board.variant.columns}")
        self.board = board
        self.row = row
        """The row in its layer (its label is this plus one)."""
        self.first = first
        """The row's first cell; the others follow it."""

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return ROW_LABEL + 2 * self.board.variant.columns

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1

    def cell_at(self, x: int) -> int | None:
        """The cell at this column of the row (from its left edge), or None on its number.

        >>> row = RowView(BoardView(Variant.parse("15x15k5")), 1, 15)
        >>> row.cell_at(0), row.cell_at(3), row.cell_at(4), row.cell_at(5), row.cell_at(33)
        (None, 15, 15, 16, None)
        """
        column = (x - ROW_LABEL) // 2
        if x < ROW_LABEL or column >= self.board.variant.columns:
            return None
        return self.first + column

    def render(self) -> Text:
        board = self.board
        board.rows_drawn += 1
        line = Text(row_label(self.row), style=board.cell_style(("board--label",)),
                    no_wrap=True, end="")
        for cell in range(self.first, self.first + board.variant.columns):
            text, classes = board.shown_state(cell)
            line.append(f"{text:<2}", board.cell_style(board.components(cell, classes)))
        return line

    def on_click(self, event: events.Click) -> None:
        cell = self.cell_at(event.x)
        if cell is None:
            return
        event.stop()
        self.post_message(BoardView.Chosen(cell))
        self.board.cursor = cell


class BoardView(Widget, can_focus=True):
    """The board: arrows move the cursor, Enter or Space play it, a click plays the cell."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1, 0)", "Up", show=False),
        Binding("down", "move(1, 0)", "Down", show=False),
        Binding("left", "move(0, -1)", "Left", show=False),
        Binding("right", "move(0, 1)", "Right", show=False),
        Binding("enter,space", "choose", "Play", show=False),
    ]

    DEFAULT_CSS = """
    BoardView { width: auto; height: auto; padding: 0 1; }
    BoardView .layers { width: auto; height: auto; }
    BoardView .layer { width: auto; height: auto; margin: 0 2 1 0; }
    BoardView .layer-title { width: 100%; text-align: center; text-style: bold; color: $accent; }
    BoardView .row { width: auto; height: auto; }
    BoardView .label { color: $text-muted; content-align: center middle; }
    BoardView .rowlabel { width: 3; }
    BoardView .corner { width: 3; height: 1; }
    BoardView CellView { content-align: center middle; text-style: bold; }
    BoardView.-big CellView, BoardView.-big .collabel { width: 9; }
    BoardView.-big CellView, BoardView.-big .rowlabel { height: 3; }
    BoardView.-small CellView, BoardView.-small .collabel { width: 5; }
    BoardView.-small CellView, BoardView.-small .rowlabel { height: 1; }
    BoardView.-compact CellView, BoardView.-compact .collabel { width: 2; }
    BoardView.-compact CellView, BoardView.-compact .rowlabel { height: 1; }
    BoardView.-compact .rowlabel { content-align: right middle; padding-right: 1; }
    BoardView .collabel { height: 1; }
    BoardView .colheader { width: auto; height: 1; content-align: left middle; }
    BoardView > .board--label { color: $text-muted; }
    BoardView > .board--cell { text-style: bold; }
    BoardView > .board--light { background: $boost; }
    BoardView > .board--dark { background: $panel; }
    BoardView > .board--x { color: #ff8c5a; }
    BoardView > .board--o { color: #5ac8ff; }
    BoardView > .board--hint-win { color: $success; text-style: none; }
    BoardView > .board--hint-loss { color: $error; text-style: none; }
    BoardView > .board--hint-draw { color: $warning; text-style: none; }
    BoardView > .board--hint-unknown { color: $text-muted; text-style: none; }
    BoardView > .board--threat-x { background: #ff8c5a 30%; text-style: bold; }
    BoardView > .board--threat-o { background: #5ac8ff 30%; text-style: bold; }
    BoardView > .board--threat-xo { background: $warning 35%; }
    BoardView > .board--in-threat { text-style: bold reverse; }
    BoardView > .board--last { text-style: bold underline; }
    BoardView > .board--winning { background: $success 60%; color: $text; }
    BoardView > .board--cursor { background: $accent 30%; }
    BoardView:focus > .board--cursor { background: $accent 60%; }
    BoardView CellView.light { background: $boost; }
    BoardView CellView.dark { background: $panel; }
    BoardView CellView.x { color: #ff8c5a; }
    BoardView CellView.o { color: #5ac8ff; }
    BoardView CellView.hint-win { color: $success; text-style: none; }
    BoardView CellView.hint-loss { color: $error; text-style: none; }
    BoardView CellView.hint-draw { color: $warning; text-style: none; }
    BoardView CellView.hint-unknown { color: $text-muted; text-style: none; }
    BoardView CellView.threat-x { background: #ff8c5a 30%; text-style: bold; }
    BoardView CellView.threat-o { background: #5ac8ff 30%; text-style: bold; }
    BoardView CellView.threat-x.threat-o { background: $warning 35%; }
    BoardView CellView.in-threat { text-style: bold reverse; }
    BoardView CellView.last { text-style: bold underline; }
    BoardView CellView.winning { background: $success 60%; color: $text; }
    BoardView.-big CellView.cursor { outline: round $accent 50%; }
    BoardView.-big:focus CellView.cursor { outline: round $accent; }
    BoardView.-small CellView.cursor, BoardView.-compact CellView.cursor {
        background: $accent 30%; }
    BoardView.-small:focus CellView.cursor, BoardView.-compact:focus CellView.cursor {
        background: $accent 60%; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "board--label", "board--cell", "board--light", "board--dark",
        *(f"board--{name}" for name in COMPONENT_ORDER)}
    """The styles of a compact board's cells, one per state class (as `CellView`'s CSS)."""

    cursor: reactive[int] = reactive(0, repaint=False)  # the two cells repaint themselves

    class Chosen(Message):
        """A cell was chosen by click, Enter or Space."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell

    class CursorMoved(Message):
        """The cursor moved to this cell."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell

    def __init__(self, variant: Variant, *, id: str | None = None) -> None:
        size = "-big" if big_cells(variant) else "-compact" if compact_cells(variant) else "-small"
        super().__init__(id=id, classes=size)
        self.compact = compact_cells(variant)
        self.variant = variant
        self._position = Position(variant)
        self._hints: dict[int, Hint] = {}
        self._threats: list[Threat] = []
        self._views: dict[int, CellView] = {}
        self._rows: dict[int, RowView] = {}
        self._styles: dict[tuple[str, ...], Style] = {}
        self._shown: dict[int, CellState] = {}
        self._winning: frozenset[int] = frozenset()
        self._threat_sides: dict[int, list[Side]] = {}
        self._in_threat: frozenset[int] = frozenset()
        self.repainted = 0
        """How many cells the latest change repainted (only those whose text or style
        changed)."""
        self.rows_drawn = 0
        """How many times a compact board's rows have been drawn, all rows together."""

    # ----------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        v = self.variant
        per_row = layer_columns(v)
        for first in range(0, v.layers, per_row):
            with Horizontal(classes="layers"):
                for layer in range(first, min(first + per_row, v.layers)):
                    yield self._layer(layer)

    def _layer(self, layer: int) -> Vertical:
        v = self.variant
        parts: list[Widget] = []
        if v.is_3d:
            parts.append(Static(f"layer {layer + 1}", classes="layer-title"))
        if self.compact:
            parts.append(Static(column_labels(v.columns), classes="label colheader"))
            rows = [RowView(self, row, (layer * v.rows + row) * v.columns)
                    for row in range(v.rows)]
            self._rows.update((row.first // v.columns, row) for row in rows)
            return Vertical(*parts, *rows, classes="layer")
        parts.append(Horizontal(
            Static("", classes="label corner"),
            *(Static(column_name(c), classes="label collabel") for c in range(v.columns)),
            classes="row"))
        for row in range(v.rows):
            cells: list[Widget] = [Static(str(row + 1), classes="label rowlabel")]
            for col in range(v.columns):
                cell = (layer * v.rows + row) * v.columns + col
                shade = "light" if (row + col) % 2 == 0 else "dark"
                view = CellView(cell, classes=shade)
                self._views[cell] = view
                cells.append(view)
            parts.append(Horizontal(*cells, classes="row"))
        return Vertical(*parts, classes="layer")

    def on_mount(self) -> None:
        self.cursor = self._centre()
        self._paint()

    def _centre(self) -> int:
        v = self.variant
        middle = tuple(size // 2 for size in v.shape)
        return v.index(middle)

    def natural_size(self) -> tuple[int, int]:
        """The columns and lines the whole board needs, labels and margins included."""
        v = self.variant
        per_row = layer_columns(v)
        cell_width, cell_height = cell_size(v)
        layer_width = 3 + v.columns * cell_width + 2
        layer_height = (1 if v.is_3d else 0) + 1 + v.rows * cell_height + 1
        groups = -(-v.layers // per_row)
        return per_row * layer_width + 2, groups * layer_height

    # ----------------------------------------------------------------- state
    def show(self, position: Position, hints: dict[int, Hint] | None = None,
             threats: list[Threat] | None = None) -> None:
        """Draw this position, with these hints on empty cells and these open threats marked:
        the cell that completes one shows `threat_text` (or its hint, tinted), and the marks
        of the threatening line are shown reversed. Only the cells that change are
        repainted."""
        self._position = position.copy(stack=True)
        self._hints = dict(hints or {})
        self._threats = list(threats or [])
        self._winning = frozenset(c for line in position.winning_lines() for c in line)
        sides: dict[int, list[Side]] = {}
        for threat in self._threats:
            if threat.side not in sides.setdefault(threat.cell, []):
                sides[threat.cell].append(threat.side)
        self._threat_sides = {cell: [s for s in (Side.X, Side.O) if s in found]
                              for cell, found in sides.items()}
        self._in_threat = frozenset(c for t in self._threats for c in t.line
                                    if position.mark_at(c) is t.side)
        self._paint()

    def watch_cursor(self, old: int, new: int) -> None:
        if self.is_mounted:
            self.repainted = self._paint_cell(old) + self._paint_cell(new)
            self.post_message(self.CursorMoved(new))

    def _paint(self) -> None:
        if self.is_mounted:
            self.repainted = sum(self._paint_cell(cell) for cell in range(self.variant.cells))

    def notify_style_update(self) -> None:
        """The board's styles changed (focus, theme): a compact board's rows draw again."""
        super().notify_style_update()
        if not hasattr(self, "_rows"):  # styles are set before __init__ is done
            return
        self._styles.clear()
        for row in self._rows.values():
            row.refresh()

    def cell_state(self, cell: int) -> CellState:
        """The text and style classes a cell should have now."""
        position = self._position
        mark = position.mark_at(cell)
        hint = self._hints.get(cell) if mark is None else None
        sides = self._threat_sides.get(cell, [])
        classes = {f"threat-{side.symbol}" for side in sides}
        if cell in self._in_threat:
            classes.add("in-threat")
        if mark is not None:
            classes.add("x" if mark is Side.X else "o")
            text = mark.symbol.upper()
        elif sides and hint is None:
            text = self._fit_text(threat_text(sides))
        elif hint is not None:
            classes.add(f"hint-{hint.kind}")
            text = self._fit_text(f"!{hint.text}" if sides else hint.text)
        else:
            text = EMPTY
        stack = position.move_stack
        if stack and stack[-1] == cell:
            classes.add("last")
        if cell in self._winning:
            classes.add("winning")
        if cell == self.cursor:
            classes.add("cursor")
        return text, frozenset(classes)

    def _paint_cell(self, cell: int) -> int:
        """Bring one cell up to date; 1 if it changed, else 0."""
        state = self.cell_state(cell)
        shown = self._shown.get(cell)
        if state == shown:
            return 0
        if self.compact:
            self._shown[cell] = state
            self._rows[cell // self.variant.columns].refresh()
            return 1
        view = self._views.get(cell)
        if view is None:
            return 0
        text, classes = state
        old_text, old_classes = shown if shown is not None else (None, frozenset[str]())
        if text != old_text:
            view.update(Text(text), layout=False)  # a cell keeps its size
        if old_classes - classes:
            view.remove_class(*(old_classes - classes))
        if classes - old_classes:
            view.add_class(*(classes - old_classes))
        self._shown[cell] = state
        return 1

    def _fit_text(self, text: str) -> str:
        return compact_text(text) if self.compact else text

    def shown_state(self, cell: int) -> CellState:
        """What a cell shows now (`cell_state` as of its latest repaint)."""
        return self._shown.get(cell, (EMPTY, frozenset()))

    def components(self, cell: int, classes: frozenset[str]) -> tuple[str, ...]:
        """The component classes that style a compact cell, in `COMPONENT_ORDER` (the later
        ones win).

        >>> BoardView(Variant.parse("15x15k5")).components(1, frozenset({"cursor", "x"}))
        ('board--cell', 'board--dark', 'board--x', 'board--cursor')
        """
        v = self.variant
        row, col = divmod(cell % (v.rows * v.columns), v.columns)
        if {"threat-x", "threat-o"} <= classes:
            classes |= {"threat-xo"}
        shade = "light" if (row + col) % 2 == 0 else "dark"
        return ("board--cell", f"board--{shade}",
                *(f"board--{name}" for name in COMPONENT_ORDER if name in classes))

    def cell_style(self, names: tuple[str, ...]) -> Style:
        """These component classes' styles together, over the board's background: each
        later background, colour and text style replaces the earlier one, as in CSS."""
        style = self._styles.get(names)
        if style is not None:
            return style
        _, _, base, color = self.colors
        background: Color | None = None
        text_style = Style()
        for name in names:
            styles = self.get_component_styles(name)
            if styles.has_rule("background"):
                background = base + styles.background
            if styles.has_rule("color"):
                color = styles.color
                if styles.auto_color:
                    color = (background or base).get_contrast_text(color.a)
            if styles.has_rule("text_style"):
                text_style = styles.text_style
        back = background or base
        style = text_style + Style(color=(back + color).rich_color,
                                   bgcolor=back.rich_color if background else None)
        self._styles[names] = style
        return style

    def text_of(self, cell: int) -> str:
        """What a cell shows: its mark, its hint, a threat mark, or `EMPTY`."""
        if self.compact:
            return self.shown_state(cell)[0]
        return str(self._views[cell].content)

    def classes_of(self, cell: int) -> set[str]:
        """The style classes of a cell (``x``, ``winning``, ``hint-win``, ``cursor``...)."""
        if self.compact:
            return set(self.shown_state(cell)[1])
        return set(self._views[cell].classes)

    def cell_region(self, cell: int) -> Region:
        """Where a cell is on the screen."""
        if not self.compact:
            return self._views[cell].region
        columns = self.variant.columns
        row = self._rows[cell // columns].region
        return Region(row.x + ROW_LABEL + 2 * (cell % columns), row.y, 2, 1)

    # ----------------------------------------------------------------- keys
    def _visual(self, cell: int) -> tuple[int, int]:
        v = self.variant
        coords = v.coordinates(cell)
        layer = coords[0] if v.is_3d else 0
        per_row = layer_columns(v)
        return ((layer // per_row) * v.rows + coords[-2],
                (layer % per_row) * v.columns + coords[-1])

    def _cell_at(self, vrow: int, vcol: int) -> int | None:
        v = self.variant
        per_row = layer_columns(v)
        if vrow < 0 or vcol < 0 or vcol >= per_row * v.columns:
            return None
        layer = (vrow // v.rows) * per_row + vcol // v.columns
        if layer >= v.layers:
            return None
        coords = (layer, vrow % v.rows, vcol % v.columns) if v.is_3d else (
            vrow % v.rows, vcol % v.columns)
        if not v.is_3d and vrow >= v.rows:
            return None
        return v.index(coords)

    def action_move(self, drow: int, dcol: int) -> None:
        vrow, vcol = self._visual(self.cursor)
        target = self._cell_at(vrow + drow, vcol + dcol)
        if target is not None:
            self.cursor = target

    def action_choose(self) -> None:
        self.post_message(self.Chosen(self.cursor))
