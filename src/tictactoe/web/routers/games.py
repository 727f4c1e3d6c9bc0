"""Routes about games: the server owns each game. A client sends its move with the game's
change counter (``ply``); the server checks the move against the stored position, plays the
computer's reply with the game's player and seed, and stores both in one transaction. A
request made from an older state gets 409 with the game as it stands. A game whose stored
row cannot be read or replayed gets 503 "damaged record"; the other games work."""

from __future__ import annotations

import secrets
from typing import Annotated, Any

import anyio
import anyio.to_thread
from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response

from tictactoe.core import TicTacToeError
from tictactoe.core.record import GameRecord, InvalidRecordError
from tictactoe.players.levels import LEVELS, PLAYER_NAMES
from tictactoe.search.words import reply_words
from tictactoe.web.convert import (
    check_players,
    game_info,
    game_state_json,
    score_info,
)
from tictactoe.web.deps import (
    ERRORS,
    GAME_ERRORS,
    TOO_MANY,
    BrowserId,
    EngineDep,
    GameId,
    StoreDep,
    browser_not_in_url,
    new_game_allowed,
)
from tictactoe.web.models import (
    BoardStats,
    ChangeRequest,
    ComputerMove,
    ErrorResponse,
    GameState,
    HistoryResponse,
    LevelStats,
    NewGameRequest,
    PlayRequest,
    RecordRequest,
    RecordResponse,
    UpdateGameRequest,
)
from tictactoe.web.pool import Priority
from tictactoe.web.referee import (
    HUMAN,
    Play,
    computer_to_move,
    new_record,
    redo,
    undo,
    with_human_move,
)
from tictactoe.web.service import Engine
from tictactoe.web.store import (
    DamagedRecordError,
    GameConflictError,
    GameStore,
    StalePlyError,
    StoredGame,
    every_board,
)

router = APIRouter(tags=["games"])

HISTORY_THREADS = anyio.CapacityLimiter(2)
"""History pages made at once (on threads); more wait their turn."""

_GAME = {"game_id": "$response.body#/id"}
LINKS: dict[str, Any] = {
    "GetGame": {"operationId": "get_game", "parameters": _GAME},
    "PlayMove": {"operationId": "play_move", "parameters": _GAME,
                 "requestBody": {"move": "$response.body#/position/legal_moves/0",
                                 "ply": "$response.body#/ply"},
                 "description": "Play the first legal move."},
    "Undo": {"operationId": "undo_move", "parameters": _GAME,
             "requestBody": {"ply": "$response.body#/ply"}},
    "Redo": {"operationId": "redo_move", "parameters": _GAME,
             "requestBody": {"ply": "$response.body#/ply"}},
}
"""OpenAPI links from each answer with a game to what can follow it (for clients and for
stateful testing): the game's id and change counter carry over."""


def _answer(status: int, text: str) -> dict[int | str, dict[str, Any]]:
    return {**GAME_ERRORS, status: {"description": text, "links": LINKS}}


def _current(games: GameStore, game_id: str) -> tuple[StoredGame, Play]:
    """A stored game and its position (its moves replayed)."""
    try:
        stored = games.get_stored(game_id)
    except DamagedRecordError as err:
        raise HTTPException(503, str(err)) from None
    return stored, _replayed(games, stored)


def _replayed(games: GameStore, stored: StoredGame) -> Play:
    """A stored game's moves replayed, each checked: moves that are not legal, or a result
    that does not match them, make a damaged record (503), not the client's error."""
    try:
        play = Play.of(stored.record)
        outcome = play.board.outcome()
        if stored.record.result != (None if outcome is None else outcome.result()):
            raise TicTacToeError(f"its result {stored.record.result!r} does not match its moves")
    except TicTacToeError as err:
        raise HTTPException(503, str(games.damaged(stored.number, str(err)))) from None
    return play


def _check_ply(stored: StoredGame, ply: int) -> None:
    if stored.ply != ply:
        raise StalePlyError(f"this game has changed since ply {ply} (it is at ply {stored.ply})",
                            stored)


async def _computer_reply(engine: Engine, play: Play,
                          seed: int) -> tuple[Play, ComputerMove | None]:
    """The game after the computer's move, if it is the computer's turn."""
    name = computer_to_move(play)
    if name is None:
        return play, None
    cell, score = await engine.choose(play.board, name, seed + len(play.record.moves),
                                      Priority.GAME)
    move = play.board.move_name(cell)
    return play.then(move), ComputerMove(
        move=move, cell=cell, player=name, score=None if score is None else score_info(score),
        words="" if score is None else reply_words(score))


def _answer_with(engine: Engine, stored: StoredGame, play: Play,
                 reply: ComputerMove | None = None, status: int = 200) -> Response:
    return Response(game_state_json(stored, play, engine.info_json(play.board), reply),
                    status, media_type="application/json")


