#!/usr/bin/env python3
"""Load benchmark of the web API (not a test): many clients play whole games against `perfect`.

    python scripts/bench_web.py                      # starts `ttt serve` on a free local port
    python scripts/bench_web.py --url http://127.0.0.1:8000 --clients 50 --games 400
    python scripts/bench_web.py --variants 4x4x4 --perfect x --clients 1 --games 100
    python scripts/bench_web.py --attacks [--seconds 6]

``--attacks`` runs each attack of `tests/attacks.py` (one client with no credentials) for
``--seconds`` against fresh servers on 127.0.0.1, beside a probe (a light 3x3 request every
20 ms), and prints the probe's p50/p99 beside the baseline's, and the attack's own answers:
long position requests, polling a long game, ``rules`` on 32x32, ``heuristic`` on 19x19,
distinct board names (with the server's memory), 40 clients that do not read (on a server
allowed 256 files, so 28 connections) and new games past the cap.

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


def run_attacks(seconds: float) -> int:
    """The attacks of `tests/attacks.py`, each printed beside the baseline."""
    import resource
    import time

    import attacks

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    with tempfile.TemporaryDirectory(prefix="ttt-attacks-") as folder:
        server = Server(Path(folder) / "data")
        try:
            print(f"server warm-up: waited {server.wait_ready():.1f} s", flush=True)
            baseline = attacks.run_attack(server.url, None, seconds=seconds)
            print(f"{'baseline':34} {baseline.summary()}")
            for name, attack, clients in (
                    ("2 clients, 32x32 after 1,000 moves", attacks.post_long_positions, 2),
                    ("polling a 1,000-move 32x32 game", attacks.poll_long_game, 1),
                    ("rules on 32x32", attacks.rules_on_32x32, 1),
                    ("heuristic on 19x19", attacks.heuristic_on_19x19, 1)):
                report = attacks.run_attack(server.url, attack, clients=clients,
                                            seconds=seconds)
                print(f"{name:34} {report.summary()}", flush=True)
            before = server.memory()
            report = attacks.run_attack(server.url, attacks.distinct_board_names,
                                        seconds=3 * seconds)
            print(f"{'distinct board names':34} {report.summary()}; server and workers "
                  f"{(server.memory() - before) / 2**20:+.0f} MiB", flush=True)
        finally:
            server.stop()
        server = Server(Path(folder) / "slow", preexec=few_files)
        try:
            held = attacks.slow_readers(server.url, 40)
            time.sleep(1.0)
            fresh = attacks.fresh_requests(server.url, 20)
            for connection in held:
                connection.close()
            print(f"{'40 clients that do not read':34} {len(held)} held; 20 fresh requests: "
                  f"max {1000 * max(fresh):.0f} ms, "
                  f"{sum(t == float('inf') for t in fresh)} refused or reset")
        finally:
            server.stop()
        server = Server(Path(folder) / "cap", env={"TICTACTOE_GAME_LIMIT": "3,0.001"})
        try:
            forwarded = attacks.new_games_from(server.url, 10, forwarded=True)
            other = attacks.new_games_from(server.url, 10, source="127.0.0.2")
            print(f"{'new games past a cap of 3':34} X-Forwarded-For: {forwarded.count(201)} "
                  f"of 10 created; from 127.0.0.2: {other.count(201)} of 10")
        finally:
            server.stop()
    return 0


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
    parser.add_argument("--attacks", action="store_true",
                        help="run the attacks beside a probe instead of the game load")
    args = parser.parse_args()
    if args.attacks:
        return run_attacks(min(args.seconds, 10.0) if args.seconds != 60.0 else 6.0)
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
