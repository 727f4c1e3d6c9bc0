"""Plain mode (``ttt play --plain``): a line-by-line game for dumb terminals, pipes and scripts.

It prints the board with coordinates, reads one move or command per line, and answers a typo or
an illegal move with a message and a new prompt. End of input ends the game and prints how it
stands. When input is not a terminal, each line read is echoed after its prompt, so a
transcript reads like a session at the keyboard.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import TextIO

from tictactoe.core import Side, TicTacToeError
from tictactoe.core.record import GameRecord
from tictactoe.players.base import Player
from tictactoe.search.score import Score
from tictactoe.search.words import hint_words
from tictactoe.tui import engine
from tictactoe.tui.game import HUMAN, Game, SessionScore

DEFAULT_RECORD = "tictactoe-game.json"
"""Where ``save`` writes and ``load`` reads when no file is named."""

COMMANDS: tuple[tuple[str, str], ...] = (
    ("b2", "play a move: column letter and row number (2:b3 on a cube, or a cell number)"),
    ("undo, u", "take back your last move (and the computer's reply)"),
    ("redo, r", "play again what was undone"),
    ("hint, h", "show the value of every move: win or loss in N plies, or draw"),
    ("board, b", "show the board again"),
    ("new, n", "start a new game"),
    ("swap, w", "start a new game with the marks exchanged (you play the other one)"),
    ("save [FILE]", f"save the game record as JSON (default {DEFAULT_RECORD})"),
    ("load [FILE]", "load a game record and continue it"),
    ("help, ?", "this list"),
    ("quit, q", "stop (end of input does the same)"),
)

COMMAND_WORDS: dict[str, str] = {
    "quit": "quit", "q": "quit", "exit": "quit", "help": "help", "?": "help", "h?": "help",
    "board": "board", "b": "board", "undo": "undo", "u": "undo", "redo": "redo", "r": "redo",
    "new": "new", "n": "new", "swap": "swap", "w": "swap", "hint": "hint", "hints": "hint",
    "h": "hint", "save": "save", "load": "load"}
"""The words a line may start with, and the command each names: plain mode's prompt and the
terminal app's move box read them the same way."""


def command_of(text: str) -> tuple[str, str] | None:
    """The command a typed line names and its argument, or None for a move.

    >>> command_of("Undo"), command_of("save my game.json"), command_of("b2")
    (('undo', ''), ('save', 'my game.json'), None)
    """
    word, _, argument = text.strip().partition(" ")
    command = COMMAND_WORDS.get(word.lower())
    return None if command is None else (command, argument.strip())


