"""Game records: one finished or unfinished game as JSON, shared by the web and terminal apps.

>>> r = GameRecord.from_moves("3x3", ["b2", "a1", "c3"], players={"x": "human", "o": "perfect"})
>>> r.position().to_string()
'o2/1x1/2x o'
>>> GameRecord.from_json(r.to_json()) == r
True
>>> r.to_link()
'3x3:b2,a1,c3'
>>> GameRecord.from_link('3x3:b2,a1,c3').moves
('b2', 'a1', 'c3')
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import Any

from tictactoe.core.errors import InvalidPositionError, TicTacToeError
from tictactoe.core.position import Position
from tictactoe.core.variant import Variant

RECORD_FORMAT = "tictactoe-game/1"
"""The ``format`` field of every record, so a reader can tell what it holds."""

LINK_FORM = "BOARD:MOVES, such as 3x3:b2,a1,c3 (and ;START for a game from a set position)"
"""How a game link reads, for error messages."""


class InvalidRecordError(TicTacToeError):
    """A game record is malformed or its moves are not legal."""


@dataclass(frozen=True)
class GameRecord:
    """A game: the variant, the starting position, the moves in ``b2`` form, who played,
    the result (``x``, ``o``, ``draw``, or None while it goes on) and when it was played."""

    variant: str
    moves: tuple[str, ...] = ()
    start: str | None = None
    """The starting position string; None means the empty board."""
    players: dict[str, str] = field(default_factory=lambda: {"x": "human", "o": "human"})
    result: str | None = None
    started: str = ""
    finished: str | None = None

    @staticmethod
    def from_moves(variant: str, moves: list[str] | tuple[str, ...], *,
                   start: str | None = None, players: dict[str, str] | None = None,
                   started: str | None = None) -> GameRecord:
        """Build a record from moves, checking each and filling in the result."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        record = GameRecord(
            variant=Variant.parse(variant).name, moves=tuple(moves), start=start,
            players=dict(players or {"x": "human", "o": "human"}), started=started or now)
        final = record.position()  # validates every move
        outcome = final.outcome()
        if outcome is None:
            return record
        return GameRecord(record.variant, record.moves, start, record.players,
                          outcome.result(), record.started, now)

    def position(self) -> Position:
        """Replay the moves from the start and return the position reached."""
        try:
            variant = Variant.parse(self.variant)
            board = Position(self.start) if self.start else Position(variant)
        except TicTacToeError as err:
            raise InvalidRecordError(f"bad record: {err}") from None
        if board.variant != variant:
            raise InvalidRecordError(
                f"bad record: the start position is {board.variant.name}, not {variant.name}")
        for number, move in enumerate(self.moves, 1):
            try:
                board.push_name(move)
            except TicTacToeError as err:
                raise InvalidRecordError(f"bad record: move {number} ({move!r}): {err}") from None
        return board

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT, "variant": self.variant, "start": self.start,
            "moves": list(self.moves), "players": dict(self.players), "result": self.result,
            "started": self.started, "finished": self.finished,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @staticmethod
    def from_dict(data: object) -> GameRecord:
        """Read a record, checking its fields and replaying its moves."""
        if not isinstance(data, dict):
            raise InvalidRecordError("bad record: expected a JSON object")
        if data.get("format", RECORD_FORMAT) != RECORD_FORMAT:
            raise InvalidRecordError(f"bad record: unknown format {data.get('format')!r}")
        variant, moves = data.get("variant"), data.get("moves", [])
        if not isinstance(variant, str):
            raise InvalidRecordError("bad record: 'variant' must be a string")
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise InvalidRecordError("bad record: 'moves' must be a list of strings")
        players = data.get("players") or {"x": "human", "o": "human"}
        if not isinstance(players, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in players.items()):
            raise InvalidRecordError("bad record: 'players' must map 'x' and 'o' to names")
        start = data.get("start")
        if start is not None and not isinstance(start, str):
            raise InvalidRecordError("bad record: 'start' must be a position string or null")
        finished = data.get("finished")
        if finished is not None and not isinstance(finished, str):
            raise InvalidRecordError("bad record: 'finished' must be a date and time or null")
        record = GameRecord(variant, tuple(moves), start, players, data.get("result"),
                            str(data.get("started") or ""), finished)
        try:
            final = record.position()
        except InvalidPositionError as err:
            raise InvalidRecordError(f"bad record: {err}") from None
        outcome = final.outcome()
        expected = outcome.result() if outcome else None
        if record.result != expected:
            raise InvalidRecordError(
                f"bad record: result {record.result!r} does not match the moves ({expected!r})")
        return record

    @staticmethod
    def from_json(text: str | bytes) -> GameRecord:
        """Read a record from its JSON text; bytes must be UTF-8 (as `to_json` is written).

        Anything that is not a record, binary or compressed data included, raises
        `InvalidRecordError`:

        >>> try:
        ...     GameRecord.from_json(b"\\x1f\\x8b\\x08\\x00")  # the start of a .gz file
        ... except InvalidRecordError as err:
        ...     print(err)
        bad record: not JSON (not UTF-8 text: byte 0x8b at position 1)
        """
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InvalidRecordError(
                    f"bad record: not JSON (not UTF-8 text: byte 0x{err.object[err.start]:02x} "
                    f"at position {err.start})") from None
        try:
            data = json.loads(text)
        except RecursionError:
            raise InvalidRecordError("bad record: not a game record (nested too deeply)") from None
        except ValueError as err:  # JSONDecodeError, and a number too long to convert
            raise InvalidRecordError(f"bad record: not JSON ({err})") from None
        return GameRecord.from_dict(data)

    @staticmethod
    def from_file(path: str | PathLike[str]) -> GameRecord:
        """Read a record from a file: `OSError` if it cannot be read, `InvalidRecordError`
        if it holds no record (not UTF-8 JSON, or a binary file such as a ``.gz``), so that
        every front end reports a bad file the same way."""
        return GameRecord.from_json(Path(path).read_bytes())

    def to_link(self) -> str:
        """The game in one line for a link: the board, a colon and the moves separated by
        commas; a game from a set position adds a semicolon and its position string.

        >>> GameRecord.from_moves("4x4x4", ["1:a1", "2:b2"]).to_link()
        '4x4x4:1:a1,2:b2'
        >>> GameRecord.from_moves("3x3", ["c3"], start="o2/1x1/3 x").to_link()
        '3x3:c3;o2/1x1/3 x'
        """
        link = f"{self.variant}:{','.join(self.moves)}"
        return f"{link};{self.start}" if self.start else link

    @staticmethod
    def from_link(text: str) -> GameRecord:
        """Read a game written by :meth:`to_link`, checking every move (both players human,
        the result from the moves).

        >>> GameRecord.from_link("3x3:b2,a1,c3;3/3/3 x").start
        '3/3/3 x'
        >>> GameRecord.from_link("3x3:b2,b2")
        Traceback (most recent call last):
        ...
        tictactoe.core.record.InvalidRecordError: bad game link: move 2 ('b2'): ...
        """
        game, _, start = text.strip().partition(";")
        variant, colon, moves = game.partition(":")
        if not colon or not variant.strip():
            raise InvalidRecordError(f"bad game link: expected {LINK_FORM}")
        names = [m.strip() for m in moves.split(",")] if moves.strip() else []
        if "" in names:
            raise InvalidRecordError(f"bad game link: move {names.index('') + 1} is empty")
        try:
            return GameRecord.from_moves(variant.strip(), names, start=start.strip() or None)
        except TicTacToeError as err:
            raise InvalidRecordError(
                f"bad game link: {str(err).removeprefix('bad record: ')}") from None
