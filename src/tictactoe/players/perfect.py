"""The perfect player: a best move found by the solver, a random one among equals.

>>> from tictactoe.core import Position
>>> choice = PerfectPlayer(seed=7).choose(Position("xx1/oo1/x2 o"))
>>> Position("3x3").move_name(choice.move), str(choice.score)
('c2', 'win in 1')
"""

from __future__ import annotations

import random

from tictactoe.core import Position
from tictactoe.players.base import Choice, Limit
from tictactoe.search.solver import quickest_engine, solve


class PerfectPlayer:
    """Plays a best move found by the solver; a random one when several are equally good.

    The solver runs on the quickest engine for the position (`quickest_engine`): the
    readable search on small boards until the compiled kernels are loaded, which a bigger
    board loads. Both give the same scores and the same list of best moves.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.name = "perfect"
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        solution = solve(position, nodes=limit.nodes, seconds=limit.seconds,
                         engine=quickest_engine(position))
        move = self.rng.choice(solution.best)
        return Choice(move, solution.moves[move])
