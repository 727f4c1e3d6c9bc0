"""The Textual app behind ``ttt play``.

The board, a box to type moves into, a side panel (players, move list, position string) and a
status line. The computer's moves and the hints are searched in a worker thread with a time
bound, so the screen never freezes; a result that arrives after the game has changed is dropped.
"""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from __future__ import annotations

from tictactoe.extras import require

require("tui", "the terminal app")

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Header, Input, Static

from tictactoe.core import Position, Side, Threat, TicTacToeError, Variant
from tictactoe.core.record import GameRecord
from tictactoe.players.base import Choice, Player
from tictactoe.players.levels import LEVEL_DESCRIPTIONS
from tictactoe.search.score import Score
from tictactoe.tui import engine
from tictactoe.tui.board import BoardView, Hint, big_cells, compact_cells
from tictactoe.tui.game import HUMAN, Game, SessionScore
from tictactoe.tui.plain import command_of

DEFAULT_RECORD = "tictactoe-game.json"
"""Where ``s`` saves and ``l`` loads unless another file is named."""

KEYS: tuple[tuple[str, str], ...] = (
    ("arrows", "move the cursor over the board (across the layers of a cube)"),
    ("Enter / Space", "play the cell under the cursor"),
    ("mouse click", "play the clicked cell"),
    ("Tab", "switch between the board and the move box"),
    ("b2 Enter", "in the move box: play a move by name (2:b3 on a cube, or a cell number)"),
    ("undo Enter", "in the move box: plain mode's words work too: undo, redo, new, hint, "
                   "swap, board, save [FILE], load [FILE], help or ?, quit (and u, r, n, h, w, "
                   "b, q)"),
    ("Escape", "leave the move box, back to the board"),
    ("Ctrl+Q", "quit, also from the move box"),
    ("u", "undo: against the computer, back to your previous turn"),
    ("r", "redo what was undone"),
    ("n", "new game (same players); asks first while a game is under way"),
    ("w", "swap sides: a new game with the marks exchanged (you play the other one)"),
    ("h", "hints on/off: each empty cell's value for the side to move"),
    ("t", "threats on/off: where a side completes a line next move (and gomoku's threes)"),
    ("s", f"save the game record as JSON (default {DEFAULT_RECORD})"),
    ("l", "load a game record (saved here or by the browser app); asks first too"),
    ("?", "this help"),
    ("q", "quit; asks first while a game is under way (y/n)"),
)
"""Every key of the app, as shown by ``?`` and on the terminal app's docs page."""

SIDE_WIDTH = 36
"""Columns of the side panel (players, moves, position) when the terminal has room."""

SIDE_MIN = 22
"""Below this many free columns beside the board the side panel is hidden."""

STATUS_LINES = 3
"""The status line wraps a long message onto at most this many lines (its max-height)."""

FOOTER_WIDE = 80
"""Below this many columns the footer closes up its spacing, so that every key fits in 60."""

THREAT_LEGEND = ("!x is where X completes a line next move, !o where O does (on at first on "
                 "a cube); the line's marks are reversed. On boards of five in a row the side "
                 "panel also lists the threes: an open three (..XXX.) or a broken one (.XX.X.) "
                 "becomes an open four, which cannot be blocked at both ends, unless it is "
                 "blocked now")

LINES_LEGEND = ("rows, columns and layer diagonals lie within a layer; pillars, vertical and "
                "space diagonals cross the layers (the side panel counts them)")

MAX_LISTED_THREATS = 8
"""The side panel names at most this many threats, then says how many more."""

HINT_LEGEND = ("win N: this move wins in N plies (counting it) · loss N: loses in N · "
               "≤N: within N plies at most · draw · ≈N: an estimate, not proven (above 0 "
               "is good for the side to move)")

