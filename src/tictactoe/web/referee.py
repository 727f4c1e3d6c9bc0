"""The server's side of a game: every move checked against the stored position, undo and redo
back to a human's turn, and who is to move. Plain functions on records; the engine's replies
and the storage are the router's job (`tictactoe.web.routers.games`).

>>> record = new_record("3x3", None, {"x": "human", "o": "perfect"})
>>> record = with_human_move(StoredGame(1, record), "B2")
>>> record.moves, computer_to_move(record)
(('b2',), 'perfect')
>>> record = GameRecord.from_moves("3x3", ["b2", "a1", "c3"], players=record.players)
>>> shorter, to_redo = undo(StoredGame(1, record))
>>> shorter.moves, to_redo
(('b2', 'a1'), ('c3',))
"""

from __future__ import annotations

from tictactoe.core import Position, Side, TicTacToeError
from tictactoe.core.record import GameRecord
from tictactoe.web.store import GameConflictError, GameFinishedError, StoredGame

HUMAN = "human"


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


def computer_to_move(record: GameRecord) -> str | None:
    """The computer player whose turn it is, or None (a human's turn, or the game is over)."""
    if record.result is not None:
        return None
    name = record.players.get(side_name(record.position().turn), HUMAN)
    return None if name == HUMAN else name


def with_move(record: GameRecord, move: str) -> GameRecord:
    """The record with one more move (checked), and its result if that ends the game."""
    return GameRecord.from_moves(record.variant, [*record.moves, move], start=record.start,
                                 players=record.players, started=record.started)


def with_human_move(game: StoredGame, move: str) -> GameRecord:
    """The record after a human's move, checked against the stored position."""
    record = game.record
    if record.result is not None:
        raise GameFinishedError("this game is over and saved; start a new game to play on", game)
    board = record.position()
    if record.players.get(side_name(board.turn), HUMAN) != HUMAN:
        raise GameConflictError("it is the computer's turn, not yours", game)
    cell = board.parse_move(move)
    board.push(cell)  # checks that the cell is free
    return with_move(record, board.move_name(cell))


def _human_turn_after(record: GameRecord, board: Position) -> bool:
    return record.players.get(side_name(board.turn), HUMAN) == HUMAN


def undo(game: StoredGame) -> tuple[GameRecord, tuple[str, ...]]:
    """Take back the last move, and against the computer every move back to the human's
    previous turn; return the shorter record and the moves to redo (the next first)."""
    record = game.record
    moves = list(record.moves)
    undone = list(game.undone)
    board = record.position()
    while moves:
        undone.insert(0, moves.pop())
        board.pop()
        if _human_turn_after(record, board):
            break
    else:
        raise GameConflictError("there is no move of yours to take back", game)
    shorter = GameRecord.from_moves(record.variant, moves, start=record.start,
                                    players=record.players, started=record.started)
    return shorter, tuple(undone)


def redo(game: StoredGame) -> tuple[GameRecord, tuple[str, ...]]:
    """Play again what undo took back, up to the human's next turn."""
    record = game.record
    if not game.undone:
        raise GameConflictError("there is nothing to redo", game)
    undone = list(game.undone)
    while undone:
        record = with_move(record, undone.pop(0))
        if record.result is not None or _human_turn_after(record, record.position()):
            break
    return record, tuple(undone)


def can_undo(game: StoredGame) -> bool:
    """Whether a human's move is there to take back."""
    board = game.record.position()
    for _ in game.record.moves:
        board.pop()
        if _human_turn_after(game.record, board):
            return True
    return False


__all__ = ["HUMAN", "can_undo", "computer_to_move", "new_record", "redo", "undo",
           "with_human_move", "with_move"]
