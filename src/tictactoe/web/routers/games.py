"""Routes about games: start a record, read it, change it, and the history of finished games."""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Query

from tictactoe.core.record import GameRecord
from tictactoe.players.levels import LEVELS, PLAYER_NAMES
from tictactoe.web.convert import check_players, game_info
from tictactoe.web.deps import GAME_ERRORS, GameId, StoreDep
from tictactoe.web.models import (
    GameResponse,
    HistoryResponse,
    LevelStats,
    NewGameRequest,
    UpdateGameRequest,
)

router = APIRouter(tags=["games"])


@router.post("/api/games", response_model=GameResponse, status_code=201,
             responses=GAME_ERRORS)
async def new_game(body: NewGameRequest, games: StoreDep) -> GameResponse:
    """Start recording a game. Keep the returned id: it is needed to change the game."""
    players = check_players({"x": body.players.x, "o": body.players.o})
    record = GameRecord.from_moves(body.variant, body.moves, start=body.start, players=players)
    token, stored = await anyio.to_thread.run_sync(games.create, record)
    return GameResponse(id=token, game=game_info(stored))


@router.get("/api/games/{game_id}", response_model=GameResponse, responses=GAME_ERRORS)
async def get_game(game_id: GameId, games: StoreDep) -> GameResponse:
    """A game, by its secret id."""
    stored = await anyio.to_thread.run_sync(games.get_stored, game_id)
    return GameResponse(id=game_id, game=game_info(stored))


@router.put("/api/games/{game_id}", response_model=GameResponse, responses=GAME_ERRORS)
async def update_game(game_id: GameId, body: UpdateGameRequest, games: StoreDep) -> GameResponse:
    """Replace the moves of a game (after a move, an undo or a redo). Once the moves end
    the game it is saved with its result and can no longer change."""
    current = await anyio.to_thread.run_sync(games.get, game_id)
    record = GameRecord.from_moves(current.variant, body.moves, start=current.start,
                                   players=current.players, started=current.started)
    stored = await anyio.to_thread.run_sync(games.update, game_id, record)
    return GameResponse(id=game_id, game=game_info(stored))


@router.get("/api/history", response_model=HistoryResponse)
async def history(games: StoreDep,
                  limit: Annotated[int, Query(ge=1, le=500)] = 100) -> HistoryResponse:
    """Finished games, newest first, and the human's results against each level."""
    finished = await anyio.to_thread.run_sync(games.finished, limit)
    tally = await anyio.to_thread.run_sync(games.results_by_opponent)
    order = {name: i for i, name in enumerate((*LEVELS, *PLAYER_NAMES))}
    levels = [LevelStats(level=name, wins=w, draws=d, losses=lost)
              for name, (w, d, lost) in sorted(tally.items(),
                                               key=lambda kv: (order.get(kv[0], 99), kv[0]))]
    return HistoryResponse(games=[game_info(g) for g in finished], levels=levels)
