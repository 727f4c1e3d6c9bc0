"""Fuzz the web API from its OpenAPI schema: no request, however odd, may cause a 5xx."""

from __future__ import annotations

import tempfile
from typing import Any

import schemathesis

# Imported here rather than lazily during generation: compiling it deep inside Hypothesis's
# recursion can trip CPython 3.11's "AST constructor recursion depth mismatch" SystemError.
import schemathesis.generation.body_overrides
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tictactoe.web.app import create_app
from tictactoe.web.store import GameStore

_folder = tempfile.TemporaryDirectory(prefix="ttt-fuzz-")
# Every engine call is kept short so that the fuzz run stays within its time budget.
app = create_app(store=GameStore.in_folder(_folder.name), nodes=20_000, seconds=0.2)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_server_errors(case: Any) -> None:
    response = case.call()
    not_a_server_error_only = [not_a_server_error]
    case.validate_response(response, checks=not_a_server_error_only)
    assert response.status_code < 500, response.text