class PlainGame:
    """The loop of plain mode, reading from ``stdin`` and writing to ``stdout``."""

    def __init__(self, game: Game, *, stdin: TextIO, stdout: TextIO, seed: int | None = None,
                 computer_seconds: float = engine.COMPUTER_SECONDS,
                 hint_seconds: float = engine.HINT_SECONDS, echo: bool | None = None) -> None:
        self.game = game
        self.stdin, self.stdout = stdin, stdout
        self.seed = seed
        self.computer_seconds, self.hint_seconds = computer_seconds, hint_seconds
        self.computers: dict[Side, Player] = engine.make_computers(game.players, seed)
        self.echo = (not _is_tty(stdin)) if echo is None else echo
        self.score = SessionScore()

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def run(self) -> Game:
        """Play until ``quit`` or the end of input; return the game as it stands."""
        game = self.game
        self.say(f"{game.variant.name}: {_sides(game)}. "
                 f"Type a move such as {game.example_move()}, or 'help'.")
        self.show()
        while True:
            self.computer_moves()
            line = self.ask(self.prompt())
            if line is None:
                self.say()
                self.say("End of input.")
                break
            if not self.handle(line.strip()):
                break
        self.say(self.summary())
        return self.game

    def prompt(self) -> str:
        game = self.game
        if game.position.is_game_over():
            return "game over (new, swap, undo, save, quit)> "
        return f"{game.describe_side(game.position.turn)} to move> "

    def ask(self, prompt: str) -> str | None:
        print(prompt, end="", file=self.stdout, flush=True)
        line = self.stdin.readline()
        if not line:
            return None
        if self.echo:
            print(line.rstrip("\n"), file=self.stdout, flush=True)
        return line

    def show(self) -> None:
        self.say(self.game.position.diagram())
        if self.game.position.is_game_over():
            self.score.count(self.game)
            score = self.score.text()  # empty until a game you played has ended
            self.say(f"Game over. {self.game.status()}." + (f" Score: {score}." if score else ""))

    def computer_moves(self) -> None:
        """Let the computer play while it is its turn."""
        game = self.game
        while game.computer_to_move:
            side = game.position.turn
            choice = engine.computer_move(self.computers[side], game.position,
                                          self.computer_seconds)
            game.play(choice.move)
            value = engine.value_label(choice.score)
            self.say(f"{game.describe_side(side)} plays {game.position.move_name(choice.move)}"
                     + (f" ({value})." if value else "."))
            self.show()

    def handle(self, text: str) -> bool:
        """Act on one line; False to stop."""
        if not text:
            return True
        command, argument = command_of(text) or ("move", "")
        if command == "quit":
            return False
        if command == "help":
            width = max(len(name) for name, _ in COMMANDS)
            for name, meaning in COMMANDS:
                self.say(f"  {name:<{width}}  {meaning}")
        elif command == "board":
            self.show()
        elif command == "undo":
            taken = self.game.undo()
            if taken:
                self.say(f"Took back {' '.join(self.game.position.move_name(c) for c in taken)}.")
                self.show()
            else:
                self.say("Nothing to undo.")
        elif command == "redo":
            played = self.game.redo()
            if played:
                self.say(f"Replayed {' '.join(self.game.position.move_name(c) for c in played)}.")
                self.show()
            else:
                self.say("Nothing to redo.")
        elif command == "new":
            self.game.restart()
            self.computers = engine.make_computers(self.game.players, self.seed)
            self.say("New game.")
            self.show()
        elif command == "swap":
            self.game.swap_sides()
            self.computers = engine.make_computers(self.game.players, self.seed)
            self.say(f"New game, sides swapped: {_sides(self.game)}.")
            self.show()
        elif command == "hint":
            self.hint()
        elif command == "save":
            self.save(argument or DEFAULT_RECORD)
        elif command == "load":
            self.load(argument or DEFAULT_RECORD)
        else:
            self.move(text)
        return True

    def move(self, text: str) -> None:
        game = self.game
        if game.position.is_game_over():
            self.say("The game is over: type 'new' for another, 'undo', or 'quit'.")
            return
        try:
            game.play_text(text)
        except TicTacToeError as err:
            self.say(f"{err}. Try again, or type 'help'.")
            return
        self.show()

    def hint(self) -> None:
        game = self.game
        if game.position.is_game_over():
            self.say("The game is over: no moves to weigh.")
            return
        scores = engine.hint_scores(game.position, self.hint_seconds)
        ranked = sorted(scores.items(), key=lambda item: (item[1], -item[0]), reverse=True)
        moves = [(game.position.move_name(cell), _hint_text(score)) for cell, score in ranked]
        for line in hint_lines(moves, shutil.get_terminal_size().columns):
            self.say(line)

    def save(self, path: str) -> None:
        try:
            Path(path).write_text(self.game.record().to_json() + "\n", encoding="utf-8")
        except OSError as err:
            self.say(f"Cannot save {path}: {err.strerror or err}.")
            return
        self.say(f"Saved {path}.")

    def load(self, path: str) -> None:
        try:
            record = GameRecord.from_file(path)
        except OSError as err:
            self.say(f"Cannot load {path}: {err.strerror or err}.")
            return
        except TicTacToeError as err:
            self.say(f"Cannot load {path}: {err}.")
            return
        self.game = Game.from_record(record, players=self.game.players)
        self.computers = engine.make_computers(self.game.players, self.seed)
        self.say(f"Loaded {path}.")
        self.show()

    def summary(self) -> str:
        game = self.game
        moves = len(game.position.move_stack)
        if game.position.is_game_over():
            return f"Result: {game.status()}."
        return f"Unfinished after {moves} move{'' if moves == 1 else 's'}: {game.status()}."


def _sides(game: Game) -> str:
    names = {side: game.players[side] for side in Side}
    if all(name == HUMAN for name in names.values()):
        return "two players"
    parts = []
    for side, name in names.items():
        parts.append(f"you play {side.name}" if name == HUMAN else f"{name} plays {side.name}")
    return ", ".join(parts)


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


HINT_MOVES = 10
"""``hint`` names this many of the best moves, then says how many more there are."""


def hint_lines(moves: list[tuple[str, str]], width: int = 80) -> list[str]:
    """The best `HINT_MOVES` moves (given best first, with their values in words), those of
    one value together, wrapped to ``width`` columns; then how many more moves there are.

    >>> hint_lines([("a2", "draw"), ("c2", "draw"), ("c1", "loss in 4")])
    ['draw: a2 c2  ·  loss in 4: c1']
    >>> hint_lines([(f"m{n}", "estimate +1") for n in range(14)], width=30)
    ['estimate +1: m0 m1 m2 m3 m4', 'm5 m6 m7 m8 m9', '(and 4 more moves)']
    """
    groups: list[tuple[str, list[str]]] = []
    for name, value in moves[:HINT_MOVES]:
        if groups and groups[-1][0] == value:
            groups[-1][1].append(name)
        else:
            groups.append((value, [name]))
    text = "  ·  ".join(f"{value}: {' '.join(names)}" for value, names in groups)
    lines = textwrap.wrap(text, max(width - 1, 20), break_on_hyphens=False)
    more = len(moves) - HINT_MOVES
    if more > 0:
        lines.append(f"(and {more} more move{'s' if more > 1 else ''})")
    return lines


def _hint_text(score: Score) -> str:
    """A hint in words: ``loss in 2``, ``win within 7``, ``draw``, or an estimate in the web
    page's words.

    >>> from tictactoe.search.score import Heuristic, Loss
    >>> _hint_text(Loss(2)), _hint_text(Heuristic(2.4))
    ('loss in 2', 'slightly better for you (estimate +2.4)')
    """
    if score.is_proven:
        return str(score)
    return hint_words(score)
