"""Read the browser app's game history (SQLite) without starting or importing the web app.

The browser app keeps its games in ``<data>/games.sqlite3``, table ``games``, one row per game:
``number`` (public record number), ``variant``, ``start`` (position string or NULL), ``players``
(JSON object ``{"x": ..., "o": ...}``), ``moves`` (JSON list of ``b2``-form moves), ``result``
(``x``, ``o``, ``draw`` or NULL while the game goes on), ``started`` and ``finished`` (ISO
times). The data folder is ``--data``, else ``$TICTACTOE_DATA``, else ``./data``. This reader
opens the file read-only and never creates it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from tictactoe.core.errors import TicTacToeError
from tictactoe.core.record import GameRecord

DATA_ENV = "TICTACTOE_DATA"
DEFAULT_DATA = "data"
DATABASE_NAME = "games.sqlite3"


class HistoryError(TicTacToeError):
    """The history database cannot be read."""


@dataclass(frozen=True)
class HistoryEntry:
    """One stored game: its public number and its record."""

    number: int
    record: GameRecord


def database_path(data: str | Path | None = None) -> Path:
    """The history file in the data folder: ``--data``, else ``$TICTACTOE_DATA``, else ``data``.

    >>> database_path("saved").as_posix()
    'saved/games.sqlite3'
    """
    folder = Path(data) if data else Path(os.environ.get(DATA_ENV) or DEFAULT_DATA)
    return folder / DATABASE_NAME


def read_history(path: Path, *, limit: int | None = None,
                 finished_only: bool = False) -> list[HistoryEntry]:
    """The games in a history file, newest first. Raises `HistoryError` if it cannot be read.

    >>> read_history(Path("no-such-folder") / DATABASE_NAME)
    Traceback (most recent call last):
    ...
    tictactoe.tui.history.HistoryError: no game history at no-such-folder/games.sqlite3
    """
    if not path.is_file():
        raise HistoryError(f"no game history at {path.as_posix()}")
    query = ("SELECT number, variant, start, players, moves, result, started, finished"
             " FROM games" + (" WHERE result IS NOT NULL" if finished_only else "")
             + " ORDER BY number DESC" + (" LIMIT ?" if limit is not None else ""))
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            rows = db.execute(query, () if limit is None else (limit,)).fetchall()
        finally:
            db.close()
    except sqlite3.Error as err:
        raise HistoryError(f"cannot read the game history {path.as_posix()}: {err}") from None
    entries = []
    for number, variant, start, players, moves, result, started, finished in rows:
        try:
            record = GameRecord(
                variant=str(variant), moves=tuple(json.loads(moves)), start=start,
                players=dict(json.loads(players)), result=result, started=str(started or ""),
                finished=finished)
        except (TypeError, ValueError) as err:
            raise HistoryError(f"game {number} in {path.as_posix()} is malformed: {err}") from None
        entries.append(HistoryEntry(int(number), record))
    return entries
