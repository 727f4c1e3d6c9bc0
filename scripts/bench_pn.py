"""Benchmark proof-number search on Patashnik's Qubic dictionary: for each of its 2,929
entries, the position after the dictionary move proven an X win (the move keeps the win),
then the position itself (X to move). Prints the total time, the nodes and the rate, and the
slowest questions.

    python scripts/bench_pn.py [--positions-only] [--table-mb 1024] [--sample N]
                               [--nodes N] [--seconds S] [--file-order] [--threads N]

Entries are taken deepest first (most marks first) in one table, so that a shallow
position's search finds the deeper positions of the strategy already proven; ``--file-order``
takes them in the dictionary's order instead. ``--positions-only`` asks only whether each
position is an X win, leaving the search to find X's moves itself (several times slower).
The last entry is the empty board (the whole of Qubic): ``--seconds`` bounds each question,
and a question it stops is reported as unproven.

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
    args = parser.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
