"""Server-owned games: every move checked against the stored position, the computer's replies
played by the server, no forged records, no lost updates (a stale ``ply`` gets 409 with the
game as it stands), undo and redo, the continuation of a finished game (the same one for a
replayed request; listed beside the game it continues, which stays counted as it ended), the
history of one browser (its id in a header), damaged rows kept to themselves, a strict
``ply``, the cap on new games, and old data folders."""

from __future__ import annotations

import json
import logging
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
from tictactoe.web.limits import NEW_GAME_BURST, RateLimit
from tictactoe.web.store import DATABASE_NAME, GameStore

BROWSER = "this-browser-0001"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path, warm=False)) as test_client:
        yield test_client


def made(client: TestClient, browser: str | None = None, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body,
                           headers={} if browser is None else {"X-Browser-Id": browser})
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
    assert stored(client, state["id"]) == {**state, "reply": None, "continued_by": fork["id"]}, \
        "the old game is kept, and names its continuation"
    history = client.get("/api/history", headers={"X-Browser-Id": BROWSER}).json()
    assert [g["moves"] for g in history["games"]] == [line]


def test_history_of_this_browser_or_all(client: TestClient) -> None:
    line = ["a1", "b1", "b2", "c1", "c3"]
    for browser in (BROWSER, "another-browser-0002", None):
        body = {"variant": "3x3", "players": {"x": "human", "o": "human"}}
        state = made(client, browser, **body)
        for move in line:
            state = send(client, state, "moves", move=move)
    mine = client.get("/api/history", headers={"X-Browser-Id": BROWSER}).json()["games"]
    everything = client.get("/api/history").json()["games"]
    assert len(mine) == 1 and len(everything) == 3
    assert client.get("/api/history", headers={"X-Browser-Id": "nobody-here-at-all"}).json() == {
        "games": [], "levels": [], "boards": []}


def history_of(client: TestClient, browser: str | None = BROWSER,
               **params: Any) -> dict[str, Any]:
    response = client.get("/api/history", params=params,
                          headers={} if browser is None else {"X-Browser-Id": browser})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_unfinished_games_are_listed_marked_not_counted_and_resumable(
        client: TestClient) -> None:
    against = {"x": "human", "o": "easy"}
    done = finished_against(client, "easy", BROWSER)
    left = send(client, made(client, BROWSER, variant="3x3", players=against, seed=1),
                "moves", move="b2")
    made(client, BROWSER, variant="3x3", players=against)  # no human move: nothing to resume
    made(client, BROWSER, variant="3x3", players={"x": "easy", "o": "human"})  # nor here
    made(client, "another-browser-0002", variant="3x3", players=against)
    send(client, made(client, "another-browser-0002", variant="4x4", players=against), "moves",
         move="a1")
    # by default the history lists finished games only, as before
    assert [g["number"] for g in history_of(client)["games"]] == [done["game"]["number"]]
    listed = history_of(client, unfinished="true")
    assert [(g["number"], g["status"]) for g in listed["games"]] == [
        (left["game"]["number"], "unfinished"), (done["game"]["number"], "finished")]
    mine = listed["games"][0]
    assert mine["id"] == left["id"] and mine["moves"] == left["game"]["moves"]
    assert mine["result"] is None and mine["finished"] is None
    assert listed["games"][1]["id"] is None, "a finished game's id stays secret"
    assert counted(listed) == 1, "unfinished games are never counted"
    # resumed by its id: the same game, and it plays on
    resumed = stored(client, mine["id"])
    assert resumed["game"]["status"] == "unfinished" and resumed["ply"] == left["ply"]
    on = send(client, resumed, "moves", move=resumed["position"]["legal_moves"][0])
    assert on["game"]["number"] == left["game"]["number"]
    # another browser sees its own only; every game's history lists no unfinished ones
    others = history_of(client, "another-browser-0002", unfinished="true")["games"]
    assert [(g["variant"], g["status"]) for g in others] == [("4x4", "unfinished")]
    assert left["id"] not in str(others)
    response = client.get("/api/history", params={"unfinished": "true"})
    assert response.status_code == 400 and "X-Browser-Id" in response.json()["detail"]