# The store's calls run on the event loop: with the write-ahead log a commit does not wait for
# the disk (a few hundred microseconds), less than handing it to a thread and back costs when
# the server is busy.

@router.post("/api/games", response_model=GameState, status_code=201, operation_id="new_game",
             responses={**_answer(201, "The new game."), **TOO_MANY},
             dependencies=[Depends(browser_not_in_url), Depends(new_game_allowed)])
async def new_game(body: NewGameRequest, games: StoreDep, engine: EngineDep,
                   browser: BrowserId = None) -> Response:
    """Start a game on a board (``variant``) or from a ``position``. If the computer moves
    first, its move is played at once. Keep the returned id: it is needed to play. The
    browser's id, if sent (header ``X-Browser-Id``), marks the game for its history. Each
    client address may start a burst of games, then one every so often
    (`tictactoe.web.limits`); beyond that, 429 with ``Retry-After``."""
    players = check_players({"x": body.players.x, "o": body.players.o})
    play = Play.of(new_record(body.variant, body.position, players, body.moves))
    seed = secrets.randbelow(2**31) if body.seed is None else body.seed
    play, reply = await _computer_reply(engine, play, seed)
    _, stored = games.create(play.record, seed=seed, browser=browser)
    return _answer_with(engine, stored, play, reply, 201)


@router.get("/api/games/{game_id}", response_model=GameState, operation_id="get_game",
            responses=GAME_ERRORS)
async def get_game(game_id: GameId, games: StoreDep, engine: EngineDep) -> Response:
    """A game as it stands, by its secret id."""
    stored, play = _current(games, game_id)
    return _answer_with(engine, stored, play)


@router.get("/api/games/{game_id}/record", response_model=RecordResponse,
            operation_id="get_record", responses=GAME_ERRORS)
async def get_record(game_id: GameId, games: StoreDep) -> RecordResponse:
    """A game's record, the JSON file the terminal app saves and loads, and its link form."""
    stored, _ = _current(games, game_id)
    return _record_answer(stored.record)


@router.post("/api/records/parse", response_model=RecordResponse, operation_id="parse_record",
             responses=ERRORS)
async def parse_record(body: RecordRequest) -> RecordResponse:
    """Read a game record: the ``text`` of a record file (as the terminal app saves it) or a
    game ``link`` (``3x3:b2,a1,c3``), one of the two. Every move is checked; a record that
    does not parse, or whose moves or result are wrong, gets 400 saying what is wrong."""
    if body.text is None and body.link is None:
        raise InvalidRecordError("give the record file's text (text) or a game link (link)")
    if body.text is not None and body.link is not None:
        raise InvalidRecordError("give the record file's text or a game link, not both")
    if body.text is not None:
        record = GameRecord.from_json(body.text)
    else:
        assert body.link is not None
        record = GameRecord.from_link(body.link)
    return _record_answer(record)


def _record_answer(record: GameRecord) -> RecordResponse:
    return RecordResponse.model_validate({"record": record.to_dict(), "link": record.to_link()})


@router.post("/api/games/{game_id}/moves", response_model=GameState, operation_id="play_move",
             responses=_answer(200, "The game after the move and the computer's reply."))
async def play_move(game_id: GameId, body: PlayRequest, games: StoreDep,
                    engine: EngineDep) -> Response:
    """Play a human's move. Against the computer, the server plays its reply too; both are
    stored in one transaction."""
    current, play = _current(games, game_id)
    _check_ply(current, body.ply)
    play = with_human_move(current, play, body.move)
    play, reply = await _computer_reply(engine, play, current.seed)
    stored = games.change(game_id, body.ply, play.record, ())
    return _answer_with(engine, stored, play, reply)


@router.post("/api/games/{game_id}/undo", response_model=GameState, operation_id="undo_move",
             responses={**_answer(200, "The game with the moves taken back."), **TOO_MANY,
                        201: {"description": "The game was over: the game that continues it "
                                             "from before the last human move (the same one, "
                                             "as it stands, for the same request again).",
                              "model": GameState, "links": LINKS}})
async def undo_move(game_id: GameId, body: ChangeRequest, games: StoreDep,
                    engine: EngineDep, request: Request) -> Response:
    """Take back the last move, and against the computer every move back to the human's
    previous turn. A finished game stays as it was: undo then starts a new game (201, with a
    new id) that continues it from there, once: the same request again answers the same
    game as it stands (a finished game's ``ply`` never changes, so any other is 409). The
    finished game stays in the history as it ended; the continuation is listed as a game of
    its own (``continues``), not counted in the results. A continuation counts as a new game
    against the client's cap (429)."""
    current, play = _current(games, game_id)
    _check_ply(current, body.ply)
    play, undone = undo(current, play)
    if current.record.result is not None:
        if current.continued_by is None:
            await new_game_allowed(request)
        stored, made = games.continue_game(game_id, body.ply, play.record, undone)
        if not made:
            play = _replayed(games, stored)
        return _answer_with(engine, stored, play, status=201)
    stored = games.change(game_id, body.ply, play.record, undone)
    return _answer_with(engine, stored, play)


