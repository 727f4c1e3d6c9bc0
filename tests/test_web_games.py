"""Server-owned games: every move checked against the stored position, the computer's replies
played by the server, no forged records, no lost updates (a stale ``ply`` gets 409 with the
game as it stands), undo and redo, the history of one browser, and old data folders."""

from __future__ import annotations

import json
import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning
from typer.testing import CliRunner

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

from tictactoe.cli import app as cli_app
from tictactoe.core import Position, Side
from tictactoe.core.record import GameRecord
from tictactoe.search.solver import solve
from tictactoe.tui.engine import game_from_record
from tictactoe.tui.history import read_history
from tictactoe.web.app import create_app
from tictactoe.web.store import DATABASE_NAME, GameStore

BROWSER = "this-browser-1"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path, warm=False)) as test_client:
        yield test_client


def made(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    state: dict[str, Any] = response.json()
    return state


def send(client: TestClient, state: dict[str, Any], action: str, status: int = 200,
         **body: Any) -> dict[str, Any]:
    response = client.post(f"/api/games/{state['id']}/{action}",
                           json={"ply": state["ply"], **body})
    assert response.status_code == status, response.text
    data: dict[str, Any] = response.json()
    return data


def stored(client: TestClient, game_id: str) -> dict[str, Any]:
    data: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
    return data


def test_a_forged_move_list_is_refused(client: TestClient) -> None:
    # a "win" against perfect, with perfect's moves chosen by the client
    forged = ["a1", "a2", "b1", "b2", "c1"]
    response = client.post("/api/games", json={
        "variant": "3x3", "players": {"x": "human", "o": "perfect"}, "moves": forged})
    assert response.status_code == 400 and "two people" in response.json()["detail"]
    # nor can a whole move list replace a game with a computer player
    state = made(client, variant="3x3", players={"x": "human", "o": "perfect"})
    response = client.put(f"/api/games/{state['id']}", json={"moves": forged, "ply": 0})
    assert response.status_code == 409 and "computer player" in response.json()["detail"]
    assert response.json()["state"]["game"]["moves"] == []
    # the computer's moves are the server's: each reply is one of perfect's best moves
    board = Position("3x3")
    for move in ("a1", "a2", "b1"):
        before = board.copy()
        state = send(client, state, "moves", move=move)
        board.push_name(move)
        if state["game"]["result"] is not None:
            break
        reply = state["game"]["moves"][-1]
        assert board.parse_move(reply) in solve(board.copy(stack=False)).best, before
        board.push_name(reply)
    assert client.get("/api/history").json()["levels"] in (
        [], [{"level": "perfect", "wins": 0, "draws": 0, "losses": 1}])


def test_it_is_never_the_humans_turn_to_move_for_the_computer(client: TestClient) -> None:
    state = made(client, variant="3x3", players={"x": "perfect", "o": "human"}, seed=3)
    assert state["reply"] is not None and len(state["game"]["moves"]) == 1
    assert state["position"]["turn"] == "o"
    # the computer's opening cannot be taken back: there is no move of the human's before it
    assert not state["can_undo"]
    assert "no move of yours" in send(client, state, "undo", 409)["detail"]


def test_a_stale_ply_gets_409_with_the_game_as_it_stands(client: TestClient) -> None:
    state = made(client, variant="3x3", players={"x": "human", "o": "human"})
    first = send(client, state, "moves", move="b2")  # one tab
    conflict = send(client, state, "moves", 409, move="a1")  # the other, from the old state
    assert "changed since ply 0" in conflict["detail"]
    assert conflict["state"] == stored(client, state["id"]) == first
    assert first["game"]["moves"] == ["b2"], "the second tab overwrote nothing"
    for action in ("undo", "redo"):
        assert send(client, state, action, 409)["state"]["ply"] == 1
    response = client.put(f"/api/games/{state['id']}", json={"moves": ["c3"], "ply": 0})
    assert response.status_code == 409 and response.json()["state"]["game"]["moves"] == ["b2"]
    # the ply never repeats: after an undo, a tab that saw ply 1 cannot play into ply 2
    undone = send(client, first, "undo")
    replayed = send(client, undone, "moves", move="b2")
    assert replayed["game"]["moves"] == first["game"]["moves"] and replayed["ply"] == 3
    send(client, first, "moves", 409, move="a1")


def test_undo_and_redo_against_the_computer(client: TestClient) -> None:
    state = made(client, variant="3x3", players={"x": "human", "o": "perfect"}, seed=11)
    one = send(client, state, "moves", move="b2")
    two = send(client, one, "moves", move=next(m for m in ("a1", "c3", "a3")
                                               if m in one["position"]["legal_moves"]))
    assert len(two["game"]["moves"]) == 4 and two["can_undo"] and not two["can_redo"]
    back = send(client, two, "undo")  # the reply and the move: the human's previous turn
    assert back["game"]["moves"] == one["game"]["moves"]
    assert back["undone"] == two["game"]["moves"][2:] and back["can_redo"]
    assert back["position"]["turn"] == "x"
    start = send(client, back, "undo")
    assert start["game"]["moves"] == [] and start["undone"] == two["game"]["moves"]
    assert not start["can_undo"]
    assert "no move of yours" in send(client, start, "undo", 409)["detail"]
    again = send(client, start, "redo")  # up to the human's next turn
    assert again["game"]["moves"] == one["game"]["moves"]
    again = send(client, again, "redo")
    assert again["game"]["moves"] == two["game"]["moves"] and again["undone"] == []
    assert "nothing to redo" in send(client, again, "redo", 409)["detail"]
    # a new move after an undo forgets what was undone
    back = send(client, again, "undo")
    other = next(m for m in back["position"]["legal_moves"] if m != two["game"]["moves"][2])
    moved = send(client, back, "moves", move=other)
    assert moved["undone"] == [] and moved["game"]["moves"][2] == other
    assert [stored(client, state["id"])["ply"], moved["ply"]] == [8, 8]  # 8 changes


def test_two_people_on_one_screen(client: TestClient) -> None:
    state = made(client, variant="4x4", players={"x": "human", "o": "human"})
    for move in ("a1", "d4", "b2"):
        state = send(client, state, "moves", move=move)
        assert state["reply"] is None
    state = send(client, state, "undo")
    assert state["game"]["moves"] == ["a1", "d4"] and state["undone"] == ["b2"]
    assert state["position"]["turn"] == "x"
    replaced = client.put(f"/api/games/{state['id']}",
                          json={"moves": ["a1", "d4", "c3"], "ply": state["ply"]}).json()
    assert replaced["game"]["moves"] == ["a1", "d4", "c3"] and replaced["undone"] == []
    assert "taken" in client.put(f"/api/games/{state['id']}", json={
        "moves": ["a1", "a1"], "ply": replaced["ply"]}).json()["detail"]


def test_a_finished_game_cannot_change_and_undo_continues_it_anew(client: TestClient) -> None:
    line = ["a1", "b1", "b2", "c1", "c3"]
    state = made(client, variant="3x3", players={"x": "human", "o": "human"},
                 browser=BROWSER)
    for move in line:
        state = send(client, state, "moves", move=move)
    assert state["game"]["result"] == "x" and not state["can_redo"]
    assert "over" in send(client, state, "moves", 409, move="a3")["detail"]
    assert "over" in send(client, state, "redo", 409)["detail"]
    fork = send(client, state, "undo", 201)
    assert fork["id"] != state["id"] and fork["game"]["moves"] == line[:-1]
    assert fork["undone"] == ["c3"] and fork["ply"] == 0
    assert stored(client, state["id"]) == {**state, "reply": None}, "the old game is kept"
    history = client.get("/api/history", params={"browser": BROWSER}).json()
    assert [g["moves"] for g in history["games"]] == [line]


def test_history_of_this_browser_or_all(client: TestClient) -> None:
    line = ["a1", "b1", "b2", "c1", "c3"]
    for browser in (BROWSER, "another-browser", None):
        body = {"variant": "3x3", "players": {"x": "human", "o": "human"}}
        state = made(client, **body, **({"browser": browser} if browser else {}))
        for move in line:
            state = send(client, state, "moves", move=move)
    mine = client.get("/api/history", params={"browser": BROWSER}).json()["games"]
    everything = client.get("/api/history").json()["games"]
    assert len(mine) == 1 and len(everything) == 3
    assert client.get("/api/history", params={"browser": "nobody-here"}).json() == {
        "games": [], "levels": []}


def test_an_old_data_folder_keeps_working(tmp_path: Path) -> None:
    """A games file of the first version (no ply, undone, seed or browser columns): its games
    are listed and can be played on, and ``ttt history`` reads the new columns' file."""
    db = sqlite3.connect(tmp_path / DATABASE_NAME)
    db.executescript("""
        CREATE TABLE games (number INTEGER PRIMARY KEY AUTOINCREMENT, token TEXT NOT NULL UNIQUE,
            variant TEXT NOT NULL, start TEXT, players TEXT NOT NULL, moves TEXT NOT NULL,
            result TEXT, started TEXT NOT NULL, finished TEXT);
        CREATE INDEX games_finished ON games (finished);""")
    old = GameRecord.from_moves("3x3", ["b2", "a1"], players={"x": "human", "o": "human"})
    token = "old-game-token-0123456789"
    db.execute("INSERT INTO games (token, variant, start, players, moves, result, started,"
               " finished) VALUES (?, ?, NULL, ?, ?, NULL, ?, NULL)",
               (token, old.variant, json.dumps(old.players), json.dumps(list(old.moves)),
                old.started))
    db.commit()
    db.close()
    with TestClient(create_app(tmp_path, warm=False)) as client:
        state = stored(client, token)
        assert state["game"]["moves"] == ["b2", "a1"] and state["ply"] == 0
        for move in ("c3", "a2", "c1", "a3"):
            state = send(client, state, "moves", move=move)
        assert state["game"]["result"] == "o"
    entries = read_history(tmp_path / DATABASE_NAME)
    assert [e.record.moves for e in entries] == [("b2", "a1", "c3", "a2", "c1", "a3")]
    result = CliRunner().invoke(cli_app, ["history", "--data", str(tmp_path), "--record", "1"])
    assert result.exit_code == 0, result.output
    record = GameRecord.from_json(result.output)
    assert record.result == "o"
    game = game_from_record(record, {Side.X: "human", Side.O: "human"})
    assert game.position.is_game_over() and game.position.winner() is Side.O


def test_a_game_played_on_the_server_opens_in_the_terminal_app(client: TestClient,
                                                                tmp_path: Path) -> None:
    state = made(client, variant="4x4", players={"x": "human", "o": "easy"}, seed=2)
    for _ in range(3):
        state = send(client, state, "moves", move=state["position"]["legal_moves"][0])
    entry = next(e for e in read_history(tmp_path / DATABASE_NAME)
                 if e.number == state["game"]["number"])
    record = GameRecord.from_json(entry.record.to_json())  # what `ttt history --record` prints
    game = game_from_record(record, {Side.X: "human", Side.O: "human"})
    assert game.players == {Side.X: "human", Side.O: "easy"}
    assert game.position.to_string() == state["position"]["position"]


def test_store_change_is_compare_and_swap(tmp_path: Path) -> None:
    store = GameStore.in_folder(tmp_path)
    token, _ = store.create(GameRecord.from_moves("3x3", []))
    store.change(token, 0, GameRecord.from_moves("3x3", ["b2"]))
    with pytest.raises(Exception, match="changed since ply 0"):
        store.change(token, 0, GameRecord.from_moves("3x3", ["a1"]))
    assert store.get_stored(token).record.moves == ("b2",)
    store.close()
