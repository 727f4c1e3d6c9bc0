"""Game records in SQLite: one row per game, written in a transaction so none is half-saved.

A game is found by its secret id (``secrets.token_urlsafe``); the history shows only a public
record number, so one browser cannot change another's game.

>>> store = GameStore(":memory:")
>>> game_id, record = store.create(GameRecord.from_moves("3x3", ["b2"]))
>>> len(game_id) >= 20, store.get(game_id).moves
(True, ('b2',))
>>> store.update(game_id, GameRecord.from_moves("3x3", ["b2", "a1"])).record.moves
('b2', 'a1')
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from tictactoe.core.errors import TicTacToeError
from tictactoe.core.record import GameRecord

DATA_ENV = "TICTACTOE_DATA"
"""Environment variable naming the data folder (``--data`` wins over it)."""

DEFAULT_DATA = "data"
"""The data folder when neither ``--data`` nor the environment names one: ``./data``."""

DATABASE_NAME = "games.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    number   INTEGER PRIMARY KEY AUTOINCREMENT,
    token    TEXT NOT NULL UNIQUE,
    variant  TEXT NOT NULL,
    start    TEXT,
    players  TEXT NOT NULL,
    moves    TEXT NOT NULL,
    result   TEXT,
    started  TEXT NOT NULL,
    finished TEXT
);
CREATE INDEX IF NOT EXISTS games_finished ON games (finished);
"""


class GameNotFoundError(TicTacToeError):
    """No game has this id."""


class GameFinishedError(TicTacToeError):
    """The game is over and its record can no longer change."""


@dataclass(frozen=True)
class StoredGame:
    """A record with its public number."""

    number: int
    record: GameRecord


def data_dir(option: str | None = None) -> Path:
    """The data folder: the option if given, else ``$TICTACTOE_DATA``, else ``./data``.

    >>> data_dir("games").name
    'games'
    """
    return Path(option or os.environ.get(DATA_ENV) or DEFAULT_DATA)


class GameStore:
    """The games table of one SQLite file (or ``:memory:``), safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        with self._lock:
            if str(path) != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)

    @staticmethod
    def in_folder(folder: str | Path) -> GameStore:
        """The store in a data folder, created if needed."""
        return GameStore(Path(folder) / DATABASE_NAME)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def create(self, record: GameRecord) -> tuple[str, StoredGame]:
        """Save a new game; return its secret id and the stored game."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(
                    "INSERT INTO games (token, variant, start, players, moves, result, started,"
                    " finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (token, record.variant, record.start, json.dumps(record.players),
                     json.dumps(list(record.moves)), record.result, record.started,
                     record.finished))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return token, StoredGame(int(cursor.lastrowid or 0), record)

    def get(self, token: str) -> GameRecord:
        """The game with this secret id."""
        return self.get_stored(token).record

    def get_stored(self, token: str) -> StoredGame:
        with self._lock:
            return self._get_unlocked(token)

    def _get_unlocked(self, token: str) -> StoredGame:
        row = self._db.execute(
            "SELECT number, variant, start, players, moves, result, started, finished"
            " FROM games WHERE token = ?", (token,)).fetchone()
        if row is None:
            raise GameNotFoundError("no game has this id")
        return _stored(row)

    def update(self, token: str, record: GameRecord) -> StoredGame:
        """Replace a game's moves (and result). A finished game cannot change."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT variant, start, moves, result FROM games WHERE token = ?",
                    (token,)).fetchone()
                if row is None:
                    raise GameNotFoundError("no game has this id")
                variant, start, moves, result = row
                if (variant, start) != (record.variant, record.start):
                    raise GameFinishedError("a game's variant and start cannot change")
                if result is not None:
                    if json.loads(moves) != list(record.moves):
                        raise GameFinishedError(
                            "this game is over and saved; start a new game to play on")
                    self._db.execute("COMMIT")  # saving the same finished game again: no change
                    return self._get_unlocked(token)
                self._db.execute(
                    "UPDATE games SET players = ?, moves = ?, result = ?, finished = ?"
                    " WHERE token = ?",
                    (json.dumps(record.players), json.dumps(list(record.moves)),
                     record.result, record.finished, token))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return self._get_unlocked(token)

    def finished(self, limit: int = 100) -> list[StoredGame]:
        """The most recently finished games, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT number, variant, start, players, moves, result, started, finished"
                " FROM games WHERE result IS NOT NULL ORDER BY finished DESC, number DESC"
                " LIMIT ?", (limit,)).fetchall()
        return [_stored(row) for row in rows]

    def results_by_opponent(self) -> dict[str, tuple[int, int, int]]:
        """For games of a human against the computer: (human wins, draws, human losses)
        for each computer opponent."""
        with self._lock:
            rows = self._db.execute(
                "SELECT players, result FROM games WHERE result IS NOT NULL").fetchall()
        tally: dict[str, list[int]] = {}
        for players_json, result in rows:
            players = json.loads(players_json)
            humans = [side for side in ("x", "o") if players.get(side) == "human"]
            if len(humans) != 1:
                continue
            human = humans[0]
            opponent = players.get("o" if human == "x" else "x", "?")
            counts = tally.setdefault(opponent, [0, 0, 0])
            counts[0 if result == human else 1 if result == "draw" else 2] += 1
        return {name: (c[0], c[1], c[2]) for name, c in tally.items()}


def _stored(row: tuple[object, ...]) -> StoredGame:
    number, variant, start, players, moves, result, started, finished = row
    record = GameRecord(
        variant=str(variant), moves=tuple(json.loads(str(moves))),
        start=None if start is None else str(start), players=json.loads(str(players)),
        result=None if result is None else str(result), started=str(started),
        finished=None if finished is None else str(finished))
    return StoredGame(int(str(number)), record)
