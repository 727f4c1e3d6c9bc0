"""The server's side of a game: every move checked against the stored position, undo and redo
back to a human's turn, and who is to move. Plain functions on a record and the position it
leads to (a `Play`), so a request replays the moves once; the engine's replies and the storage
are the router's job (`tictactoe.web.routers.games`).

>>> play = Play.of(new_record("3x3", None, {"x": "human", "o": "perfect"}))
>>> play = with_human_move(StoredGame(1, play.record), play, "B2")
>>> play.record.moves, computer_to_move(play)
(('b2',), 'perfect')
>>> record = GameRecord.from_moves("3x3", ["b2", "a1", "c3"], players=play.record.players)
>>> shorter, to_redo = undo(StoredGame(1, record), Play.of(record))
>>> shorter.record.moves, to_redo
(('b2', 'a1'), ('c3',))
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from tictactoe.core import Position, Side, TicTacToeError
from tictactoe.core.record import GameRecord
from tictactoe.web.store import GameConflictError, GameFinishedError, StoredGame

HUMAN = "human"


@dataclass(frozen=True)
class Play:
    """A game's record and the position its moves lead to (the board is not shared: each
    change makes a new one)."""

    record: GameRecord
    board: Position

    @staticmethod
    def of(record: GameRecord) -> Play:
        """Replay a record's moves (each checked)."""
        return Play(record, record.position())

    def then(self, move: str) -> Play:
        """The game after one more move (checked; named as the board names it), with its
        result and finish time if the move ends it."""
        board = self.board.copy()
        cell = board.parse_move(move)
        board.push(cell)
        return Play(_record(self.record, (*self.record.moves, board.move_name(cell)), board),
                    board)

    def back(self) -> Play:
        """The game without its last move."""
        board = self.board.copy()
        board.pop()
        return Play(_record(self.record, self.record.moves[:-1], board), board)

    @property
    def human_to_move(self) -> bool:
        return self.record.players.get(side_name(self.board.turn), HUMAN) == HUMAN


def _record(record: GameRecord, moves: tuple[str, ...], board: Position) -> GameRecord:
    outcome = board.outcome()
    if outcome is None:
        return GameRecord(record.variant, moves, record.start, record.players, None,
                          record.started, None)
    finished = record.finished or datetime.now(UTC).isoformat(timespec="seconds")
    return GameRecord(record.variant, moves, record.start, record.players, outcome.result(),
                      record.started, finished)


def new_record(variant: str | None, position: str | None, players: dict[str, str],
               moves: list[str] | tuple[str, ...] = ()) -> GameRecord:
    """A new game's record from a board or a start position (or both, if they agree), checked:
    at least one human, a start that can arise in play and is not over, and moves already
    played only between two people (the server plays the computer's moves itself)."""
    if variant is None and position is None:
        raise TicTacToeError("give the board (variant) or a start position")
    if all(name != HUMAN for name in players.values()):
        raise TicTacToeError("a game here needs a human player; to watch two computer players, "
                             "use `ttt arena`")
    start = None
    if position is not None:
        board = Position(position)
        if variant is not None and Position(variant).variant != board.variant:
            raise TicTacToeError(f"the position is {board.variant.name}, not "
                                 f"{Position(variant).variant.name}")
        problems = board.problems()
        if problems:
            raise TicTacToeError(f"this position cannot arise in play: {'; '.join(problems)}")
        if board.is_game_over():
            raise TicTacToeError("the game is already over in this position")
        empty = Position(board.variant)
        start = None if board == empty and board.turn is empty.turn else board.to_string()
        variant = board.variant.name
    assert variant is not None
    if moves and any(name != HUMAN for name in players.values()):
        raise TicTacToeError(
            "moves may be given only for a game between two people: against the computer, "
            "the server plays its own moves (start from the position they lead to instead)")
    return GameRecord.from_moves(variant, moves, start=start, players=players)


def side_name(side: Side) -> str:
    return "x" if side is Side.X else "o"


def computer_to_move(play: Play) -> str | None:
    """The computer player whose turn it is, or None (a human's turn, or the game is over)."""
    if play.record.result is not None or play.human_to_move:
        return None
    return play.record.players[side_name(play.board.turn)]


def with_human_move(game: StoredGame, play: Play, move: str) -> Play:
    """The game after a human's move, checked against the stored position."""
    if play.record.result is not None:
        raise GameFinishedError("this game is over and saved; start a new game to play on", game)
    if not play.human_to_move:
        raise GameConflictError("it is the computer's turn, not yours", game)
    return play.then(move)


def undo(game: StoredGame, play: Play) -> tuple[Play, tuple[str, ...]]:
    """Take back the last move, and against the computer every move back to the human's
    previous turn; return the shorter game and the moves to redo (the next first)."""
    undone = list(game.undone)
    while play.record.moves:
        undone.insert(0, play.record.moves[-1])
        play = play.back()
        if play.human_to_move:
            return play, tuple(undone)
    raise GameConflictError("there is no move of yours to take back", game)


def redo(game: StoredGame, play: Play) -> tuple[Play, tuple[str, ...]]:
    """Play again what undo took back, up to the human's next turn."""
    if not game.undone:
        raise GameConflictError("there is nothing to redo", game)
    undone = list(game.undone)
    while undone:
        play = play.then(undone.pop(0))
        if play.record.result is not None or play.human_to_move:
            break
    return play, tuple(undone)


def can_undo(play: Play) -> bool:
    """Whether a human's move is there to take back."""
    board = play.board.copy()
    for _ in play.record.moves:
        board.pop()
        if play.record.players.get(side_name(board.turn), HUMAN) == HUMAN:
            return True
    return False


__all__ = ["HUMAN", "Play", "can_undo", "computer_to_move", "new_record", "redo", "undo",
           "with_human_move"]
