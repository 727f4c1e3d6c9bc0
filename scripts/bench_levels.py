#!/usr/bin/env python3
"""Benchmark of the levels and the tactical floor (not a test): what a player meets.

    python scripts/bench_levels.py                  # every part, the default sizes
    python scripts/bench_levels.py --part tactics --positions 50
    python scripts/bench_levels.py --part latency --moves 60
    python scripts/bench_levels.py --part cube-o --games 40

Parts:

- ``tactics``: random positions of the cube, 5x5 k=4, 6x6 k=4 and 7x7 k=5 where the side to
  move faces a single threat, or can complete a line (found by a one-ply check written here):
  how often `hard` and `perfect` block it or win at once, whether the hints label every move
  that loses at once as a loss and never as best, and whether the proven labels of a
  one-thread and a two-thread solve agree.
- ``latency``: a ``ttt serve`` on a free local port, warmed up; each level's move on cube
  positions from greedy games (`perfect` as X: positions of its own games from the shipped
  proof), through ``POST /api/move``: p50, p99 and the longest.
- ``cube-o``: `perfect` as O on the cube against `greedy` as X: wins, draws, losses.
- ``overhead``: what a cube move or hint costs beyond its search's limit: reading the shipped
  strategy in a fresh process, and in a warm one the hints and `perfect`'s move on cube
  positions with X and with O to move, less the limit.

Ratings and scores against `greedy` come from ``ttt ladder`` (docs/solving.md).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from tictactoe.core import Position, Side, Variant
from tictactoe.players.arena import play_game
from tictactoe.players.base import Limit
from tictactoe.players.levels import LEVELS, player_for_level
from tictactoe.players.tactical import GreedyPlayer
from tictactoe.search.score import Loss
from tictactoe.search.solver import solve
from tictactoe.tui.engine import hint_scores

# The harness (clients, the server process, kill rounds, load runs) is a support module
# of the tests, tests/reliability.py, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

BOARDS = ("4x4x4", "5x5k4", "6x6k4", "7x7k5")


def threat_cells(position: Position, side: Side) -> set[int]:
    """The empty cells where `side` completes a line (brute force over the lines)."""
    taken = position.x | position.o
    mine = position.marks(side)
    out = set()
    for line in position.variant.lines:
        empty = [c for c in line if not taken >> c & 1]
        if len(empty) == 1 and all(mine >> c & 1 for c in line if c != empty[0]):
            out.add(empty[0])
    return out


def positions(variant: str, count: int, want: str, rng: random.Random) -> list[Position]:
    """Positions from random play: ``threat`` (one opponent threat cell, no win for the
    mover) or ``win`` (the mover completes a line)."""
    found: list[Position] = []
    while len(found) < count:
        p = Position(variant)
        while not p.is_game_over():
            mine, theirs = threat_cells(p, p.turn), threat_cells(p, p.turn.other)
            if p.ply >= 4 and ((want == "threat" and not mine and len(theirs) == 1)
                               or (want == "win" and mine)):
                found.append(p.copy(stack=False))
                break
            p.push(rng.choice(p.legal_moves()))
    return found


def tactics(count: int, seconds: float) -> None:
    print(f"single threats and immediate wins, {count} positions of each per board; "
          f"{seconds:g} s a move")
    print(f"{'board':7} {'player':8} {'blocks':>7} {'wins':>6} {'hints ok':>9} "
          f"{'threads 1=2':>12}")
    for variant in BOARDS:
        rng = random.Random(hash(variant) % 10_000)
        threats = positions(variant, count, "threat", rng)
        wins = positions(variant, count, "win", rng)
        hints_ok = agree = 0
        for p in threats:
            block = next(iter(threat_cells(p, p.turn.other)))
            hints = hint_scores(p, seconds)
            if max(hints, key=lambda c: hints[c]) == block and all(
                    s == Loss(2) for c, s in hints.items() if c != block):
                hints_ok += 1
            one, two = (solve(p, seconds=seconds, threads=t) for t in (1, 2))
            shared = {c for c in one.moves if one.moves[c].is_proven and two.moves[c].is_proven}
            agree += all(one.moves[c] == two.moves[c] for c in shared)
        for name in ("hard", "perfect"):
            blocked = sum(player_for_level(name, seed=i).choose(p, Limit(seconds=seconds)).move
                          == next(iter(threat_cells(p, p.turn.other)))
                          for i, p in enumerate(threats))
            won = sum(player_for_level(name, seed=i).choose(p, Limit(seconds=seconds)).move
                      in threat_cells(p, p.turn) for i, p in enumerate(wins))
            print(f"{variant:7} {name:8} {blocked / count:7.0%} {won / count:6.0%} "
                  f"{hints_ok / count:9.0%} {agree / count:12.0%}", flush=True)


def greedy_positions(count: int) -> list[Position]:
    """Cube positions from games between two greedy players (each kept with a chance of
    three in ten), over a wide range of plies."""
    rng = random.Random(5)
    found: list[Position] = []
    game = 0
    while len(found) < count:
        p = Position("4x4x4")
        players = (GreedyPlayer(game), GreedyPlayer(1000 + game))
        game += 1
        while not p.is_game_over() and p.ply < 40 and len(found) < count:
            if p.ply >= 1 and rng.random() < 0.3:
                found.append(p.copy(stack=False))
            p.push(players[p.ply % 2].choose(p).move)
    return found


def proof_positions(count: int) -> list[Position]:
    """Cube positions with X to move on the shipped proof's line: X plays `perfect` (the
    proof's moves), O plays `greedy`."""
    found: list[Position] = []
    game = 0
    while len(found) < count:
        p = Position("4x4x4")
        x, o = player_for_level("perfect", seed=game), GreedyPlayer(2000 + game)
        game += 1
        while not p.is_game_over() and len(found) < count:
            if p.turn is Side.X:
                found.append(p.copy(stack=False))
            p.push((x if p.turn is Side.X else o).choose(p).move)
    return found


