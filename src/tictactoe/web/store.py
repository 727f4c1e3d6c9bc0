"""Game records in SQLite: one row per game, every change one transaction, none half-saved.

A game is found by its secret id (``secrets.token_urlsafe``); the history shows only a public
record number, so one browser cannot change another's game. Each game has a change counter,
``ply``: `GameStore.change` writes only if the caller read the current one (compare and
swap), so of two changes made from the same state, the second is refused with
`StalePlyError` instead of silently overwriting the first.

>>> store = GameStore(":memory:")
>>> game_id, stored = store.create(GameRecord.from_moves("3x3", ["b2"]))
>>> len(game_id) >= 20, stored.record.moves, stored.ply
(True, ('b2',), 0)
>>> store.change(game_id, 0, GameRecord.from_moves("3x3", ["b2", "a1"])).ply
1
>>> store.change(game_id, 0, GameRecord.from_moves("3x3", ["b2", "c3"]))
Traceback (most recent call last):
...
tictactoe.web.store.StalePlyError: this game has changed since ply 0 (it is at ply 1)

The store opens its file on first use and reopens it after a failure, so a server whose data
folder is read-only, damaged or full keeps running: each game request then fails with
`StorageUnavailableError` (the API answers 503), and everything else works.

>>> broken = GameStore(Path("/dev/null/no-folder") / DATABASE_NAME)
>>> broken.finished()
Traceback (most recent call last):
...
tictactoe.web.store.StorageUnavailableError: game storage is unavailable: the data folder \
cannot be created or written
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tictactoe.core.errors import TicTacToeError
from tictactoe.core.record import GameRecord

log = logging.getLogger("tictactoe.web")

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

_ADDED_COLUMNS = (
    ("ply", "INTEGER NOT NULL DEFAULT 0"),
    ("undone", "TEXT NOT NULL DEFAULT '[]'"),
    ("seed", "INTEGER NOT NULL DEFAULT 0"),
    ("browser", "TEXT"),
)
"""Columns added since the first version of the table, with their defaults: a data folder
from an older version gains them when it is opened, and its games keep working."""

_COLUMNS = ("number, token, variant, start, players, moves, result, started, finished, ply, "
            "undone, seed, browser")


class GameNotFoundError(TicTacToeError):
    """No game has this id."""


class GameConflictError(TicTacToeError):
    """The request does not fit the game as it stands; `current` is how it stands."""

    def __init__(self, message: str, current: StoredGame | None = None) -> None:
        super().__init__(message)
        self.current = current


class GameFinishedError(GameConflictError):
    """The game is over and its record can no longer change."""


class StalePlyError(GameConflictError):
    """The game changed since the state the request was made from."""


class StorageUnavailableError(RuntimeError):
    """The games cannot be read or written (the message says why); the rest of the app works."""


@dataclass(frozen=True)
class StoredGame:
    """A record with its public number, and the server's side of the game: its secret id,
    change counter, the moves undone (the next to redo first), seed and browser."""

    number: int
    record: GameRecord
    token: str = ""
    ply: int = 0
    undone: tuple[str, ...] = ()
    seed: int = 0
    browser: str | None = field(default=None, repr=False)


def data_dir(option: str | None = None) -> Path:
    """The data folder: the option if given, else ``$TICTACTOE_DATA``, else ``./data``.

    >>> data_dir("games").name
    'games'
    """
    return Path(option or os.environ.get(DATA_ENV) or DEFAULT_DATA)


def describe_storage_error(err: BaseException) -> str:
    """A plain reason for a storage failure, without paths or tracebacks.

    >>> describe_storage_error(sqlite3.OperationalError("database or disk is full"))
    'the disk that holds the data folder is full'
    """
    text = str(err).lower()
    if "full" in text or getattr(err, "errno", None) == 28:
        return "the disk that holds the data folder is full"
    if "readonly" in text or "read-only" in text or "unable to open" in text \
            or isinstance(err, OSError):
        return "the data folder cannot be created or written"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return "the game file is damaged (not a readable SQLite database)"
    if "disk i/o" in text:
        return "the disk refused a write (input/output error)"
    if "locked" in text or "busy" in text:
        return "the game file is locked by another program"
    return f"database error ({type(err).__name__})"


class GameStore:
    """The games table of one SQLite file (or ``:memory:``), safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    @staticmethod
    def in_folder(folder: str | Path) -> GameStore:
        """The store in a data folder, created on first use."""
        return GameStore(Path(folder) / DATABASE_NAME)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def check(self) -> None:
        """Open the file now; raise `StorageUnavailableError` if it cannot be used."""
        with self._using():
            pass

    def _open(self) -> sqlite3.Connection:
        memory = self.path == ":memory:"
        if not memory:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            if not memory:
                db.execute("PRAGMA journal_mode=WAL")
            # With the write-ahead log, NORMAL keeps every committed change through a crash
            # of the server process (SIGKILL included); only a power cut may lose the last.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=200")  # another program's lock: wait a little
            db.executescript(_SCHEMA)
            present = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            for name, kind in _ADDED_COLUMNS:
                if name not in present:
                    db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")
            db.execute("CREATE INDEX IF NOT EXISTS games_browser ON games (browser, finished)")
        except BaseException:
            db.close()
            raise
        return db

    @contextlib.contextmanager
    def _using(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock; storage failures become `StorageUnavailableError`
        (and a damaged file is reopened on the next use)."""
        with self._lock:
            try:
                if self._db is None:
                    self._db = self._open()
                yield self._db
            except (sqlite3.Error, OSError) as err:
                reason = describe_storage_error(err)
                log.warning("game storage: %s (%s: %s)", reason, type(err).__name__, err)
                if not isinstance(err, sqlite3.IntegrityError) and self._db is not None:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.close()
                    self._db = None
                raise StorageUnavailableError(f"game storage is unavailable: {reason}") \
                    from None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: committed whole, or rolled back whole."""
        with self._using() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def create(self, record: GameRecord, *, undone: tuple[str, ...] = (), seed: int = 0,
               browser: str | None = None) -> tuple[str, StoredGame]:
        """Save a new game; return its secret id and the stored game."""
        token = secrets.token_urlsafe(24)
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO games (token, variant, start, players, moves, result, started,"
                " finished, ply, undone, seed, browser)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
                (token, record.variant, record.start, json.dumps(record.players),
                 json.dumps(list(record.moves)), record.result, record.started,
                 record.finished, json.dumps(list(undone)), seed, browser))
            number = int(cursor.lastrowid or 0)
        return token, StoredGame(number, record, token, 0, tuple(undone), seed, browser)

    def get(self, token: str) -> GameRecord:
        """The game with this secret id."""
        return self.get_stored(token).record

    def get_stored(self, token: str) -> StoredGame:
        with self._using() as db:
            return _get(db, token)

    def change(self, token: str, ply: int, record: GameRecord,
               undone: tuple[str, ...] = ()) -> StoredGame:
        """Replace a game's moves, result and undone moves, if the game is still at change
        ``ply`` and not finished; the counter then goes up by one. Raises `StalePlyError` or
        `GameFinishedError` (with the game as it stands) otherwise."""
        with self._transaction() as db:
            current = _get(db, token)
            if (current.record.variant, current.record.start) != (record.variant, record.start):
                raise GameConflictError("a game's variant and start cannot change", current)
            if current.ply != ply:
                raise StalePlyError(
                    f"this game has changed since ply {ply} (it is at ply {current.ply})",
                    current)
            if current.record.result is not None:
                raise GameFinishedError(
                    "this game is over and saved; start a new game to play on", current)
            db.execute(
                "UPDATE games SET moves = ?, result = ?, finished = ?, undone = ?,"
                " ply = ply + 1 WHERE token = ?",
                (json.dumps(list(record.moves)), record.result, record.finished,
                 json.dumps(list(undone)), token))
            return _get(db, token)

    def finished(self, limit: int = 100, browser: str | None = None) -> list[StoredGame]:
        """The most recently finished games, newest first (of one browser, if given)."""
        where = "result IS NOT NULL" + ("" if browser is None else " AND browser = ?")
        with self._using() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM games WHERE {where}"
                " ORDER BY finished DESC, number DESC LIMIT ?",
                (limit,) if browser is None else (browser, limit)).fetchall()
        return [_stored(row) for row in rows]

    def results_by_opponent(self, browser: str | None = None) -> dict[str, tuple[int, int, int]]:
        """For finished games of a human against the computer from the empty board (of one
        browser, if given): (human wins, draws, human losses) for each computer opponent.
        A game started from a set position is left out: it says little about the level."""
        where = "result IS NOT NULL AND start IS NULL" + \
            ("" if browser is None else " AND browser = ?")
        with self._using() as db:
            rows = db.execute(f"SELECT players, result FROM games WHERE {where}",
                              () if browser is None else (browser,)).fetchall()
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


def _get(db: sqlite3.Connection, token: str) -> StoredGame:
    row = db.execute(f"SELECT {_COLUMNS} FROM games WHERE token = ?", (token,)).fetchone()
    if row is None:
        raise GameNotFoundError("no game has this id")
    return _stored(row)


def _stored(row: tuple[object, ...]) -> StoredGame:
    number, token, variant, start, players, moves, result, started, finished, ply, undone, \
        seed, browser = row
    record = GameRecord(
        variant=str(variant), moves=tuple(json.loads(str(moves))),
        start=None if start is None else str(start), players=json.loads(str(players)),
        result=None if result is None else str(result), started=str(started),
        finished=None if finished is None else str(finished))
    return StoredGame(int(str(number)), record, str(token), int(str(ply)),
                      tuple(json.loads(str(undone))), int(str(seed)),
                      None if browser is None else str(browser))


__all__ = ["DATABASE_NAME", "GameConflictError", "GameFinishedError", "GameNotFoundError",
           "GameStore", "StalePlyError", "StorageUnavailableError", "StoredGame", "data_dir"]
