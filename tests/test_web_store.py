"""The game store on its own: the results the history counts are kept as games finish and
always equal a recount from the rows (and a model of lines of play, each counted once by its
first result, every finished game listed), one continuation per finished game even from two
servers at once, an old data folder gains its results table (and one whose continuations hid
their games lists them again), and the history stays fast with many games."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

from reliability import fill_history

from tictactoe.core.record import GameRecord
from tictactoe.web.app import create_app
from tictactoe.web.referee import Play, undo
from tictactoe.web.store import DATABASE_NAME, GameConflictError, GameStore

PLAYERS = ({"x": "human", "o": "easy"}, {"x": "perfect", "o": "human"},
           {"x": "human", "o": "human"}, {"x": "human", "o": "medium"})
BROWSERS = (None, "browser-one", "browser-two")
START = "3/1x1/3 o"
Tally = dict[str, tuple[int, int, int]]


def played_out(record: GameRecord, rng: random.Random) -> GameRecord:
    """The game after random moves to its end."""
    board = record.position()
    moves = list(record.moves)
    while not board.is_game_over():
        cell = rng.choice(board.legal_moves())
        moves.append(board.move_name(cell))
        board.push(cell)
    return GameRecord.from_moves(record.variant, moves, start=record.start,
                                 players=record.players, started=record.started)


def tally(lines: list[tuple[dict[str, str], str | None, str | None, str, str]],
          browser: str | None, board: str | None = None) -> Tally:
    """What the history should count: one result per line of play, its first (on one board,
    if given)."""
    counts: dict[str, list[int]] = {}
    for players, start, owner, result, variant in lines:
        humans = [side for side in ("x", "o") if players[side] == "human"]
        if start is not None or len(humans) != 1 or (browser is not None and owner != browser):
            continue
        if board is not None and variant != board:
            continue
        human = humans[0]
        row = counts.setdefault(players["o" if human == "x" else "x"], [0, 0, 0])
        row[0 if result == human else 1 if result == "draw" else 2] += 1
    return {name: (c[0], c[1], c[2]) for name, c in sorted(counts.items())}


LINE = st.tuples(st.integers(0, len(PLAYERS) - 1), st.booleans(), st.sampled_from(BROWSERS),
                 st.integers(0, 2**16), st.lists(st.sampled_from(["finish", "leave", "replay"]),
                                                 max_size=3), st.sampled_from(["3x3", "3x4"]))
"""A line of play: its players, whether it starts from a set position, its browser, the seed
of its random moves, and what follows the end: a continuation finished with random moves
(``replay``: after the same undo is sent twice), or one left unfinished."""


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(LINE, max_size=8))
def test_the_results_table_equals_a_recount(lines: list[tuple[int, bool, str | None, int,
                                                               list[str], str]]) -> None:
    store = GameStore(":memory:")
    expected = []
    finished: list[str | None] = []  # the browser of every finished game
    for players_at, from_start, browser, seed, after, board in lines:
        rng = random.Random(seed)
        players = PLAYERS[players_at]
        start = START if from_start else None
        variant = "3x3" if from_start else board
        first = played_out(GameRecord.from_moves(variant, [], start=start, players=players),
                           rng)
        token, game = store.create(first, seed=seed, browser=browser)
        finished.append(browser)
        for step in after:
            try:
                play, undone = undo(game, Play.of(game.record))
            except GameConflictError:  # no move of the human's to take back
                break
            fork, made = store.continue_game(token, game.ply, play.record, undone)
            assert made
            if step == "replay":
                assert store.continue_game(token, game.ply, play.record, undone) == (fork, False)
            if step == "leave":
                break
            token = fork.token
            game = store.change(token, fork.ply, played_out(fork.record, rng))
            finished.append(browser)
        assert first.result is not None
        expected.append((players, start, browser, first.result, variant))
    for browser in BROWSERS:
        counted = store.results_by_opponent(browser)
        assert counted == store.recount_by_opponent(browser) == tally(expected, browser)
        # and each board apart
        boards = store.results_by_board(browser)
        assert boards == store.recount_by_board(browser)
        for board in ("3x3", "3x4"):
            assert boards.get(board, {}) == tally(expected, browser, board)
        listed = store.finished(500, browser)
        assert len(listed) == sum(browser in (None, owner) for owner in finished)
    store.close()


def test_two_servers_continue_a_finished_game_once(tmp_path: Path) -> None:
    stores = [GameStore.in_folder(tmp_path) for _ in range(2)]  # two processes, one file
    done = GameRecord.from_moves("3x3", ["a1", "b1", "b2", "c1", "c3"],
                                 players={"x": "human", "o": "easy"})
    token, game = stores[0].create(done, browser="browser-one")
    play, undone = undo(game, Play.of(done))
    start = threading.Barrier(8)
    answers = []

    def continue_it(store: GameStore) -> None:
        start.wait()
        answers.append(store.continue_game(token, 0, play.record, undone))

    threads = [threading.Thread(target=continue_it, args=(stores[n % 2],)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({fork.token for fork, _ in answers}) == 1
    assert sorted(made for _, made in answers) == [False] * 7 + [True]
    fork = answers[0][0]
    stores[1].change(fork.token, 0, GameRecord.from_moves(
        "3x3", [*fork.record.moves, "c3"], players=done.players, started=done.started))
    for store in stores:
        assert store.results_by_opponent() == store.results_by_opponent("browser-one") == {
            "easy": (1, 0, 0)}
        assert [g.number for g in store.finished()] == [fork.number, game.number]
        store.close()
    db = sqlite3.connect(tmp_path / DATABASE_NAME)
    assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (2,)
    db.close()


def test_an_old_data_folder_gains_its_results_table(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / DATABASE_NAME)
    db.execute("CREATE TABLE games (number INTEGER PRIMARY KEY AUTOINCREMENT, token TEXT NOT "
               "NULL UNIQUE, variant TEXT NOT NULL, start TEXT, players TEXT NOT NULL, moves "
               "TEXT NOT NULL, result TEXT, started TEXT NOT NULL, finished TEXT, browser TEXT)")
    games = [(["a1", "b1", "b2", "c1", "c3"], {"x": "human", "o": "easy"}, "mine-1234"),
             (["a1", "b1", "b2", "c1", "c3"], {"x": "easy", "o": "human"}, None),
             (["a1", "b1", "b2", "c1", "c3"], {"x": "human", "o": "human"}, None),
             (["a1", "b1"], {"x": "human", "o": "easy"}, None)]
    for n, (moves, players, browser) in enumerate(games):
        record = GameRecord.from_moves("3x3", moves, players=players)
        db.execute("INSERT INTO games (token, variant, players, moves, result, started, "
                   "finished, browser) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (f"old-token-{n}-0123456789", record.variant, json.dumps(players),
                    json.dumps(moves), record.result, record.started, record.finished,
                    browser))
    db.execute("INSERT INTO games (token, variant, players, moves, result, started, finished) "
               "VALUES ('old-token-damaged', '3x3', '{\"x\": \"hu', '[]', 'x', '', 'now')")
    db.commit()
    db.close()
    store = GameStore.in_folder(tmp_path)
    assert store.results_by_opponent() == {"easy": (1, 0, 1)}
    assert store.results_by_opponent("mine-1234") == {"easy": (1, 0, 0)}
    assert len(store.finished()) == 3, "the damaged row is left out"
    store.close()


def test_a_results_table_without_the_boards_is_counted_again(tmp_path: Path) -> None:
    """A data folder from before the results were counted for each board: its results table
    (browser, opponent) is replaced by one counted afresh, board by board."""
    store = GameStore.in_folder(tmp_path)
    for variant, moves in (("3x3", ["a1", "b1", "b2", "c1", "c3"]),
                           ("4x4", ["a1", "a2", "b1", "b2", "c1", "c2", "d1"])):
        store.create(GameRecord.from_moves(variant, moves, players={"x": "human", "o": "easy"}),
                     browser="mine-1234")
    store.close()
    db = sqlite3.connect(tmp_path / DATABASE_NAME)
    db.execute("DROP TABLE results")
    db.execute("CREATE TABLE results (browser TEXT NOT NULL, opponent TEXT NOT NULL, wins "
               "INTEGER NOT NULL DEFAULT 0, draws INTEGER NOT NULL DEFAULT 0, losses INTEGER "
               "NOT NULL DEFAULT 0, PRIMARY KEY (browser, opponent)) WITHOUT ROWID")
    db.execute("INSERT INTO results VALUES ('', 'easy', 2, 0, 0)")
    db.commit()
    db.close()
    store = GameStore.in_folder(tmp_path)
    assert store.results_by_board("mine-1234") == store.results_by_board() == {
        "3x3": {"easy": (1, 0, 0)}, "4x4": {"easy": (1, 0, 0)}}
    assert store.results_by_opponent() == {"easy": (2, 0, 0)}
    store.close()


def test_games_hidden_by_their_continuations_are_listed_again(tmp_path: Path) -> None:
    """A data folder from when a finished continuation replaced its game in the history (the
    game marked superseded, the continuation's result counted): both are listed, and the
    results are counted afresh, by the first game's result."""
    store = GameStore.in_folder(tmp_path)
    players = {"x": "human", "o": "easy"}
    token, won = store.create(GameRecord.from_moves("3x3", ["a1", "b1", "b2", "c1", "c3"],
                                                    players=players), browser="mine-1234")
    fork, _ = store.continue_game(token, 0, GameRecord.from_moves(
        "3x3", ["a1", "b1", "b2", "c1"], players=players), ("c3",))
    lost = store.change(fork.token, 0, GameRecord.from_moves(
        "3x3", ["a1", "b1", "b2", "c1", "a2", "c2", "b3", "c3"], players=players))
    store.close()
    db = sqlite3.connect(tmp_path / DATABASE_NAME)  # as the earlier version left it
    db.execute("UPDATE games SET superseded = 1 WHERE number = ?", (won.number,))
    db.execute("UPDATE results SET wins = 0, losses = 1")
    db.commit()
    db.close()
    store = GameStore.in_folder(tmp_path)
    assert [g.number for g in store.finished()] == [lost.number, won.number]
    assert store.results_by_opponent() == store.results_by_opponent("mine-1234") == {
        "easy": (1, 0, 0)}
    store.close()
    db = sqlite3.connect(tmp_path / DATABASE_NAME)
    assert db.execute("SELECT COUNT(*) FROM games WHERE superseded != 0").fetchone() == (0,)
    db.close()


def _history_steps(folder: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """The SQLite virtual-machine steps (in hundreds) that 20 reads of ``/api/history`` take,
    every one and one browser's in turn."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0  # go on

    opened = GameStore._open

    def counting(self: GameStore) -> sqlite3.Connection:
        db = opened(self)
        db.set_progress_handler(count, 100)
        return db

    with monkeypatch.context() as patch:
        patch.setattr(GameStore, "_open", counting)
        with TestClient(create_app(folder, warm=False)) as client:
            client.get("/api/history")  # the database opened and its schema checked
            steps[0] = 0
            for headers in ({}, {"X-Browser-Id": "bench-browser-0003"}) * 10:
                answer = client.get("/api/history", headers=headers)
                assert answer.status_code == 200 and len(answer.json()["games"]) == 100
    return steps[0]


def test_the_history_reads_a_few_rows_however_many_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 40,000 finished games, reading every one (what the history did before) took over
    100 ms on the development machine; the history now reads the rows it shows and a few
    rows of the results table: the work SQLite does is about the same at 4,000 games and at
    40,000 (counted in its own steps, not timed)."""
    sizes = {4_000: tmp_path / "few", 40_000: tmp_path / "many"}
    for games, folder in sizes.items():
        fill_history(folder, games, browsers=20)
    store = GameStore.in_folder(sizes[40_000])
    assert store.results_by_opponent() == store.recount_by_opponent()
    assert store.results_by_opponent("bench-browser-0003") == \
        store.recount_by_opponent("bench-browser-0003")
    store.close()
    few, many = (_history_steps(folder, monkeypatch) for folder in sizes.values())
    assert few > 0 and many < 2 * few, (few, many)
