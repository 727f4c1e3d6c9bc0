"""Won positions by the route that reaches: inclusion–exclusion (`tictactoe.analysis.won`),
the census, or the estimate (`tictactoe.analysis.won_sampling`, loaded only when needed).

>>> count_won("3x3").method
'lines'
"""

from __future__ import annotations

from typing import Any

from tictactoe.analysis.won import (
    CENSUS_CELLS,
    CENSUS_LIMIT,
    METHODS,
    WonCount,
    census_won,
    exact_won,
    lines_reach,
)
from tictactoe.core import BoardTooLargeError, Variant


def count_won(variant: Variant | str, *, method: str = "auto", samples: int | None = None,
              seed: int = 0, executor: Any = None, progress: Any = None,
              census_options: dict[str, Any] | None = None) -> WonCount:
    """Won positions and positions in all, by the route `method` names (see `METHODS`):
    inclusion–exclusion where it reaches, then the census (up to `CENSUS_CELLS` cells with
    ``auto``, `CENSUS_LIMIT` with ``exact``), else the estimate of
    `tictactoe.analysis.won_sampling` with `samples`, `seed`, `executor` and `progress`.

    >>> count_won("7x7", method="exact").method
    'lines'
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: choose one of {', '.join(METHODS)}")
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    if method != "estimate":
        why = lines_reach(v)
        if why is None:
            return exact_won(v)
        reach = CENSUS_CELLS if method == "auto" else CENSUS_LIMIT
        if v.cells <= reach:
            return census_won(v, **(census_options or {}))
        if method == "exact":
            raise BoardTooLargeError(
                f"no exact count reaches {v.name}: {why}, and the census takes at most "
                f"{CENSUS_LIMIT} cells; --method estimate (the default) estimates it")
    from tictactoe.analysis.won_sampling import SAMPLES, estimate_won

    return estimate_won(v, samples=SAMPLES if samples is None else samples, seed=seed,
                        executor=executor, progress=progress)


__all__ = ["count_won"]
