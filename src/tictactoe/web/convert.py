"""From the rules core and the engines to the API's JSON shapes, and the checks on request
fields that the models cannot make alone.

>>> info = position_info(Position("xxx/oo1/3 o"))
>>> info.outcome.result, info.winning_lines, info.legal_moves
('x', [[0, 1, 2]], [])
>>> check_players({"x": " Human", "o": "EASY"})
{'x': 'human', 'o': 'easy'}
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from tictactoe.core import LINE_KINDS, Position, Side, Termination, TicTacToeError
from tictactoe.players.levels import LEVELS, PLAYER_NAMES
from tictactoe.players.tactical import preferred
from tictactoe.search.score import Score
from tictactoe.search.solution import Solution
from tictactoe.search.words import hint_code
from tictactoe.web.engine import score_code
from tictactoe.web.models import (
    ComputerMove,
    GameState,
    HistoryGame,
    LineKindInfo,
    OutcomeInfo,
    PositionInfo,
    ScoreInfo,
    ThreatInfo,
    ThreeInfo,
    VariantInfo,
)
from tictactoe.web.referee import Play, can_undo
from tictactoe.web.store import StoredGame

PLAYER_OR_LEVEL = frozenset((*PLAYER_NAMES, *LEVELS, "human"))
"""Every name a game's player may have."""


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
        threats=[] if outcome is not None else [
            ThreatInfo(side="x" if t.side is Side.X else "o", cell=t.cell, line=list(t.line),
                       kind=t.kind) for t in position.threats()],
        threes=[] if outcome is not None else [
            ThreatInfo(side="x" if t.side is Side.X else "o", cell=t.cell, line=list(t.line),
                       kind=t.kind) for t in position.threes()],
        live_threes=[] if outcome is not None else [
            ThreeInfo(side="x" if t.side is Side.X else "o", marks=list(t.marks),
                      cells=list(t.cells), shape=t.shape,
                      kind=t.kind) for t in position.live_threes()],
    )


def variant_info(position: Position) -> VariantInfo:
    v = position.variant
    return VariantInfo(name=v.name, shape=list(v.shape), k=v.k, cells=v.cells, layers=v.layers,
                       rows=v.rows, columns=v.columns, is_3d=v.is_3d,
                       line_kinds=[LineKindInfo(kind=kind, count=n, description=LINE_KINDS[kind])
                                   for kind, n in v.line_kinds.items()])


def score_info(score: Score) -> ScoreInfo:
    data = score.to_json()
    return ScoreInfo(kind=data["kind"], plies=data.get("plies"), within=data.get("within"),
                     value=data.get("value"), text=str(score), code=hint_code(score))


def game_info(stored: StoredGame, secret: bool = False) -> HistoryGame:
    """A stored game for the history; with ``secret``, an unfinished game carries its secret
    id (only for the browser that started it), so that it can be resumed."""
    r = stored.record
    return HistoryGame(number=stored.number, variant=r.variant, start=r.start,
                       players=dict(r.players), moves=list(r.moves),
                       result=r.result if r.result in ("x", "o", "draw") else None,  # type: ignore[arg-type]
                       started=r.started, finished=r.finished,
                       status="unfinished" if r.result is None else "finished",
                       continues=stored.continues,
                       id=stored.token if secret and r.result is None else None)


def game_state(stored: StoredGame, reply: ComputerMove | None = None) -> GameState:
    """What a client sees of a stored game: the record, the position, the change counter."""
    play = Play.of(stored.record)
    return GameState.model_validate_json(game_state_json(
        stored, play, position_info(play.board).model_dump_json().encode(), reply))


def game_state_json(stored: StoredGame, play: Play, position: bytes,
                    reply: ComputerMove | None = None) -> bytes:
    """`game_state` as JSON, around the JSON of the position (``play`` is the stored game
    replayed; the position's JSON may come from a cache)."""
    r = stored.record
    head = json.dumps({
        "id": stored.token, "ply": stored.ply,
        "game": {"number": stored.number, "variant": r.variant, "start": r.start,
                 "players": r.players, "moves": list(r.moves), "result": r.result,
                 "started": r.started, "finished": r.finished,
                 "status": "unfinished" if r.result is None else "finished",
                 "continues": stored.continues},
        "undone": list(stored.undone), "seed": stored.seed, "can_undo": can_undo(play),
        "can_redo": bool(stored.undone) and r.result is None,
        "reply": None if reply is None else reply.model_dump(),
        "continued_by": stored.continued_by}, separators=(",", ":"))
    return head[:-1].encode() + b',"position":' + position + b"}"


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
    """The players' names, normalised; an unknown one is refused."""
    for side, name in players.items():
        if name.strip().lower() not in PLAYER_OR_LEVEL:
            raise TicTacToeError(
                f"unknown player {name!r} for {side.upper()}: expected human or one of "
                f"{', '.join(sorted(PLAYER_OR_LEVEL - {'human'}))}")
    return {side: name.strip().lower() for side, name in players.items()}


class PerfectMoves(NamedTuple):
    """The perfect player's choices in one position: the best moves it prefers
    (`tictactoe.players.tactical.preferred`) with their scores (coded as integers). Only
    strings and numbers, so that a full cache gives the garbage collector nothing to
    visit."""

    position: str
    best: tuple[int, ...]
    scores: dict[int, int]

    @staticmethod
    def of(board: Position, solution: Solution) -> PerfectMoves:
        best = preferred(board, solution.best)
        return PerfectMoves(board.to_string(), tuple(best),
                            {move: score_code(solution.moves[move]) for move in best})


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
        where = ".".join(str(p) for p in error.get("loc", ())
                         if p not in ("body", "query", "path", "header"))
        parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return "; ".join(parts) or "malformed request"


__all__ = ["PLAYER_OR_LEVEL", "PerfectMoves", "check_players", "describe_validation",
           "game_info", "game_state", "game_state_json", "playable", "position_info",
           "score_info", "variant_info"]
