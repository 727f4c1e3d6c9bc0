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

A finished game never changes. Undo there continues it in a new game (`continue_game`), at
most one per finished game, so the same request again gets the same continuation. A
continuation never hides the game it continues: the history lists both, each as it ended,
and counts the first result of each line of play only (a continuation took moves back).

>>> done = GameRecord.from_moves("3x3", ["a1", "b1", "b2", "c1", "c3"],
...                              players={"x": "human", "o": "easy"})
>>> token, _ = store.create(done)
>>> store.results_by_opponent()
{'easy': (1, 0, 0)}
>>> fork, made = store.continue_game(token, 0, GameRecord.from_moves(
...     "3x3", ["a1", "b1", "b2", "c1"], players=done.players), ("c3",))
>>> again, made_again = store.continue_game(token, 0, fork.record, ("c3",))
>>> made, made_again, again.token == fork.token
(True, False, True)
>>> draw = GameRecord.from_moves("3x3", ["a1", "b1", "b2", "c1", "c2", "c3", "a3", "a2", "b3"],
...                              players=done.players)
>>> _ = store.change(fork.token, 0, draw)
>>> store.results_by_opponent(), [g.record.result for g in store.finished()]
({'easy': (1, 0, 0)}, ['draw', 'x'])

The human's results against each computer opponent (`results_by_opponent`) are kept in a
table of their own, updated in the transaction that finishes a game, so the history reads a
few rows however many games there are.

The store opens its file on first use and reopens it after a failure, so a server whose data
folder is read-only, damaged or full keeps running: each game request then fails with
`StorageUnavailableError` (the API answers 503), and everything else works. One row that
cannot be read (a damaged or hand-edited file) is left out of the lists, and reading that
game raises `DamagedRecordError`, logged once; the other games work.

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
from collections.abc import Iterable, Iterator
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
    ("continues", "INTEGER"),
    ("continued_by", "TEXT"),
    ("superseded", "INTEGER NOT NULL DEFAULT 0"),
)
"""Columns added since the first version of the table, with their defaults: a data folder
from an older version gains them when it is opened, and its games keep working.
``continues``: the number of the finished game this one continues (made by undo);
``continued_by``: the secret id of the game that continues this finished one;
``superseded``: no longer used (an earlier version hid a game whose continuation had
finished, and counted the continuation instead): a file with such games gets it set back to
0 and its results counted afresh when it is opened."""

_COLUMNS = ("number, token, variant, start, players, moves, result, started, finished, ply, "
            "undone, seed, browser, continues, continued_by")

_RESULTS_TABLE = """
CREATE TABLE results (
    browser  TEXT NOT NULL,
    variant  TEXT NOT NULL,
    opponent TEXT NOT NULL,
    wins     INTEGER NOT NULL DEFAULT 0,
    draws    INTEGER NOT NULL DEFAULT 0,
    losses   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (browser, variant, opponent)
) WITHOUT ROWID
"""
"""The human's wins, draws and losses against each computer opponent on each board, in the
games the history counts (finished, from the empty board, not a continuation made by undo,
one human against the computer): one row per board and opponent for every browser id, and
one with browser `EVERYONE`. A results table from before the boards were counted apart
(without ``variant``) is counted afresh when the file is opened."""

EVERYONE = ""
"""The ``browser`` of the results rows that count every game on the server (a browser id has
at least 8 characters)."""

_LISTED = "finished IS NOT NULL AND result IS NOT NULL"
"""The games the history lists: every finished game (a continuation hides none)."""

_COUNTED = _LISTED + " AND start IS NULL AND continues IS NULL"
"""The games whose results the history counts (if one human played the computer): from the
empty board, and not a continuation (which took moves back, as a set position would)."""


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


class DamagedRecordError(StorageUnavailableError):
    """One game's stored row cannot be read (the file was damaged or edited by hand); the
    other games work."""

    def __init__(self, number: int, reason: str) -> None:
        super().__init__(f"damaged record: game {number} cannot be read ({reason}); "
                         "the other games work")
        self.number = number


