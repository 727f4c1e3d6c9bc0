"""Routes that ask the engines: a computer player's move and the analysis of every move."""

from __future__ import annotations

from fastapi import APIRouter, Response

from tictactoe.search.words import hint_words
from tictactoe.web.convert import playable, score_info
from tictactoe.web.deps import ERRORS, EngineDep
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
    answer = await engine.move_answer(body.position, body.player.strip().lower(), body.seed)
    return Response(answer, media_type="application/json")


@router.post("/api/analysis", response_model=AnalysisResponse, responses=ERRORS)
async def analysis(body: AnalysisRequest, engine: EngineDep) -> AnalysisResponse:
    """The value of every legal move: win or loss in N plies (or within N plies), a draw,
    or an estimate. Past 64 cells, only the moves the levels' analysis has something to
    say about: every move it proves to win or lose by threats, and its few best others.

    The search is bounded; if the bound stops it before a proof, ``proven`` is false.
    Every move settled anyway (by the tactical floor, the shipped strategy or
    proof-number search) has its proven value; the others are the engine's estimates."""
    board = playable(body.position)
    nodes = min(body.nodes or engine.max_nodes, engine.max_nodes)
    seconds = min(body.seconds or engine.max_seconds, engine.max_seconds)
    solution = await engine.analysis_for(board, nodes, seconds)
    return AnalysisResponse(
        position=board.to_string(), proven=solution.proven,
        score=score_info(solution.score),
        moves=[MoveValue(move=board.move_name(cell), cell=cell, score=score_info(score),
                         words=hint_words(score))
               for cell, score in sorted(solution.moves.items())],
        best=[board.move_name(cell) for cell in solution.best],
        nodes=solution.nodes, seconds=round(solution.seconds, 4))
