"""Routes that ask the engines: a computer player's move and the analysis of every move."""

from __future__ import annotations

import random

from fastapi import APIRouter, Response

from tictactoe.core import Position, TicTacToeError
from tictactoe.players.base import Limit
from tictactoe.players.levels import make_player
from tictactoe.web.convert import PLAYER_OR_LEVEL, PerfectMoves, playable, score_info
from tictactoe.web.deps import ERRORS, EngineDep
from tictactoe.web.engine import code_score
from tictactoe.web.models import (
    AnalysisRequest,
    AnalysisResponse,
    MoveRequest,
    MoveResponse,
    MoveValue,
)

router = APIRouter(tags=["engines"])


@router.post("/api/move", response_model=MoveResponse, responses=ERRORS)
async def computer_move(body: MoveRequest, engine: EngineDep) -> Response:
    """The move a computer player or level chooses; the same seed gives the same move."""
    name = body.player.strip().lower()
    if name == "perfect":
        # The perfect player's own rule (a seeded random choice among the solver's best
        # moves), over a solution that is cached for every client.
        known = engine.perfect_moves.get((body.position,))
        if known is None:
            board = playable(body.position)
            solution = await engine.solution_for(board, engine.max_nodes, engine.max_seconds)
            if not solution.proven:  # estimates: answered, never remembered
                move = random.Random(body.seed).choice(solution.best)
                return Response(engine.move_json(board, move, name, solution.moves[move]),
                                media_type="application/json")
            known = PerfectMoves.of(board, solution)
            engine.perfect_moves.put((body.position,), known)
        move = random.Random(body.seed).choice(known.best)
        reply = known.replies.get(move)
        if reply is None:
            reply = known.replies[move] = engine.move_json(
                Position(known.position), move, name, code_score(known.scores[move]))
        return Response(reply, media_type="application/json")
    board = playable(body.position)
    if name not in PLAYER_OR_LEVEL - {"human"}:
        raise TicTacToeError(
            f"unknown player {body.player!r}: expected one of "
            f"{', '.join(sorted(PLAYER_OR_LEVEL - {'human'}))}")
    key = ("move", board.to_string(), name, body.seed)
    cached = engine.moves_cache.get(key)
    if cached is None:
        def choose() -> bytes:
            player = make_player(name, seed=body.seed)
            choice = player.choose(board.copy(stack=False), Limit(seconds=engine.max_seconds))
            return engine.move_json(board, choice.move, name, choice.score)
        cached = await engine.run(choose)
        if body.seed is not None:
            engine.moves_cache.put(key, cached)
    return Response(cached, media_type="application/json")


@router.post("/api/analysis", response_model=AnalysisResponse, responses=ERRORS)
async def analysis(body: AnalysisRequest, engine: EngineDep) -> AnalysisResponse:
    """The value of every legal move: win or loss in N plies, or draw.

    The search is bounded; if the bound stops it before a proof, ``proven`` is false
    and the values are the engine's best estimates."""
    board = playable(body.position)
    nodes = min(body.nodes or engine.max_nodes, engine.max_nodes)
    seconds = min(body.seconds or engine.max_seconds, engine.max_seconds)
    solution = await engine.solution_for(board, nodes, seconds)
    return AnalysisResponse(
        position=board.to_string(), proven=solution.proven,
        score=score_info(solution.score),
        moves=[MoveValue(move=board.move_name(cell), cell=cell, score=score_info(score))
               for cell, score in sorted(solution.moves.items())],
        best=[board.move_name(cell) for cell in solution.best],
        nodes=solution.nodes, seconds=round(solution.seconds, 4))
