"""An unbiased estimate of the won positions (and the positions in all) of a board of at most
64 cells, with a 95% interval: stratified sampling of fillings.

The fillings with a given number of marks (X first, so X has as many as O or one more) are a
stratum; there are ``C(N; a, b)`` of them, a known weight. Each stratum's share of won
fillings (and of fillings with no line) is estimated by drawing fillings uniformly at
random (`won_kernels.sample_fillings`), so each stratum's count, the weight times the share
seen, is unbiased, and so is their sum. Strata where neither side has enough marks for a line
are counted exactly.

The draws go in two rounds. A pilot of `PILOT` fillings per stratum only decides how to share
out the rest (more where a stratum's count is large and uncertain: Neyman's allocation, for
the won positions and the positions in all together); the estimate uses the second round
alone, whose sizes were fixed before it drew, so it stays unbiased. The 95% interval is the
normal one, 1.96 standard errors each side, summed over strata (each has many draws).

The draws are cut into chunks of at most `CHUNK` fillings, each with its own seed derived
from (seed, round, marks, chunk), so a seed gives the same figures on any number of workers,
in this process, on a process pool or on Dask.

>>> w = estimate_won("3x3", samples=200_000, seed=1)
>>> w.method, w.exact
('sampled', False)
>>> low, high = w.interval("won_x")
>>> low < 626 < high
True
"""

from __future__ import annotations

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "the won-position estimate")

import math
import time
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from tictactoe.analysis.won import WonCount, fillings, marks_of
from tictactoe.analysis.won_kernels import sample_fillings
from tictactoe.core import BoardTooLargeError, Variant
from tictactoe.executors import Executor, InProcess

MAX_CELLS = 64
"""Largest board the estimate takes (a filling is a 64-bit word per side)."""

SAMPLES = 200_000_000
"""Fillings drawn in the second round unless told: about a minute on two cores (1.6 to 2
million a second per core on 7x7 and the cube)."""

PILOT = 20_000
"""Fillings per stratum in the first round, which only shares out the second."""

CHUNK = 5_000_000
"""Most fillings one call draws."""

Progress = Callable[[int, int], None]
"""``progress(fillings_drawn, fillings_in_all)``, after each chunk."""


@lru_cache(maxsize=16)
def _masks(name: str) -> np.ndarray:
    return np.array(Variant.parse(name).line_masks, dtype=np.uint64)


def draw(name: str, ply: int, count: int, seed: int) -> tuple[int, int, int, int]:
    """One chunk: (ply, fillings drawn, with no line, just won by the side that moved)."""
    v = Variant.parse(name)
    a, b = marks_of(ply)
    movers, others = (a, b) if a > b else (b, a)
    plain, won = sample_fillings(_masks(name), v.cells, movers, others, count, seed)
    return ply, count, int(plain), int(won)


def chunk_seed(seed: int, round_: int, ply: int, index: int) -> int:
    """The seed of one chunk, the same on every worker.

    >>> chunk_seed(0, 1, 5, 0) == chunk_seed(0, 1, 5, 0) != chunk_seed(0, 1, 5, 1)
    True
    """
    state = np.random.SeedSequence(seed, spawn_key=(round_, ply, index)).generate_state(1)
    return int(state[0]) & 0x7FFFFFFF


def sampled_plies(v: Variant) -> list[int]:
    """The numbers of marks where some filling has a line (the others are counted exactly).

    >>> sampled_plies(Variant.parse("3x3"))
    [5, 6, 7, 8, 9]
    """
    return [p for p in range(v.cells + 1) if max(marks_of(p)) >= v.k]


def check_size(v: Variant) -> None:
    """Refuse a board the estimate cannot take."""
    if v.cells > MAX_CELLS:
        raise BoardTooLargeError(
            f"{v.name} has {v.cells} cells; the won-position estimate keeps a filling in "
            f"64 bits per side and takes at most {MAX_CELLS} cells")


def _calls(name: str, round_: int, sizes: dict[int, int], seed: int
           ) -> list[tuple[str, int, int, int]]:
    calls = []
    for ply, total in sizes.items():
        for index, start in enumerate(range(0, total, CHUNK)):
            calls.append((name, ply, min(CHUNK, total - start),
                          chunk_seed(seed, round_, ply, index)))
    return calls