class _Unreadable(ValueError):
    """A stored field is not what the store wrote (the message says which)."""


@dataclass(frozen=True)
class StoredGame:
    """A record with its public number, and the server's side of the game: its secret id,
    change counter, the moves undone (the next to redo first), seed and browser; the number
    of the finished game it continues, and the secret id of the game that continues it."""

    number: int
    record: GameRecord
    token: str = ""
    ply: int = 0
    undone: tuple[str, ...] = ()
    seed: int = 0
    browser: str | None = field(default=None, repr=False)
    continues: int | None = None
    continued_by: str | None = field(default=None, repr=False)


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
        self._damaged: set[int] = set()
        """The numbers of the damaged rows already logged (each is logged once)."""

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
            # a new file, one from before the results table, or one from when a finished
            # continuation hid its game
            if not _has_results(db) or _has_superseded(db):
                db.execute("BEGIN IMMEDIATE")
                try:
                    if not _has_results(db):  # another process may have made it meanwhile
                        db.execute("DROP TABLE IF EXISTS results")  # one without the boards
                        db.execute(_RESULTS_TABLE)
                        self._recount_into(db)
                    elif _has_superseded(db):  # counted when continuations hid their games
                        db.execute("UPDATE games SET superseded = 0 WHERE superseded != 0")
                        db.execute("DELETE FROM results")
                        self._recount_into(db)
                    db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                    raise
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
        with self._transaction() as db:
            stored = _insert(db, record, undone, seed, browser)
        return stored.token, stored

    def get(self, token: str) -> GameRecord:
        """The game with this secret id."""
        return self.get_stored(token).record

    def get_stored(self, token: str) -> StoredGame:
        """The game with this secret id; `GameNotFoundError` if there is none,
        `DamagedRecordError` if its row cannot be read."""
        with self._using() as db:
            return self._get(db, token)

    def change(self, token: str, ply: int, record: GameRecord,
               undone: tuple[str, ...] = ()) -> StoredGame:
        """Replace a game's moves, result and undone moves, if the game is still at change
        ``ply`` and not finished; the counter then goes up by one. Raises `StalePlyError` or
        `GameFinishedError` (with the game as it stands) otherwise. A change that finishes
        the game counts its result (unless the game is a continuation)."""
        with self._transaction() as db:
            current = self._get(db, token)
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
            if record.result is not None:
                _finished(db, record, current.browser, current.continues)
            return self._get(db, token)

    def continue_game(self, token: str, ply: int, record: GameRecord,
                      undone: tuple[str, ...]) -> tuple[StoredGame, bool]:
        """The game that continues the finished game ``token`` (at change ``ply``) from
        ``record``, with ``undone`` to redo; and whether it was made now. A finished game has
        one continuation at most: the same request again (a finished game's ply never
        changes) gets the same game, as it stands now. Raises `StalePlyError` for another
        ply and `GameConflictError` for a game that is not over."""
        with self._transaction() as db:
            current = self._get(db, token)
            if current.ply != ply:
                raise StalePlyError(
                    f"this game has changed since ply {ply} (it is at ply {current.ply})",
                    current)
            if current.record.result is None:
                raise GameConflictError("this game is not over: undo takes moves back in it",
                                        current)
            if current.continued_by is not None:
                return self._get(db, current.continued_by), False
            stored = _insert(db, record, undone, current.seed, current.browser,
                             continues=current.number)
            db.execute("UPDATE games SET continued_by = ? WHERE number = ?",
                       (stored.token, current.number))
            return stored, True

    def finished(self, limit: int = 100, browser: str | None = None) -> list[StoredGame]:
        """The most recently finished games, newest first (of one browser, if given): every
        one, a continuation beside the game it continues. A row that cannot be read is left
        out (and logged once)."""
        where = _LISTED + ("" if browser is None else " AND browser = ?")
        games: list[StoredGame] = []
        with self._using() as db:
            # the index on (finished) gives the rows in order: only those shown are read
            rows = db.execute(f"SELECT {_COLUMNS} FROM games WHERE {where}"
                              " ORDER BY finished DESC, number DESC",
                              () if browser is None else (browser,))
            for row in rows:
                try:
                    games.append(self._stored(row))
                except DamagedRecordError:
                    continue
                if len(games) >= limit:
                    break
            rows.close()
        return games

    def unfinished(self, browser: str, limit: int = 100) -> list[StoredGame]:
        """One browser's games that are not over and in which a human has moved (a game
        left before any human move holds nothing to resume), the most recently started
        first. A row that cannot be read is left out (and logged once)."""
        games: list[StoredGame] = []
        with self._using() as db:
            # a game with no move at all (left at once: most of those not resumable) is
            # skipped by SQLite, without reading its record
            rows = db.execute(f"SELECT {_COLUMNS} FROM games WHERE browser = ?"
                              " AND finished IS NULL AND result IS NULL AND moves != ?"
                              " ORDER BY number DESC", (browser, json.dumps([])))
            for row in rows:
                try:
                    stored = self._stored(row)
                except DamagedRecordError:
                    continue
                if _human_moved(stored.record):
                    games.append(stored)
                    if len(games) >= limit:
                        break
            rows.close()
        return games

    def results_by_opponent(self, browser: str | None = None) -> dict[str, tuple[int, int, int]]:
        """For the games the history counts that a human played against the computer from
        the empty board (of one browser, if given): (human wins, draws, human losses) for
        each computer opponent, every board together. A game started from a set position is
        left out: it says little about the level. Read from the results table: a few rows."""
        return every_board(self.results_by_board(browser))

    def results_by_board(self, browser: str | None = None
                         ) -> dict[str, dict[str, tuple[int, int, int]]]:
        """`results_by_opponent` for each board apart: {board: {opponent: (human wins,
        draws, human losses)}}, the boards in order of their names."""
        with self._using() as db:
            rows = db.execute(
                "SELECT variant, opponent, wins, draws, losses FROM results WHERE browser = ?"
                " AND wins + draws + losses > 0 ORDER BY variant, opponent",
                (EVERYONE if browser is None else browser,)).fetchall()
        boards: dict[str, dict[str, tuple[int, int, int]]] = {}
        for variant, name, w, d, lost in rows:
            boards.setdefault(str(variant), {})[str(name)] = (int(w), int(d), int(lost))
        return boards

    def recount_by_board(self, browser: str | None = None
                         ) -> dict[str, dict[str, tuple[int, int, int]]]:
        """`results_by_board` counted afresh from the games' rows (every finished game is
        read: for checks, not for requests)."""
        with self._using() as db:
            tally = _recount(db)
        key = EVERYONE if browser is None else browser
        boards: dict[str, dict[str, tuple[int, int, int]]] = {}
        for (who, variant, name), c in sorted(tally.items()):
            if who == key and any(c):
                boards.setdefault(variant, {})[name] = (c[0], c[1], c[2])
        return boards

    def recount_by_opponent(self, browser: str | None = None
                            ) -> dict[str, tuple[int, int, int]]:
        """`results_by_opponent` counted afresh from the games' rows."""
        return every_board(self.recount_by_board(browser))

    def rebuild_results(self) -> None:
        """Count the results table afresh from the games' rows (after games were written
        into the file by other means)."""
        with self._transaction() as db:
            db.execute("DELETE FROM results")
            self._recount_into(db)

    def damaged(self, number: int, reason: str) -> DamagedRecordError:
        """The error for game ``number``, whose row cannot be read or replayed; logged the
        first time only, so a client that keeps asking does not fill the log."""
        error = DamagedRecordError(number, reason)
        if number not in self._damaged:
            self._damaged.add(number)
            log.error("game storage: %s", error)
        return error

    # ------------------------------------------------------------- rows
    def _get(self, db: sqlite3.Connection, token: str) -> StoredGame:
        row = db.execute(f"SELECT {_COLUMNS} FROM games WHERE token = ?", (token,)).fetchone()
        if row is None:
            raise GameNotFoundError("no game has this id")
        return self._stored(row)

    def _stored(self, row: tuple[object, ...]) -> StoredGame:
        try:
            return _stored(row)
        except _Unreadable as err:
            raise self.damaged(int(str(row[0])), str(err)) from None

    def _recount_into(self, db: sqlite3.Connection) -> None:
        for (browser, variant, opponent), (wins, draws, losses) in _recount(db).items():
            db.execute("INSERT INTO results (browser, variant, opponent, wins, draws, losses)"
                       " VALUES (?, ?, ?, ?, ?, ?)",
                       (browser, variant, opponent, wins, draws, losses))