COMPACT_LEGEND = (
    "two characters, never cut: W3/L2 in N plies, W+/L+ in more than "
    f"{engine.COMPACT_PLIES}, W≤/L≤ within a bound, D; an estimate's band: "
    + ", ".join(f"{engine.COMPACT_BANDS[band]} {meaning}" for band, meaning in (
        (0, "even"), (1, "slightly better"), (2, "better"), (3, "much better"),
        (4, "winning, not proven"))) + " (- for worse); the side panel gives the cursor's "
    "cell in full")
"""What a hint on a compact cell (boards past 10 rows or columns, cubes past 4 layers)
means, for the help."""


class HelpScreen(ModalScreen[None]):
    """The list of keys and the hint legend, in a box that fits the terminal and scrolls when
    the terminal is short (arrows, Page Up/Down, the mouse wheel); any of Escape, q, ? or
    Enter closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,enter", "dismiss", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > #help {
        width: 86; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
        border: thick $accent; background: $surface;
    }
    HelpScreen #help-title { text-style: bold; margin-bottom: 1; }
    HelpScreen #help-footer { color: $text-muted; margin-top: 1; }
    HelpScreen #help-threats, HelpScreen #help-compact { margin-top: 1; }
    """

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", no_wrap=True, style="bold")
        table.add_column(ratio=1)
        for key, meaning in KEYS:
            table.add_row(key, meaning)
        with VerticalScroll(id="help"):
            yield Static("Keys", id="help-title")
            yield Static(table, id="help-keys")
            yield Static(f"Threats — {THREAT_LEGEND}.", id="help-threats")
            yield Static(f"Lines of a cube — {LINES_LEGEND}.", id="help-lines")
            yield Static(f"Hints on big boards — {COMPACT_LEGEND}.", id="help-compact")
            yield Static(f"Hints — {HINT_LEGEND}.\nPress Escape to close.", id="help-footer")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#help", VerticalScroll).focus()

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)