def _run(executor: Executor, calls: list[tuple[str, int, int, int]], done: list[int],
         total: int, progress: Progress | None) -> dict[int, list[int]]:
    hits: dict[int, list[int]] = {}
    keys = [f"won-{name}-{ply}-{seed}" for name, ply, _, seed in calls]
    for ply, count, plain, won in executor.run_all(draw, calls, keys=keys, what="chunks"):
        row = hits.setdefault(ply, [0, 0, 0])
        row[0] += count
        row[1] += plain
        row[2] += won
        done[0] += count
        if progress is not None:
            progress(done[0], total)
    return hits


def allocate(v: Variant, pilot: dict[int, list[int]], samples: int) -> dict[int, int]:
    """Share out `samples` fillings among the strata by the pilot: in proportion to each
    stratum's weight times the standard deviation of its shares of won and of reachable
    fillings (each relative to its estimated total), and at least `PILOT` each."""
    n = v.cells
    won_total = reach_total = 0.0
    spread: dict[int, float] = {}
    shares: dict[int, tuple[float, float]] = {}
    for ply in range(n + 1):
        weight = fillings(n, *marks_of(ply))
        if ply not in pilot:
            reach_total += weight
            continue
        drawn, plain, won = pilot[ply]
        w = (won + 0.5) / (drawn + 1)
        r = (won + plain + 0.5) / (drawn + 1)
        shares[ply] = (w, r)
        won_total += weight * w
        reach_total += weight * r
    for ply, (w, r) in shares.items():
        weight = fillings(n, *marks_of(ply))
        spread[ply] = weight * (math.sqrt(w * (1 - w)) / won_total
                                + math.sqrt(r * (1 - r)) / reach_total)
    whole = sum(spread.values()) or 1.0
    return {ply: max(PILOT, round(samples * s / whole)) for ply, s in spread.items()}


def estimate_won(variant: Variant | str, *, samples: int = SAMPLES, seed: int = 0,
                 executor: Executor | None = None, progress: Progress | None = None
                 ) -> WonCount:
    """Estimate the won positions by marks, and the positions in all, with standard errors
    (`WonCount.interval` gives the 95% intervals). `samples`: fillings of the second round.
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    check_size(v)
    if samples < 1:
        raise ValueError("samples must be at least 1")
    started = time.perf_counter()
    plies = sampled_plies(v)
    pilot_sizes = {p: PILOT for p in plies}
    done = [0]
    total = PILOT * len(plies) + samples
    runner = executor if executor is not None else InProcess()
    pilot = _run(runner, _calls(v.name, 0, pilot_sizes, seed), done, total, progress)
    sizes = allocate(v, pilot, samples)
    total = done[0] + sum(sizes.values())
    main = _run(runner, _calls(v.name, 1, sizes, seed), done, total, progress)
    rows: list[tuple[float, float, float]] = []
    variances = {"won_x": 0.0, "won_o": 0.0, "positions": 0.0}
    for ply in range(v.cells + 1):
        a, b = marks_of(ply)
        weight = fillings(v.cells, a, b)
        if ply not in main:
            rows.append((0.0, 0.0, float(weight)))
            continue
        drawn, plain, hits = main[ply]
        w, r = hits / drawn, (hits + plain) / drawn
        scale = weight * weight / max(1, drawn - 1)
        winner = "won_x" if a > b else "won_o"
        variances[winner] += scale * w * (1 - w)
        variances["positions"] += scale * r * (1 - r)
        won = weight * w
        rows.append((won, 0.0, weight * r) if a > b else (0.0, won, weight * r))
    variances["won"] = variances["won_x"] + variances["won_o"]
    return WonCount(v.name, "sampled", math.fsum(r[0] for r in rows),
                    math.fsum(r[1] for r in rows), math.fsum(r[2] for r in rows), rows,
                    {name: math.sqrt(value) for name, value in variances.items()},
                    samples=done[0], seed=seed, seconds=time.perf_counter() - started)

__all__ = ["MAX_CELLS", "SAMPLES", "allocate", "chunk_seed", "draw", "estimate_won",
           "sampled_plies"]
