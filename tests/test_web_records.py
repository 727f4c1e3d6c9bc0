"""Game records over the web API: a game's record for download, and records read back from a
file's text or a game link, with a clear 4xx for anything wrong."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():  # Starlette now prefers httpx2 for its test client; httpx works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from tictactoe.core import Side
from tictactoe.core.record import RECORD_FORMAT, GameRecord
from tictactoe.tui.game import HUMAN, Game
from tictactoe.web.app import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path, warm=False)) as test_client:
        yield test_client


def detail(response: object, status: int) -> str:
    assert response.status_code == status, response.text  # type: ignore[attr-defined]
    message = response.json()["detail"]  # type: ignore[attr-defined]
    assert isinstance(message, str) and message
    return message


def test_a_games_record_is_the_file_the_terminal_app_reads(client: TestClient) -> None:
    state = client.post("/api/games", json={"variant": "3x3", "players":
                                            {"x": "human", "o": "human"}}).json()
    for move in ["b2", "a1", "c3"]:
        state = client.post(f"/api/games/{state['id']}/moves",
                            json={"move": move, "ply": state["ply"]}).json()
    answer = client.get(f"/api/games/{state['id']}/record").json()
    assert answer["link"] == "3x3:b2,a1,c3"
    assert answer["record"]["format"] == RECORD_FORMAT
    game = Game.from_record(GameRecord.from_json(json.dumps(answer["record"])))
    assert game.moves == ["b2", "a1", "c3"] and game.position.to_string() == "o2/1x1/2x o"


def test_a_record_saved_by_the_terminal_app_parses(client: TestClient) -> None:
    game = Game("4x4", players={Side.X: HUMAN, Side.O: "easy"})
    for move in ["a1", "b2", "a2"]:
        game.play_text(move)
    answer = client.post("/api/records/parse", json={"text": game.record().to_json()}).json()
    assert answer["record"]["moves"] == ["a1", "b2", "a2"]
    assert answer["record"]["players"] == {"x": "human", "o": "easy"}
    assert answer["record"]["result"] is None
    assert answer["link"] == "4x4:a1,b2,a2"


def test_a_link_parses_with_its_result_and_start(client: TestClient) -> None:
    won = client.post("/api/records/parse",
                      json={"link": "3x3:b2,a1,c3,a3,a2,c1,c2"}).json()["record"]
    assert won["result"] == "x" and won["finished"]
    cube = client.post("/api/records/parse", json={"link": "4x4x4:1:a1,2:b2"}).json()
    assert cube["record"]["moves"] == ["1:a1", "2:b2"] and cube["link"] == "4x4x4:1:a1,2:b2"
    start = client.post("/api/records/parse", json={"link": "3x3:c3;o2/1x1/3 x"}).json()
    assert start["record"]["start"] == "o2/1x1/3 x" and start["record"]["moves"] == ["c3"]


@pytest.mark.parametrize(("body", "words"), [
    ({"link": "3x3:b2,b2"}, "move 2 ('b2')"),
    ({"link": "3x3"}, "expected BOARD:MOVES"),
    ({"link": "zz9:a1"}, "unknown variant 'zz9'"),
    ({"link": "3x3:b2,,a1"}, "move 2 is empty"),
    ({"link": "4x4:c3;o2/1x1/3 x"}, "the start position is 3x3, not 4x4"),
    ({"text": "not json"}, "not JSON"),
    ({"text": "[1, 2]"}, "expected a JSON object"),
    ({"text": "[" * 7000 + "]" * 7000}, "nested too deeply"),
    ({"text": '{"format": "chess/1", "variant": "3x3"}'}, "unknown format 'chess/1'"),
    ({"text": '{"variant": "3x3", "moves": ["b2", "z9"]}'}, "move 2 ('z9')"),
    ({"text": '{"variant": "3x3", "moves": ["b2"], "result": "x"}'}, "does not match"),
    ({"text": '{"variant": "3x3", "moves": [], "finished": 5}'}, "'finished'"),
    ({}, "give the record file's text"),
    ({"text": "{}", "link": "3x3:"}, "not both"),
])
def test_bad_records_get_400_saying_what_is_wrong(client: TestClient, body: dict[str, str],
                                                  words: str) -> None:
    assert words in detail(client.post("/api/records/parse", json=body), 400)


def test_malformed_requests_get_422_and_unknown_games_404(client: TestClient) -> None:
    assert "text" in detail(client.post("/api/records/parse", json={"text": 5}), 422)
    assert detail(client.post("/api/records/parse", json={"record": {}}), 422)
    assert detail(client.post("/api/records/parse", json={"link": "3x3:" + "a1," * 3000}), 422)
    assert detail(client.get("/api/games/" + "a" * 24 + "/record"), 404)
