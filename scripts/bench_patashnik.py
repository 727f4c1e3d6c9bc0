#!/usr/bin/env python3
"""Walk Patashnik's Qubic strategy from the empty cube and print the figures (not a test).

    python scripts/bench_patashnik.py                         # the whole walk
    python scripts/bench_patashnik.py --proof qubic.proof.gz  # ... written as a proof file,
                                                              # then checked by the checker
    python scripts/bench_patashnik.py --moves 0 21            # the subtree after X 0, O 21

The strategy is O. Patashnik's ("Qubic: 4x4x4 Tic-Tac-Toe", Mathematics Magazine 53(4),
202-216, 1980; dictionary data from Quuxplusone/RecreationalMath): at X's turn, win at once;
else block O's threat; else the dictionary move, up to the cube's 192 symmetries; else a
forced sequence found by the proof checker's threat search. The walk follows every O reply
up to each position's symmetries, leaving out the replies after which X completes a line at
once, and reports any position where no rule applies.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tictactoe.core import Position
from tictactoe.proof.check import check_proof
from tictactoe.proof.errors import ProofError
from tictactoe.proof.patashnik import (
    PUBLISHED_COUNTS,
    WalkStats,
    find_dictionary,
    load_dictionary,
    verify_strategy,
    write_strategy_proof,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dictionary", type=Path, default=None,
                        help="the dictionary file (default: the package's copy)")
    parser.add_argument("--moves", type=int, nargs="*", default=[],
                        help="start after these moves (cells 0-63, X first; X to move after)")
    parser.add_argument("--proof", type=Path, default=None,
                        help="write the walk as a proof file (.gz to compress), then check it")
    parser.add_argument("--every", type=int, default=50_000,
                        help="print progress every N X positions")
    args = parser.parse_args()

    path = args.dictionary or find_dictionary()
    if path is None:
        print("the dictionary file is missing; pass --dictionary", file=sys.stderr)
        return 2
    started = time.perf_counter()
    dictionary = load_dictionary(path)
    counts = dictionary.counts_by_ply()
    print(f"dictionary: {len(dictionary):,} entries, loaded and validated in "
          f"{time.perf_counter() - started:.1f} s; counts by ply "
          f"{'match' if counts == PUBLISHED_COUNTS else 'DO NOT match'} the published table")

    start = Position("4x4x4")
    for cell in args.moves:
        start.push(cell)

    def progress(stats: WalkStats) -> None:
        print(f"  {stats.x_positions:>10,} X positions, {stats.forced:,} forced, "
              f"{stats.dictionary_hits:,} dictionary, {len(stats.failures)} failures, "
              f"{time.perf_counter() - walk_started:.0f} s", file=sys.stderr, flush=True)

    walk_started = time.perf_counter()
    if args.proof is not None:
        header, stats = write_strategy_proof(dictionary, args.proof, start=start,
                                             progress=progress, progress_every=args.every)
    else:
        stats = verify_strategy(dictionary, start=start, progress=progress,
                                progress_every=args.every)
    print(f"\nwalk from {start.to_string()!r}:")
    print(stats.table())
    for position, reason in stats.failures[:20]:
        print(f"FAILURE at {position!r}: {reason}")
    if len(stats.failures) > 20:
        print(f"... and {len(stats.failures) - 20} more failures")
    print("every line of play ends in an X win" if stats.ok
          else f"{len(stats.failures)} position(s) where no rule applies")
    if args.proof is not None:
        size = args.proof.stat().st_size
        print(f"\nproof file {args.proof.name}: {header.lines + 1:,} lines, {size:,} bytes")
        try:
            print(check_proof(args.proof).summary())
        except ProofError as err:
            print(f"the checker rejects it: {err}")
    return 0 if stats.ok else 1


if __name__ == "__main__":
    sys.exit(main())
