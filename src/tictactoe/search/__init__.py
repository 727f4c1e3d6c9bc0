"""Search: scores, solutions, the readable solver, the compiled kernels and their driver, and
proof-number search (`tictactoe.search.pn`).

Nothing here imports the compiled kernels until a search needs them, so importing this
package is quick.

>>> from tictactoe.core import Position
>>> s = solve(Position("xx1/oo1/3 x"))
>>> str(s.score), s.best
('win in 1', [2])
"""

from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Loss, Score, Win
from tictactoe.search.solution import Solution, check_solvable, solution_json
from tictactoe.search.solver import solve, solve_value

__all__ = [
    "Draw",
    "ForcedLoss",
    "ForcedWin",
    "Heuristic",
    "Loss",
    "Score",
    "Solution",
    "Win",
    "check_solvable",
    "solution_json",
    "solve",
    "solve_value",
]
