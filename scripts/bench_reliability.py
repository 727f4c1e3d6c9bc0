#!/usr/bin/env python3
"""Reliability of the web server under faults and load (a benchmark, not a test): prints a table.

    python scripts/bench_reliability.py                    # everything (about 15 minutes)
    python scripts/bench_reliability.py --only crash,race  # some sections
    python scripts/bench_reliability.py --quick            # every section, short

Sections (each against real ``ttt serve`` processes on 127.0.0.1, see
`tests/reliability.py`):

- crash: 50 clients play; the server is killed with SIGKILL at a random moment and restarted
  on the same data folder, ``--crash-rounds`` times. Every move answered 2xx must still be
  there, no record torn, SQLite's integrity check clean, no engine worker left running.
- race: two clients send a change from the same state, over whole games: exactly one wins,
  the other gets 409, nothing is lost.
- storage: a damaged games file, a read-only data folder, a full disk: 503 with a reason and
  no traceback, analysis still answered, the server up (and games back once fixed).
- fuzz: schemathesis over every endpoint and through the schema's links (``--fuzz-examples``
  each), and Hypothesis on the parsers behind the API for ``--fuzz-seconds`` (runs
  tests/test_web_fuzz.py with those settings).
- load: the 50-client game benchmark (``scripts/bench_web.py``) ``--repeat`` times, and the
  same games from wrk (if installed).
- mix: a 3x3 client's moves alone, then while 20 clients keep heavy requests going.
- small: a 3x3 game against hard alone, then while ten clients play 4x4 games against hard
  (``--small-clients``, ``--small-level``): the small boards' work must not slow it.
- memory: 10,000 distinct positions; the resident memory of the server and its workers.

Ctrl-C stops cleanly after the current step.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

# The harness (clients, the server process, kill rounds, load runs) is a support module
# of the tests, tests/reliability.py, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import reliability
from reliability import Server, percentile

ROOT = Path(__file__).resolve().parent.parent
console = Console()
Row = tuple[str, str, str]


def spread(values: list[float], digits: int = 0) -> str:
    """Median and range of repeated figures."""
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return (f"{statistics.median(values):.{digits}f} "
            f"({min(values):.{digits}f}–{max(values):.{digits}f})")


def crash(args: argparse.Namespace, work: Path) -> list[Row]:
    server = Server(work / "crash")
    rng = random.Random(args.seed)
    rounds = []
    try:
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("SIGKILL rounds", total=args.crash_rounds)
            for _ in range(args.crash_rounds):
                report, server = reliability.crash_round(server, rng, clients=args.clients)
                rounds.append(report)
                progress.advance(task)
    finally:
        server.stop()
    for report in rounds:
        for problem in report.problems[:5]:
            console.print(f"[red]{problem}")
    clean = sum(1 for r in rounds if r.integrity == "ok")
    return [(f"Crash durability: SIGKILL × {len(rounds)}, {args.clients} clients",
             f"{sum(r.acknowledged for r in rounds):,} acknowledged moves "
             f"({spread([r.acknowledged for r in rounds])} a round) in "
             f"{sum(r.games for r in rounds):,} games; "
             f"{sum(r.landed for r in rounds)} in flight at the kill and stored",
             f"lost {sum(r.lost for r in rounds)}, torn {sum(r.torn for r in rounds)}, "
             f"integrity ok {clean}/{len(rounds)}, orphaned workers "
             f"{sum(r.orphans for r in rounds)}")]


def race(args: argparse.Namespace, work: Path) -> list[Row]:
    server = Server(work / "race")
    try:
        server.wait_ready()
        report = reliability.race(server.url, args.race_games, args.seed)
    finally:
        server.stop()
    return [(f"Concurrent writers: 2 clients, {args.race_games} games",
             f"{report.races:,} races (a move or an undo each, from the same state)",
             f"won {report.won:,}, 409 {report.refused:,}, lost updates {report.lost}, "
             f"other answers {report.other}")]


def storage(args: argparse.Namespace, work: Path) -> list[Row]:
    rows = []
    for kind in ("read-only", "corrupt", "full"):
        report = reliability.bad_storage(kind, work / "storage")
        if report is None:
            rows.append((f"Bad storage: {kind}", "not made on this machine (needs a mount)",
                         "—"))
            continue
        recovered = {None: "", True: ", games back once fixed",
                     False: ", [red]games not back once fixed[/]"}[report.recovered]
        rows.append((f"Bad storage: {kind} ({report.how})",
                     f"games {report.game_status}: “{report.message.split('. ')[0]}”",
                     f"{'no traceback' if report.clean else '[red]unclear message[/]'}, "
                     f"analysis {report.analysis_status}, server "
                     f"{'up' if report.alive else '[red]down[/]'}{recovered}"))
    return rows


FORM_REFUSED = "refused by the request's form (422)"


def step_name(key: str) -> str:
    """A short name for a counted step, from ``steps METHOD PATH STATUS``."""
    _, method, path, _ = key.split()
    last = path.rstrip("/").rsplit("/", 1)[-1]
    if last == "games":
        return "create" if method == "POST" else "list"
    return "read" if last.startswith("{") else last


def fuzz(args: argparse.Namespace, work: Path) -> list[Row]:
    stats = work / "fuzz.json"
    env = {**os.environ, "TICTACTOE_FUZZ_EXAMPLES": str(args.fuzz_examples),
           "TICTACTOE_FUZZ_SECONDS": str(args.fuzz_seconds), "TICTACTOE_FUZZ_STATS": str(stats)}
    with console.status("fuzzing (schemathesis, then the parsers)"):
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/test_web_fuzz.py"], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=False)
    counts = json.loads(stats.read_text()) if stats.exists() else {}
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    failed = done.returncode != 0
    if failed:
        console.print(done.stdout[-3000:])
    steps = {k: v for k, v in counts.items() if k.startswith("steps ") and
             not k.endswith((" 404", " 422"))}
    reached = ", ".join(f"{step_name(k)} {k.split()[-1]}: {v}"
                        for k, v in sorted(steps.items()) if k.split()[-1].startswith("2"))
    return [(f"Fuzz: schemathesis, {args.fuzz_examples} examples per endpoint and sequences",
             f"{counts.get('requests', 0):,} requests, {counts.get('sequence steps', 0):,} "
             f"steps in {counts.get('sequences', 0)} linked sequences (2xx steps: {reached})",
             f"5xx {counts.get('requests 5xx', 0)}, schema violations "
             f"{'[red]see above[/]' if failed else 0} ({summary})"),
            (f"Fuzz: parsers (Hypothesis), {args.fuzz_seconds:g} s",
             f"{counts.get('parser strings', 0):,} strings × 5 parsers: "
             f"{counts.get('parsed', 0):,} parsed, "
             f"{counts.get('refused with the documented error (400)', 0):,} refused with the "
             f"documented error, {counts.get(FORM_REFUSED, 0):,} by the request's form",
             f"other exceptions {'[red]see above[/]' if failed else 0}")]


def load(args: argparse.Namespace, work: Path) -> list[Row]:
    server = Server(work / "load")
    rows = []
    try:
        server.wait_ready()
        runs = []
        for _ in range(args.repeat):
            report = reliability.game_load(server.url, clients=args.clients,
                                           games=args.games, seconds=args.load_seconds)
            runs.append((report.summary(), report.errors,
                         report.client_cpu / max(report.seconds, 1e-9)))
        rows.append((f"Load: {args.clients} clients play 3x3/4x4 against perfect "
                     f"(scripts/bench_web.py), × {len(runs)}",
                     f"req/s {spread([r[0][1] for r in runs])}, "
                     f"p50 {spread([r[0][2] for r in runs], 1)} ms, "
                     f"p99 {spread([r[0][3] for r in runs], 1)} ms",
                     f"errors {sum(r[1] for r in runs)} in "
                     f"{sum(r[0][0] for r in runs):,} requests; the clients used "
                     f"{statistics.median(r[2] for r in runs):.0%} of a core"))
        wrk = shutil.which("wrk")
        if wrk is None:
            rows.append(("Load: wrk", "wrk is not installed (apt-get install wrk)", "—"))
        else:
            reports = [reliability.wrk_load(server.url, connections=args.clients,
                                            seconds=args.wrk_seconds, wrk=wrk)
                       for _ in range(args.repeat)]
            rows.append((f"Load: wrk, {args.clients} connections, the same games, "
                         f"× {len(reports)}",
                         f"req/s {spread([r.rate for r in reports])}, "
                         f"p50 {spread([r.p50_ms for r in reports], 1)} ms, "
                         f"p99 {spread([r.p99_ms for r in reports], 1)} ms",
                         f"errors {sum(r.errors for r in reports)} in "
                         f"{sum(r.requests for r in reports):,} requests"))
    finally:
        server.stop()
    return rows


def light_row(check: str, report: reliability.MixReport, extra: str) -> Row:
    """A row for the light client's latencies (the goal: p99 within 100 ms)."""
    light = report.light
    p99 = percentile(light, 0.99) * 1000
    return (check,
            f"{len(light):,} requests, p50 {statistics.median(light) * 1000:.1f} ms, max "
            f"{max(light) * 1000:.1f} ms{extra}",
            f"p99 {p99:.1f} ms ({'met' if p99 <= 100 else '[red]over'} ≤ 100 "
            f"ms{'' if p99 <= 100 else '[/]'}), errors {report.light_errors}")