def every_board(boards: dict[str, dict[str, tuple[int, int, int]]]
                ) -> dict[str, tuple[int, int, int]]:
    """Results for each board (as `GameStore.results_by_board` gives them) added up for
    each opponent.

    >>> every_board({"3x3": {"easy": (1, 0, 2)}, "4x4": {"easy": (0, 1, 0), "hard": (0, 0, 1)}})
    {'easy': (1, 1, 2), 'hard': (0, 0, 1)}
    """
    totals: dict[str, tuple[int, int, int]] = {}
    for counts in boards.values():
        for name, (w, d, lost) in counts.items():
            before = totals.get(name, (0, 0, 0))
            totals[name] = (before[0] + w, before[1] + d, before[2] + lost)
    return dict(sorted(totals.items()))


def _has_superseded(db: sqlite3.Connection) -> bool:
    """Whether a game is marked superseded (by an earlier version, which then left it out of
    the history and counted its continuation instead)."""
    return db.execute("SELECT 1 FROM games WHERE superseded != 0 LIMIT 1").fetchone() is not None


def _has_results(db: sqlite3.Connection) -> bool:
    """Whether the file has the results table, with its results counted for each board."""
    return any(row[1] == "variant" for row in db.execute("PRAGMA table_info(results)"))


def _insert(db: sqlite3.Connection, record: GameRecord, undone: tuple[str, ...], seed: int,
            browser: str | None, continues: int | None = None) -> StoredGame:
    """Add a game's row (in the caller's transaction), counting its result if it is over."""
    token = secrets.token_urlsafe(24)
    cursor = db.execute(
        "INSERT INTO games (token, variant, start, players, moves, result, started,"
        " finished, ply, undone, seed, browser, continues)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)",
        (token, record.variant, record.start, json.dumps(record.players),
         json.dumps(list(record.moves)), record.result, record.started,
         record.finished, json.dumps(list(undone)), seed, browser, continues))
    if record.result is not None:
        _finished(db, record, browser, continues)
    return StoredGame(int(cursor.lastrowid or 0), record, token, 0, tuple(undone), seed,
                      browser, continues)