def test_continuations_and_set_positions_are_labelled(client: TestClient) -> None:
    done = finished_against(client, "random", BROWSER)
    fork = send(client, done, "undo", 201)
    assert fork["game"]["continues"] == done["game"]["number"]
    assert done["game"]["continues"] is None and done["game"]["start"] is None
    listed = history_of(client, unfinished="true")["games"]
    assert [(g["number"], g["status"], g["continues"]) for g in listed] == [
        (fork["game"]["number"], "unfinished", done["game"]["number"]),
        (done["game"]["number"], "finished", None)]
    fork = send(client, fork, "redo")  # finished: listed beside the game it continues
    assert [(g["number"], g["continues"]) for g in history_of(client)["games"]] == [
        (fork["game"]["number"], done["game"]["number"]), (done["game"]["number"], None)]
    loaded = made(client, BROWSER, position="o2/1x1/3 x", players={"x": "human", "o": "easy"})
    assert loaded["game"]["start"] == "o2/1x1/3 x" and loaded["game"]["continues"] is None
    loaded = send(client, loaded, "moves", move="c3")
    assert history_of(client, unfinished="true")["games"][0]["start"] == "o2/1x1/3 x"


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


# ----------------------------------------------------------------- continuations
def finished_against(client: TestClient, player: str, browser: str | None = None,
                     variant: str = "3x3") -> dict[str, Any]:
    """A game of X (a human, the first legal move each time) against ``player``, to its end."""
    state = made(client, browser, variant=variant, players={"x": "human", "o": player}, seed=4)
    while state["game"]["result"] is None:
        state = send(client, state, "moves", move=state["position"]["legal_moves"][0])
    return state


def test_the_history_counts_each_board_apart(client: TestClient) -> None:
    """The results per level, for every board together and for each board, the most played
    first."""
    results: dict[str, list[Any]] = {}
    for variant in ("4x4", "3x3", "4x4"):
        state = finished_against(client, "random", BROWSER, variant)
        results.setdefault(variant, []).append(state["game"]["result"])
    history = history_of(client)
    assert [(b["variant"], b["games"]) for b in history["boards"]] == [("4x4", 2), ("3x3", 1)]
    for board in history["boards"]:
        [level] = board["levels"]
        wins = results[board["variant"]].count("x")
        draws = results[board["variant"]].count("draw")
        assert (level["level"], level["wins"], level["draws"]) == ("random", wins, draws)
    assert counted(history) == 3
    assert history_of(client, "another-browser-id")["boards"] == []


def counted(history: dict[str, Any]) -> int:
    return sum(level["wins"] + level["draws"] + level["losses"] for level in history["levels"])


def test_a_replayed_undo_of_a_finished_game_gives_the_same_continuation(
        client: TestClient) -> None:
    done = finished_against(client, "random", BROWSER)
    forks = [send(client, done, "undo", 201) for _ in range(3)]
    assert len({fork["id"] for fork in forks}) == 1 and forks[0]["id"] != done["id"]
    assert forks[0]["game"]["moves"] == done["game"]["moves"][:len(forks[0]["game"]["moves"])]
    assert stored(client, done["id"])["continued_by"] == forks[0]["id"]
    # any other state is a different request: 409, with the game naming its continuation
    conflict = send(client, {**done, "ply": done["ply"] - 1}, "undo", 409)
    assert conflict["state"]["continued_by"] == forks[0]["id"]
    # the continuation finishes again: both are listed, the first alone counted
    again = send(client, forks[0], "redo")
    assert again["game"]["result"] == done["game"]["result"]
    for scope in ({}, {"X-Browser-Id": BROWSER}):
        history = client.get("/api/history", headers=scope).json()
        assert [g["number"] for g in history["games"]] == [again["game"]["number"],
                                                           done["game"]["number"]]
        assert counted(history) == 1, history
    # the replayed undo still answers the same continuation, as it stands now
    replay = send(client, done, "undo", 201)
    assert replay["id"] == forks[0]["id"] and replay["game"]["result"] is not None
    # a continuation of the continuation, finished again: three games, one counted
    second = send(client, again, "undo", 201)
    send(client, second, "redo")
    history = client.get("/api/history").json()
    assert len(history["games"]) == 3 and counted(history) == 1


