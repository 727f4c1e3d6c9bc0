"""Benchmark proof-number search on Patashnik's Qubic dictionary: for each of its 2,929
entries, the position after the dictionary move proven an X win (the move keeps the win),
then the position itself (X to move). Prints the total time, the nodes and the rate, and the
slowest questions.

    python scripts/bench_pn.py [--positions-only] [--table-mb 1024] [--sample N]
                               [--nodes N] [--seconds S] [--file-order] [--threads N]
    python scripts/bench_pn.py --jobs VARIANT [--job-nodes N] [--seconds S]
    python scripts/bench_pn.py --covers VARIANT [VARIANT ...]

Entries are taken deepest first (most marks first) in one table, so that a shallow
position's search finds the deeper positions of the strategy already proven; ``--file-order``
takes them in the dictionary's order instead. ``--positions-only`` asks only whether each
position is an X win, leaving the search to find X's moves itself (several times slower).
The last entry is the empty board (the whole of Qubic): ``--seconds`` bounds each question,
and a question it stops is reported as unproven.

``--jobs VARIANT`` is another section: job-level proving (``ttt prove VARIANT --jobs DIR``)
on a local pool of 1 worker, then of 2, each from an empty job folder and each with its proof
assembled and checked; it prints both runs' times and nodes and the speed and node ratios of
2 workers against 1 (the target: at least 1.6 times faster with at most 1.3 times the
nodes), with the plain search's time and nodes (one process, one table) for reference.

``--covers VARIANT ...`` writes each variant's proof twice, with zone-covered moves expanded
(the default) and with zone covers (format version 3), and prints the lines, bytes, writing
time, positions searched again and check time of each.

Data: O. Patashnik, "Qubic: 4x4x4 Tic-Tac-Toe", Mathematics Magazine 53(4), 1980.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time

from tictactoe.core import Side
from tictactoe.proof.patashnik import Entry, find_dictionary, load_dictionary
from tictactoe.search.pn import PnResult, PnSearch
from tictactoe.search.pn.dfpn import LIMIT


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions-only", action="store_true",
                        help="prove the positions only, not each position after its move")
    parser.add_argument("--table-mb", type=float, default=1024)
    parser.add_argument("--sample", type=int, default=None,
                        help="only N entries, a fixed random sample")
    parser.add_argument("--nodes", type=int, default=None,
                        help="df-pn nodes allowed per question (default: no limit)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="seconds allowed per entry (default: no limit)")
    parser.add_argument("--file-order", action="store_true",
                        help="the dictionary's order, not deepest first")
    parser.add_argument("--threads", type=int, default=1,
                        help="prove the entries on N threads, each with its own table "
                             "(every N-th entry, deepest first)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a search setting (tictactoe.search.pn.driver.OPTIONS), "
                             "e.g. eval_budget=100; repeatable")
    parser.add_argument("--jobs", metavar="VARIANT", default=None,
                        help="compare job-level proving on 2 workers against 1 on VARIANT")
    parser.add_argument("--job-nodes", type=int, default=200_000,
                        help="with --jobs: the nodes of one job")
    parser.add_argument("--covers", metavar="VARIANT", nargs="+", default=None,
                        help="compare proofs written with and without zone covers")
    args = parser.parse_args()
    if args.covers is not None:
        return bench_covers(args.covers)
    if args.jobs is not None:
        return bench_jobs(args.jobs, args.job_nodes, args.seconds)
    path = find_dictionary()
    if path is None:
        print("the dictionary file is not installed", file=sys.stderr)
        return 2
    entries = list(load_dictionary(path).entries)
    if args.sample is not None:
        entries = sorted(random.Random(1).sample(entries, min(args.sample, len(entries))),
                         key=lambda e: e.line)
    if not args.file_order:
        entries.sort(key=lambda e: (-e.position().ply, e.line))
    options: dict[str, int] = {}
    for text in args.option:
        name, _, value = text.partition("=")
        options[name] = int(value)
    searches = [PnSearch("4x4x4", table_mb=args.table_mb, **options)
                for _ in range(args.threads)]
    deepest = max(entries, key=lambda e: e.position().ply).position()
    for search in searches:
        search.prove(deepest, attacker=Side.X)  # load the kernels before timing
        search.clear()
    unproven = 0
    failures = 0
    nodes = 0
    timings: list[tuple[float, int, str]] = []
    lock = threading.Lock()
    done = [0]
    stop = threading.Event()
    started = time.perf_counter()

    def prove_share(search: PnSearch, share: list[Entry]) -> None:
        nonlocal unproven, failures, nodes
        for entry in share:
            if stop.is_set():
                return
            position = entry.position()
            if args.positions_only:
                answers: tuple[PnResult, ...] = (search.prove(
                    position, attacker=Side.X, nodes=args.nodes, seconds=args.seconds),)
            else:  # the move first: the position's search then finds its child proven
                answers = search.prove_move(position, entry.move, nodes=args.nodes,
                                            seconds=args.seconds)
            for result in answers:
                with lock:
                    nodes += result.nodes
                    timings.append((result.seconds, result.nodes, result.position))
                    if result.outcome == "unknown":
                        unproven += 1
                        print(f"line {entry.line}: {result.position}: unproven within the "
                              f"limit ({result.nodes:,} nodes, {result.seconds:.1f} s)",
                              flush=True)
                    elif result.outcome != "win":
                        failures += 1
                        print(f"line {entry.line}: {result.position}: {result.outcome} "
                              f"({result.nodes:,} nodes)", flush=True)
            with lock:
                done[0] += 1
                if done[0] % 250 == 0:
                    print(f"  {done[0]:,} entries, {time.perf_counter() - started:.1f} s",
                          flush=True)

    # each thread takes every N-th entry, so each share stays deepest first
    workers = [threading.Thread(target=prove_share, args=(search, entries[i::args.threads]),
                                daemon=True)
               for i, search in enumerate(searches)]
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            while worker.is_alive():
                worker.join(0.1)
    except KeyboardInterrupt:
        stop.set()
        for search in searches:
            search.misc[LIMIT] = 0
        for worker in workers:
            worker.join()
        raise
    elapsed = time.perf_counter() - started
    print(f"{len(timings):,} positions; proven X wins: {len(timings) - failures - unproven:,}; "
          f"unproven within the limit: {unproven}; failures: {failures}")
    print(f"total {elapsed:.2f} s, {nodes:,} df-pn nodes, {nodes / elapsed:,.0f} nodes/s, "
          f"mean {1000 * elapsed / len(timings):.2f} ms per position")
    timings.sort(reverse=True)
    for seconds, n, text in timings[:5]:
        print(f"  slowest: {seconds:.3f} s {n:,} nodes  {text}")
    return 1 if failures else 0


def bench_jobs(variant: str, job_nodes: int, seconds: float | None) -> int:
    """Job-level proving of `variant` on 1 worker, then 2; the plain search for reference."""
    import tempfile

    from tictactoe.core import Position
    from tictactoe.search.pn.jobs import JobRun, prove_with_jobs
    from tictactoe.search.pn.proofs import table_mb_for

    position = Position(variant)
    search = PnSearch(position.variant, table_mb=table_mb_for(position))
    plain = search.value(position, seconds=seconds)
    print(f"{variant}: plain search (one process): {plain.value}, {plain.nodes:,} nodes, "
          f"{plain.seconds:.1f} s", flush=True)
    runs: dict[int, JobRun] = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory(prefix="ttt-bench-jobs-") as folder:
            run = prove_with_jobs(position, folder, backend="local", workers=workers,
                                  job_nodes=job_nodes, seconds=seconds)
        runs[workers] = run
        checked = "checked" if run.check is not None else "no proof"
        print(f"  {workers} worker{'s' if workers > 1 else ''}: {run.value}, "
              f"{run.jobs_run:,} jobs of {job_nodes:,} nodes, {run.nodes:,} nodes, "
              f"{run.seconds:.1f} s, proof {run.lines:,} lines ({checked})", flush=True)
    one, two = runs[1], runs[2]
    speed = one.seconds / two.seconds if two.seconds else float("inf")
    ratio = two.nodes / one.nodes if one.nodes else float("inf")
    print(f"  2 workers against 1: {speed:.2f}x faster (target >= 1.6), {ratio:.2f}x the "
          f"nodes (target <= 1.3)")
    return 0 if one.value == two.value == plain.value else 1


def bench_covers(variants: list[str]) -> int:
    """Each variant's proof written expanded, then with zone covers; both checked."""
    import io

    from tictactoe.proof import check_proof
    from tictactoe.search.pn.proofs import write_proof

    for variant in variants:
        for covers in (False, True):
            buffer = io.BytesIO()
            written = write_proof(variant, buffer, covers=covers)
            started = time.perf_counter()
            stats = check_proof(buffer.getvalue())
            checked = time.perf_counter() - started
            print(f"{variant} {'zone covers' if covers else 'expanded':>11}: "
                  f"{written.header.value}, version {written.header.version}, "
                  f"{written.header.lines:,} lines, {len(buffer.getvalue()):,} bytes; "
                  f"search {written.search_seconds:.1f} s, writing "
                  f"{written.extract_seconds:.1f} s ({written.researched:,} positions "
                  f"searched again, {written.research_nodes:,} nodes); checked in "
                  f"{checked:.2f} s, {stats.replies_by_zone:,} replies covered", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
