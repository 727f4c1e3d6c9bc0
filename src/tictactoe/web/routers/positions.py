"""Routes about positions: the page's options and what a position is."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from tictactoe.players.levels import DEFAULT_LEVEL, LEVEL_DESCRIPTIONS, LEVELS
from tictactoe.search.words import HINT_CODES
from tictactoe.web.deps import ERRORS, EngineDep
from tictactoe.web.models import (
    MAX_POSITION_CHARS,
    ChoiceInfo,
    HintCodeInfo,
    OptionsResponse,
    PositionInfo,
    PositionRequest,
)

VARIANTS = (("3x3", "3×3"), ("4x4", "4×4"), ("5x5k4", "5×5, four in a row"),
            ("6x6k4", "6×6, four in a row"), ("4x4x4", "4×4×4 cube"),
            ("7x7k5", "7×7, five in a row"), ("9x9k5", "9×9, five in a row"),
            ("15x15k5", "15×15, five in a row (gomoku)"), ("19x19k5", "19×19, five in a row"))
"""The boards the page offers, with their labels."""
LEVEL_LABELS = {"easy": "Easy", "medium": "Medium", "hard": "Hard", "perfect": "Perfect"}

router = APIRouter(tags=["positions"])


@router.get("/api/options", response_model=OptionsResponse)
async def options(engine: EngineDep, request: Request) -> OptionsResponse:
    """The variants and computer levels the page offers, what each kind of hint means,
    and the engine bounds."""
    return OptionsResponse(
        variants=[ChoiceInfo(value=v, label=label) for v, label in VARIANTS],
        levels=[ChoiceInfo(value=level, label=LEVEL_LABELS.get(level, level.title()),
                           description=LEVEL_DESCRIPTIONS[level]) for level in LEVELS],
        hint_codes=[HintCodeInfo(code=h.code, text=h.text, meaning=h.meaning,
                                 pattern=h.pattern) for h in HINT_CODES],
        default_level=DEFAULT_LEVEL,
        limits={"nodes": engine.max_nodes, "seconds": engine.max_seconds,
                "position_chars": MAX_POSITION_CHARS},
        ready=engine.ready.is_set(), public_history=request.app.state.public_history)


@router.post("/api/position", response_model=PositionInfo, responses=ERRORS)
async def position(body: PositionRequest, engine: EngineDep) -> Response:
    """A position's marks, legal moves, legality problems, outcome and winning lines,
    after playing ``moves`` (if any) from it."""
    answer = engine.position_answer(body.position, body.moves)
    return Response(answer, media_type="application/json")