def test_a_win_stays_listed_when_its_continuation_ends_in_a_loss(client: TestClient) -> None:
    """Undo after a win, then play on to a loss: the history keeps the win as it ended and
    lists the continuation as a game of its own, marked as continuing it."""
    line = ["a1", "b1", "b2", "c1", "c3"]  # X wins
    state = made(client, BROWSER, variant="3x3", players={"x": "human", "o": "human"})
    for move in line:
        state = send(client, state, "moves", move=move)
    fork = send(client, state, "undo", 201)
    for move in ("a2", "c2", "b3", "c3"):  # then O wins
        fork = send(client, fork, "moves", move=move)
    assert fork["game"]["result"] == "o"
    for scope in (BROWSER, None):
        games = history_of(client, scope)["games"]
        assert [(g["number"], g["result"], g["continues"], g["moves"]) for g in games] == [
            (fork["game"]["number"], "o", state["game"]["number"], fork["game"]["moves"]),
            (state["game"]["number"], "x", None, line)]
    assert stored(client, state["id"])["game"]["result"] == "x", "the first game is kept"


def test_a_continuation_never_hides_the_game_it_continues(client: TestClient) -> None:
    """Against the computer: the finished game stays listed and counted as it ended; its
    continuation, played to any end, is listed too, and counted apart from it never."""
    done = finished_against(client, "random", BROWSER)
    before = history_of(client)
    fork = send(client, done, "undo", 201)
    while fork["game"]["result"] is None:
        fork = send(client, fork, "moves", move=fork["position"]["legal_moves"][-1])
    history = history_of(client)
    assert [(g["number"], g["result"]) for g in history["games"]] == [
        (fork["game"]["number"], fork["game"]["result"]),
        (done["game"]["number"], done["game"]["result"])]
    assert history["levels"] == before["levels"] and counted(history) == 1, \
        "the game counts as it ended; a game that took moves back is not counted"


# ----------------------------------------------------------------- damaged rows
def damage(folder: Path, number: int, moves: str) -> None:
    """Write a game's moves column straight into the games file."""
    db = sqlite3.connect(folder / DATABASE_NAME)
    with db:
        db.execute("UPDATE games SET moves = ? WHERE number = ?", (moves, number))
    db.close()