@router.post("/api/games/{game_id}/redo", response_model=GameState, operation_id="redo_move",
             responses=_answer(200, "The game with the moves played again."))
async def redo_move(game_id: GameId, body: ChangeRequest, games: StoreDep,
                    engine: EngineDep) -> Response:
    """Play again what undo took back, up to the human's next turn."""
    current, play = _current(games, game_id)
    _check_ply(current, body.ply)
    if current.record.result is not None:
        raise GameConflictError("this game is over and saved; there is nothing to redo",
                                current)
    play, undone = redo(current, play)
    stored = games.change(game_id, body.ply, play.record, undone)
    return _answer_with(engine, stored, play)


@router.put("/api/games/{game_id}", response_model=GameState, operation_id="replace_moves",
            responses=GAME_ERRORS)
async def replace_moves(game_id: GameId, body: UpdateGameRequest, games: StoreDep,
                        engine: EngineDep) -> Response:
    """Replace every move of a game between two people (each checked). A game with a
    computer player refuses it: there the server plays the computer's moves itself."""
    current, _ = _current(games, game_id)
    _check_ply(current, body.ply)
    if any(name != HUMAN for name in current.record.players.values()):
        raise GameConflictError(
            "this game has a computer player, so its moves cannot be replaced: send yours one "
            "at a time to /moves, and the server plays the computer's", current)
    record = GameRecord.from_moves(current.record.variant, body.moves,
                                   start=current.record.start, players=current.record.players,
                                   started=current.record.started)
    stored = games.change(game_id, body.ply, record, ())
    return _answer_with(engine, stored, Play.of(record))


@router.get("/api/history", response_model=HistoryResponse,
            responses={**GAME_ERRORS, 403: {"model": ErrorResponse, "description":
                       "The history of every game is private on this server."}},
            dependencies=[Depends(browser_not_in_url)])
async def history(games: StoreDep, request: Request,
                  limit: Annotated[int, Query(ge=1, le=500)] = 100,
                  unfinished: Annotated[bool, Query(
                      description="Also list the browser's unfinished games (with the "
                                  "header only), each with its secret id to resume it.")
                                   ] = False,
                  browser: BrowserId = None) -> Response:
    """Finished games, newest first, and the human's results against each computer opponent
    (in games from the empty board): only the games of the browser whose id is sent in the
    ``X-Browser-Id`` header, or every game on this server without it. With
    ``unfinished=true`` (and the header), the browser's unfinished games in which a human
    has moved come first, marked ``"status": "unfinished"`` and carrying their secret
    ``id``; they are never counted in the results. Every finished game is
    listed as it ended, also one that undo continued; the continuation is listed too, marked
    with ``continues``, and not counted (it took moves back). The results are
    kept counted as games finish, so this reads a few rows however many games there are.
    Every game's history is refused with 403 on a server that keeps it private (a public
    address without ``--public-history``)."""
    if browser is None and not request.app.state.public_history:
        raise HTTPException(403, "the history of every game is private on this server (it "
                                 "listens on a public address; start it with "
                                 "--public-history to share it); send X-Browser-Id for "
                                 "your own games")
    if unfinished and browser is None:
        raise HTTPException(400, "unfinished: only a browser's own unfinished games are "
                                 "listed; send its id in the X-Browser-Id header")
    def page() -> bytes:
        open_games = games.unfinished(browser, limit) if unfinished and browser else []
        finished = games.finished(limit, browser)
        by_board = games.results_by_board(browser)
        boards = sorted(by_board.items(),
                        key=lambda kv: (-sum(map(sum, kv[1].values())), kv[0]))
        return HistoryResponse(
            games=[*(game_info(g, secret=True) for g in open_games),
                   *(game_info(g) for g in finished)],
            levels=_level_stats(every_board(by_board)),
            boards=[BoardStats(variant=variant, games=sum(map(sum, counts.values())),
                               levels=_level_stats(counts)) for variant, counts in boards]
        ).model_dump_json().encode()

    # a page of 500 long games is megabytes of JSON: made on a thread, off the event loop
    return Response(await anyio.to_thread.run_sync(page, limiter=HISTORY_THREADS),
                    media_type="application/json")


def _level_stats(tally: dict[str, tuple[int, int, int]]) -> list[LevelStats]:
    """The results against each opponent, the levels in their order, then the players."""
    order = {name: i for i, name in enumerate((*LEVELS, *PLAYER_NAMES))}
    return [LevelStats(level=name, wins=w, draws=d, losses=lost)
            for name, (w, d, lost) in sorted(tally.items(),
                                             key=lambda kv: (order.get(kv[0], 99), kv[0]))]