class FileScreen(ModalScreen[str | None]):
    """Ask for a file name: Enter or the button confirms, Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    FileScreen { align: center middle; }
    FileScreen > Vertical {
        width: 70; height: auto; padding: 1 2; border: thick $accent; background: $surface;
    }
    FileScreen Input { margin: 1 0; }
    FileScreen Horizontal { height: auto; align-horizontal: right; }
    FileScreen Button { margin-left: 2; }
    """

    def __init__(self, title: str, action: str, default: str) -> None:
        super().__init__()
        self.title_text, self.action_text, self.default = title, action, default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text)
            yield Input(self.default, id="file-path")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button(self.action_text, id="ok", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#file-path", Input).focus()

    @on(Input.Submitted, "#file-path")
    @on(Button.Pressed, "#ok")
    def confirm(self) -> None:
        path = self.query_one("#file-path", Input).value.strip()
        self.dismiss(path or None)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question: y or the button says yes; n, Escape or the other button no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 56; max-width: 100%; height: auto; padding: 1 2; border: thick $warning;
        background: $surface;
    }
    ConfirmScreen Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question")
            with Horizontal():
                yield Button("No (n)", id="no")
                yield Button("Yes (y)", id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class SidePanel(VerticalScroll, can_focus=False):
    """The side panel: it scrolls with the mouse wheel, but Tab never stops on it (it shows no
    focus), only on the board and the move box."""


class MoveBox(Input):
    """The box to type moves into. It takes the letter keys, so the footer shows the keys that
    still work while it has the focus: Escape back to the board, Ctrl+Q to quit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # priority, as the app's own Ctrl+Q (hidden from the footer) is
        Binding("ctrl+q", "app.quit", "Quit", priority=True),
        Binding("escape", "app.focus_board", "Board"),
    ]


class TicTacToeApp(App[None]):
    """Play tic-tac-toe on any board against the computer or a friend."""

    TITLE = "tictactoe"

    CSS = """
    #body { height: 1fr; }
    #main { width: 1fr; height: 100%; align: center middle; }
    #move { width: 44; margin-top: 1; }
    #side { width: 36; height: 100%; padding: 0 1; border-left: solid $panel-lighten-2; }
    Screen.-narrow #side { display: none; }
    Screen.-short #move { margin-top: 0; }
    Screen.-short BoardView .layer { margin: 0 2 0 0; }
    Screen.-tight Header { display: none; }
    Screen.-tight #move { height: 1; border: none; padding: 0 1; margin-top: 0; }
    #side .heading { text-style: bold; color: $accent; margin-top: 1; }
    #moves { height: auto; }
    #position { color: $text-muted; }
    #levels { color: $text-muted; }
    #status { height: auto; max-height: 3; padding: 0 1; background: $panel; text-style: bold; }
    #status.over { background: $success 40%; }
    #status.error { background: $error 40%; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # quit and help first: the footer shows the keys in this order, and cuts the last
        # ones off on a very narrow terminal
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("u", "undo", "Undo"),
        Binding("r", "redo", "Redo"),
        Binding("n", "new_game", "New"),
        Binding("h", "toggle_hints", "Hints"),
        # not in the footer, which has no room left at 60 columns: the help and the side
        # panel name it
        Binding("t", "toggle_threats", "Threats", show=False),
        Binding("w", "swap_sides", "Swap sides", show=False),
        Binding("s", "save", "Save"),
        Binding("l", "load", "Load"),
        Binding("escape", "focus_board", "Board", show=False),
    ]

    def __init__(self, game: Game, *, seed: int | None = None,
                 computer_seconds: float = engine.COMPUTER_SECONDS,
                 hint_seconds: float = engine.HINT_SECONDS,
                 record_path: str = DEFAULT_RECORD) -> None:
        super().__init__()
        self.game = game
        self.seed = seed
        self.computer_seconds = computer_seconds
        self.hint_seconds = hint_seconds
        self.record_path = record_path
        self.computers: dict[Side, Player] = engine.make_computers(game.players, seed)
        self.hints_on = False
        self.threats_shown = {"cube": True, "flat": False}
        """Whether threats are shown, for cubes and for flat boards (``t`` toggles the
        current board's)."""
        self.hints: dict[int, Score] = {}
        self.score = SessionScore()
        """The finished games of this session (shown under Players)."""
        self.thinking = False
        self.message = ""
        self.status_text = ""
        """The status line as shown: whose turn or the result, then the latest message."""
        self._generation = 0
        self._texts: dict[str, str] = {}
        """What each side panel and status `Static` shows (`_set_text`)."""

    # ----------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Header(icon="#")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                with Center(id="board-box"):
                    yield BoardView(self.game.variant, id="board")
                with Center():
                    yield MoveBox(placeholder=_move_placeholder(self.game), id="move")
            with SidePanel(id="side"):
                yield Static("Players", classes="heading")
                yield Static(id="players")
                yield Static(id="levels", classes="muted")
                yield Static(id="score")
                yield Static("Moves", classes="heading")
                yield Static(id="moves")
                yield Static("Position", classes="heading")
                yield Static(id="position")
                yield Static("Hints", classes="heading")
                yield Static(id="hint-state")
                yield Static("Threats", classes="heading")
                yield Static(id="threat-state")
                yield Static("Lines", classes="heading", id="lines-heading")
                yield Static(id="lines")
        yield Static(id="status")
        yield Footer(show_command_palette=False)  # Ctrl+P still opens the palette

    def on_mount(self) -> None:
        self.sub_title = self._subtitle()
        self.query_one(BoardView).focus()
        self._fit(self.size.width, self.size.height)
        self._warm_up(self.game.variant)
        self._changed()

    @work(thread=True, group="warm-up")
    def _warm_up(self, variant: Variant) -> None:
        """Load the compiled search while the player looks at the board."""
        engine.warm_up(variant)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Keep the whole board on screen: the side panel narrows to the room the board
        leaves (and hides below `SIDE_MIN` columns), and margins close up on short
        terminals."""
        board_width, board_height = self.board.natural_size()
        room = width - board_width
        side = self.query_one("#side")
        screen = side.screen  # the game's screen, also while the help is shown over it
        screen.set_class(room < SIDE_MIN, "-narrow")
        side.styles.width = max(SIDE_MIN, min(SIDE_WIDTH, room))
        screen.query_one(Footer).compact = width < FOOTER_WIDE
        # header, move box (3 lines and a margin), status lines and footer
        status = min(max(1, len(Text(self.status_text).wrap(self.console, max(1, width - 2)))),
                     STATUS_LINES)
        screen.set_class(height < board_height + 7 + status, "-short")
        # still too short (19×19 in 24 lines): no header, and a move box of one line
        screen.set_class(height < board_height - 1 + 6 + status, "-tight")

    def _subtitle(self) -> str:
        opponent = self.game.opponent
        versus = f" against {opponent}" if opponent else ""
        return f"{self.game.variant.name}{versus}"

    @property
    def board(self) -> BoardView:
        return self.query_one(BoardView)

    # ----------------------------------------------------------------- refresh
    def _changed(self, message: str = "") -> None:
        """The game changed: drop searches in flight, redraw, and start the next search."""
        self._generation += 1
        self.score.count(self.game)
        # another board (a record loaded) needs another example of a move
        self.query_one("#move", MoveBox).placeholder = _move_placeholder(self.game)
        self.hints = {}
        self.thinking = False
        self.message = message
        if self.game.computer_to_move:
            self.thinking = True
            self._think(self._generation, self.game.position.copy(stack=False))
        elif self.hints_on and self.game.human_to_move:
            self._hint(self._generation, self.game.position.copy(stack=False))
        self._redraw()

    def _redraw(self) -> None:
        game = self.game
        hints = {cell: Hint(self._hint_text(score), engine.hint_kind(score))
                 for cell, score in self.hints.items()} if self.hints_on else {}
        threats = self.open_threats() if self.threats_on else []
        self.board.show(game.position, hints, threats if self.threats_on else None)
        self._set_text("#threat-state", self._threats_text(threats))
        cube = game.variant.is_3d
        self.query_one("#lines-heading", Static).display = cube
        self.query_one("#lines", Static).display = cube
        if cube:
            self._set_text("#lines", "\n".join(f"{n} {kind}s" for kind, n in
                                               game.variant.line_kinds.items()))
        self._set_text("#players",
                       f"X  {_player_text(game, Side.X)}\nO  {_player_text(game, Side.O)}")
        levels, score = _levels_text(game), self.score.text()
        self._set_text("#levels", levels)
        self._set_text("#score", f"Score: {score}" if score else "")
        # empty ones take no line (two people have no level; no game has ended yet)
        self.query_one("#levels").display = bool(levels)
        self.query_one("#score").display = bool(score)
        pairs = game.move_pairs()
        self._set_text("#moves", "\n".join(pairs) if pairs else "(none yet)")
        self._set_text("#position", game.position.to_string())
        self._show_hint_state()
        status = self.query_one("#status", Static)
        text = game.status()
        if self.thinking:
            text = f"{game.describe_side(game.position.turn)} is thinking…"
        if self.message:
            text = f"{text}  ·  {self.message}"
        self.status_text = text
        self._set_text("#status", text)
        status.set_class(game.position.is_game_over(), "over")
        status.set_class(bool(self.message) and self.message.startswith("✗"), "error")
        self._fit(self.size.width, self.size.height)  # a long message takes more lines

    def _set_text(self, selector: str, text: str) -> None:
        """Show this text in a `Static`, touching it only if it changed, and laying the
        screen out again only if its height changes (a layout redraws the whole board)."""
        widget = self.query_one(selector, Static)
        old = self._texts.get(selector)
        if old == text:
            return
        self._texts[selector] = text
        width = widget.content_region.width
        same_height = old is not None and width > 0 and (
            len(Text(old).wrap(self.console, width)) == len(Text(text).wrap(self.console, width)))
        widget.update(text, layout=not same_height)

    def _show_hint_state(self) -> None:
        """The side panel's hint state, with the full value of the cursor's cell."""
        game = self.game
        if not self.hints_on:
            hint_state = "off (press h)"
        elif not game.human_to_move:
            hint_state = "on"
        elif not self.hints:
            hint_state = "on: searching…"
        else:
            hint_state = (f"each move's value for {game.position.turn.name}:\n"
                          "win/loss N = game over in N plies\nwith best play, counting it")
            score = self.hints.get(self.board.cursor)
            if score is not None:
                name = game.variant.cell_name(self.board.cursor)
                hint_state += f"\n{name} (cursor): {engine.hint_label(score)}"
        self._set_text("#hint-state", hint_state)

    def _hint_text(self, score: Score) -> str:
        """A hint as the board's cells draw it: long on tall cells, short on one-line cells,
        two characters on compact ones."""
        variant = self.game.variant
        if compact_cells(variant):
            return engine.compact_hint(score)
        return engine.hint_label(score, short=not big_cells(variant))

    # ----------------------------------------------------------------- workers
    @work(thread=True, exclusive=True, group="computer")
    def _think(self, generation: int, position: Position) -> None:
        """Search the computer's move on a copy of the position, off the event loop."""
        player = self.computers.get(position.turn)
        if player is None:
            return
        try:
            choice = engine.computer_move(player, position, self.computer_seconds)
        except TicTacToeError as err:
            self.call_from_thread(self._search_failed, generation,
                                  f"the computer cannot move: {err}")
            return
        self.call_from_thread(self._computer_moved, generation, choice)

    def _computer_moved(self, generation: int, choice: Choice) -> None:
        if generation != self._generation:
            return
        cell = choice.move
        name = self.game.position.move_name(cell)
        self.game.play(cell)
        self.board.cursor = cell
        value = engine.value_label(choice.score)
        self._changed(f"{self.game.position.turn.other.name} played {name}"
                      + (f" ({value})" if value else ""))

    def _search_failed(self, generation: int, error: str) -> None:
        if generation == self._generation:
            self.thinking = False
            self.message = f"✗ {error}"
            self._redraw()

    @work(thread=True, exclusive=True, group="hints")
    def _hint(self, generation: int, position: Position) -> None:
        """Search every move's value on a copy of the position, off the event loop."""
        try:
            scores = engine.hint_scores(position, self.hint_seconds)
        except TicTacToeError as err:
            self.call_from_thread(self._search_failed, generation, f"no hints: {err}")
            return
        self.call_from_thread(self._hints_ready, generation, scores)

    def _hints_ready(self, generation: int, scores: dict[int, Score]) -> None:
        if generation == self._generation and self.hints_on:
            self.hints = scores
            self._redraw()

    # ----------------------------------------------------------------- playing
    def play(self, text_or_cell: str | int) -> None:
        """Play a human move given by name or cell; a bad one shows a message."""
        game = self.game
        if self.thinking:
            self._error("wait: the computer is thinking")
            return
        if not game.human_to_move:
            self._error("the game is over: press n for a new one, or u to undo"
                        if game.position.is_game_over() else "it is the computer's turn")
            return
        try:
            cell = (game.position.parse_move(text_or_cell) if isinstance(text_or_cell, str)
                    else text_or_cell)
            game.play(cell)
        except TicTacToeError as err:
            self._error(str(err))
            return
        self.board.cursor = cell
        self._changed()

    def _error(self, message: str) -> None:
        self.message = f"✗ {message}"
        self.bell()
        self._redraw()

    @on(BoardView.Chosen)
    def _chosen(self, event: BoardView.Chosen) -> None:
        self.play(event.cell)

    @on(BoardView.CursorMoved)
    def _cursor_moved(self) -> None:
        if self.hints_on:
            self._show_hint_state()

    @on(Input.Submitted, "#move")
    def _typed(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        command = command_of(text)
        if command is not None:
            self.run_command(*command)
        elif text:
            self.play(text)

    def run_command(self, command: str, argument: str = "") -> None:
        """Do what a word typed into the move box says, as plain mode does (`COMMAND_WORDS`):
        ``undo``, ``hint`` (hints on/off), ``save FILE``, ``?``..."""
        simple = {"help": self.action_help, "board": self.action_focus_board,
                  "undo": self.action_undo, "redo": self.action_redo,
                  "new": self.action_new_game, "hint": self.action_toggle_hints,
                  "swap": self.action_swap_sides}
        if command in simple:
            simple[command]()
        elif command == "quit":
            self.confirm_leaving("Quit and drop it", self.exit)
        elif command == "save":
            if argument:
                self.save_to(argument)
            else:
                self.action_save()
        elif command == "load":
            if argument:
                self.confirm_leaving("Drop it and load another",
                                     lambda: self.load_from(argument))
            else:
                self.action_load()

    # ----------------------------------------------------------------- actions
    def action_undo(self) -> None:
        if not self.game.can_undo:
            self._error("nothing to undo")
            return
        taken = self.game.undo()
        self._changed(f"took back {len(taken)} move{'s' if len(taken) > 1 else ''}")

    def action_redo(self) -> None:
        if not self.game.can_redo:
            self._error("nothing to redo")
            return
        played = self.game.redo()
        self._changed(f"replayed {len(played)} move{'s' if len(played) > 1 else ''}")

    @property
    def game_under_way(self) -> bool:
        """A game not finished in which a person has moved (as on the web page): leaving it
        asks first. Only the computer's opening move is not enough."""
        return self.game.human_moved and not self.game.position.is_game_over()

    def confirm_leaving(self, leave: str, then: Callable[[], object]) -> None:
        """Do ``then`` now, or after a yes to "leave the game under way?" if there is one."""
        if not self.game_under_way:
            then()
            return
        moves = len(self.game.position.move_stack)

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.push_screen(ConfirmScreen(
            f"A game is under way ({moves} move{'s' if moves > 1 else ''}). {leave}?"), answered)

    async def action_quit(self) -> None:
        """Quit, asking first while a game is under way."""
        self.run_command("quit")

    def action_new_game(self) -> None:
        self.confirm_leaving("Drop it and start a new game", self.new_game)

    def new_game(self) -> None:
        """Start again with the same players."""
        self.game.restart()
        self.computers = engine.make_computers(self.game.players, self.seed)
        self._changed("new game")

    def action_swap_sides(self) -> None:
        self.confirm_leaving("Drop it and swap sides", self.swap_sides)

    def swap_sides(self) -> None:
        """Start again with the marks exchanged (against the computer, it moves first if
        you now play O)."""
        self.game.swap_sides()
        self.computers = engine.make_computers(self.game.players, self.seed)
        self.sub_title = self._subtitle()
        self._changed(f"sides swapped: {self.game.describe_side(Side.X)} plays first")

    def action_toggle_hints(self) -> None:
        self.hints_on = not self.hints_on
        self._changed(f"hints {'on' if self.hints_on else 'off'}")

    @property
    def threats_on(self) -> bool:
        """Whether the board shows the open threats (on a cube at first, not on flat boards)."""
        return self.threats_shown["cube" if self.game.variant.is_3d else "flat"]

    def open_threats(self) -> list[Threat]:
        """The position's open threats, while the game goes on."""
        position = self.game.position
        return [] if position.is_game_over() else position.threats()

    def _threats_text(self, threats: list[Threat]) -> str:
        if not self.threats_on:
            return "off (press t)"
        position = self.game.position
        name = self.game.variant.cell_name
        names = [f"{t.side.symbol.upper()} at {name(t.cell)} ({t.kind})" for t in threats]
        threes = [] if position.is_game_over() else position.live_threes()
        names += [f"{t.side.symbol.upper()} {t.shape} three {' '.join(map(name, t.marks))} "
                  f"(open four at {' or '.join(map(name, t.cells))})" for t in threes]
        if not names:
            return "on (t: off): none open"
        more = len(names) - MAX_LISTED_THREATS
        names = names[:MAX_LISTED_THREATS] + ([f"and {more} more"] if more > 0 else [])
        return "on (t: off): !x, !o on the board\n" + "\n".join(names)

    def action_toggle_threats(self) -> None:
        kind = "cube" if self.game.variant.is_3d else "flat"
        self.threats_shown[kind] = not self.threats_shown[kind]
        self._changed(f"threats {'on' if self.threats_on else 'off'}")

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_focus_board(self) -> None:
        self.board.focus()

    def action_save(self) -> None:
        self.push_screen(FileScreen("Save the game record to:", "Save", self.record_path),
                         self.save_to)

    def action_load(self) -> None:
        self.confirm_leaving("Drop it and load another", lambda: self.push_screen(
            FileScreen("Load a game record from:", "Load", self.record_path), self.load_from))

    def save_to(self, path: str | None) -> None:
        """Write the game record to a file (nothing if ``path`` is None)."""
        if not path:
            return
        try:
            Path(path).write_text(self.game.record().to_json() + "\n", encoding="utf-8")
        except OSError as err:
            self._error(f"cannot save {path}: {err.strerror or err}")
            return
        self.record_path = path
        self.message = f"saved {path}"
        self._redraw()

    def load_from(self, path: str | None) -> None:
        """Read a game record and continue it; a bad file leaves the game as it was."""
        if not path:
            return
        try:
            record = GameRecord.from_file(path)
            game = engine.game_from_record(record, self.game.players)
        except OSError as err:
            self._error(f"cannot load {path}: {err.strerror or err}")
            return
        except TicTacToeError as err:
            self._error(f"{path}: {err}")
            return
        self.record_path = path
        self.load_game(game, f"loaded {path}")

    def load_game(self, game: Game, message: str = "") -> None:
        """Replace the game (a new board if the variant differs)."""
        same_board = game.variant == self.game.variant
        self.game = game
        self.computers = engine.make_computers(game.players, self.seed)
        self.sub_title = self._subtitle()
        if not same_board:
            self._warm_up(game.variant)
            self.call_later(self._swap_board, message)
            return
        self._changed(message)

    async def _swap_board(self, message: str) -> None:
        await self.board.remove()
        await self.query_one("#board-box").mount(BoardView(self.game.variant, id="board"))
        self.board.focus()
        self._changed(message)


def _move_placeholder(game: Game) -> str:
    """What the empty move box says: an example of a move on the game's board.

    >>> _move_placeholder(Game("3x3")), _move_placeholder(Game("4x4x4"))
    ('type a move (b2) + Enter', 'type a move (3:c3) + Enter')
    """
    return f"type a move ({game.example_move()}) + Enter"


def _player_text(game: Game, side: Side) -> str:
    name = game.players[side]
    to_move = not game.position.is_game_over() and game.position.turn is side
    marker = "  ← to move" if to_move else ""
    humans = sum(game.is_human(s) for s in Side)
    who = name if name != HUMAN else "you" if humans == 1 else "human"
    return f"{who}{marker}"


def _levels_text(game: Game) -> str:
    """What the computer's level means, for the players panel (empty without a level).

    >>> from tictactoe.core import Variant
    >>> _levels_text(Game(Variant.parse("3x3"), players={Side.X: HUMAN, Side.O: "easy"}))[:23]
    'easy: takes a win, alwa'
    """
    return "\n".join(f"{name}: {LEVEL_DESCRIPTIONS[name]}" for name in
                     dict.fromkeys(game.players[side] for side in Side)
                     if name in LEVEL_DESCRIPTIONS)
