#!/usr/bin/env python3
"""How a newcomer fares against each level on 3x3 (not a test).

    python scripts/bench_beginner.py [--games 300] [--seed 1]

The newcomer (`tictactoe.players.tactical.NewcomerPlayer`, ``newcomer`` by name) takes a
win, blocks, and otherwise plays the centre or any cell; it takes X and O in turn. A level
that always blocks caps it near a sixth of the games (it wins only by forks); a beginner a
newcomer beats a third of the time has to miss blocks: ``beginner`` does, two moves in five.
For a picture of one match: ``ttt arena newcomer beginner --games 300 --plot beginner.png``.
"""

from __future__ import annotations

import argparse
import time

from tictactoe.players.arena import play_match
from tictactoe.players.levels import LEVELS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"newcomer against each level on 3x3, {args.games} games each, sides in turn")
    print(f"{'level':8} {'newcomer W/D/L':>16} {'wins':>6} {'as X':>5} {'as O':>5} {'s':>6}")
    for level in LEVELS:
        started = time.perf_counter()
        newcomer = play_match("newcomer", level, games=args.games, seed=args.seed).standings[0]
        print(f"{level:8} {newcomer.wins:>6}/{newcomer.draws}/{newcomer.losses:<6} "
              f"{newcomer.wins / newcomer.games:>6.0%} {newcomer.wins_as_x:>5} "
              f"{newcomer.wins_as_o:>5} {time.perf_counter() - started:>6.1f}", flush=True)


if __name__ == "__main__":
    main()
