"""Fuzz the web API from its OpenAPI schema: no request, however odd, may cause a 5xx or an
answer that does not match the schema; sequences of game requests follow the schema's links;
and the parsers behind the API (positions, boards, moves, game records) raise nothing but
their documented errors.

The numbers of examples are small here; `scripts/bench_reliability.py` runs this file with
``TICTACTOE_FUZZ_EXAMPLES`` (requests and sequences) and ``TICTACTOE_FUZZ_SECONDS`` (time
for the parsers) set much higher, and ``TICTACTOE_FUZZ_STATS`` naming a file for the counts.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import schemathesis

# Imported here rather than lazily during generation: compiling it deep inside Hypothesis's
# recursion can trip CPython 3.11's "AST constructor recursion depth mismatch" SystemError.
import schemathesis.generation.body_overrides
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():  # Starlette now prefers httpx2 for its test client; httpx works
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

from tictactoe.core import Position, TicTacToeError, Variant
from tictactoe.core.record import GameRecord
from tictactoe.web.app import create_app
from tictactoe.web.models import PlayRequest
from tictactoe.web.store import GameStore

EXAMPLES = int(os.environ.get("TICTACTOE_FUZZ_EXAMPLES", "25"))
PARSER_SECONDS = float(os.environ.get("TICTACTOE_FUZZ_SECONDS", "2"))
STATS: collections.Counter[str] = collections.Counter()


def save_stats() -> None:
    """Add this run's counts to the file named by ``TICTACTOE_FUZZ_STATS``, if any."""
    name = os.environ.get("TICTACTOE_FUZZ_STATS")
    if name:
        path = Path(name)
        old = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({k: old.get(k, 0) + STATS[k] for k in {*old, *STATS}}))
    STATS.clear()  # counted once: a later save adds only what came after

_folder = tempfile.TemporaryDirectory(prefix="ttt-fuzz-")
# Every engine call is kept short so that the fuzz run stays within its time budget.
app = create_app(store=GameStore.in_folder(_folder.name), nodes=20_000, seconds=0.2)
app.state.new_game_limit = None  # every request comes from one client: no cap on new games
schema = schemathesis.openapi.from_asgi("/openapi.json", app)
CLIENT = TestClient(app)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
"""No 5xx, and every answer as the schema says (status, media type, body). A request that
fits the schema may still be refused with a 4xx (an illegal move, say): not checked."""


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_server_errors(case: Any) -> None:
    response = case.call()
    STATS["requests"] += 1
    STATS[f"requests {response.status_code // 100}xx"] += 1
    case.validate_response(response, checks=CHECKS)
    assert response.status_code < 500, response.text


GAMES = [{"variant": "3x3", "players": {"x": "human", "o": "perfect"}},
         {"variant": "4x4", "players": {"x": "easy", "o": "human"}},
         {"variant": "3x3", "players": {"x": "human", "o": "human"}},
         {"position": "x3/4/4/3o x", "players": {"x": "human", "o": "random"}}]


class GameSequences(schema.as_state_machine()):  # type: ignore[misc]
    """Two new games in three get a real board and players (a random string is rarely a
    board's name), and two changes in three go to a game of the sequence with its current ply
    (and a legal move), so that the sequences go on into moves, undo and redo; the other
    fields stay as generated. Which ones is decided by the generated body itself, so a
    sequence replays the same way."""

    games: dict[str, Any]
    """The last state answered for each game id in this sequence."""

    def setup(self) -> None:
        # schemathesis starts sequences only at the operations that links lead to, never at
        # POST /api/games: start each with a game of its own, which the steps are led to
        STATS["sequences"] += 1
        response = CLIENT.post("/api/games", json=GAMES[STATS["sequences"] % len(GAMES)])
        assert response.status_code == 201, response.text
        STATS["steps POST /api/games 201"] += 1
        state = response.json()
        self.games = {state["id"]: state}

    def before_call(self, case: Any) -> None:
        size = len(json.dumps(case.body, sort_keys=True, default=str))
        if size % 3 == 0 or case.operation.method.upper() != "POST":
            return  # as generated
        body = case.body if isinstance(case.body, dict) else {}
        if case.operation.label == "POST /api/games":
            kept = {k: v for k, v in body.items() if k == "seed"}
            case.body = {**GAMES[size // 3 % len(GAMES)], **kept}
            return
        game_id = (case.path_parameters or {}).get("game_id")
        if game_id is None or not self.games:
            return
        if str(game_id) not in self.games:
            case.path_parameters["game_id"] = game_id = list(self.games)[-1]  # one that exists
        # a change that fits the game as it stands, so that the sequence goes on into the
        # game instead of stopping at a refused step
        state = self.games[str(game_id)]
        case.body = {**body, "ply": state["ply"]}
        legal = state["position"]["legal_moves"]
        if case.operation.label.endswith("/moves") and legal:
            case.body["move"] = legal[size % len(legal)]

    def validate_response(self, response: Any, case: Any, additional_checks: Any = None,
                          **kwargs: Any) -> None:
        case.validate_response(response, checks=CHECKS)

    def after_call(self, response: Any, case: Any) -> None:
        with contextlib.suppress(ValueError):
            answer = response.json()
            state = answer.get("state", answer) if isinstance(answer, dict) else None
            if isinstance(state, dict) and isinstance(state.get("id"), str):
                self.games[state["id"]] = state
        STATS["sequence steps"] += 1
        STATS[f"steps {case.operation.label} {response.status_code}"] += 1


def test_game_sequences_follow_the_links() -> None:
    """Sequences of game requests chained by the schema's links (create, then move, undo,
    redo, read, from each answer's id and ply): every answer matches the schema, none is
    a 5xx."""
    GameSequences.run(settings=settings(
        max_examples=EXAMPLES, stateful_step_count=6, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck)))
    save_stats()


TEXT = st.text(alphabet="xXoO.-123456789/ :abcdefghkzq\n\t\u00e9", max_size=60) | st.text(
    max_size=30)
"""Strings near the notation (marks, digits, slashes, cell names) and any strings at all."""


class RefusedByForm(Exception):
    """The request's form (pydantic) refused the text before any parser saw it: a 422."""


def api_move(board: str, text: str) -> None:
    """A move as the API reads it: the request's field first, then the rules core."""
    try:
        PlayRequest.model_validate({"move": text, "ply": 0})
    except ValidationError as err:
        raise RefusedByForm from err
    Position(board).parse_move(text)


def parse_everything(text: str) -> None:
    """Every parser the API puts user text through; each may only raise its documented
    errors (`TicTacToeError`, a ValueError) or refuse the request's form."""
    for parse in (Position, Variant.parse, GameRecord.from_json, GameRecord.from_link,
                  lambda t: api_move("4x4", t), lambda t: api_move("4x4x4", t)):
        try:
            parse(text)
            STATS["parsed"] += 1
        except RefusedByForm:
            STATS["refused by the request's form (422)"] += 1
        except TicTacToeError:
            STATS["refused with the documented error (400)"] += 1


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(TEXT)
def fuzz_parsers(text: str) -> None:
    STATS["parser strings"] += 1
    parse_everything(text)


def test_parsers_raise_only_their_documented_errors() -> None:
    """Hypothesis runs of 200 strings each, for ``PARSER_SECONDS``, each with its own seed."""
    stop, run = time.monotonic() + PARSER_SECONDS, 0
    while True:
        seed(run)(fuzz_parsers)()
        run += 1
        if time.monotonic() > stop:
            break
    STATS["parser runs"] += run
    STATS["parser seconds"] += round(PARSER_SECONDS)
    save_stats()
