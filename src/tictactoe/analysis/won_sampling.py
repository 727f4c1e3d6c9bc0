"""An unbiased estimate of the won positions (and the positions in all) of a board of at most
64 cells, with a 95% interval: stratified importance sampling of fillings.

The fillings with a given number of marks (X first, so X has as many as O or one more) are a
stratum; there are ``C(N; a, b)`` of them, a known weight. In each stratum two counts are
estimated, each without bias:

* **won fillings** (the side that moved last has just won), by Karp and Luby's estimator of a
  union (`won_kernels.sample_won`): a won filling holds one of the mover's lines at least, so
  draw a line uniformly, give its cells to the mover, place the other marks uniformly, and
  score 1/m if the filling is won (m: the mover's lines in it). The mean score times the
  lines times the fillings that hold a given line is the count. Each score lies in [0, 1],
  so a stratum whose won fillings are rare (few marks) is estimated as well as any other:
  plain sampling would see almost none;
* **fillings with no line**, one of two ways, whichever the pilot finds the steadier: by
  drawing fillings uniformly (`won_kernels.sample_fillings`: the weight times the share
  seen), best where lines are common; or as the weight less the fillings with a line,
  counted by the same union estimator over both sides' lines
  (`won_kernels.sample_lined`), best where lines are rare (few marks).

Strata where neither side has enough marks for a line are counted exactly.

The draws go in two rounds. A pilot of `PILOT` draws per stratum and kind only decides how to
share out the rest (more where a count is large and uncertain: Neyman's allocation, for the
won positions and the positions in all together); the estimate uses the second round alone,
whose sizes were fixed before it drew, so it stays unbiased. The 95% interval is the normal
one, 1.96 standard errors each side, summed over the independent strata and kinds; each
variance takes two draws scoring 1 and two scoring 0 more (as Agresti and Coull's interval
does for a share), so a stratum whose scores are rarely above 0 does not claim a variance
near zero.

The draws are cut into chunks of at most `CHUNK`, each with its own seed derived from (seed,
round, marks, kind, chunk), so a seed gives the same figures on any number of workers, in
this process, on a process pool or on Dask.

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

from tictactoe.analysis.won import SAMPLED_CELLS, WonCount, fillings, marks_of
from tictactoe.analysis.won_kernels import sample_fillings, sample_lined, sample_won
from tictactoe.core import BoardTooLargeError, Variant
from tictactoe.executors import Executor, InProcess

MAX_CELLS = SAMPLED_CELLS
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
def _tables(name: str) -> tuple[np.ndarray, np.ndarray]:
    v = Variant.parse(name)
    return (np.array(v.line_masks, dtype=np.uint64),
            np.array(v.lines, dtype=np.int64).reshape(len(v.lines), v.k))


KINDS = ("plain", "won", "lined")
"""What a chunk draws: uniform fillings (``plain``, for the fillings with no line),
fillings holding a line of the mover (``won``), or fillings holding a line of either side
(``lined``: the fillings with no line are the rest)."""


def draw(name: str, ply: int, kind: str, count: int, seed: int
         ) -> tuple[int, str, int, float, float]:
    """One chunk: (ply, kind, draws, sum of scores, sum of their squares). A ``plain``
    draw scores 1 for a filling with no line, a ``won`` draw 1/m for a won one."""
    v = Variant.parse(name)
    a, b = marks_of(ply)
    movers, others = (a, b) if a > b else (b, a)
    masks, lines = _tables(name)
    if kind == "plain":
        hits = sample_fillings(masks, v.cells, movers, others, count, seed)
        return ply, kind, count, float(hits), float(hits)
    if kind == "lined":
        x_line, o_line = _one_line(v, a, b)
        total, squares = sample_lined(masks, lines, v.cells, a, b,
                                      x_line / (x_line + o_line), count, seed)
        return ply, kind, count, float(total), float(squares)
    total, squares = sample_won(masks, lines, v.cells, movers, others, count, seed)
    return ply, kind, count, float(total), float(squares)


def chunk_seed(seed: int, round_: int, ply: int, kind: int, index: int) -> int:
    """The seed of one chunk, the same on every worker.

    >>> chunk_seed(0, 1, 5, 0, 0) == chunk_seed(0, 1, 5, 0, 0) != chunk_seed(0, 1, 5, 0, 1)
    True
    """
    key = (round_, ply, kind, index)
    state = np.random.SeedSequence(seed, spawn_key=key).generate_state(1)
    return int(state[0]) & 0x7FFFFFFF


def sampled_plies(v: Variant) -> list[int]:
    """The numbers of marks where some filling has a line (the others are counted exactly).

    >>> sampled_plies(Variant.parse("3x3"))
    [5, 6, 7, 8, 9]
    """
    return [p for p in range(v.cells + 1) if max(marks_of(p)) >= v.k]


def _one_line(v: Variant, a: int, b: int) -> tuple[int, int]:
    """Fillings with `a` X's and `b` O's where X holds one given line, and where O does."""
    return (fillings(v.cells - v.k, a - v.k, b), fillings(v.cells - v.k, a, b - v.k))


def _strata(v: Variant) -> list[tuple[int, str]]:
    """The (marks, kind) pairs the pilot samples: no line (two ways) wherever a line is
    possible, and won where the mover has marks enough for one."""
    out = []
    for ply in sampled_plies(v):
        out += [(ply, "plain"), (ply, "lined")]
        a, b = marks_of(ply)
        if (a if a > b else b) >= v.k and ply:
            out.append((ply, "won"))
    return out


def _scale(v: Variant, ply: int, kind: str) -> int:
    """What a mean score is multiplied by: the stratum's fillings (``plain``), or its lines
    times the fillings holding one given line of the mover (``won``)."""
    a, b = marks_of(ply)
    if kind == "plain":
        return fillings(v.cells, a, b)
    if kind == "lined":
        return len(v.line_masks) * sum(_one_line(v, a, b))
    movers, others = (a, b) if a > b else (b, a)
    return len(v.line_masks) * fillings(v.cells - v.k, movers - v.k, others)


def check_size(v: Variant) -> None:
    """Refuse a board the estimate cannot take."""
    if v.cells > MAX_CELLS:
        raise BoardTooLargeError(
            f"{v.name} has {v.cells} cells; the won-position estimate keeps a filling in "
            f"64 bits per side and takes at most {MAX_CELLS} cells")


Call = tuple[str, int, str, int, int]


def _calls(name: str, round_: int, sizes: dict[tuple[int, str], int], seed: int
           ) -> list[Call]:
    calls = []
    for (ply, kind), total in sizes.items():
        for index, start in enumerate(range(0, total, CHUNK)):
            calls.append((name, ply, kind, min(CHUNK, total - start),
                          chunk_seed(seed, round_, ply, KINDS.index(kind), index)))
    return calls


Sums = dict[tuple[int, str], list[float]]


def _run(executor: Executor, calls: list[Call], done: list[int], total: int,
         progress: Progress | None) -> Sums:
    sums: Sums = {}
    keys = [f"won-{name}-{ply}-{kind}-{seed}" for name, ply, kind, _, seed in calls]
    for ply, kind, count, score, squares in executor.run_all(draw, calls, keys=keys,
                                                             what="chunks"):
        row = sums.setdefault((ply, kind), [0.0, 0.0, 0.0])
        row[0] += count
        row[1] += score
        row[2] += squares
        done[0] += count
        if progress is not None:
            progress(done[0], total)
    return sums


def _variance(kind: str, drawn: float, score: float, squares: float) -> float:
    """The variance of one draw's score, with two draws scoring 1 and two scoring 0 added,
    as Agresti and Coull's interval does for a share: a stratum whose scores are rarely
    above 0 does not claim a variance near zero (each score lies in [0, 1])."""
    if kind == "plain":
        share = (score + 2) / (drawn + 4)
        return share * (1 - share)
    score, squares, drawn = score + 2, squares + 2, drawn + 4
    return max(0.0, (squares - score * score / drawn) / (drawn - 1))


def choose(v: Variant, pilot: Sums) -> Sums:
    """The pilot's strata with, for each number of marks, the better of the two ways to count
    the fillings with no line (``plain`` or ``lined``: the smaller variance per draw)."""
    kept = {key: row for key, row in pilot.items() if key[1] == "won"}
    for ply in {ply for ply, _ in pilot}:
        ways = [(ply, kind) for kind in ("plain", "lined") if (ply, kind) in pilot]
        best = min(ways, key=lambda key: _estimate(v, key, *pilot[key])[1] * pilot[key][0])
        kept[best] = pilot[best]
    return kept


def _estimate(v: Variant, key: tuple[int, str], drawn: float, score: float, squares: float
              ) -> tuple[float, float]:
    """What one (marks, kind) stratum's draws estimate, with its variance: won fillings
    (``won``) or fillings with no line (``plain``, and ``lined``: the stratum less the
    fillings with a line)."""
    scale = _scale(v, *key)
    count = scale * score / drawn
    if key[1] == "lined":
        count = fillings(v.cells, *marks_of(key[0])) - count
    return count, scale * scale * _variance(key[1], drawn, score, squares) / drawn


def _exact_positions(v: Variant) -> float:
    """The positions of the strata where no line is possible (all their fillings)."""
    sampled = set(sampled_plies(v))
    return float(sum(fillings(v.cells, *marks_of(p)) for p in range(v.cells + 1)
                     if p not in sampled))


def allocate(v: Variant, pilot: Sums, samples: int, *, least: int = PILOT
             ) -> dict[tuple[int, str], int]:
    """Share out `samples` draws among the (marks, kind) strata the pilot chose: in
    proportion to each one's standard deviation (of its count, per draw), relative to the
    estimated won positions (``won`` draws) and positions in all (every kind), and at least
    `least` each."""
    won_total, reach_total = 0.0, _exact_positions(v)
    spreads: dict[tuple[int, str], float] = {}
    for key, (drawn, score, squares) in pilot.items():
        count, variance = _estimate(v, key, drawn, score, squares)
        spreads[key] = math.sqrt(variance * drawn)
        reach_total += count
        if key[1] == "won":
            won_total += count
    weights = {}
    for key, spread in spreads.items():
        weight = spread / max(reach_total, 1.0)
        if key[1] == "won":
            weight += spread / max(won_total, 1.0)
        weights[key] = weight
    whole = sum(weights.values()) or 1.0
    return {key: max(least, round(samples * w / whole)) for key, w in weights.items()}


def estimate_won(variant: Variant | str, *, samples: int = SAMPLES, seed: int = 0,
                 executor: Executor | None = None, progress: Progress | None = None,
                 pilot: int = PILOT) -> WonCount:
    """Estimate the won positions by marks, and the positions in all, with standard errors
    (`WonCount.interval` gives the 95% intervals). `samples`: draws of the second round;
    `pilot`: draws per stratum and kind of the first.
    """
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    check_size(v)
    if samples < 1 or pilot < 2:
        raise ValueError("samples must be at least 1, and pilot at least 2")
    started = time.perf_counter()
    strata = _strata(v)
    done = [0]
    total = pilot * len(strata) + samples
    runner = executor if executor is not None else InProcess()
    first = _run(runner, _calls(v.name, 0, dict.fromkeys(strata, pilot), seed), done, total,
                 progress)
    sizes = allocate(v, choose(v, first), samples, least=pilot)
    total = done[0] + sum(sizes.values())
    main = _run(runner, _calls(v.name, 1, sizes, seed), done, total, progress)
    rows: list[tuple[float, float, float]] = []
    variances = {"won_x": 0.0, "won_o": 0.0, "positions": 0.0}
    sampled = set(sampled_plies(v))
    for ply in range(v.cells + 1):
        a, b = marks_of(ply)
        if ply not in sampled:
            rows.append((0.0, 0.0, float(fillings(v.cells, a, b))))
            continue
        won, won_var = _estimate(v, (ply, "won"), *main[ply, "won"]) \
            if (ply, "won") in main else (0.0, 0.0)
        kind = "lined" if (ply, "lined") in main else "plain"
        plain, plain_var = _estimate(v, (ply, kind), *main[ply, kind])
        variances["won_x" if a > b else "won_o"] += won_var
        variances["positions"] += won_var + plain_var
        rows.append((won, 0.0, plain + won) if a > b else (0.0, won, plain + won))
    variances["won"] = variances["won_x"] + variances["won_o"]
    return WonCount(v.name, "sampled", math.fsum(r[0] for r in rows),
                    math.fsum(r[1] for r in rows), math.fsum(r[2] for r in rows), rows,
                    {name: math.sqrt(value) for name, value in variances.items()},
                    samples=done[0], seed=seed, seconds=time.perf_counter() - started)


__all__ = ["KINDS", "MAX_CELLS", "SAMPLES", "allocate", "choose", "chunk_seed", "draw",
           "estimate_won", "sampled_plies"]
