"""The evaluation-function player (the player of seeds 001 and 003): α-β to a fixed depth,
the horizon scored by a static evaluation of `tictactoe.search.evaluation` (open lines for
me minus open lines for the opponent, or ±10 for a won board).

>>> from tictactoe.core import Position
>>> choice = HeuristicPlayer(depth=2, seed=1).choose(Position("xx1/oo1/3 x"))
>>> choice.move, str(choice.score)
(2, 'win in 1')
"""

from __future__ import annotations

import random
import time

from tictactoe.core import Position, TicTacToeError
from tictactoe.players.base import Choice, Limit, check_playable
from tictactoe.search.evaluation import EVALUATIONS, Evaluation
from tictactoe.search.score import Heuristic, Loss, Score, Win

DEFAULT_DEPTH = 3
"""Plies the heuristic player looks ahead unless told otherwise."""

BIG_BOARD_CELLS = 64
BIG_BOARD_SECONDS = 1.0
"""Past `BIG_BOARD_CELLS` a move without a limit in seconds gets this one: three plies over
every empty cell of 15x15 take minutes, and the environments' opponents must answer."""

_MATE = 1_000_000


class _OutOfTime(Exception):
    """The deadline passed during a search."""


CLOCK_EVERY = 256
"""Nodes between two looks at the clock."""


def depth_limited_scores(position: Position, depth: int, evaluation: Evaluation, *,
                         seconds: float | None = None) -> tuple[dict[int, Score], int]:
    """Every legal move with its score for the mover, searched `depth` plies deep with
    negamax and α-β; also the number of nodes visited.

    Wins and losses seen inside the horizon are exact `Win`/`Loss` scores, the rest are
    `Heuristic` values of `evaluation` at the horizon. With `seconds`, the search deepens
    one ply at a time up to `depth` and answers with the deepest search finished in time
    (or, if not even one ply finishes, the moves scored so far, at least one), so that it
    ends within about `seconds` on any board.

    >>> from tictactoe.search.evaluation import open_lines
    >>> scores, _ = depth_limited_scores(Position("xx1/oo1/3 o"), 2, open_lines)
    >>> str(scores[2]), str(scores[5]), str(scores[6])
    ('estimate +1', 'win in 1', 'loss in 2')
    """
    if depth < 1:
        raise TicTacToeError(f"depth must be at least 1, not {depth}")
    if seconds is not None and not seconds >= 0:
        raise TicTacToeError(f"seconds must be a number of at least 0, not {seconds}")
    counter = [0]
    if seconds is None:
        return _scores(position, depth, evaluation, counter, None), counter[0]
    deadline = time.perf_counter() + seconds
    finished: dict[int, Score] = {}
    for ply in range(1, depth + 1):
        partial: dict[int, Score] = {}
        try:
            finished = _scores(position, ply, evaluation, counter, deadline, partial)
        except _OutOfTime:
            return (finished or partial), counter[0]
    return finished, counter[0]


def _scores(position: Position, depth: int, evaluation: Evaluation, counter: list[int],
            deadline: float | None, out: dict[int, Score] | None = None) -> dict[int, Score]:
    """`depth_limited_scores` at one depth, filling `out`; past `deadline` (once at least
    one move is scored) it raises `_OutOfTime`."""
    board = position.copy(stack=False)
    out = {} if out is None else out
    for cell in board.legal_moves():
        board.push(cell)
        value = -_negamax(board, evaluation, depth - 1, 1, -_MATE - 1, _MATE + 1, counter,
                          deadline if out else None)
        board.pop()
        out[cell] = _to_score(value)
        if deadline is not None and time.perf_counter() > deadline:
            raise _OutOfTime
    return out


def _negamax(board: Position, evaluation: Evaluation, depth: int, ply: int, alpha: int,
             beta: int, counter: list[int], deadline: float | None = None) -> int:
    """The value for the side to move; a win ending at ply p from the root is ``_MATE - p``."""
    counter[0] += 1
    if deadline is not None and counter[0] % CLOCK_EVERY == 0 and \
            time.perf_counter() > deadline:
        raise _OutOfTime
    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0
        return _MATE - ply if outcome.winner is board.turn else -(_MATE - ply)
    if depth <= 0:
        return evaluation(board, board.turn)
    best = -_MATE - 1
    for cell in board.empty_cells():
        board.push(cell)
        try:
            value = -_negamax(board, evaluation, depth - 1, ply + 1, -beta, -alpha, counter,
                              deadline)
        finally:
            board.pop()
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def _to_score(value: int) -> Score:
    """A search value (for the mover at the root) as a `Score`."""
    if value > _MATE - 1000:
        return Win(_MATE - value)
    if value < -_MATE + 1000:
        return Loss(_MATE + value)
    return Heuristic.within_scale(value)


class HeuristicPlayer:
    """Depth-limited α-β with a static evaluation (``lines`` or ``win``); with a limit in
    seconds (`BIG_BOARD_SECONDS` past 64 cells unless told) it deepens ply by ply and plays
    from the deepest search finished in time."""

    def __init__(self, depth: int = DEFAULT_DEPTH, evaluation: str = "lines",
                 seed: int | None = None) -> None:
        if depth < 1:
            raise TicTacToeError(f"depth must be at least 1, not {depth}")
        if evaluation not in EVALUATIONS:
            raise TicTacToeError(
                f"unknown evaluation {evaluation!r}: choose one of {', '.join(EVALUATIONS)}")
        self.name = "heuristic"
        self.depth = depth
        self.evaluation = EVALUATIONS[evaluation]
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        check_playable(position)
        depth = limit.depth if limit.depth is not None else self.depth
        seconds = limit.seconds
        if seconds is None and position.variant.cells > BIG_BOARD_CELLS:
            seconds = BIG_BOARD_SECONDS
        scores, _ = depth_limited_scores(position, depth, self.evaluation, seconds=seconds)
        top = max(scores.values())
        move = self.rng.choice([c for c, s in scores.items() if s == top])
        return Choice(move, top)
