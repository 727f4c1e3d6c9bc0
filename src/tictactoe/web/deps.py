"""The FastAPI dependencies of the routers: the engine service and the game store of the app
that serves the request, and the parameters and error answers that several routes share."""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import Depends, Header, HTTPException, Request
from fastapi import Path as PathParam
from pydantic import AfterValidator

from tictactoe.web.limits import RateLimit
from tictactoe.web.models import ConflictResponse, ErrorResponse
from tictactoe.web.service import Engine
from tictactoe.web.store import GameStore


async def get_engine(request: Request) -> Engine:
    """The app's engine service (made by `tictactoe.web.app.create_app`)."""
    engine: Engine = request.app.state.engine
    return engine


async def get_store(request: Request) -> GameStore:
    """The app's game store."""
    store: GameStore = request.app.state.store
    return store


BROWSER_HEADER = "X-Browser-Id"


def new_game_limit(request: Request) -> RateLimit | None:
    """The app's cap on new games per client (`tictactoe.web.limits`), made on first use from
    the environment; None when it is off. A test may set ``app.state.new_game_limit``."""
    state = request.app.state
    if not hasattr(state, "new_game_limit"):
        state.new_game_limit = RateLimit.from_environment()
    limit: RateLimit | None = state.new_game_limit
    return limit


async def new_game_allowed(request: Request) -> None:
    """Take one of the client's new-game tokens; 429 with ``Retry-After`` if it has none
    (also for the game that undo starts from a finished one)."""
    limit = new_game_limit(request)
    if limit is None:
        return
    wait = limit.wait(request.client.host if request.client else "")
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise HTTPException(
            429, f"too many new games from your address: at most {limit.burst:g} at once, "
                 f"then {limit.per_second:g} a second; try again in {seconds} s",
            headers={"Retry-After": str(seconds)})


async def browser_not_in_url(request: Request) -> None:
    """Refuse a browser id in the query string (422): it goes in the `BROWSER_HEADER`
    header, so that it stays out of logs, links and the browser's history."""
    if "browser" in request.query_params:
        raise HTTPException(422, f"browser: send the browser id in the {BROWSER_HEADER} "
                                 "header, not in the URL")


EngineDep = Annotated[Engine, Depends(get_engine)]
StoreDep = Annotated[GameStore, Depends(get_store)]

GameId = Annotated[str, PathParam(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                  description="The secret id returned when the game was made.")]

BROWSER_ID_CHARS = 16
"""The shortest browser id accepted (the page makes 22 characters from 16 random bytes)."""

BROWSER_ID_DISTINCT = 8
"""The fewest distinct characters a browser id must have: ``aaaaaaaaaaaaaaaa`` or
``0000000000000001`` could be guessed, and the id works as a password for its history."""


def strong_browser_id(value: str | None) -> str | None:
    """Refuse a browser id that anyone could guess (too few distinct characters)."""
    if value is not None and len(set(value)) < BROWSER_ID_DISTINCT:
        raise ValueError(f"a browser id needs at least {BROWSER_ID_DISTINCT} distinct "
                         "characters (use a random one, as the page does)")
    return value


BrowserId = Annotated[str | None, AfterValidator(strong_browser_id), Header(
    alias=BROWSER_HEADER, min_length=BROWSER_ID_CHARS, max_length=64,
    pattern=r"^[A-Za-z0-9_-]+$",
    description="A random id the browser keeps, so that its history can show its own games. "
                "A header, never in the URL, so that it stays out of logs and links.")]

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse, "description": text}
    for code, text in ((400, "The position, move, variant or player is not valid."),
                       (413, "The request body is too large."),
                       (422, "The request is malformed: bad JSON or a field of the wrong form."),
                       (503, "The engine is busy; try again."))}
GAME_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    404: {"model": ErrorResponse, "description": "No game has this id."},
    409: {"model": ConflictResponse,
          "description": "The request does not fit the game as it stands: it was made from an "
                         "older state (another tab or window changed the game), the game is "
                         "over, or there is nothing to undo or redo. The answer has the game "
                         "as it stands."},
    503: {"model": ErrorResponse,
          "description": "The game storage is unavailable, or this game's stored record is "
                         "damaged (the message says which), or the engine is busy. Positions "
                         "and analysis still work."},
}
TOO_MANY: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorResponse,
          "description": "This client address has started too many games lately; try again "
                         "after `Retry-After` seconds.",
          "headers": {"Retry-After": {"description": "Seconds to wait.",
                                      "schema": {"type": "integer"}}}},
}

__all__ = ["BROWSER_HEADER", "ERRORS", "GAME_ERRORS", "TOO_MANY", "BrowserId", "EngineDep",
           "GameId", "StoreDep", "browser_not_in_url", "get_engine", "get_store",
           "new_game_allowed", "new_game_limit"]
