"""Fuzz the web API from its OpenAPI schema: no request, however odd, may cause a 5xx or an
answer that does not match the schema; sequences of game requests follow the schema's links."""

from __future__ import annotations

import tempfile
from typing import Any

import schemathesis

# Imported here rather than lazily during generation: compiling it deep inside Hypothesis's
# recursion can trip CPython 3.11's "AST constructor recursion depth mismatch" SystemError.
import schemathesis.generation.body_overrides
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tictactoe.web.app import create_app
from tictactoe.web.store import GameStore

_folder = tempfile.TemporaryDirectory(prefix="ttt-fuzz-")
# Every engine call is kept short so that the fuzz run stays within its time budget.
app = create_app(store=GameStore.in_folder(_folder.name), nodes=20_000, seconds=0.2)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
"""No 5xx, and every answer as the schema says (status, media type, body). A request that
fits the schema may still be refused with a 4xx (an illegal move, say): not checked."""


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_server_errors(case: Any) -> None:
    response = case.call()
    case.validate_response(response, checks=CHECKS)
    assert response.status_code < 500, response.text


GAMES = [{"variant": "3x3", "players": {"x": "human", "o": "perfect"}},
         {"variant": "4x4", "players": {"x": "easy", "o": "human"}},
         {"variant": "3x3", "players": {"x": "human", "o": "human"}},
         {"position": "x3/4/4/3o o", "players": {"x": "human", "o": "random"}}]


class GameSequences(schema.as_state_machine()):  # type: ignore[misc]
    """Every other new game gets a real board and players (a random string is rarely a
    board's name), so that the sequences reach the moves, undo and redo that follow it; the
    other fields stay as generated."""

    created = 0

    def before_call(self, case: Any) -> None:
        if case.operation.label == "POST /api/games" and isinstance(case.body, dict):
            GameSequences.created += 1
            if GameSequences.created % 2 == 0:
                kept = {k: v for k, v in case.body.items() if k in ("seed", "browser")}
                case.body = {**GAMES[GameSequences.created // 2 % len(GAMES)], **kept}

    def validate_response(self, response: Any, case: Any, additional_checks: Any = None,
                          **kwargs: Any) -> None:
        case.validate_response(response, checks=CHECKS)


def test_game_sequences_follow_the_links() -> None:
    """Sequences of game requests chained by the schema's links (create, then move, undo,
    redo, read, from each answer's id and ply): every answer matches the schema, none is
    a 5xx."""
    GameSequences.run(settings=settings(
        max_examples=30, stateful_step_count=6, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck)))