def _finished(db: sqlite3.Connection, record: GameRecord, browser: str | None,
              continues: int | None) -> None:
    """A game has just finished with ``record``: count its result, unless it continues a
    finished game (that one stays counted as it ended)."""
    if continues is None:
        _count(db, record.variant, record.players, record.result, record.start, browser, 1)


def _count(db: sqlite3.Connection, variant: str, players: object, result: object,
           start: object, browser: str | None, sign: int) -> None:
    """Add ``sign`` to the results rows (every game's, and the browser's) of one game."""
    tally = None if start is not None else _tally(players, result)
    if tally is None:
        return
    opponent, column = tally
    delta = [0, 0, 0]
    delta[column] = sign
    for key in (EVERYONE,) if browser is None else (EVERYONE, browser):
        db.execute(
            "INSERT INTO results (browser, variant, opponent, wins, draws, losses)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (browser, variant, opponent) DO UPDATE SET"
            " wins = wins + excluded.wins, draws = draws + excluded.draws,"
            " losses = losses + excluded.losses", (key, variant, opponent, *delta))


def _tally(players: object, result: object) -> tuple[str, int] | None:
    """The computer opponent of a finished game between one human and the computer, and
    the human's result (0 a win, 1 a draw, 2 a loss); None for any other game.

    >>> _tally({"x": "human", "o": "easy"}, "o"), _tally({"x": "human", "o": "human"}, "x")
    (('easy', 2), None)
    """
    if not isinstance(players, dict) or result not in ("x", "o", "draw"):
        return None
    humans = [side for side in ("x", "o") if players.get(side) == "human"]
    if len(humans) != 1:
        return None
    human = humans[0]
    opponent = players.get("o" if human == "x" else "x", "?")
    return str(opponent), 0 if result == human else 1 if result == "draw" else 2


