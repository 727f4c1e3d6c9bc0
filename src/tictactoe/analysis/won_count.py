"""Won positions by the route that reaches: inclusion–exclusion (`tictactoe.analysis.won`),
the census, or the estimate (`tictactoe.analysis.won_sampling`, loaded only when needed).

>>> count_won("3x3").method
'lines'
"""

from __future__ import annotations

from typing import Any

from tictactoe.analysis.census import CENSUS_LIMIT, CENSUS_MAX_CELLS
from tictactoe.analysis.won import (
    SAMPLED_CELLS,
    WonCount,
    census_won,
    exact_won,
    lines_reach,
)
from tictactoe.core import BoardTooLargeError, Variant

METHODS = ("auto", "exact", "estimate")
"""What `count_won` may use: the quickest exact route, else an estimate (``auto``); exact only
(``exact``); the estimate (``estimate``). ``auto`` takes the census up to `CENSUS_MAX_CELLS`
cells (seconds), ``exact`` up to `CENSUS_LIMIT` (minutes to days)."""


def route(variant: Variant | str, method: str = "auto") -> str:
    """Which route `count_won` takes: ``lines`` (inclusion–exclusion), ``census`` or
    ``sampled``; a clear error where `method` allows none.

    >>> route("7x7"), route("7x7k5"), route("4x4k3"), route("4x4k3", "estimate")
    ('lines', 'sampled', 'census', 'sampled')
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: choose one of {', '.join(METHODS)}")
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    why = lines_reach(v)
    if method != "estimate":
        if why is None:
            return "lines"
        if v.cells <= (CENSUS_MAX_CELLS if method == "auto" else CENSUS_LIMIT):
            return "census"
        if method == "exact":
            raise BoardTooLargeError(
                f"no exact count reaches {v.name}: {why}, and the census takes at most "
                f"{CENSUS_LIMIT} cells; --method estimate (the default) estimates it")
    if v.cells > SAMPLED_CELLS:
        raise BoardTooLargeError(
            f"{v.name} has {v.cells} cells; the estimate takes boards of at most "
            f"{SAMPLED_CELLS} cells" + (f", and no exact count reaches it: {why}" if why else ""))
    return "sampled"


def count_won(variant: Variant | str, *, method: str = "auto", samples: int | None = None,
              seed: int = 0, executor: Any = None, progress: Any = None,
              census_options: dict[str, Any] | None = None) -> WonCount:
    """Won positions and positions in all, by the route `route` chooses: inclusion–exclusion
    where it reaches, then the census, else the estimate of `tictactoe.analysis.won_sampling`
    with `samples`, `seed`, `executor` and `progress`.

    >>> count_won("7x7", method="exact").method
    'lines'
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    chosen = route(v, method)
    if chosen == "lines":
        return exact_won(v)
    if chosen == "census":
        return census_won(v, **(census_options or {}))
    from tictactoe.analysis.won_sampling import SAMPLES, estimate_won

    return estimate_won(v, samples=SAMPLES if samples is None else samples, seed=seed,
                        executor=executor, progress=progress)


__all__ = ["METHODS", "count_won", "route"]
