#!/usr/bin/env python3
"""How fast ``GET /api/history`` answers with many finished games (a benchmark, not a test).

    python scripts/bench_history.py                   # 100,000 games
    python scripts/bench_history.py --games 20000 --requests 500

Fills a fresh data folder with finished games (`fill_history` of the tests' `reliability` module),
starts a real ``ttt serve`` on it, waits for its warm-up, and times the history one request
after another: every game on the server, one browser's games (the ``X-Browser-Id`` header),
and ``limit=1``. Prints the median, the 99th percentile and the slowest, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the harness

from reliability import Server, fill_history, history_timing, percentile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="finished games to store")
    parser.add_argument("--requests", type=int, default=300, help="requests per kind")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ttt-history-") as folder:
        data = Path(folder)
        started = time.perf_counter()
        recount = fill_history(data, args.games, seed=args.seed)
        print(f"{args.games:,} finished games written in {time.perf_counter() - started:.1f} s "
              f"(the results table counted afresh in {recount:.2f} s)")
        server = Server(data)
        try:
            print(f"server warm-up: waited {server.wait_ready():.1f} s")
            for label, limit, browser in (("every game, limit=100", 100, None),
                                          ("one browser, limit=100", 100, "bench-browser-0007"),
                                          ("every game, limit=1", 1, None)):
                history_timing(server.url, requests=20, limit=limit, browser=browser)  # warm
                samples = [s * 1000 for s in history_timing(
                    server.url, requests=args.requests, limit=limit, browser=browser)]
                print(f"GET /api/history, {label}: p50 {statistics.median(samples):.1f} ms, "
                      f"p99 {percentile(samples, 0.99):.1f} ms, max {max(samples):.1f} ms "
                      f"({len(samples)} requests)")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
