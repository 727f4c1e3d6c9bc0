"""One game as the terminal front ends see it: moves, undo and redo, who plays each side.

Plain Python on top of the rules core, so the Textual app and the plain mode share it.

>>> game = Game("3x3", players={Side.X: HUMAN, Side.O: "perfect"})
>>> game.play_text("b2"), game.play_text("a1"), game.moves
(4, 0, ['b2', 'a1'])
>>> game.undo()              # back to the human's turn: both plies
[0, 4]
>>> game.moves, game.can_redo
([], True)
>>> game.redo(), game.moves
([4, 0], ['b2', 'a1'])
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from itertools import count

from tictactoe.core import Position, Side, Variant
from tictactoe.core.record import GameRecord

HUMAN = "human"
"""The player name of a person at the keyboard."""


class Game:
    """A game in progress: the start, the moves played, the moves undone, and the players.

    ``players`` maps each side to ``"human"`` or the name of a computer player or level
    (``"perfect"``, ``"easy"``...). Undo takes back moves until a human is to move again, so
    against the computer one undo takes back the computer's reply and your move.
    """

    def __init__(self, variant: str | Variant = "3x3", *,
                 players: dict[Side, str] | None = None, start: Position | None = None,
                 started: str | None = None) -> None:
        if start is None:
            start = Position(variant if isinstance(variant, Variant) else Variant.parse(variant))
        self.start = start.copy(stack=False)
        self.position = self.start.copy(stack=False)
        self.players: dict[Side, str] = dict(players or {Side.X: HUMAN, Side.O: HUMAN})
        self.redo_stack: list[int] = []
        self.started = started or _now()
        self.serial = next(_SERIALS)
        """A number no other game of this process has; a restart gives a new one."""

    # ----------------------------------------------------------------- building
    @staticmethod
    def from_record(record: GameRecord, *, players: dict[Side, str] | None = None) -> Game:
        """The game a record holds, with the record's players unless others are given.

        >>> r = GameRecord.from_moves("3x3", ["a1", "b2"], players={"x": "human", "o": "easy"})
        >>> g = Game.from_record(r)
        >>> g.moves, g.players[Side.O], g.position.to_string()
        (['a1', 'b2'], 'easy', 'x2/1o1/3 x')
        """
        start = Position(record.start) if record.start else Position(record.variant)
        if players is None:
            players = {side: record.players.get(side.symbol, HUMAN) for side in Side}
        game = Game(start.variant, players=players, start=start, started=record.started or None)
        for move in record.moves:
            game.position.push_name(move)
        return game

    def record(self) -> GameRecord:
        """The game as a JSON-ready record (the format the browser app reads too)."""
        return GameRecord.from_moves(
            self.variant.name, self.moves, start=self._start_string(),
            players={side.symbol: name for side, name in self.players.items()},
            started=self.started)

    def restart(self) -> None:
        """Back to the starting position, forgetting every move."""
        self.position = self.start.copy(stack=False)
        self.redo_stack.clear()
        self.started = _now()
        self.serial = next(_SERIALS)

    def swap_sides(self) -> None:
        """Start again with the marks exchanged: whoever played X plays O.

        >>> g = Game("3x3", players={Side.X: HUMAN, Side.O: "easy"})
        >>> g.swap_sides(); g.players[Side.X], g.players[Side.O]
        ('easy', 'human')
        """
        self.players = {Side.X: self.players[Side.O], Side.O: self.players[Side.X]}
        self.restart()

    # ----------------------------------------------------------------- state
    @property
    def variant(self) -> Variant:
        return self.position.variant

    @property
    def moves(self) -> list[str]:
        """The moves played from the start, in ``b2`` form."""
        return [self.position.move_name(cell) for cell in self.position.move_stack]

    def is_human(self, side: Side) -> bool:
        return self.players[side] == HUMAN

    @property
    def computer_to_move(self) -> bool:
        """True when the game goes on and the side to move is a computer player."""
        return not self.position.is_game_over() and not self.is_human(self.position.turn)

    @property
    def human_to_move(self) -> bool:
        """True when the game goes on and a person is to move."""
        return not self.position.is_game_over() and self.is_human(self.position.turn)

    @property
    def human_moved(self) -> bool:
        """Whether a person has made one of the moves played from the start (the web app's
        rule): only then does a finished game count in the score, or an unfinished one ask
        before it is left.

        >>> g = Game("3x3", players={Side.X: "easy", Side.O: HUMAN})
        >>> g.position.push(4); g.human_moved   # the computer's opening move
        False
        >>> _ = g.play_text("a1"); g.human_moved
        True
        >>> Game(start=Position("xxx/oo1/3 o")).human_moved  # a finished start
        False
        """
        moves, first = len(self.position.move_stack), self.start.turn
        return (moves >= 1 and self.is_human(first)) or (moves >= 2 and self.is_human(first.other))

    @property
    def opponent(self) -> str | None:
        """The computer player's name when exactly one side is a computer."""
        computers = [name for name in self.players.values() if name != HUMAN]
        return computers[0] if len(computers) == 1 else None

    def example_move(self) -> str:
        """The middle cell's name, as an example of a move.

        >>> Game("3x3").example_move(), Game("4x4x4").example_move()
        ('b2', '3:c3')
        """
        variant = self.variant
        return variant.cell_name(variant.index(tuple(size // 2 for size in variant.shape)))

    # ----------------------------------------------------------------- moves
    def play(self, cell: int) -> int:
        """Play a move for the side to move (checked), forgetting the moves undone."""
        self.position.push(cell)
        self.redo_stack.clear()
        return cell

    def play_text(self, text: str) -> int:
        """Parse a move like ``b2``, ``2:b3`` or ``4`` and play it."""
        return self.play(self.position.parse_move(text))

    @property
    def can_undo(self) -> bool:
        """There is a move to take back (one a human made, unless nobody is human)."""
        stack = self.position.move_stack
        if not any(self.is_human(side) for side in Side):
            return bool(stack)
        mover = self.position.turn
        for _ in reversed(stack):
            mover = mover.other
            if self.is_human(mover):
                return True
        return False

    def undo(self) -> list[int]:
        """Take back moves until a human is to move again; return them, latest first.

        >>> g = Game("3x3", players={Side.X: "perfect", Side.O: HUMAN})
        >>> g.position.push(4)   # the computer's move as X
        >>> g.can_undo, g.undo()
        (False, [])
        """
        if not self.can_undo:
            return []
        anyone_human = any(self.is_human(side) for side in Side)
        taken: list[int] = []
        while True:
            taken.append(self.position.pop())
            self.redo_stack.append(taken[-1])
            if not anyone_human or self.is_human(self.position.turn):
                return taken

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_stack)

    def redo(self) -> list[int]:
        """Replay undone moves: one, then any computer replies that followed it."""
        played: list[int] = []
        while self.redo_stack and (not played or self.computer_to_move):
            cell = self.redo_stack.pop()
            self.position.push(cell)
            played.append(cell)
        return played

    # ----------------------------------------------------------------- text
    def move_pairs(self) -> list[str]:
        """The move list numbered in pairs: ``1. b2 a1``.

        >>> g = Game("3x3"); _ = [g.play_text(m) for m in ("b2", "a1", "c3")]
        >>> g.move_pairs()
        ['1. b2 a1', '2. c3']
        """
        moves = self.moves
        if self.start.turn is Side.O:
            moves = ["..", *moves]
        return [f"{n // 2 + 1}. {' '.join(moves[n:n + 2])}" for n in range(0, len(moves), 2)]

    def describe_side(self, side: Side) -> str:
        """``X (you)``, ``O (perfect)``; with two humans just ``X``."""
        name = self.players[side]
        if name == HUMAN:
            humans = sum(self.is_human(s) for s in Side)
            return f"{side.name} (you)" if humans == 1 else side.name
        return f"{side.name} ({name})"

    def status(self) -> str:
        """One line: whose turn it is, or the result.

        >>> g = Game("3x3", players={Side.X: HUMAN, Side.O: "perfect"})
        >>> g.status()
        'X (you) to move'
        >>> for m in ("a1", "b1", "a2", "b2", "a3"): _ = g.play_text(m)
        >>> g.status()
        'X (you) wins: a1 a2 a3'
        """
        outcome = self.position.outcome()
        if outcome is None:
            return f"{self.describe_side(self.position.turn)} to move"
        if outcome.winner is None:
            return "Draw: the board is full"
        line = self.position.winning_lines()[0]
        cells = " ".join(self.position.move_name(cell) for cell in line)
        return f"{self.describe_side(outcome.winner)} wins: {cells}"

    def _start_string(self) -> str | None:
        empty = Position(self.variant)
        return None if self.start == empty else self.start.to_string()


_SERIALS = count(1)


class SessionScore:
    """The finished games of a session in which a person moved (`Game.human_moved`: not a
    finished position given to start from), each counted once, as it first ended (an undo and
    another ending of the same game change nothing). Against the computer the score is from
    the person's side, whichever mark they play; between two people, by mark.

    >>> score, g = SessionScore(), Game("3x3", players={Side.X: HUMAN, Side.O: "easy"})
    >>> for m in ("a1", "b1", "a2", "b2", "a3"): _ = g.play_text(m)
    >>> score.count(g), score.count(g), score.text()
    (True, False, 'you 1 · computer 0 · draws 0')
    """

    def __init__(self) -> None:
        self.results: Counter[str] = Counter()
        self._counted: set[int] = set()
        self._kind = "computer"

    def count(self, game: Game) -> bool:
        """Count the game if it is over, a person moved in it, and it is not counted yet;
        True if it was counted now."""
        outcome = game.position.outcome()
        if outcome is None or game.serial in self._counted or not game.human_moved:
            return False
        self._counted.add(game.serial)
        humans = [side for side in Side if game.is_human(side)]
        self._kind = "computer" if len(humans) == 1 else "marks"
        if outcome.winner is None:
            self.results["draw"] += 1
        elif len(humans) == 1:
            self.results["you" if outcome.winner is humans[0] else "computer"] += 1
        else:
            self.results[outcome.winner.name] += 1
        return True

    def text(self) -> str:
        """``you 2 · computer 1 · draws 0``, or ``X 1 · O 0 · draws 1`` between people;
        empty before the first finished game."""
        if not self._counted:
            return ""
        first, second = ("you", "computer") if self._kind == "computer" else ("X", "O")
        r = self.results
        return f"{first} {r[first]} · {second} {r[second]} · draws {r['draw']}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