def test_a_damaged_row_is_contained(client: TestClient, tmp_path: Path,
                                    caplog: pytest.LogCaptureFixture,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # a server built by an earlier test leaves its repeat filter on the logger, which would
    # let through one report of the two (same format) within its window
    monkeypatch.setattr(logging.getLogger("tictactoe.web"), "filters", [])
    games = [finished_against(client, "random") for _ in range(3)]
    truncated, illegal, whole = games
    text = json.dumps(truncated["game"]["moves"])
    damage(tmp_path, truncated["game"]["number"], text[:len(text) // 2])
    damage(tmp_path, illegal["game"]["number"], json.dumps(["a1", "a1"]))
    with caplog.at_level("WARNING", logger="tictactoe.web"):
        for _ in range(3):
            history = client.get("/api/history")
            assert history.status_code == 200, history.text
            listed = [g["number"] for g in history.json()["games"]]
            assert truncated["game"]["number"] not in listed and whole["game"]["number"] in listed
            for bad in (truncated, illegal):
                response = client.get(f"/api/games/{bad['id']}")
                assert response.status_code == 503, response.text
                assert response.json()["detail"].startswith(
                    f"damaged record: game {bad['game']['number']} cannot be read")
                assert client.post(f"/api/games/{bad['id']}/undo",
                                   json={"ply": bad["ply"]}).status_code == 503
        assert stored(client, whole["id"]) == {**whole, "reply": None}
        assert made(client, variant="3x3")["ply"] == 0, "new games work"
    reports = [r for r in caplog.records if "damaged record" in r.getMessage()]
    assert len(reports) == 2, [r.getMessage() for r in reports]  # once per game
    assert "not valid JSON" in reports[0].getMessage() and not any(r.exc_info for r in reports)


# ----------------------------------------------------------------- the request's form
def test_ply_is_a_json_integer(client: TestClient) -> None:
    state = made(client, variant="3x3")
    for action, body in (("moves", {"move": "b2"}), ("undo", {}), ("redo", {})):
        response = client.post(f"/api/games/{state['id']}/{action}", json={**body, "ply": "0"})
        assert response.status_code == 422, response.text
        assert response.json()["detail"] == "ply: Input should be a valid integer"
    response = client.put(f"/api/games/{state['id']}", json={"moves": ["b2"], "ply": 0.0})
    assert response.status_code == 422 and "ply" in response.json()["detail"]
    assert stored(client, state["id"])["ply"] == 0, "nothing was changed"


def test_the_browser_id_travels_in_a_header_only(client: TestClient) -> None:
    response = client.post("/api/games", json={"variant": "3x3", "browser": BROWSER})
    assert response.status_code == 422 and "browser" in response.json()["detail"]
    for request in (client.post("/api/games", params={"browser": BROWSER},
                                json={"variant": "3x3"}),
                    client.get("/api/history", params={"browser": BROWSER})):
        assert request.status_code == 422, request.text
        assert "X-Browser-Id header, not in the URL" in request.json()["detail"]
    response = client.post("/api/games", json={"variant": "3x3"},
                           headers={"X-Browser-Id": "bad id!"})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("X-Browser-Id: ")
    finished_against(client, "random", BROWSER)
    mine = client.get("/api/history", headers={"X-Browser-Id": BROWSER}).json()
    assert len(mine["games"]) == 1 and counted(mine) == 1
    assert client.get("/api/history", headers={"X-Browser-Id": "another-one-at-all"}).json() == {
        "games": [], "levels": [], "boards": []}


# ----------------------------------------------------------------- the cap on new games
def test_new_games_are_capped_per_client_address(tmp_path: Path) -> None:
    app = create_app(tmp_path, warm=False)
    with TestClient(app) as client:
        answers = [client.post("/api/games", json={"variant": "3x3"})
                   for _ in range(NEW_GAME_BURST + 1)]
        assert [a.status_code for a in answers] == [201] * NEW_GAME_BURST + [429]
        refused = answers[-1]
        assert refused.headers["Retry-After"] == "1"
        assert refused.json()["detail"].startswith("too many new games from your address")
        # another address has its own allowance; moves in existing games are not capped
        other = TestClient(app, client=("203.0.113.9", 40000))
        assert other.post("/api/games", json={"variant": "3x3"}).status_code == 201
        send(client, answers[0].json(), "moves", move="b2")
        # the tokens come back with time
        clock = [0.0]
        app.state.new_game_limit = RateLimit(2, 0.25, clock=lambda: clock[0])
        codes = [client.post("/api/games", json={"variant": "3x3"}).status_code
                 for _ in range(3)]
        assert codes == [201, 201, 429]
        assert client.post("/api/games", json={"variant": "3x3"}).headers["Retry-After"] == "4"
        clock[0] = 4.0
        assert client.post("/api/games", json={"variant": "3x3"}).status_code == 201
