"""The compiled solver: numba kernels for boards of up to 64 cells (each side's marks one
``uint64``), behind one small interface.

- `kernels`: the α-β search itself (``@njit`` functions over bit masks);
- `workspace`: a variant's constants as arrays, and the pool of transposition tables;
- `runner`: node limits, deadlines and Ctrl-C for kernels on worker threads;
- `driver`: `solve_position`, `solve_value` and `solve`;
- `outcome`: `solve_outcome`, who wins without the exact distance, split over threads;
- `convert`: kernel scores as `Score`s and answers as `Solution`s;
- `strong`: the strong solution of a small board in one call.

>>> from tictactoe import Position
>>> solve_value(Position("x2/3/3 o")).moves
{4: 0}

Needs the ``fast`` extra (numba and numpy); without it, importing this package raises
`tictactoe.extras.MissingExtraError`, and `tictactoe.search.solve` uses the readable search.
"""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "the compiled solver")

from tictactoe.search.compiled.convert import (
    BIG,
    CompiledSolution,
    as_solution,
    describe_score,
    score_of,
)
from tictactoe.search.compiled.driver import solve, solve_position, solve_value, warm_up
from tictactoe.search.compiled.outcome import ProvenOutcome, solve_outcome
from tictactoe.search.compiled.strong import StrongSolution, reachable_positions, strong_solution
from tictactoe.search.compiled.workspace import MAX_CELLS, Tables, Workspace, fits, tables

__all__ = [
    "BIG",
    "MAX_CELLS",
    "CompiledSolution",
    "ProvenOutcome",
    "StrongSolution",
    "Tables",
    "Workspace",
    "as_solution",
    "describe_score",
    "fits",
    "reachable_positions",
    "score_of",
    "solve",
    "solve_outcome",
    "solve_position",
    "solve_value",
    "strong_solution",
    "tables",
    "warm_up",
]
