"""The web app: a JSON API over the rules core and the engines, and the page that uses it.

Every engine call is bounded by `SOLVE_NODES` and `SOLVE_SECONDS` and runs in a worker
thread, at most `ENGINE_THREADS` at a time; a request that cannot get a worker within
`BUSY_SECONDS` is answered 503 rather than queued for ever. Two things answer without a
worker: a solution proven before (for this position or one equivalent under symmetry), and,
on the small boards, a search that proves the position within `INLINE_NODES` nodes (a
millisecond or two: less than handing the work to a thread and back costs on a busy server).
Answers to repeated requests are kept as JSON bytes.

>>> info = position_info(Position("xxx/oo1/3 o"))
>>> info.outcome.result, info.winning_lines, info.legal_moves
('x', [[0, 1, 2]], [])
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import logging
import random
from collections.abc import AsyncIterator, Callable
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, NamedTuple, TypeVar

import anyio
import anyio.to_thread
from fastapi import FastAPI, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from tictactoe.core import Position, Side, Termination, TicTacToeError
from tictactoe.core.record import GameRecord
from tictactoe.players.base import Limit
from tictactoe.players.levels import LEVELS, PLAYER_NAMES, make_player
from tictactoe.search.score import Score
from tictactoe.search.solution import Solution
from tictactoe.web.engine import LruCache, WebSolver, code_score, score_code
from tictactoe.web.models import (
    AnalysisRequest,
    AnalysisResponse,
    ChoiceInfo,
    ErrorResponse,
    GameInfo,
    GameResponse,
    HistoryResponse,
    LevelStats,
    MoveRequest,
    MoveResponse,
    MoveValue,
    NewGameRequest,
    OptionsResponse,
    OutcomeInfo,
    PositionInfo,
    PositionRequest,
    ScoreInfo,
    UpdateGameRequest,
    VariantInfo,
)
from tictactoe.web.store import GameFinishedError, GameNotFoundError, GameStore, StoredGame

log = logging.getLogger("tictactoe.web")

SOLVE_NODES = 400_000
"""Most nodes one engine call may search."""
SOLVE_SECONDS = 1.5
"""Most seconds one engine call may take."""
ENGINE_THREADS = 1
"""Engine calls running at once; more wait for a free worker. The compiled kernels hold the
interpreter lock, so a second worker would only take turns with the first."""
INLINE_NODES = 10_000
"""Nodes a search on a small board may take on the event loop before it goes to a worker."""
BUSY_SECONDS = 10.0
"""How long a request waits for a free worker before it is refused with 503."""
MAX_BODY_BYTES = 16 * 1024
"""Largest request body accepted; anything bigger is refused with 413."""
CACHE_SIZE = 50_000
"""Engine answers remembered (they are deterministic for a given position, player and seed)."""
WARM_PLIES = {"3x3": 9, "4x4": 3}
"""At startup, a background task solves every position of these boards up to this many marks
(one per symmetry class), so that early moves, the costliest to search, answer at once."""

VARIANTS = (("3x3", "3×3"), ("4x4", "4×4"), ("5x5k4", "5×5, four in a row"),
            ("6x6k4", "6×6, four in a row"), ("4x4x4", "4×4×4 cube"))
LEVEL_LABELS = {"easy": "Easy", "medium": "Medium", "hard": "Hard", "perfect": "Perfect"}
PLAYER_OR_LEVEL = frozenset((*PLAYER_NAMES, *LEVELS, "human"))

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse, "description": text}
    for code, text in ((400, "The position, move, variant or player is not valid."),
                       (413, "The request body is too large."),
                       (422, "The request is malformed: bad JSON or a field of the wrong form."),
                       (503, "Every engine worker is busy; try again."))}
GAME_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    404: {"model": ErrorResponse, "description": "No game has this id."},
    409: {"model": ErrorResponse, "description": "The game is over and cannot change."},
}

T = TypeVar("T")
GameId = Annotated[str, PathParam(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                  description="The secret id returned when the game was made.")]


# ----------------------------------------------------------------- conversions
def position_info(position: Position) -> PositionInfo:
    """Everything the page needs to draw a position."""
    v = position.variant
    outcome = position.outcome()
    return PositionInfo(
        position=position.to_string(),
        variant=variant_info(position),
        cells=[("x" if position.x >> c & 1 else "o" if position.o >> c & 1 else "")
               for c in range(v.cells)],
        cell_names=[v.cell_name(c) for c in range(v.cells)],
        turn="x" if position.turn is Side.X else "o",
        ply=position.ply,
        legal_moves=[v.cell_name(c) for c in position.legal_moves()],
        valid=position.is_valid(),
        problems=position.problems(),
        outcome=None if outcome is None else OutcomeInfo(
            result="draw" if outcome.winner is None else "x" if outcome.winner is Side.X else "o",
            winner=None if outcome.winner is None else "x" if outcome.winner is Side.X else "o",
            termination="line" if outcome.termination is Termination.LINE else "full board"),
        winning_lines=[list(line) for line in position.winning_lines()],
    )


def variant_info(position: Position) -> VariantInfo:
    v = position.variant
    return VariantInfo(name=v.name, shape=list(v.shape), k=v.k, cells=v.cells, layers=v.layers,
                       rows=v.rows, columns=v.columns, is_3d=v.is_3d)


def score_info(score: Score) -> ScoreInfo:
    data = score.to_json()
    return ScoreInfo(kind=data["kind"], plies=data.get("plies"), value=data.get("value"),
                     text=str(score))


def game_info(stored: StoredGame) -> GameInfo:
    r = stored.record
    return GameInfo(number=stored.number, variant=r.variant, start=r.start,
                    players=dict(r.players), moves=list(r.moves),
                    result=r.result if r.result in ("x", "o", "draw") else None,  # type: ignore[arg-type]
                    started=r.started, finished=r.finished)


def playable(text: str) -> Position:
    """Parse a position the engines may search: valid and not over."""
    position = Position(text)
    problems = position.problems()
    if problems:
        raise TicTacToeError(f"this position cannot arise in play: {'; '.join(problems)}")
    outcome = position.outcome()
    if outcome is not None:
        result = "a draw" if outcome.winner is None else f"won by {outcome.winner.name}"
        raise TicTacToeError(f"the game is over ({result}); there is no move to make")
    return position


def check_players(players: dict[str, str]) -> dict[str, str]:
    for side, name in players.items():
        if name.strip().lower() not in PLAYER_OR_LEVEL:
            raise TicTacToeError(
                f"unknown player {name!r} for {side.upper()}: expected human or one of "
                f"{', '.join(sorted(PLAYER_OR_LEVEL - {'human'}))}")
    return {side: name.strip().lower() for side, name in players.items()}


class PerfectMoves(NamedTuple):
    """The perfect player's choices in one position: the best moves with their scores (coded
    as integers), and the answer to each (as JSON) once asked for. Only strings, numbers and
    bytes, so that a full cache gives the garbage collector nothing to visit."""

    position: str
    best: tuple[int, ...]
    scores: dict[int, int]
    replies: dict[int, bytes]

    @staticmethod
    def of(board: Position, solution: Solution) -> PerfectMoves:
        return PerfectMoves(board.to_string(), tuple(solution.best),
                            {move: score_code(solution.moves[move]) for move in solution.best},
                            {})


# ----------------------------------------------------------------- the app
def early_positions(variant: str, plies: int) -> list[Position]:
    """One position per symmetry class with at most ``plies`` marks, not over, fewest first.

    >>> [len([p for p in early_positions("3x3", 9) if p.ply == n]) for n in range(4)]
    [1, 3, 12, 38]
    """
    level = [Position(variant)]
    found: list[Position] = []
    for _ in range(plies + 1):
        found += level
        following: dict[tuple[int, int, Side], Position] = {}
        for board in level:
            for cell in board.legal_moves():
                after = board.play(cell)
                if not after.is_game_over():
                    following.setdefault(after.canonical_key(), after)
        level = list(following.values())
    return found


class BodyLimit:
    """Refuse a request whose declared body is over `MAX_BODY_BYTES` with 413 (plain ASGI,
    so that the other requests pay nothing for it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"content-length" and (not value.isdigit()
                                                  or int(value) > MAX_BODY_BYTES):
                    refusal = JSONResponse(
                        {"detail": f"request body too large: at most {MAX_BODY_BYTES} bytes"},
                        413)
                    await refusal(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def create_app(data: str | Path | None = None, *, store: GameStore | None = None,
               nodes: int | None = None, seconds: float | None = None,
               warm: bool = True) -> FastAPI:
    """The app, storing games in the data folder ``data`` (or in ``store``). ``nodes`` and
    ``seconds`` bound each engine call (default `SOLVE_NODES`, `SOLVE_SECONDS`). With
    ``warm``, a background task loads the compiled kernels and solves the positions of
    `WARM_PLIES` once the server starts; requests are served meanwhile."""
    if store is None:
        if data is None:
            raise ValueError("create_app needs a data folder or a store")
        store = GameStore.in_folder(data)
    games: GameStore = store
    max_nodes = SOLVE_NODES if nodes is None else nodes
    max_seconds = SOLVE_SECONDS if seconds is None else seconds
    limiter = anyio.CapacityLimiter(ENGINE_THREADS)
    solver = WebSolver(CACHE_SIZE)
    ready = asyncio.Event()  # set once the warm-up is over
    infos: LruCache[bytes] = LruCache(CACHE_SIZE)  # position string -> PositionInfo JSON
    answers: LruCache[bytes] = LruCache(CACHE_SIZE)  # (position text, *moves) -> its JSON
    perfect_moves: LruCache[PerfectMoves] = LruCache(CACHE_SIZE)  # position text -> answers
    moves_cache: LruCache[bytes] = LruCache(CACHE_SIZE)  # other players' moves, by seed

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        warming = asyncio.create_task(warm_up()) if warm else None
        if warming is None:
            ready.set()
        app.state.warming = warming
        try:
            yield
        finally:
            if warming is not None:
                warming.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await warming

    app = FastAPI(
        title="tictactoe", version="1",
        summary="Play, analyse and record tic-tac-toe on m×n boards with k in a row and cubes.",
        docs_url=None, redoc_url=None,  # their pages load scripts from a CDN
        lifespan=lifespan)
    app.state.solver = solver

    async def run_engine(work: Callable[[], T]) -> T:
        """Run a CPU-bound call in a worker thread, waiting at most BUSY_SECONDS for one."""
        acquired = False
        with anyio.move_on_after(BUSY_SECONDS):
            await limiter.acquire()
            acquired = True
        if not acquired:
            raise HTTPException(503, "every engine worker is busy; try again in a moment")
        try:
            return await anyio.to_thread.run_sync(work)
        finally:
            limiter.release()

    async def solution_for(board: Position, nodes: int, seconds: float) -> Solution:
        """The solver's answer: from the cache when this position or an equivalent one was
        proven before, else from a quick search here if that proves it, else from a bounded
        search in a worker."""
        solution = solver.cached(board)
        if solution is None:
            solution = solver.solve_quickly(board, min(nodes, INLINE_NODES))
        if solution is None:
            solution = await run_engine(lambda: solver.solve(board, nodes=nodes,
                                                             seconds=seconds))
        return solution

    async def warm_up() -> None:
        """Load the kernels, then solve the early positions of the small boards, one engine
        call each, so that requests queue between them rather than behind all of them."""
        try:
            await run_engine(solver.load)
            for variant, plies in WARM_PLIES.items():
                boards = await run_engine(functools.partial(early_positions, variant, plies))
                for board in boards:
                    if solver.cached(board) is None:
                        await run_engine(functools.partial(
                            solver.solve, board, nodes=max_nodes, seconds=max_seconds))
            # Everything alive now (the modules, the kernels, the warm cache) lives as long
            # as the server: keep it out of the collector's full passes, which would
            # otherwise stall every request for tens of milliseconds now and then.
            gc.freeze()
            log.info("warm-up done: %d solutions cached", len(solver.cache))
        except HTTPException:  # every worker busy for long: the requests come first
            log.info("warm-up stopped: the engine is busy")
        finally:
            ready.set()

    def info_json(board: Position) -> bytes:
        """`position_info` as JSON, remembered."""
        key = (board.to_string(),)
        info = infos.get(key)
        if info is None:
            info = position_info(board).model_dump_json().encode()
            infos.put(key, info)
        return info

    def move_json(board: Position, move: int, player: str, score: Score | None) -> bytes:
        """A `MoveResponse` as JSON, around the remembered JSON of the position after it."""
        head = json.dumps({"move": board.move_name(move), "cell": move, "player": player,
                           "score": None if score is None else score_info(score).model_dump()},
                          separators=(",", ":"))
        return head[:-1].encode() + b',"position":' + info_json(board.play(move)) + b"}"

    # ------------------------------------------------------------- errors
    @app.exception_handler(TicTacToeError)
    async def bad_input(request: Request, err: TicTacToeError) -> JSONResponse:
        status = 404 if isinstance(err, GameNotFoundError) else \
            409 if isinstance(err, GameFinishedError) else 400
        return JSONResponse({"detail": str(err)}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, err: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": describe_validation(err.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> Response:
        if err.status_code == 404 and err.detail == "Not Found":
            return JSONResponse({"detail": f"no such page: {request.url.path}"}, 404)
        if err.status_code == 405:
            return JSONResponse({"detail": f"{request.method} is not allowed here"}, 405,
                                headers=err.headers)
        return JSONResponse({"detail": str(err.detail)}, err.status_code, headers=err.headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, err: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": f"internal error ({type(err).__name__})"}, 500)

    app.add_middleware(BodyLimit)

    # ------------------------------------------------------------- API
    @app.get("/api/options", response_model=OptionsResponse, tags=["positions"])
    async def options() -> OptionsResponse:
        """The variants and computer levels the page offers, and the engine bounds."""
        return OptionsResponse(
            variants=[ChoiceInfo(value=v, label=label) for v, label in VARIANTS],
            levels=[ChoiceInfo(value=level, label=LEVEL_LABELS.get(level, level.title()))
                    for level in LEVELS],
            limits={"nodes": max_nodes, "seconds": max_seconds}, ready=ready.is_set())

    @app.post("/api/position", response_model=PositionInfo, responses=ERRORS,
              tags=["positions"])
    async def position(body: PositionRequest) -> Response:
        """A position's marks, legal moves, legality problems, outcome and winning lines,
        after playing ``moves`` (if any) from it."""
        key = (body.position, *body.moves)
        answer = answers.get(key)
        if answer is None:
            board = Position(body.position)
            for number, move in enumerate(body.moves, 1):
                try:
                    board.push_name(move)
                except TicTacToeError as err:
                    raise type(err)(f"move {number} ({move!r}): {err}") from None
            answer = info_json(board)
            answers.put(key, answer)
        return Response(answer, media_type="application/json")

    @app.post("/api/move", response_model=MoveResponse, responses=ERRORS, tags=["engines"])
    async def computer_move(body: MoveRequest) -> Response:
        """The move a computer player or level chooses; the same seed gives the same move."""
        name = body.player.strip().lower()
        if name == "perfect":
            # The perfect player's own rule (a seeded random choice among the solver's best
            # moves), over a solution that is cached for every client.
            known = perfect_moves.get((body.position,))
            if known is None:
                board = playable(body.position)
                solution = await solution_for(board, max_nodes, max_seconds)
                if not solution.proven:  # estimates: answered, never remembered
                    move = random.Random(body.seed).choice(solution.best)
                    return Response(move_json(board, move, name, solution.moves[move]),
                                    media_type="application/json")
                known = PerfectMoves.of(board, solution)
                perfect_moves.put((body.position,), known)
            move = random.Random(body.seed).choice(known.best)
            reply = known.replies.get(move)
            if reply is None:
                reply = known.replies[move] = move_json(Position(known.position), move, name,
                                                        code_score(known.scores[move]))
            return Response(reply, media_type="application/json")
        board = playable(body.position)
        if name not in PLAYER_OR_LEVEL - {"human"}:
            raise TicTacToeError(
                f"unknown player {body.player!r}: expected one of "
                f"{', '.join(sorted(PLAYER_OR_LEVEL - {'human'}))}")
        key = ("move", board.to_string(), name, body.seed)
        cached = moves_cache.get(key)
        if cached is None:
            def choose() -> bytes:
                player = make_player(name, seed=body.seed)
                choice = player.choose(board.copy(stack=False), Limit(seconds=max_seconds))
                return move_json(board, choice.move, name, choice.score)
            cached = await run_engine(choose)
            if body.seed is not None:
                moves_cache.put(key, cached)
        return Response(cached, media_type="application/json")

    @app.post("/api/analysis", response_model=AnalysisResponse, responses=ERRORS,
              tags=["engines"])
    async def analysis(body: AnalysisRequest) -> AnalysisResponse:
        """The value of every legal move: win or loss in N plies, or draw.

        The search is bounded; if the bound stops it before a proof, ``proven`` is false
        and the values are the engine's best estimates."""
        board = playable(body.position)
        nodes = min(body.nodes or max_nodes, max_nodes)
        seconds = min(body.seconds or max_seconds, max_seconds)
        solution = await solution_for(board, nodes, seconds)
        return AnalysisResponse(
            position=board.to_string(), proven=solution.proven,
            score=score_info(solution.score),
            moves=[MoveValue(move=board.move_name(cell), cell=cell, score=score_info(score))
                   for cell, score in sorted(solution.moves.items())],
            best=[board.move_name(cell) for cell in solution.best],
            nodes=solution.nodes, seconds=round(solution.seconds, 4))

    # ------------------------------------------------------------- games
    @app.post("/api/games", response_model=GameResponse, status_code=201,
              responses=GAME_ERRORS, tags=["games"])
    async def new_game(body: NewGameRequest) -> GameResponse:
        """Start recording a game. Keep the returned id: it is needed to change the game."""
        players = check_players({"x": body.players.x, "o": body.players.o})
        record = GameRecord.from_moves(body.variant, body.moves, start=body.start,
                                       players=players)
        token, stored = await anyio.to_thread.run_sync(games.create, record)
        return GameResponse(id=token, game=game_info(stored))

    @app.get("/api/games/{game_id}", response_model=GameResponse, responses=GAME_ERRORS,
             tags=["games"])
    async def get_game(game_id: GameId) -> GameResponse:
        """A game, by its secret id."""
        stored = await anyio.to_thread.run_sync(games.get_stored, game_id)
        return GameResponse(id=game_id, game=game_info(stored))

    @app.put("/api/games/{game_id}", response_model=GameResponse, responses=GAME_ERRORS,
             tags=["games"])
    async def update_game(game_id: GameId, body: UpdateGameRequest) -> GameResponse:
        """Replace the moves of a game (after a move, an undo or a redo). Once the moves end
        the game it is saved with its result and can no longer change."""
        current = await anyio.to_thread.run_sync(games.get, game_id)
        record = GameRecord.from_moves(current.variant, body.moves, start=current.start,
                                       players=current.players, started=current.started)
        stored = await anyio.to_thread.run_sync(games.update, game_id, record)
        return GameResponse(id=game_id, game=game_info(stored))

    @app.get("/api/history", response_model=HistoryResponse, tags=["games"])
    async def history(limit: Annotated[int, Query(ge=1, le=500)] = 100) -> HistoryResponse:
        """Finished games, newest first, and the human's results against each level."""
        finished = await anyio.to_thread.run_sync(games.finished, limit)
        tally = await anyio.to_thread.run_sync(games.results_by_opponent)
        order = {name: i for i, name in enumerate((*LEVELS, *PLAYER_NAMES))}
        levels = [LevelStats(level=name, wins=w, draws=d, losses=lost)
                  for name, (w, d, lost) in sorted(tally.items(),
                                                   key=lambda kv: (order.get(kv[0], 99), kv[0]))]
        return HistoryResponse(games=[game_info(g) for g in finished], levels=levels)

    # ------------------------------------------------------------- the page
    static = Path(str(resources.files("tictactoe.web") / "static"))

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(static / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=static), name="static")
    return app


def describe_validation(errors: Any) -> str:
    """One readable line from pydantic's list of validation errors.

    >>> describe_validation([{"loc": ("body", "position"), "msg": "Field required",
    ...                       "type": "missing"}])
    'position: Field required'
    """
    parts = []
    for error in list(errors)[:5]:
        if error.get("type") == "json_invalid":
            parts.append(f"malformed JSON: {error.get('ctx', {}).get('error', 'cannot parse')}")
            continue
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query",
                                                                          "path"))
        parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return "; ".join(parts) or "malformed request"


__all__ = ["create_app", "describe_validation", "early_positions", "position_info"]