def mix(args: argparse.Namespace, work: Path) -> list[Row]:
    server = Server(work / "mix")
    rows = []
    try:
        server.wait_ready()
        for heavy in (0, args.heavy):
            report = reliability.light_among_heavy(server.url, heavy=heavy,
                                                   seconds=args.mix_seconds)
            label = "alone" if heavy == 0 else f"while {heavy} clients keep heavy requests going"
            heavy_text = "" if heavy == 0 else (
                f"; heavy: {report.heavy_done} answered, {report.heavy_refused} refused "
                f"with 503, {report.heavy_other} other")
            rows.append(light_row(f"Light among heavy: a 3x3 client's moves {label}", report,
                                  heavy_text))
    finally:
        server.stop()
    return rows


def small(args: argparse.Namespace, work: Path) -> list[Row]:
    server = Server(work / "small")
    rows = []
    try:
        server.wait_ready()
        for others in (0, args.small_clients):
            report = reliability.small_among_small(server.url, level=args.small_level,
                                                   others=others, seconds=args.mix_seconds)
            label = "alone" if others == 0 else f"while {others} clients play 4x4"
            others_text = "" if others == 0 else (
                f"; 4x4: {report.heavy_done:,} moves answered, {report.heavy_refused} refused "
                f"with 503, {report.heavy_other} other")
            rows.append(light_row(f"Small among small: a 3x3 game against {args.small_level} "
                                  f"{label}", report, others_text))
    finally:
        server.stop()
    return rows