def _human_moved(record: GameRecord) -> bool:
    """Whether a human has made one of the game's moves.

    >>> _human_moved(GameRecord.from_moves("3x3", ["b2"], players={"x": "easy", "o": "human"}))
    False
    >>> _human_moved(GameRecord.from_moves("3x3", ["b2", "a1"],
    ...                                    players={"x": "easy", "o": "human"}))
    True
    """
    first = record.start.split()[-1].lower() if record.start else "x"
    second = "o" if first == "x" else "x"
    return any(record.players.get(first if i % 2 == 0 else second) == "human"
               for i in range(len(record.moves)))


def _recount(db: sqlite3.Connection) -> dict[tuple[str, str, str], list[int]]:
    """The results table's rows, counted from the games (a row that cannot be read is left
    out), by (browser, board, opponent)."""
    rows: Iterable[tuple[object, ...]] = db.execute(
        f"SELECT players, result, browser, variant FROM games WHERE {_COUNTED}")
    tally: dict[tuple[str, str, str], list[int]] = {}
    for players_json, result, browser, variant in rows:
        try:
            players = json.loads(str(players_json))
        except ValueError:
            continue
        found = _tally(players, result)
        if found is None:
            continue
        opponent, column = found
        for key in (EVERYONE,) if browser is None else (EVERYONE, str(browser)):
            tally.setdefault((key, str(variant), opponent), [0, 0, 0])[column] += 1
    return tally


def _stored(row: tuple[object, ...]) -> StoredGame:
    """A row as a stored game; `_Unreadable` if a field is not what the store writes."""
    number, token, variant, start, players, moves, result, started, finished, ply, undone, \
        seed, browser, continues, continued_by = row
    players = _json(players, "players")
    if not isinstance(players, dict) or not all(
            isinstance(side, str) and isinstance(name, str) for side, name in players.items()):
        raise _Unreadable("its players are not a map of sides to names")
    if result not in (None, "x", "o", "draw"):
        raise _Unreadable(f"its result is {result!r}")
    if not isinstance(variant, str) or not isinstance(started, str) or not isinstance(
            ply, int) or not isinstance(seed, int):
        raise _Unreadable("a field has the wrong type")
    record = GameRecord(
        variant=variant, moves=_names(moves, "moves"), start=None if start is None else str(start),
        players=players, result=None if result is None else str(result), started=started,
        finished=None if finished is None else str(finished))
    return StoredGame(int(str(number)), record, str(token), ply, _names(undone, "undone moves"),
                      seed, None if browser is None else str(browser),
                      None if continues is None else int(str(continues)),
                      None if continued_by is None else str(continued_by))


def _json(text: object, what: str) -> object:
    try:
        return json.loads(str(text))
    except ValueError:
        raise _Unreadable(f"its {what} are not valid JSON") from None


def _names(text: object, what: str) -> tuple[str, ...]:
    names = _json(text, what)
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise _Unreadable(f"its {what} are not a list of move names")
    return tuple(names)


__all__ = ["DATABASE_NAME", "EVERYONE", "DamagedRecordError", "GameConflictError",
           "GameFinishedError", "GameNotFoundError", "GameStore", "StalePlyError",
           "StorageUnavailableError", "StoredGame", "data_dir"]
