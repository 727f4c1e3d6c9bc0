"""Benchmarks of boards past 64 cells: move times of the levels, the threat search on
generated positions, the symmetry group of 19x19.

    python scripts/bench_gomoku.py [--games 4] [--puzzles 200]

Prints p50/p99 move times of each level in self-play games on 15x15 k5 and 19x19 k5; for
generated 15x15 positions of 5-15 plies where the side to move wins by fours (VCF), the
share found and the slowest find by the compiled search (`tictactoe.search.wide`) and the
readable one (`tictactoe.proof.threats`), each find replayed by the rules; and the time to
derive the symmetry group of 19x19 from a fresh variant.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from tictactoe.core import Position, Side, Variant
from tictactoe.core.symmetry import geometric_symmetries, symmetries
from tictactoe.players.base import Limit
from tictactoe.players.levels import player_for_level
from tictactoe.proof.threats import ThreatSearch


def move_times(variant: str, level: str, games: int, seconds: float) -> list[float]:
    """Seconds per move of `level` against itself, over whole games."""
    times = []
    for game in range(games):
        players = (player_for_level(level, seed=2 * game),
                   player_for_level(level, seed=2 * game + 1))
        p = Position(variant)
        while p.outcome() is None:
            started = time.perf_counter()
            choice = players[p.ply % 2].choose(p, Limit(seconds=seconds or None))
            times.append(time.perf_counter() - started)
            p.push(choice.move)
    return times


def puzzles(count: int, rng: random.Random) -> list[Position]:
    """15x15 positions of 5-15 plies, moves near the centre, where the side to move wins
    by fours (the readable search says so)."""
    v = Variant.parse("15x15k5")
    readable = ThreatSearch(v)
    found: list[Position] = []
    pool = [c for c in range(v.cells) if all(abs(a - 7) <= 3 for a in v.coordinates(c))]
    while len(found) < count:
        p = Position(v)
        for _ in range(rng.randint(5, 15)):
            p.push(rng.choice([c for c in pool if not (p.x | p.o) >> c & 1]))
            if p.outcome() is not None:
                break
        if p.outcome() is not None:
            continue
        me, them = (p.x, p.o) if p.turn is Side.X else (p.o, p.x)
        sequence = readable.run(me, them)
        if sequence:  # a sequence of one move or more (not a threat already on the board)
            found.append(p)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="self-play games per level")
    parser.add_argument("--puzzles", type=int, default=200, help="generated VCF positions")
    parser.add_argument("--seconds", type=float, default=0.0,
                        help="limit per move (0: the levels' own budget on large boards)")
    args = parser.parse_args()

    from tictactoe.search.wide import WideThreats, replays

    v19 = Variant.parse("19x19k5")
    started = time.perf_counter()
    lines = len(v19.line_masks)
    between = time.perf_counter()
    group = symmetries(v19)
    done = time.perf_counter()
    print(f"19x19 k5: {lines} lines (cells and masks) in {(between - started) * 1000:.1f} "
          f"ms; its symmetry group, {len(group)} symmetries (geometric "
          f"{len(geometric_symmetries(v19))}), in {(done - between) * 1000:.1f} ms")

    rng = random.Random(2026)
    positions = puzzles(args.puzzles, rng)
    v = positions[0].variant
    wide = WideThreats(v)
    wide.run(0, 0)  # load the kernels before timing
    for name in ("compiled", "readable"):
        times, hits = [], 0
        readable = ThreatSearch(v)
        for p in positions:
            me, them = (p.x, p.o) if p.turn is Side.X else (p.o, p.x)
            started = time.perf_counter()
            found = wide.run(me, them) if name == "compiled" else readable.run(me, them)
            times.append(time.perf_counter() - started)
            if found is not None and replays(v, me, them, found):
                hits += 1
        print(f"VCF, {name}: {hits}/{len(positions)} found and replayed; "
              f"median {statistics.median(times) * 1000:.2f} ms, "
              f"slowest {max(times) * 1000:.2f} ms")

    for variant in ("15x15k5", "19x19k5"):
        for level in ("easy", "medium", "hard", "perfect"):
            times = sorted(move_times(variant, level, args.games, args.seconds))
            p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
            print(f"{variant} {level:8} {len(times):4} moves: p50 "
                  f"{statistics.median(times) * 1000:6.0f} ms, p99 {p99 * 1000:6.0f} ms, "
                  f"max {times[-1] * 1000:6.0f} ms")


if __name__ == "__main__":
    main()
