"""The kernels' answers in the package's terms: kernel scores as `Score`s and
`CompiledSolution`s as `Solution`s.

>>> describe_score(-996), describe_score(0), describe_score(997)
('loss in 4', 'draw', 'win in 3')
>>> score_of(997)
Win(plies=3)
"""

from __future__ import annotations

from dataclasses import dataclass

from tictactoe.core import Position
from tictactoe.search.compiled import kernels as _sk
from tictactoe.search.evaluation import open_line_counts
from tictactoe.search.score import Draw, Heuristic, Loss, Score, Win
from tictactoe.search.solution import Solution, best_moves
from tictactoe.search.tactics import with_tactics

BIG = _sk.BIG
"""A win in ``d`` plies scores ``BIG - d``, a loss ``-(BIG - d)``, a draw 0."""


def describe_score(score: int) -> str:
    """A score in words: ``win in 3``, ``loss in 4`` or ``draw``."""
    if score > 0:
        return f"win in {BIG - score}"
    if score < 0:
        return f"loss in {BIG + score}"
    return "draw"


@dataclass(frozen=True)
class CompiledSolution:
    """Scores (see `BIG`) of a position and of each legal move, for the side that moves."""

    score: int
    moves: dict[int, int]
    proven: bool
    nodes: int
    seconds: float

    @property
    def best(self) -> list[int]:
        """Every move with the best score."""
        return sorted(m for m, s in self.moves.items() if s == self.score)


def score_of(value: int) -> Score:
    """The `Score` of a kernel score (a win in ``d`` plies is ``BIG - d``)."""
    if value > 0:
        return Win(BIG - value)
    if value < 0:
        return Loss(BIG + value)
    return Draw()


def as_solution(position: Position, result: CompiledSolution) -> Solution:
    """The kernels' answer as a `Solution`, exactly as the readable solver builds it: moves
    left unproven by a limit get the tactical floor's score where it has one, else the
    heuristic score."""
    mover = position.turn
    me, opp = position.marks(mover), position.marks(mover.other)
    lines = position.variant.line_masks
    moves: dict[int, Score] = {}
    for cell in position.legal_moves():
        if cell in result.moves:
            moves[cell] = score_of(result.moves[cell])
        else:
            mine, theirs = open_line_counts(lines, me | 1 << cell, opp)
            moves[cell] = Heuristic.within_scale(mine - theirs)
    score = max(moves.values())
    solution = Solution(score=score, moves=moves,
                        best=best_moves(position.variant, moves), proven=result.proven,
                        nodes=result.nodes, seconds=result.seconds, mover=mover,
                        engine="compiled")
    return solution if result.proven else with_tactics(position, solution)