def memory(args: argparse.Namespace, work: Path) -> list[Row]:
    server = Server(work / "memory")
    try:
        server.wait_ready()
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("distinct positions", total=args.positions)
            samples = reliability.memory_run(
                server, args.positions, every=max(1, args.positions // 10),
                progress=lambda done, _: progress.update(task, completed=done))
    finally:
        server.stop()
    mib = [size / 2**20 for _, size in samples]
    middle = mib[len(mib) // 2]
    console.print("RSS by positions: " + ", ".join(f"{n:,}: {size / 2**20:.0f} MB"
                                                   for n, size in samples))
    return [(f"Memory: {args.positions:,} distinct positions (facts, a move, an analysis)",
             f"RSS of the server and its 2 workers: start {mib[0]:.0f} MB (after the warm-up), "
             f"halfway {middle:.0f} MB, end {mib[-1]:.0f} MB",
             f"second half +{mib[-1] - middle:.0f} MB, peak {max(mib):.0f} MB")]


def met(ok: bool, text: str) -> str:
    return text if ok else f"[red]{text}[/]"


def guards(args: argparse.Namespace, work: Path) -> list[Row]:
    rows = []
    server = Server(work / "guards")
    try:
        server.wait_ready()
        # the first refusal runs code paths for the first time: timed apart
        first = reliability.chunked_flood(server, args.chunked_mib)
        flood = reliability.chunked_flood(server, args.chunked_mib)
        before = percentile(flood.light_before, 0.99) * 1000
        during = percentile(flood.light_during, 0.99) * 1000
        grown = (flood.rss_after - first.rss_before) / 2**20
        ok = (first.status == flood.status == 413 and flood.answered <= 0.05
              and grown < 20)
        rows.append((f"Chunked body of {args.chunked_mib} MiB, no declared length, twice",
                     f"answered {flood.status} after {flood.answered * 1000:.1f} ms, "
                     f"{flood.sent / 2**20:.1f} MiB sent before the server closed; "
                     f"light requests p99 {before:.1f} ms before, {during:.1f} ms during "
                     f"(the first time: {first.status} after {first.answered * 1000:.1f} ms, "
                     f"light p99 {percentile(first.light_during, 0.99) * 1000:.1f} ms "
                     "during)",
                     met(ok, f"server RSS {grown:+.1f} MiB over both") + " (target 413 within "
                     "50 ms, +< 20 MiB)"))
    finally:
        server.stop()
    with contextlib.suppress(ValueError, OSError):  # the clients need the descriptors too
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = Server(work / "half-open", preexec=reliability.descriptor_limit(1024))
    try:
        server.wait_ready()
        report = reliability.half_open(server, args.half_open)
        worst = max(report.light) * 1000 if report.light else float("inf")
        closed = "not all" if report.all_closed is None else f"all in {report.all_closed:.1f} s"
        ok = report.all_closed is not None and report.all_closed <= 10 and worst <= 100
        rows.append((f"{args.half_open:,} half-open connections, server limited to 1,024 "
                     "open files",
                     f"{report.opened:,} opened ({report.refused} refused); closed {closed}; "
                     f"{len(report.light):,} light requests meanwhile, p50 "
                     f"{statistics.median(report.light) * 1000:.1f} ms",
                     met(ok, f"slowest light request {worst:.1f} ms") + " (target all closed "
                     "within 10 s, every light request within 100 ms)"))
    finally:
        server.stop()
    return rows


def history(args: argparse.Namespace, work: Path) -> list[Row]:
    data = work / "history"
    data.mkdir()
    started = time.perf_counter()
    recount = reliability.fill_history(data, args.history_games, seed=args.seed)
    filled = time.perf_counter() - started
    server = Server(data)
    rows = []
    try:
        server.wait_ready()
        for label, limit, browser in (("every game, limit=100", 100, None),
                                      ("one browser (header), limit=100", 100,
                                       "bench-browser-0007"),
                                      ("every game, limit=1", 1, None)):
            reliability.history_timing(server.url, requests=20, limit=limit, browser=browser)
            samples = reliability.history_timing(server.url, requests=300, limit=limit,
                                                 browser=browser)
            p99 = percentile(samples, 0.99) * 1000
            rows.append((f"History at {args.history_games:,} finished games: {label}",
                         f"300 requests one after another, p50 "
                         f"{statistics.median(samples) * 1000:.1f} ms, max "
                         f"{max(samples) * 1000:.1f} ms (games written in {filled:.0f} s, "
                         f"results counted afresh in {recount:.2f} s)",
                         met(p99 <= 20, f"p99 {p99:.1f} ms") + " (target ≤ 20 ms)"))
    finally:
        server.stop()
    return rows


SECTIONS: dict[str, Callable[[argparse.Namespace, Path], list[Row]]] = {
    "crash": crash, "race": race, "storage": storage, "fuzz": fuzz, "load": load, "mix": mix,
    "small": small, "memory": memory, "guards": guards, "history": history}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"sections, comma-separated ({', '.join(SECTIONS)})")
    parser.add_argument("--quick", action="store_true", help="every section, short")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--crash-rounds", type=int, default=20)
    parser.add_argument("--race-games", type=int, default=20)
    parser.add_argument("--fuzz-examples", type=int, default=200)
    parser.add_argument("--fuzz-seconds", type=float, default=120.0)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--load-seconds", type=float, default=60.0)
    parser.add_argument("--wrk-seconds", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--heavy", type=int, default=20)
    parser.add_argument("--mix-seconds", type=float, default=30.0)
    parser.add_argument("--small-clients", type=int, default=10)
    parser.add_argument("--small-level", default="hard")
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--chunked-mib", type=int, default=300)
    parser.add_argument("--half-open", type=int, default=1000)
    parser.add_argument("--history-games", type=int, default=100_000)
    parser.add_argument("--markdown", action="store_true",
                        help="also print the table in Markdown (as in README.md)")
    args = parser.parse_args()
    if args.quick:
        args.crash_rounds, args.race_games, args.fuzz_examples = 3, 4, 20
        args.fuzz_seconds, args.games, args.wrk_seconds = 5.0, 100, 3.0
        args.repeat, args.mix_seconds, args.positions = 1, 8.0, 1000
        args.chunked_mib, args.half_open, args.history_games = 50, 300, 10_000
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown sections {unknown}: choose from {', '.join(SECTIONS)}")
    rows: list[Row] = []
    loads: list[str] = []
    table = Table(title="Reliability of the web server", title_justify="left")
    for name in ("check", "run", "result"):
        table.add_column(name, overflow="fold")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ttt-reliability-") as folder:
        try:
            for name in chosen:
                loads.append(f"{name} {os.getloadavg()[0]:.1f}")
                console.print(f"[bold]{name}[/] … (load average {os.getloadavg()[0]:.1f})")
                for row in SECTIONS[name](args, Path(folder)):
                    table.add_row(*row)
                    rows.append(row)
                    console.print(" | ".join(row))
        except KeyboardInterrupt:
            console.print("[yellow]stopped; the table so far:")
    console.print(table)
    console.print(f"{os.cpu_count()} cores; load average (1 minute) at the start of each "
                  f"section: {', '.join(loads)}, at the end {os.getloadavg()[0]:.1f}; "
                  f"{time.monotonic() - started:.0f} s")
    if args.markdown:
        print(markdown(rows))
    return 0


def markdown(rows: list[Row]) -> str:
    """The table in Markdown, without the colours.

    >>> print(markdown([("a", "b|c", "[red]d[/]")]))
    | check | run | result |
    |---|---|---|
    | a | b\\|c | d |
    """
    def cell(text: str) -> str:
        return Text.from_markup(text).plain.replace("|", "\\|")

    lines = ["| check | run | result |", "|---|---|---|"]
    lines += ["| " + " | ".join(cell(part) for part in row) + " |" for row in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
