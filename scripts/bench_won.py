"""Benchmark the won-position counts (`tictactoe.analysis.won`): the exact counts'
times, the estimate's interval against its time and rate, and the intervals' coverage.

    python scripts/bench_won.py exact [--boards 3x3,...,10x10]
    python scripts/bench_won.py estimate [--boards 7x7k3,...,4x4x4] [--samples N] [--workers 2]
    python scripts/bench_won.py coverage [--boards 3x3,...] [--runs 100] [--samples N]

``exact``: inclusion–exclusion on the boards it takes, with the time of each.
``estimate``: the estimate on a process pool, with its relative half-widths, the time and
the fillings drawn a second; on 7x7 (k=7) also how far it falls from the exact count.
``coverage``: independent runs (seeds 0 to runs-1) on boards counted exactly; how many of
each figure's 95% intervals cover the exact figure (the target: at least 93 of 100).
"""

from __future__ import annotations

import argparse
import sys
import time

from tictactoe.analysis.won import WonCount, exact_won
from tictactoe.analysis.won_count import count_won
from tictactoe.analysis.won_sampling import estimate_won
from tictactoe.executors import LocalPool

FIGURES = ("won_x", "won_o", "won", "positions")
EXACT = "3x3,4x4,5x5,6x6,7x7,8x8,9x9,10x10"
ESTIMATED = "5x5k3,5x5k4,6x6k3,6x6k4,6x6k5,7x7k3,7x7k4,7x7k5,7x7k6,7x7,4x4x4"
COVERED = "3x3,4x4,3x4k4,2x5k5,3x5k5,4x4k3,5x5,6x6,7x7"


def _half(w: WonCount, figure: str) -> float:
    low, high = w.interval(figure)
    value = getattr(w, figure)
    return (high - low) / 2 / value if value else 0.0


def exact(boards: list[str]) -> None:
    print(f"{'board':>8} {'lines':>5} {'seconds':>8}  won by X / won by O / positions")
    for name in boards:
        started = time.perf_counter()
        w = exact_won(name)
        print(f"{name:>8} {w.extra['lines']:>5} {time.perf_counter() - started:>8.2f}  "
              f"{w.won_x:,} / {w.won_o:,} / {w.positions:,}", flush=True)


def estimate(boards: list[str], samples: int, workers: int) -> None:
    print(f"{'board':>8} {'seconds':>8} {'fillings/s':>11}  relative half-width of the 95% "
          "interval: won by X, by O, in all, positions")
    with LocalPool(workers, preload=("tictactoe.analysis.won_sampling",)) as pool:
        estimate_won("3x3", samples=1000, executor=pool)  # start the workers, load kernels
        for name in boards:
            w = estimate_won(name, samples=samples, executor=pool)
            halves = ", ".join(f"{100 * _half(w, f):.3f}%" for f in FIGURES)
            print(f"{name:>8} {w.seconds:>8.1f} {w.samples / w.seconds:>11,.0f}  {halves}",
                  flush=True)
            for figure in FIGURES:
                low, high = w.interval(figure)
                print(f"{'':>8} {figure:>9} {getattr(w, figure):.6g} (95% interval "
                      f"{low:.6g} to {high:.6g})", flush=True)
            if name == "7x7":
                truth = count_won(name, method="exact")
                off = ", ".join(f"{(getattr(w, f) - getattr(truth, f)) / w.errors[f]:+.2f}"
                                for f in FIGURES)
                print(f"{'':>8} against the exact count, in standard errors: {off}")


def coverage(boards: list[str], runs: int, samples: int) -> None:
    print(f"{'board':>8} {'runs':>5} {'samples':>10}  covering runs: won by X, by O, in all, "
          "positions (target: 93 of 100)")
    for name in boards:
        truth = count_won(name, method="exact")
        covered = dict.fromkeys(FIGURES, 0)
        started = time.perf_counter()
        for seed in range(runs):
            w = estimate_won(name, samples=samples, seed=seed)
            for figure in FIGURES:
                low, high = w.interval(figure)
                covered[figure] += low <= getattr(truth, figure) <= high
        counts = ", ".join(str(covered[f]) for f in FIGURES)
        print(f"{name:>8} {runs:>5} {samples:>10,}  {counts}  "
              f"({time.perf_counter() - started:.0f} s)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("exact", "estimate", "coverage"))
    parser.add_argument("--boards")
    parser.add_argument("--samples", type=int)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.what == "exact":
        exact((args.boards or EXACT).split(","))
    elif args.what == "estimate":
        estimate((args.boards or ESTIMATED).split(","), args.samples or 200_000_000,
                 args.workers)
    else:
        coverage((args.boards or COVERED).split(","), args.runs, args.samples or 200_000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
