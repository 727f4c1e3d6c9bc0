"""The web API on the big boards: whole games on 15×15 and 19×19 (five in a row) through the
server-owned game endpoints, stored and read back; a 32×32 position string; bounded engine
answers; and clear 4xx answers to bad input."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

from tictactoe.core import Position
from tictactoe.players.tactical import GreedyPlayer
from tictactoe.web.app import create_app
from tictactoe.web.models import MAX_MOVES, MAX_POSITION_CHARS

BOUND_SECONDS = 1.0
"""The engine's bound per call in these tests."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(tmp_path, warm=False, seconds=BOUND_SECONDS, processes=False)
    with TestClient(app) as test_client:
        yield test_client


def detail(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    text = response.json()["detail"]
    assert isinstance(text, str) and text
    return text


@pytest.mark.parametrize("variant", ["15x15k5", "19x19k5"])
def test_a_whole_game_against_random_through_the_api(client: TestClient, variant: str) -> None:
    """A person (played here by the greedy player) against random, move by move, to the end;
    the stored game and the history agree with the board."""
    response = client.post("/api/games", json={
        "variant": variant, "players": {"x": "human", "o": "random"}, "seed": 7})
    assert response.status_code == 201, response.text
    state: dict[str, Any] = response.json()
    board = Position(variant)
    me = GreedyPlayer(seed=1)
    slowest = 0.0
    while state["game"]["result"] is None:
        move = board.variant.cell_name(me.choose(board).move)
        started = time.perf_counter()
        response = client.post(f"/api/games/{state['id']}/moves",
                               json={"ply": state["ply"], "move": move})
        slowest = max(slowest, time.perf_counter() - started)
        assert response.status_code == 200, response.text
        state = response.json()
        board = Position(variant)
        for name in state["game"]["moves"]:
            board.push_name(name)
        assert state["position"]["position"] == board.to_string()
    assert state["game"]["result"] == "x" and state["position"]["winning_lines"]
    assert board.outcome() is not None and len(state["game"]["moves"]) % 2 == 1
    assert slowest < 2.0, f"{slowest:.2f} s for a move"
    again = client.get(f"/api/games/{state['id']}").json()
    assert again["game"]["moves"] == state["game"]["moves"] and again["game"]["result"] == "x"
    history = client.get("/api/history").json()
    assert [g["variant"] for g in history["games"]] == [variant]


def test_two_people_play_five_in_a_row_on_19x19(client: TestClient) -> None:
    xs = ["j10", "k10", "l10", "m10", "n10"]
    os = ["j11", "k11", "l11", "a19"]
    moves = [m for pair in zip(xs, [*os, ""], strict=True) for m in pair if m]
    response = client.post("/api/games", json={"variant": "19x19k5", "moves": moves})
    assert response.status_code == 201, response.text
    state = response.json()
    assert state["game"]["result"] == "x" and state["game"]["moves"] == moves
    cells = [Position("19x19k5").variant.parse_cell(m) for m in xs]
    assert sorted(state["position"]["winning_lines"][0]) == cells
    # and the page's replace-the-moves path takes the same list
    response = client.post("/api/position", json={"position": "19x19k5", "moves": moves})
    assert response.json()["outcome"]["winner"] == "x"


def test_a_32x32_position_string_fits(client: TestClient) -> None:
    # the longest rows: a mark on every other cell (no five in a row: the marks go X X O O
    # along a diagonal, and leave a gap along a row and a column)
    rows = ["".join(("xo"[c // 2 % 2] if c % 2 == r % 2 else "1") for c in range(32))
            for r in range(32)]
    text = "/".join(rows) + " x 5"
    assert len(text) > 1000
    assert len(text) <= MAX_POSITION_CHARS
    info = client.post("/api/position", json={"position": text}).json()
    assert info["valid"] and info["outcome"] is None and info["ply"] == 512
    assert Position(info["position"]) == Position(text) and info["variant"]["columns"] == 32
    assert info["cell_names"][31] == "af1" and info["cell_names"][-1] == "af32"
    assert MAX_MOVES >= 32 * 32


@pytest.mark.parametrize("path,body", [
    ("/api/move", {"position": "19x19k5", "player": "hard"}),
    ("/api/move", {"position": "19/19/19/19/19/19/19/19/19/9x9/19/19/19/19/19/19/19/19/19 o 5",
                   "player": "perfect"}),
    ("/api/analysis", {"position": "15x15k5"}),
])
def test_engine_answers_on_big_boards_are_bounded(client: TestClient, path: str,
                                                  body: dict[str, Any]) -> None:
    started = time.perf_counter()
    response = client.post(path, json=body)
    took = time.perf_counter() - started
    assert response.status_code == 200, response.text
    assert took < 4 * BOUND_SECONDS + 2, f"{path} took {took:.1f} s"


@pytest.mark.parametrize("body,status,words", [
    ({"position": "19x19k5", "moves": ["t1"]}, 400, "off the 19x19"),
    ({"position": "19x19k5", "moves": ["a20"]}, 400, "off the 19x19"),
    ({"position": "33x33k5"}, 400, "at most 32"),
    ({"position": "19x19k5", "moves": ["j10", "j10"]}, 400, "already taken"),
    ({"position": "x" * (MAX_POSITION_CHARS + 1)}, 422, f"at most {MAX_POSITION_CHARS}"),
])
def test_bad_input_on_big_boards(client: TestClient, body: dict[str, Any], status: int,
                                 words: str) -> None:
    assert words in detail(client.post("/api/position", json=body), status)
