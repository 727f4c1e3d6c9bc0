"""The web API: positions, computer moves, analysis, game records, and every error path."""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():  # Starlette now prefers httpx2 for its test client; httpx works
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

from tictactoe.core import Position, Variant
from tictactoe.core.record import GameRecord
from tictactoe.players.levels import DEFAULT_LEVEL, LEVEL_DESCRIPTIONS, LEVELS
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Loss, Score, Win
from tictactoe.search.solver import solve
from tictactoe.search.words import HINT_CODES, hint_code, reply_words
from tictactoe.web import app as web_app
from tictactoe.web import engine as web_engine
from tictactoe.web import worker as web_worker
from tictactoe.web.app import create_app
from tictactoe.web.models import MAX_POSITION_CHARS
from tictactoe.web.store import GameStore, data_dir


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path, warm=False)) as test_client:
        yield test_client


def error(response: Any, status: int) -> str:
    """The response's status must be `status`; return its message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    return str(body["detail"])


# ----------------------------------------------------------------- positions
def test_position_describes_marks_moves_and_outcome(client: TestClient) -> None:
    info = client.post("/api/position", json={"position": "o2/1x1/3 x"}).json()
    assert info["position"] == "o2/1x1/3 x"
    assert info["cells"] == ["o", "", "", "", "x", "", "", "", ""]
    assert info["turn"] == "x" and info["ply"] == 2 and info["valid"]
    assert info["legal_moves"] == ["b1", "c1", "a2", "c2", "a3", "b3", "c3"]
    assert info["outcome"] is None and info["winning_lines"] == []
    assert info["variant"]["name"] == "3x3" and info["cell_names"][4] == "b2"

    won = client.post("/api/position", json={"position": "3x3", "moves": [
        "a1", "a2", "b1", "b2", "c1"]}).json()
    assert won["outcome"] == {"result": "x", "winner": "x", "termination": "line"}
    assert won["winning_lines"] == [[0, 1, 2]] and won["legal_moves"] == []


def test_position_reports_problems_and_cubes(client: TestClient) -> None:
    info = client.post("/api/position", json={"position": "xx1/o2/3 x"}).json()
    assert not info["valid"] and info["problems"] == Position("xx1/o2/3 x").problems()
    cube = client.post("/api/position", json={"position": "qubic", "moves": ["2:b3"]}).json()
    assert cube["variant"]["is_3d"] and cube["variant"]["layers"] == 4
    assert cube["cells"][Position("4x4x4").variant.parse_cell("2:b3")] == "x"


def test_position_lists_open_threats_and_line_kinds(client: TestClient) -> None:
    """The threats the page outlines come from the rules core: X's pillar and O's row, and
    none once the game is over."""
    moves = ["1:a2", "1:b1", "2:a2", "1:c1", "3:a2", "1:d1"]
    info = client.post("/api/position", json={"position": "qubic", "moves": moves}).json()
    names = info["cell_names"]
    assert [(t["side"], names[t["cell"]], t["kind"]) for t in info["threats"]] == [
        ("x", "4:a2", "pillar"), ("o", "1:a1", "row")]
    assert [names[c] for c in info["threats"][0]["line"]] == ["1:a2", "2:a2", "3:a2", "4:a2"]
    kinds = {k["kind"]: k["count"] for k in info["variant"]["line_kinds"]}
    assert kinds["space diagonal"] == 4 and sum(kinds.values()) == 76
    over = client.post("/api/position", json={"position": "qubic",
                                              "moves": [*moves, "4:a2"]}).json()
    assert over["outcome"]["winner"] == "x" and over["threats"] == []


def test_position_lists_the_threes_of_five_in_a_row(client: TestClient) -> None:
    """The page's open and broken threes come from the rules core, with the cells that make
    them open fours; none on a board of fewer than five in a row."""
    moves = ["g8", "a1", "h8", "a3", "i8", "c10", "e4", "c11", "g4", "c13"]
    info = client.post("/api/position", json={"position": "15x15k5", "moves": moves}).json()
    names = info["cell_names"]
    got = [(t["side"], t["shape"], [names[c] for c in t["marks"]],
            [names[c] for c in t["cells"]], t["kind"]) for t in info["live_threes"]]
    assert got == [("x", "open", ["g8", "h8", "i8"], ["f8", "j8"], "row"),
                   ("o", "broken", ["c10", "c11", "c13"], ["c12"], "column")]
    assert info["threats"] == []
    small = client.post("/api/position", json={"position": "5x5k4",
                                               "moves": ["b2", "a1", "c2"]}).json()
    assert small["live_threes"] == []


def test_options_list_the_page_choices(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert [v["value"] for v in options["variants"]] == ["3x3", "4x4", "5x5k4", "6x6k4", "4x4x4",
                                                     "7x7k5", "9x9k5", "15x15k5", "19x19k5"]
    assert [level["value"] for level in options["levels"]] == list(LEVELS)
    assert options["default_level"] == DEFAULT_LEVEL  # the terminal app's too
    for level in options["levels"]:  # each level says what it means
        assert level["description"] == LEVEL_DESCRIPTIONS[level["value"]]
    assert [(h["code"], h["text"], h["meaning"], h["pattern"]) for h in options["hint_codes"]] \
        == [(h.code, h.text, h.meaning, h.pattern) for h in HINT_CODES]
    # the page's position box takes as many characters as a request may hold: a dense 32x32
    assert options["limits"]["position_chars"] == MAX_POSITION_CHARS
    dense = Position("32x32")
    for cell in range(0, 1020, 3):
        dense.push(cell)
    assert len(dense.to_string()) > 200
    assert client.post("/api/position", json={"position": dense.to_string()}).status_code == 200


def test_every_hint_code_is_in_the_options_legend(client: TestClient) -> None:
    """The analysis gives each move the library's short code, and the options' legend has
    exactly one entry whose pattern it (and its words) match."""
    patterns = [h["pattern"] for h in client.get("/api/options").json()["hint_codes"]]
    shown = set()
    for position in ("x2/1o1/2x o", "xx1/oo1/3 x", "3x3", "x3/4/4/4 o", "xo1/3/3 x"):
        answer = client.post("/api/analysis", json={"position": position}).json()
        for move in answer["moves"]:
            score = move["score"]
            assert score["code"] == hint_code(Score.from_json(score)), score
            for shows in (score["code"], score["text"]):
                assert len([p for p in patterns if re.fullmatch(p, shows)]) == 1, shows
            shown.add(score["code"][:1])
    assert {"W", "L", "D"} <= shown


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"position": "3x3x"}, 400, "unknown variant"),
    ({"position": "xx/3/3 x"}, 400, "row"),
    ({"position": "33x33"}, 400, "at most 32"),
    ({"position": "3x3", "moves": ["d4"]}, 400, "off the 3x3 board"),
    ({"position": "3x3", "moves": ["b2", "b2"]}, 400, "already taken"),
    ({"position": "xxx/oo1/3 o", "moves": ["c2"]}, 400, "game is over"),
    ({"position": "x" * 1201}, 422, "at most 1200"),
    ({"position": ""}, 422, "at least 1"),
    ({"position": "3x3", "moves": ["a1"] * 1025}, 422, "moves"),
    ({"position": 5}, 422, "string"),
    ({}, 422, "position: Field required"),
    ({"position": "3x3", "extra": 1}, 422, "extra"),
])
def test_position_errors(client: TestClient, body: dict[str, Any], status: int,
                         words: str) -> None:
    assert words in error(client.post("/api/position", json=body), status)


def test_malformed_and_oversized_bodies(client: TestClient) -> None:
    headers = {"Content-Type": "application/json"}
    assert "malformed JSON" in error(
        client.post("/api/position", content=b'{"position": ', headers=headers), 422)
    error(client.post("/api/position", content=b"[1, 2]", headers=headers), 422)
    error(client.post("/api/position", content=b"\xff\xfe", headers=headers), 422)
    assert "too large" in error(client.post(
        "/api/position", content=b"{" + b" " * 20_000 + b"}", headers=headers), 413)
    assert "not allowed" in error(client.get("/api/position"), 405)
    assert "no such page" in error(client.get("/api/nothing"), 404)


# ----------------------------------------------------------------- engines
@pytest.mark.parametrize(("score", "words"), [
    (Win(1), "I have won"),
    (Win(3), "I can force a win with my next move"),
    (Win(9), "I can force a win within my next 4 moves"),
    (ForcedWin(), "I can force a win"),
    (ForcedWin(within=7), "I can force a win within my next 3 moves"),
    (Loss(2), "you can win with your next move"),
    (Loss(4), "you can force a win within your next 2 moves"),
    (ForcedLoss(), "you can force a win"),
    (Draw(), "a draw with best play: neither of us can force a win"),
    (Heuristic(0.0), "about even (my estimate 0)"),
    (Heuristic(-0.1), "about even (my estimate -0.1)"),
    (Heuristic(1.2), "slightly better for me (my estimate +1.2)"),
    (Heuristic(-2.0), "slightly better for you (my estimate -2)"),
    (Heuristic(7.0), "better for me (my estimate +7)"),
    (Heuristic(-40.0), "much better for you (my estimate -40)"),
    (Heuristic(99.5), "winning for me, I think, but not proven (my estimate +100)"),
])
def test_the_computers_comment_in_plain_words(score: Score, words: str) -> None:
    assert reply_words(score) == words


def test_the_reply_carries_its_words(client: TestClient) -> None:
    """The computer's reply in a game says in words what its move is worth for it: a draw
    from the empty board, a loss against a double threat."""
    for body, score, words in (
            ({"variant": "3x3", "players": {"x": "perfect", "o": "human"}},
             {"kind": "draw"}, "a draw with best play: neither of us can force a win"),
            ({"position": "xx1/xo1/2o o", "players": {"x": "human", "o": "perfect"}},
             {"kind": "loss", "plies": 2}, "you can win with your next move")):
        response = client.post("/api/games", json=body)
        assert response.status_code == 201, response.text
        reply = response.json()["reply"]
        assert {k: reply["score"][k] for k in score} == score
        assert reply["words"] == words


def test_perfect_move_is_a_best_move(client: TestClient) -> None:
    start = "x2/1o1/2x o"
    answer = client.post("/api/move", json={"position": start, "player": "perfect",
                                            "seed": 3}).json()
    assert answer["cell"] in solve(start).best
    assert answer["position"]["cells"][answer["cell"]] == "o"
    assert answer["move"] == Position(start).move_name(answer["cell"])
    again = client.post("/api/move", json={"position": start, "player": "perfect", "seed": 3})
    assert again.json()["cell"] == answer["cell"]


def test_every_level_answers_with_a_legal_move(client: TestClient) -> None:
    for level in ("easy", "medium", "hard", "perfect", "random", "rules"):
        answer = client.post("/api/move", json={"position": "4x4", "player": level, "seed": 1})
        assert answer.status_code == 200, answer.text
        assert answer.json()["position"]["ply"] == 1


def test_analysis_values_every_move(client: TestClient) -> None:
    # X: a1 c1, O: b2 a3; X to move. Moving to b1 wins at once; the others are exact too.
    start = "x1x/1o1/o2 x"
    body = client.post("/api/analysis", json={"position": start}).json()
    expected = solve(start)
    assert body["proven"] and body["score"]["text"] == "win in 1"
    values = {m["move"]: m["score"]["text"] for m in body["moves"]}
    assert values == {Position(start).move_name(c): str(s) for c, s in expected.moves.items()}
    assert values["b1"] == "win in 1" and body["best"] == ["b1"]
    assert body["moves"][0]["score"]["kind"] in ("win", "loss", "draw")


def test_the_cube_threat_is_blocked_by_perfect_and_hard(client: TestClient) -> None:
    # X threatens only 3:a4 (the pillar a4); over the web's bound perfect used to play a
    # proven loss in 2 here
    start = "o3/4/4/x2o:4/2o1/1o2/x3:4/2x1/4/4:3x/4/4/x3 o"
    for player, seed in (("perfect", 1), ("perfect", 2), ("hard", 1)):
        answer = client.post("/api/move", json={"position": start, "player": player,
                                                "seed": seed})
        assert answer.status_code == 200, answer.text
        assert answer.json()["move"] == "3:a4", (player, seed)


def test_hints_label_every_move_that_loses_at_once(client: TestClient) -> None:
    start = "xxx1/4/4/4:4/1o2/4/4:4/2o1/4/4:4/4/4/4 o"  # O must block 1:d1
    body = client.post("/api/analysis", json={"position": start}).json()
    assert body["best"] == ["1:d1"]
    values = {m["move"]: m["score"] for m in body["moves"]}
    assert values["1:d1"]["kind"] == "heuristic"  # open: an estimate
    assert all(v["text"] == "loss in 2" for move, v in values.items() if move != "1:d1")


def test_analysis_is_bounded_on_big_boards(client: TestClient) -> None:
    body = client.post("/api/analysis", json={"position": "6x6k4", "nodes": 2000,
                                              "seconds": 0.5}).json()
    assert body["proven"] is False
    assert len(body["moves"]) == 36 and body["nodes"] <= 2100
    assert body["seconds"] < web_app.SOLVE_SECONDS + 1.0


@pytest.mark.parametrize(("path", "body", "status", "words"), [
    ("/api/move", {"position": "xxx/oo1/3 o"}, 400, "game is over"),
    ("/api/move", {"position": "xx1/o2/3 x", "player": "perfect"}, 400, "cannot arise"),
    ("/api/move", {"position": "3x3", "player": "grandmaster"}, 400, "unknown player"),
    ("/api/move", {"position": "3x3", "seed": -1}, 422, "seed"),
    ("/api/move", {"position": "3x3", "player": "x" * 41}, 422, "player"),
    ("/api/analysis", {"position": "ooo/xx1/2x x"}, 400, "game is over"),
    ("/api/analysis", {"position": "xxx/ooo/3 x"}, 400, "cannot arise"),
    ("/api/analysis", {"position": "3x3", "nodes": 0}, 422, "nodes"),
    ("/api/analysis", {"position": "3x3", "seconds": 100}, 422, "seconds"),
    ("/api/analysis", {"position": "3x3x3x3"}, 400, "unknown variant"),
])
def test_engine_errors(client: TestClient, path: str, body: dict[str, Any], status: int,
                       words: str) -> None:
    assert words in error(client.post(path, json=body), status)


def test_busy_engine_gives_503(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_app, "BUSY_SECONDS", 0.2)
    entered, release = threading.Event(), threading.Event()
    real_analyse = web_worker.analyse

    def slow_analyse(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        release.wait(5)
        return real_analyse(*args, **kwargs)

    monkeypatch.setattr(web_worker, "analyse", slow_analyse)  # seen by a worker thread only
    with TestClient(create_app(tmp_path, warm=False, processes=False)) as client:
        results: list[int] = []
        worker = threading.Thread(target=lambda: results.append(client.post(
            "/api/analysis", json={"position": "5x5k4"}).status_code))
        worker.start()
        try:
            assert entered.wait(5)
            assert "busy" in error(client.post("/api/analysis",
                                               json={"position": "5/5/5/2x2/5 o"}), 503)
            # the small boards have a worker of their own: not delayed by the big one
            assert client.post("/api/analysis", json={"position": "1x2/4/4/4 o"}).status_code \
                == 200
        finally:
            release.set()
            worker.join()
        assert results == [200]


def test_a_new_board_is_prepared_off_the_event_loop(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The first request on a board the server has not seen makes its symmetries on a thread
    (once, however many requests wait for them): 3×3 requests meanwhile answer at once."""
    entered, release = threading.Event(), threading.Event()
    made: list[str] = []
    real_of = web_engine.Symmetry.of

    def slow_of(variant: Variant) -> web_engine.Symmetry:
        made.append(variant.name)
        if variant.name == "6x6":
            entered.set()
            release.wait(10)
        return real_of(variant)

    monkeypatch.setattr(web_engine.Symmetry, "of", staticmethod(slow_of))
    with TestClient(create_app(tmp_path, warm=False, processes=False)) as client:
        results: list[int] = []

        def ask_big() -> None:
            results.append(client.post("/api/move", json={"position": "6x6", "player": "perfect",
                                                          "seed": 1}).status_code)

        big = [threading.Thread(target=ask_big) for _ in range(2)]
        for thread in big:
            thread.start()
        try:
            assert entered.wait(10)
            for player in ("perfect", "hard", "medium", "easy"):
                answer = client.post("/api/move", json={"position": "x2/3/3 o", "player": player,
                                                        "seed": 1})
                assert answer.status_code == 200, answer.text
            assert client.post("/api/analysis", json={"position": "4x4"}).status_code == 200
            assert results == [], "the new board is still being prepared"
            assert made.count("6x6") == 1, "once for both requests"
        finally:
            release.set()
            for thread in big:
                thread.join()
        assert results == [200, 200]


