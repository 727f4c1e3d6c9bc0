"""The web app: a JSON API over the rules core and the engines, and the page that uses it.

`create_app` puts the pieces together: the engine service (`tictactoe.web.service`), the
game store (`tictactoe.web.store`), the routers (`tictactoe.web.routers`: positions, engines,
games), the error answers, the guards (`tictactoe.web.guard`: the body-size limit, the Host
check, the security headers, ``HEAD`` answered as ``GET``) and the static page.

The settings below bound the engine: every call is limited by `SOLVE_NODES` and
`SOLVE_SECONDS`; searches that do not answer at once run in engine worker processes (one for
the small boards, one for the big ones, see `tictactoe.web.service`), and a request that waits
`BUSY_SECONDS` for its worker, or finds its queue full, is answered 503.

>>> app = create_app(store=GameStore(":memory:"), warm=False)
>>> sorted({op["tags"][0] for path in app.openapi()["paths"].values() for op in path.values()})
['engines', 'games', 'positions']
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.middleware.body_limit import RequestBodyLimitMiddleware

from tictactoe.core import TicTacToeError
from tictactoe.web.convert import describe_validation, game_state, position_info
from tictactoe.web.guard import (
    MAX_BODY_BYTES,
    DeclaredLengthCheck,
    HeadAsGet,
    HostCheck,
    SecurityHeaders,
    body_too_large,
)
from tictactoe.web.pool import EngineBusyError
from tictactoe.web.routers import engines, games, positions
from tictactoe.web.service import Engine, early_positions
from tictactoe.web.store import (
    GameConflictError,
    GameNotFoundError,
    GameStore,
    StorageUnavailableError,
)

log = logging.getLogger("tictactoe.web")

SOLVE_NODES = 400_000
"""Most nodes one engine call may search."""
SOLVE_SECONDS = 1.5
"""Most seconds one engine call may take."""
ENGINE_PROCESSES = True
"""Whether the engine workers are processes (the default: the compiled search and the Python
players hold the interpreter lock, so in the server's own process they would stall every
request) or threads of the server (cheaper to start, for tests)."""
INLINE_NODES = 10_000
"""Nodes a search on a small board may take on the event loop before it goes to a worker."""
BUSY_SECONDS = 10.0
"""How long a request waits for a free worker before it is refused with 503."""
WORKER_MEMORY_MB = 2048
"""An engine worker that holds more than this many megabytes after a job is replaced (with
``ttt serve --worker-memory MB``: another budget)."""
WARM_PLIES = {"3x3": 9, "4x4": 3}
"""At startup, a background task solves every position of these boards up to this many marks
(one per symmetry class), so that early moves, the costliest to search, answer at once."""


def create_app(data: str | Path | None = None, *, store: GameStore | None = None,
               nodes: int | None = None, seconds: float | None = None,
               warm: bool = True, processes: bool | None = None,
               allowed_hosts: Sequence[str] | None = None,
               public_history: bool = True,
               worker_memory_mb: int | None = None) -> FastAPI:
    """The app, storing games in the data folder ``data`` (or in ``store``). ``nodes`` and
    ``seconds`` bound each engine call (default `SOLVE_NODES`, `SOLVE_SECONDS`). With
    ``warm``, a background task loads the compiled kernels and solves the positions of
    `WARM_PLIES` once the server starts; requests are served meanwhile. ``processes``
    overrides `ENGINE_PROCESSES`. With ``allowed_hosts``, a request whose ``Host`` names
    none of them is refused with 400 (`tictactoe.web.guard.HostCheck`); None accepts any.
    Without ``public_history``, the history of every game is refused (403); each browser
    still reads its own. An engine worker whose memory passes ``worker_memory_mb`` (default
    `WORKER_MEMORY_MB`) after a job is replaced.

    The app starts even if the data folder cannot be used (read-only, damaged, full): game
    requests then get 503 with the reason, and everything else works."""
    if store is None:
        if data is None:
            raise ValueError("create_app needs a data folder or a store")
        store = GameStore.in_folder(data)
    try:
        store.check()
    except StorageUnavailableError as err:
        log.warning("%s; the server runs without saving games until it is fixed", err)
    engine = Engine(nodes=SOLVE_NODES if nodes is None else nodes,
                    seconds=SOLVE_SECONDS if seconds is None else seconds,
                    busy_seconds=BUSY_SECONDS, inline_nodes=INLINE_NODES,
                    warm_plies=WARM_PLIES,
                    worker_memory=(WORKER_MEMORY_MB if worker_memory_mb is None
                                   else worker_memory_mb) * 2**20,
                    processes=ENGINE_PROCESSES if processes is None else processes)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        warming = asyncio.create_task(engine.warm_up()) if warm else None
        if warming is None:
            engine.ready.set()
        app.state.warming = warming
        try:
            yield
        finally:
            if warming is not None:
                warming.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await warming
            engine.close()

    app = FastAPI(
        title="tictactoe", version="1",
        summary="Play, analyse and record tic-tac-toe on m×n boards with k in a row and cubes.",
        docs_url=None, redoc_url=None,  # their pages load scripts from a CDN
        lifespan=lifespan)
    app.state.engine = engine
    app.state.store = store
    app.state.solver = engine.solver
    app.state.public_history = public_history
    add_error_handlers(app)
    app.add_middleware(RequestBodyLimitMiddleware, max_body_size=MAX_BODY_BYTES)
    app.add_middleware(DeclaredLengthCheck)  # outside it, so that its 413 is JSON too
    if allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=allowed_hosts)
    app.add_middleware(SecurityHeaders)  # outside the others, so on every answer
    app.add_middleware(HeadAsGet)  # outermost: HEAD gets every header GET gets, no body
    for router in (positions.router, engines.router, games.router):
        app.include_router(router)

    static = Path(str(resources.files("tictactoe.web") / "static"))

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(static / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=static), name="static")
    return app


def add_error_handlers(app: FastAPI) -> None:
    """Every error becomes a JSON ``{"detail": ...}`` with a fitting status."""

    @app.exception_handler(TicTacToeError)
    async def bad_input(request: Request, err: TicTacToeError) -> Response:
        if isinstance(err, GameConflictError):
            state = None if err.current is None else game_state(err.current)
            return Response(
                b'{"detail":' + json.dumps(str(err)).encode() + b',"state":'
                + (b"null" if state is None else state.model_dump_json().encode()) + b"}",
                409, media_type="application/json")
        status = 404 if isinstance(err, GameNotFoundError) else 400
        return JSONResponse({"detail": str(err)}, status_code=status)

    @app.exception_handler(StorageUnavailableError)
    async def storage_down(request: Request, err: StorageUnavailableError) -> JSONResponse:
        return JSONResponse({"detail": f"{err}. Games cannot be used now; "
                                       "positions, computer moves and analysis still work."},
                            status_code=503, headers={"Retry-After": "30"})

    @app.exception_handler(EngineBusyError)
    async def engine_busy(request: Request, err: EngineBusyError) -> JSONResponse:
        return JSONResponse({"detail": str(err)}, status_code=503,
                            headers={"Retry-After": str(err.retry_after)})

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, err: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": describe_validation(err.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> Response:
        if err.status_code == 404 and err.detail == "Not Found":
            return JSONResponse({"detail": f"no such page: {request.url.path}"}, 404)
        if err.status_code == 413:
            return JSONResponse({"detail": body_too_large()}, 413,
                                headers={"Connection": "close"})
        if err.status_code == 405:
            return JSONResponse({"detail": f"{request.method} is not allowed here"}, 405,
                                headers=err.headers)
        return JSONResponse({"detail": str(err.detail)}, err.status_code, headers=err.headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, err: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, loggable(request.url.path))
        return JSONResponse({"detail": f"internal error ({type(err).__name__})"}, 500)


def loggable(path: str) -> str:
    """A request's path as the log may show it: a game's secret id (it works as a password
    for the game) replaced.

    >>> loggable("/api/games/6R25ZxAbCdEf0123/moves")
    '/api/games/<id>/moves'
    """
    return re.sub(r"^/api/games/[^/]+", "/api/games/<id>", path)


__all__ = ["create_app", "describe_validation", "early_positions", "position_info"]
