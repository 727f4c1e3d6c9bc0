#!/usr/bin/env python3
"""Load benchmark of the web API (not a test): many clients play whole games against `perfect`.

    python scripts/bench_web.py                      # starts `ttt serve` on a free local port
    python scripts/bench_web.py --url http://127.0.0.1:8000 --clients 50 --games 400
    python scripts/bench_web.py --variants 4x4x4 --perfect x --clients 1 --games 100

Each client plays as the page does, through the server-owned game endpoints: it starts a game
(POST /api/games, X human, O perfect), then sends a random legal move at a time (POST
/api/games/{id}/moves with the game's ply); the server checks it, plays perfect's reply and
stores both (``--perfect x``: perfect plays X, so on the cube it plays from the shipped proof
and every request times a proof move). Boards alternate between 3x3 and 4x4 (``--variants``).
The run stops after
--games games or --seconds seconds, whichever comes first, and prints requests per second and
the p50 / p99 latency, overall and per board; ``--repeat N`` runs it N times on the same
server and prints the spread.

Each client holds one keep-alive HTTP/1.1 connection and speaks the protocol directly on
asyncio streams (`RawClient` in `tests/reliability.py`): on a small machine that runs the
server too, a full HTTP client library costs as much CPU per request as the server.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

# The harness (clients, the server process, kill rounds, load runs) is a support module
# of the tests, tests/reliability.py, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from reliability import LoadReport, Server, game_load


def print_report(report: LoadReport, clients: int) -> None:
    count = len(report.all())
    print(f"{clients} clients, {report.games} games, {count} requests in "
          f"{report.seconds:.1f} s, {report.errors} errors; the clients used "
          f"{report.client_cpu / max(report.seconds, 1e-9):.0%} of a core")
    print(f"{'':6} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name in (None, *sorted(report.latency)):
        requests, rate, p50, p99, longest = report.summary(name)
        if requests:
            print(f"{name or 'all':6} {requests:9d} {rate:8.0f} {p50:8.1f} {p99:8.1f} "
                  f"{longest:8.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="a running server; default: start one")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--games", type=int, default=400, help="stop after this many games")
    parser.add_argument("--seconds", type=float, default=60.0, help="stop after this long")
    parser.add_argument("--variants", default="3x3,4x4",
                        help="boards the clients take turns with (comma-separated)")
    parser.add_argument("--perfect", choices=("x", "o"), default="o",
                        help="the side perfect plays (the client plays the other)")
    parser.add_argument("--cold", action="store_true",
                        help="start at once, without waiting for the server's warm-up")
    parser.add_argument("--repeat", type=int, default=1, help="runs on the same server")
    args = parser.parse_args()
    server = None
    url = args.url
    data = tempfile.TemporaryDirectory(prefix="ttt-bench-")
    try:
        if url is None:
            server = Server(Path(data.name))
            url = server.url
        if not args.cold and server is not None:
            print(f"server warm-up: waited {server.wait_ready():.1f} s")
        errors = 0
        runs = []
        for _ in range(args.repeat):
            report = game_load(url, clients=args.clients, games=args.games,
                               seconds=args.seconds, variants=tuple(args.variants.split(",")),
                               perfect=args.perfect)
            print_report(report, args.clients)
            runs.append(report.summary())
            errors += report.errors
        if len(runs) > 1:
            for index, label in ((1, "req/s"), (2, "p50 ms"), (3, "p99 ms")):
                values = [run[index] for run in runs]
                print(f"{label:7} median {statistics.median(values):7.1f}, "
                      f"range {min(values):.1f} to {max(values):.1f} over {len(runs)} runs")
    except KeyboardInterrupt:
        print("stopped")
        return 130
    finally:
        if server is not None:
            server.stop()
        data.cleanup()
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
