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
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Loss, Score, Win
from tictactoe.search.solution import Solution
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
                     value=data.get("value"), text=str(score))


ESTIMATE_WORDS = ((0.5, "about even"), (3.0, "slightly better for {who}"),
                  (20.0, "better for {who}"), (90.0, "much better for {who}"))
"""How large an estimate is, in words, below each bound (the estimates of the tactical
search count open lines a mark short of a threat; at 90 and over it sees a win it has not
proven)."""


def _moves_of(plies: int) -> str:
    return "next move" if plies <= 1 else f"next {plies} moves"


def reply_words(score: Score) -> str:
    """What a computer's move is worth, in plain words from the computer's side, for the
    player who faces it: ``score`` is the move's value for the computer, counted in plies
    from before the move, as the players give it. A proven result counts the winner's moves
    still to come (with best play by the loser, at most that many); an estimate says how
    much better the position is, and for whom.

    >>> from tictactoe.search.score import Heuristic
    >>> reply_words(Win(5)), reply_words(Win(3))
    ('I can force a win within my next 2 moves', 'I can force a win with my next move')
    >>> reply_words(Loss(2)), reply_words(ForcedLoss(within=8))
    ('you can win with your next move', 'you can force a win within your next 4 moves')
    >>> reply_words(Draw())
    'a draw with best play: neither of us can force a win'
    >>> reply_words(Heuristic(-0.1)), reply_words(Heuristic(1.0))
    ('about even (my estimate)', 'slightly better for me (my estimate)')
    """
    return _words(score, ("I", "my", "me"), ("you", "your", "you"), "my estimate")


def hint_words(score: Score) -> str:
    """What a move is worth for the player to move, in the words of the computer's comments
    (`reply_words`) turned to that player's side: the hints say it the way the computer
    would, on the same scale.

    >>> from tictactoe.search.score import Heuristic
    >>> hint_words(Win(1)), hint_words(Win(3)), hint_words(ForcedLoss(within=8))
    ('you win with this move', 'you can force a win with your next move', \
'I can force a win within my next 4 moves')
    >>> hint_words(Heuristic(1.0)), hint_words(Heuristic(-30.0))
    ('slightly better for you (estimate)', 'much better for me (estimate)')
    """
    return _words(score, ("you", "your", "you"), ("I", "my", "me"), "estimate")


def _words(score: Score, mover: tuple[str, str, str], other: tuple[str, str, str],
           estimate: str) -> str:
    """`reply_words` for a mover and the other player, each as (subject, possessive,
    object)."""
    i, my, me = mover
    you, your, them = other
    if isinstance(score, Win):
        mine = (score.plies - 1) // 2  # after this move: the opponent's, then mine, ...
        won = "I have won" if i == "I" else "you win with this move"
        return won if mine <= 0 else (
            f"{i} can force a win with {my} next move" if mine == 1
            else f"{i} can force a win within {my} {_moves_of(mine)}")
    if isinstance(score, ForcedWin):
        if score.within is None:
            return f"{i} can force a win"
        mine = max(1, (score.within - 1) // 2)
        return f"{i} can force a win {'with' if mine == 1 else 'within'} {my} {_moves_of(mine)}"
    if isinstance(score, Loss | ForcedLoss):
        plies = score.plies if isinstance(score, Loss) else score.within
        if plies is None:
            return f"{you} can force a win"
        yours = max(1, plies // 2)  # after this move: yours, mine, yours, ...
        return f"{you} can win with {your} next move" if yours == 1 and isinstance(
            score, Loss) else f"{you} can force a win {'with' if yours == 1 else 'within'} " \
                              f"{your} {_moves_of(yours)}"
    if isinstance(score, Draw):
        return "a draw with best play: neither of us can force a win"
    value = float(getattr(score, "value", 0.0))
    who = me if value > 0 else them
    for bound, words in ESTIMATE_WORDS:
        if abs(value) < bound:
            return f"{words.format(who=who)} ({estimate})"
    return f"winning for {who}, {'I think' if i == 'I' else 'it seems'}, but not proven"


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
           "reply_words", "score_info", "variant_info"]