def test_a_3x3_game_against_hard_never_waits_for_4x4_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every level's move on 3×3 is chosen on the server's own thread, the same move as the
    worker's: a 3×3 game goes on while the small boards' worker is held by a 4×4 search."""
    entered, release = threading.Event(), threading.Event()
    real_choose = web_worker.choose

    def slow_choose(*args: Any) -> Any:
        entered.set()
        release.wait(10)
        return real_choose(*args)

    monkeypatch.setattr(web_worker, "choose", slow_choose)  # seen by a worker thread only
    with TestClient(create_app(tmp_path, warm=False, processes=False)) as client:
        results: list[int] = []
        held = threading.Thread(target=lambda: results.append(client.post(
            "/api/move", json={"position": "4x4", "player": "hard", "seed": 1}).status_code))
        held.start()
        try:
            assert entered.wait(10)
            for seed in range(3):
                state = new_game(client, players={"x": "human", "o": "hard"}, seed=seed)
                while not state["game"]["result"]:
                    state = play(client, state, state["position"]["legal_moves"][-1])
            for position in ("3x3", "x2/3/3 o", "x1o/1x1/3 o", "xo1/1x1/3 o"):
                for level in ("medium", "hard"):
                    answer = client.post("/api/move", json={"position": position,
                                                            "player": level, "seed": 5})
                    assert answer.status_code == 200, answer.text
                    alone = real_choose(position, level, 5, web_app.SOLVE_SECONDS)[0]
                    assert answer.json()["cell"] == alone, (position, level)
            assert results == [], "the 4x4 move is still held"
        finally:
            release.set()
            held.join()
        assert results == [200]


# ----------------------------------------------------------------- games
def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"variant": "3x3", **body})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def play(client: TestClient, state: dict[str, Any], move: str) -> dict[str, Any]:
    response = client.post(f"/api/games/{state['id']}/moves",
                           json={"move": move, "ply": state["ply"]})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_game_lifecycle_and_history(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path)) as client:
        state = new_game(client, players={"x": "human", "o": "perfect"}, seed=5)
        game_id, number = state["id"], state["game"]["number"]
        assert len(game_id) >= 30 and state["game"]["result"] is None and state["ply"] == 0
        assert state["seed"] == 5 and state["reply"] is None
        while state["game"]["result"] is None:  # the first legal move each time
            before = state["game"]["moves"]
            state = play(client, state, state["position"]["legal_moves"][0])
            reply = state["reply"]
            assert state["game"]["moves"][:len(before) + 1] == \
                [*before, state["game"]["moves"][len(before)]]
            if reply is not None:  # perfect's reply is a best move, stored with the move
                assert reply["player"] == "perfect" and state["game"]["moves"][-1] == \
                    reply["move"]
                board = Position("3x3")
                for move in state["game"]["moves"][:-1]:
                    board.push_name(move)
                assert reply["cell"] in solve(board).best
        final = state["game"]
        assert final["result"] == "o" and final["finished"]  # the first moves lose to perfect
        assert state["ply"] == (len(final["moves"]) + 1) // 2  # one change per request
        assert "over" in error(client.post(f"/api/games/{game_id}/moves", json={
            "move": "c3", "ply": state["ply"]}), 409)
        history = client.get("/api/history").json()
        assert [g["number"] for g in history["games"]] == [number]
        assert history["games"][0]["id"] is None and game_id not in str(history)
        assert history["games"][0]["status"] == "finished"
        assert history["levels"] == [{"level": "perfect", "wins": 0, "draws": 0, "losses": 1}]
    # a new app on the same folder sees the same records
    with TestClient(create_app(tmp_path, warm=False)) as client:
        assert [g["moves"] for g in client.get("/api/history").json()["games"]] == \
            [final["moves"]]
        assert client.get(f"/api/games/{game_id}").json()["game"]["result"] == "o"


def test_results_per_level_count_the_human_side(client: TestClient,
                                                tmp_path: Path) -> None:
    lost = ["a1", "b1", "b2", "c1", "c3"]  # X wins on the diagonal
    store = GameStore.in_folder(tmp_path)
    store.create(GameRecord.from_moves("3x3", lost, players={"x": "easy", "o": "human"}))
    store.create(GameRecord.from_moves("3x3", lost, players={"x": "human", "o": "easy"}))
    store.create(GameRecord.from_moves("3x3", lost, players={"x": "human", "o": "human"}))
    # from a set position: listed, but not counted against the level
    store.create(GameRecord.from_moves("3x3", lost[2:], start="xo1/3/3 x",
                                       players={"x": "human", "o": "easy"}))
    store.close()
    history = client.get("/api/history").json()
    assert history["levels"] == [{"level": "easy", "wins": 1, "draws": 0, "losses": 1}]
    assert len(history["games"]) == 4
    assert len(client.get("/api/history", params={"limit": 2}).json()["games"]) == 2


def test_game_started_from_a_position(client: TestClient) -> None:
    made = new_game(client, variant=None, position="x3/4/4/3o x", moves=["b2"])
    assert made["game"]["start"] == "x3/4/4/3o x" and made["game"]["variant"] == "4x4"
    changed = play(client, made, "c3")
    assert changed["game"]["moves"] == ["b2", "c3"]
    assert changed["position"]["position"] == Position("x3/1x2/2o1/3o x").to_string()


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"variant": "3x3x"}, 400, "unknown variant"),
    ({"variant": "99x99"}, 400, "at most 32"),
    ({"variant": "3x3", "moves": ["b2", "b2"]}, 400, "already taken"),
    ({"variant": "3x3", "moves": ["a1", "b1", "a2", "b2", "a3", "b3"]}, 400, "game is over"),
    ({"variant": "3x3", "players": {"x": "human", "o": "deep blue"}}, 400, "unknown player"),
    ({"variant": "3x3", "position": "4/4/4/4 x"}, 400, "the position is 4x4"),
    ({"variant": "3x3", "position": "zz"}, 400, "zz"),
    ({"variant": "3x3", "moves": ["a1"] * 1025}, 422, "moves"),
    ({"variant": "3x3", "players": {"x": "human", "z": "human"}}, 422, "players.z"),
    ({"moves": []}, 400, "give the board"),
    ({"variant": "3x3", "players": {"x": "easy", "o": "perfect"}}, 400, "needs a human"),
    ({"position": "xx1/o2/3 x"}, 400, "cannot arise"),
    ({"position": "xxx/oo1/3 o"}, 400, "already over"),
])
def test_new_game_errors(client: TestClient, body: dict[str, Any], status: int,
                         words: str) -> None:
    assert words in error(client.post("/api/games", json=body), status)


def test_game_id_errors(client: TestClient) -> None:
    state = new_game(client)
    game_id = state["id"]
    other = "A" * len(game_id)
    assert "no game" in error(client.get(f"/api/games/{other}"), 404)
    assert "no game" in error(client.put(f"/api/games/{other}", json={"moves": [], "ply": 0}),
                              404)
    assert "no game" in error(client.post(f"/api/games/{other}/moves",
                                          json={"move": "b2", "ply": 0}), 404)
    error(client.get("/api/games/short"), 422)
    error(client.get("/api/games/" + "a" * 65), 422)
    error(client.get("/api/games/bad%20id!!"), 422)
    assert "off the 3x3" in error(client.post(f"/api/games/{game_id}/moves",
                                              json={"move": "z9", "ply": 0}), 400)
    assert "off the 3x3" in error(client.put(f"/api/games/{game_id}",
                                             json={"moves": ["z9"], "ply": 0}), 400)
    error(client.put(f"/api/games/{game_id}", json={"moves": "b2", "ply": 0}), 422)
    error(client.post(f"/api/games/{game_id}/moves", json={"move": "b2"}), 422)
    error(client.post(f"/api/games/{game_id}/moves", json={"move": "b2", "ply": -1}), 422)
    error(client.get("/api/history", params={"limit": 0}), 422)
    error(client.get("/api/history", params={"limit": "many"}), 422)
    error(client.get("/api/history", headers={"X-Browser-Id": "no"}), 422)
    assert "X-Browser-Id header" in error(
        client.get("/api/history", params={"browser": "this-browser-1"}), 422)
    assert client.get(f"/api/games/{game_id}").json()["ply"] == 0, "nothing was changed"


def test_one_game_id_cannot_reach_another(client: TestClient) -> None:
    first, second = new_game(client), new_game(client)
    play(client, first, "b2")
    assert client.get(f"/api/games/{second['id']}").json()["game"]["moves"] == []
    assert first["id"] != second["id"]


def test_store_keeps_finished_games_whole(tmp_path: Path) -> None:
    store = GameStore.in_folder(tmp_path)
    token, _ = store.create(GameRecord.from_moves("3x3", ["b2"]))
    with pytest.raises(Exception, match="variant and start"):
        store.change(token, 0, GameRecord.from_moves("4x4", ["b2"]))
    assert store.get(token).moves == ("b2",)
    store.close()
    assert data_dir(None).name == "data"


def test_page_and_static_files_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<title>tictactoe</title>" in page.text
    assert "alert(" not in page.text
    for name in ("app.css", "js/main.js", "js/board.js", "js/play.js", "js/history.js"):
        asset = client.get(f"/static/{name}")
        assert asset.status_code == 200 and "alert(" not in asset.text
        assert not re.search(r"""(src|href)=["']https?:|from ["']https?:|url\(["']?http""",
                             asset.text), f"{name} loads something from another site"
    assert client.get("/openapi.json").json()["info"]["title"] == "tictactoe"
    error(client.get("/static/nothing.js"), 404)