def latency(moves: int) -> None:
    from reliability import Server, request

    boards = greedy_positions(moves)
    with tempfile.TemporaryDirectory() as data:
        server = Server(Path(data))
        try:
            waited = server.wait_ready()
            print(f"server ready after {waited:.1f} s; {len(boards)} cube positions, "
                  "p50 / p99 / longest of POST /api/move")
            proof = proof_positions(len(boards) // 2)
            for level in LEVELS:
                sides = (Side.X, Side.O) if level == "perfect" else (None,)
                for side in sides:
                    chosen = proof if side is Side.X else \
                        [p for p in boards if side is None or p.turn is side]
                    times = []
                    for i, p in enumerate(chosen):
                        started = time.perf_counter()
                        status, _ = request(server.url, "POST", "/api/move", {
                            "position": p.to_string(), "player": level, "seed": i})
                        times.append(time.perf_counter() - started)
                        if status != 200:
                            print(f"  {level}: status {status}", file=sys.stderr)
                    times.sort()
                    name = level if side is None else f"{level} as {side.name}"
                    print(f"{name:13} {len(times):4d} moves  p50 {_at(times, 0.5):.3f} s  "
                          f"p99 {_at(times, 0.99):.3f} s  longest {times[-1]:.3f} s",
                          flush=True)
        finally:
            server.stop()


def _at(samples: list[float], fraction: float) -> float:
    return samples[min(len(samples) - 1, int(fraction * len(samples)))]


def cube_o(games: int, seconds: float) -> None:
    results = {"x": 0, "o": 0, "draw": 0}
    started = time.perf_counter()
    for game in range(games):
        played = play_game(GreedyPlayer(1000 + game), player_for_level("perfect", seed=game),
                           Variant.parse("4x4x4"), Limit(seconds=seconds))
        results[played.result] += 1
        print(f"  game {game + 1}: {played.result} in {played.length} plies", flush=True)
    print(f"perfect as O against greedy as X, {games} games, {seconds:g} s a move: "
          f"{results['o']} wins, {results['draw']} draws, {results['x']} losses "
          f"({(results['o'] + results['draw'] / 2) / games:.0%}), "
          f"{time.perf_counter() - started:.0f} s")


def overhead(seconds: float) -> None:
    import subprocess

    code = ("import time; t = time.perf_counter(); from tictactoe.proof.strategy import shipped; "
            "s = shipped('4x4x4'); print(time.perf_counter() - t)")
    loads = sorted(float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                        text=True, check=True).stdout) for _ in range(5))
    print(f"reading the shipped strategy in a fresh process (import included), 5 runs: "
          f"{loads[0]:.2f}-{loads[-1]:.2f} s, median {loads[2]:.2f} s")
    from tictactoe.search.compiled import warm_up

    warm_up()
    boards = greedy_positions(24)
    for side in (Side.X, Side.O):
        chosen = [p for p in boards if p.turn is side][:8]
        hint_costs, move_costs = [], []
        for i, p in enumerate(chosen):
            started = time.perf_counter()
            hint_scores(p, seconds)
            hint_costs.append(time.perf_counter() - started - seconds)
            started = time.perf_counter()
            player_for_level("perfect", seed=i).choose(p, Limit(seconds=seconds))
            move_costs.append(time.perf_counter() - started - seconds)
        print(f"{side.name} to move, {len(chosen)} positions, limit {seconds:g} s: hints "
              f"{max(hint_costs):+.2f} s at most beyond it, perfect's move "
              f"{max(move_costs):+.2f} s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("tactics", "latency", "cube-o", "overhead", "all"),
                        default="all")
    parser.add_argument("--positions", type=int, default=30,
                        help="positions of each kind per board (tactics)")
    parser.add_argument("--moves", type=int, default=60, help="cube positions (latency)")
    parser.add_argument("--games", type=int, default=20, help="games (cube-o)")
    parser.add_argument("--seconds", type=float, default=1.5,
                        help="seconds a move, as the web app's bound")
    args = parser.parse_args()
    if args.part in ("tactics", "all"):
        tactics(args.positions, args.seconds)
    if args.part in ("latency", "all"):
        latency(args.moves)
    if args.part in ("cube-o", "all"):
        cube_o(args.games, args.seconds)
    if args.part in ("overhead", "all"):
        overhead(args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
