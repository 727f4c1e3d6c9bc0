"""Benchmarks of boards past 64 cells (gomoku): the levels against outside programs, the
ladder, the threat search with threes on generated positions, move and hint latency, and
the first move in a fresh process.

    python scripts/bench_gomoku.py threats [--puzzles 500]
    python scripts/bench_gomoku.py outside [--games 20] [--levels hard,perfect]
    python scripts/bench_gomoku.py report     # the table of every saved set of games
    python scripts/bench_gomoku.py ladder [--games 20] [--variant 15x15k5] [--opening 3]
                                          [--no-balanced]
    python scripts/bench_gomoku.py latency [--games 2]
    python scripts/bench_gomoku.py hints [--games 2]
    python scripts/bench_gomoku.py cold
    python scripts/bench_gomoku.py all

**threats**: 15x15 positions of 4-24 random plies near the centre, each classified by the
independent plain-Python search of `tests/threat_reference.py` (wins by threats with one
three; positions won by fours alone are left out); the compiled search
(`tictactoe.search.wide`) is asked the same question: the share of the wins it finds, the
wins it claims that are not (must be none), every claimed win checked against every defence
by the rules (`verify_win`), and its time.

**outside**: the levels against the outside programs of `scripts/outside_ai.py` (`gomoku`
0.1.0's threat-space search and `gomokubench`'s ``hard`` α-β), installed from the package
index into ``.bench/outside`` (a virtual environment of their own) on first use; colours
alternate, every move of theirs is checked for legality, and the levels play within their
own bounds. Writes ``.bench/outside-OPPONENTS.json`` (keeping the games saved there of the
levels not played this time; ``report`` prints the table of every such file) and, with
``--plot``, a chart.

**ladder**: `tictactoe.players.ladder.play_ladder` between the four levels on 15x15 and 19x19,
from balanced 3-move openings (``--no-balanced``: random ones).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import venv
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from tictactoe.core import Position, Side, Variant  # noqa: E402
from tictactoe.players.base import Limit  # noqa: E402
from tictactoe.players.levels import player_for_level  # noqa: E402

BENCH = ROOT / ".bench"
OUTSIDE = BENCH / "outside"
OUTSIDE_PACKAGES = ["gomoku==0.1.0", "flask-socketio", "gmpy2", "gomokubench==0.1.10", "numpy"]
"""What the outside programs need (`gomoku` 0.1.0 imports flask-socketio without declaring
it)."""
SIZE = 15


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---------------------------------------------------------------- threats
def near_centre_game(variant: Variant, plies: int, rng: random.Random) -> Position:
    from test_large_boards import near_centre_game as make

    return make(variant, plies, rng)


REFERENCE_SECONDS = 60
"""How long the plain-Python reference may think about one generated position; past that
the position is left out as unknown (it has no bound of its own)."""


class _OutOfTime(Exception):
    pass


def _out_of_time(signum: int, frame: object) -> None:
    raise _OutOfTime


def _classify(task: tuple[int, int]) -> tuple[str, str | None]:
    """A random 15x15 position (from a seed) and its class by the independent search:
    ``win`` (by threats with one three, not by fours alone), ``other``, ``skip`` (a win by
    fours, or a finished game) or ``unknown`` (the reference ran out of time)."""
    import signal

    from threat_reference import ReferenceThreats

    from tictactoe.search.wide import replays

    seed, _ = task
    v = Variant.parse("15x15k5")
    rng = random.Random(seed)
    p = near_centre_game(v, rng.randint(4, 24), rng)
    if p.is_game_over():
        return "skip", None
    me, them = (p.x, p.o) if p.turn is Side.X else (p.o, p.x)
    reference = ReferenceThreats(v)
    previous = signal.signal(signal.SIGALRM, _out_of_time)
    signal.alarm(REFERENCE_SECONDS)
    try:
        fours = reference.fours.run(me, them)
        if fours is not None and replays(v, me, them, fours):
            return "skip", None  # wins by fours alone are the checker's: keep those with a three
        return ("win" if reference.wins(me, them, 1) else "other"), p.to_string()
    except _OutOfTime:
        return "unknown", None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def bench_threats(count: int, seed: int, jobs: int) -> dict[str, object]:
    from threat_reference import verify_win

    from tictactoe.search.wide import WideThreats

    v = Variant.parse("15x15k5")
    saved = BENCH / f"threats-{seed}.jsonl"
    classified: dict[int, tuple[str, str | None]] = {}
    if saved.exists():  # a stopped run resumes from the positions it classified
        for line in saved.read_text().splitlines():
            row = json.loads(line)
            classified[row["seed"]] = (row["kind"], row["position"])
    wins: list[Position] = []
    others: list[Position] = []
    unknown = 0
    started = time.perf_counter()
    next_seed = seed * 1_000_000
    BENCH.mkdir(exist_ok=True)
    with ProcessPoolExecutor(jobs) as pool, saved.open("a") as log:
        while len(wins) < count or len(others) < count:
            seeds = list(range(next_seed, next_seed + 200))
            next_seed += 200
            todo = [s for s in seeds if s not in classified]
            for s, result in zip(todo, pool.map(_classify, [(s, 0) for s in todo]),
                                 strict=True):
                classified[s] = result
                log.write(json.dumps({"seed": s, "kind": result[0], "position": result[1]})
                          + "\n")
            log.flush()
            for s in seeds:
                kind, text = classified[s]
                unknown += kind == "unknown"
                if text is None:
                    continue
                bucket = wins if kind == "win" else others
                if len(bucket) < count:
                    bucket.append(Position(text))
            print(f"generating: {len(wins)}/{count} wins, {len(others)}/{count} others after "
                  f"{next_seed - seed * 1_000_000} positions ({unknown} left out: the "
                  f"reference took over {REFERENCE_SECONDS} s), "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    print(f"generated {len(wins)} wins by threats with one three and {len(others)} "
          f"positions without, in {time.perf_counter() - started:.0f} s ({unknown} positions "
          f"left out: the reference search took over {REFERENCE_SECONDS} s)")
    search = WideThreats(v)
    search.threes(0, 0)  # load the kernels before timing

    def suggest(mine: int, theirs: int) -> int | None:
        found = search.threes(mine, theirs, 1, 1_000_000)
        return None if found is None else found.move

    out: dict[str, object] = {}
    for name, positions, expected in (("wins", wins, True), ("others", others, False)):
        times, found, wrong, verified = [], 0, 0, 0
        for p in positions:
            me, them = (p.x, p.o) if p.turn is Side.X else (p.o, p.x)
            t0 = time.perf_counter()
            win = search.threes(me, them, 1, 1_000_000)
            times.append(time.perf_counter() - t0)
            if win is not None:
                found += 1
                wrong += not expected
                verified += verify_win(v, me, them, suggest)
        print(f"{name:6}: claimed {found}/{len(positions)} (expected "
              f"{len(positions) if expected else 0}), false claims {wrong}, verified against "
              f"every defence {verified}/{found}; median {statistics.median(times) * 1000:.2f} "
              f"ms, p90 {percentile(times, 0.9) * 1000:.2f} ms, max {max(times) * 1000:.1f} ms")
        out[name] = {"positions": len(positions), "claimed": found, "false": wrong,
                     "verified": verified, "median_ms": statistics.median(times) * 1000}
    return out


# ---------------------------------------------------------------- outside programs
def outside_python() -> Path:
    """The outside programs' own virtual environment, made on first use."""
    python = OUTSIDE / ("Scripts" if os.name == "nt" else "bin") / "python"
    stamp = OUTSIDE / ".installed"
    if not stamp.exists():
        print(f"installing {', '.join(OUTSIDE_PACKAGES)} into {OUTSIDE.relative_to(ROOT)}",
              file=sys.stderr)
        venv.EnvBuilder(with_pip=True, clear=True).create(OUTSIDE)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *OUTSIDE_PACKAGES],
                       check=True)
        stamp.write_text(" ".join(OUTSIDE_PACKAGES))
    return python


class Outside:
    """One outside program in its own process (`scripts/outside_ai.py`)."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.process = subprocess.Popen(
            [str(outside_python()), str(ROOT / "scripts" / "outside_ai.py"), name, str(seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def move(self, position: Position) -> int:
        assert self.process.stdin is not None and self.process.stdout is not None
        pairs = " ".join(f"{c // SIZE},{c % SIZE}" for c in position.move_stack)
        self.process.stdin.write(pairs + "\n")
        self.process.stdin.flush()
        r, c = (int(x) for x in self.process.stdout.readline().split(","))
        return r * SIZE + c

    def close(self) -> None:
        self.process.kill()


@dataclass
class Game:
    level: str
    opponent: str
    level_is_x: bool
    result: str
    plies: int
    moves: str
    seconds: list[float]
    illegal: bool = False

    @property
    def score(self) -> float:
        mine = "x" if self.level_is_x else "o"
        return 1.0 if self.result == mine else 0.5 if self.result == "draw" else 0.0


def play_outside(level: str, opponent: str, number: int) -> Game:
    """One game of a level against an outside program on 15x15 (the level is X in even
    games)."""
    player = player_for_level(level, seed=number)
    outside = Outside(opponent, number)
    p = Position("15x15k5")
    level_is_x = number % 2 == 0
    seconds: list[float] = []
    illegal = False
    try:
        while p.outcome() is None:
            if (p.turn is Side.X) == level_is_x:
                t0 = time.perf_counter()
                move = player.choose(p, Limit()).move
                seconds.append(time.perf_counter() - t0)
            else:
                move = outside.move(p)
                if move not in p.legal_moves():
                    illegal = True
                    break
            p.push(move)
    finally:
        outside.close()
    outcome = p.outcome()
    result = ("o" if level_is_x else "x") if illegal else (
        outcome.result() if outcome is not None else "draw")
    return Game(level, opponent, level_is_x, result, p.ply,
                " ".join(p.move_name(m) for m in p.move_stack), seconds, illegal)


def blocked_fours(moves: str) -> tuple[int, int]:
    """Fours that were simply blocked, X's and O's: moves that made one threat cell, taken by
    the opponent's reply, outside the winner's final attack (its last moves, each of which left
    it a four or an open three: the fours of a winning threat sequence are not spent in
    vain)."""
    p = Position("15x15k5")
    names = moves.split()
    threatening: list[bool] = []
    made_four: list[bool] = []
    for i, name in enumerate(names):
        p.push_name(name)
        mover = Side.X if i % 2 == 0 else Side.O
        cells = {t.cell for t in p.threats() if t.side is mover}
        made_four.append(len(cells) == 1 and i + 1 < len(names)
                         and p.variant.parse_cell(names[i + 1]) in cells)
        threatening.append(bool(cells) or any(t.side is mover for t in p.threes()))
    attack = len(names)  # the first ply of the winner's final attack
    outcome = p.outcome()
    if outcome is not None and outcome.winner is not None:
        attack = len(names) - 1  # the winning move
        i = attack - 2
        while i >= 0 and threatening[i]:
            attack = i
            i -= 2
    counts = [0, 0]
    for i, four in enumerate(made_four):
        if four and i < attack:
            counts[i % 2] += 1
    return counts[0], counts[1]


def bench_outside(levels: list[str], opponents: list[str], games: int, jobs: int,
                  plot: Path | None) -> list[Game]:
    outside_python()
    tasks = [(lv, op, g) for op in opponents for lv in levels for g in range(games)]
    played: list[Game] = []
    with ProcessPoolExecutor(jobs) as pool:
        for game in pool.map(_play, tasks):
            played.append(game)
            note = "  (their illegal move)" if game.illegal else ""
            print(f"{game.level:8} vs {game.opponent:12} as {'X' if game.level_is_x else 'O'}:"
                  f" {game.result:4} in {game.plies:3} plies, slowest move "
                  f"{max(game.seconds or [0]):.2f} s{note}", flush=True)
    BENCH.mkdir(exist_ok=True)
    saved = BENCH / f"outside-{'-'.join(opponents)}.json"
    kept = []  # the saved games of the levels not played this time stay
    if saved.exists():
        kept = [g for g in json.loads(saved.read_text())["games"] if g["level"] not in levels]
    saved.write_text(json.dumps({"games": kept + [g.__dict__ for g in played]}, indent=1))
    rows = report(played)
    if plot is not None:
        _plot(rows, plot)
    return played


def report(played: list[Game]) -> list[dict[str, object]]:
    """The table of a set of games against outside programs: each level against each
    program, both colours: how many of the games differ (the outside programs may repeat a
    game), the slowest moves, and the fours spent (`blocked_fours`)."""
    levels = list(dict.fromkeys(g.level for g in played))
    opponents = list(dict.fromkeys(g.opponent for g in played))
    print(f"\n{'level':8} {'opponent':12} {'games':>5} {'score':>6} {'as X':>7} {'as O':>7} "
          f"{'W-D-L':>9} {'games differ':>12} {'p99 s':>6} "
          "fours spent per 100 plies: ours, theirs")
    rows = []
    for op in opponents:
        for lv in levels:
            mine = [g for g in played if g.level == lv and g.opponent == op]
            if not mine:
                continue
            xs = [g for g in mine if g.level_is_x]
            os_ = [g for g in mine if not g.level_is_x]
            wins = sum(g.score == 1 for g in mine)
            draws = sum(g.score == 0.5 for g in mine)
            times = [t for g in mine for t in g.seconds]
            score = sum(g.score for g in mine) / len(mine)
            ours = theirs = 0
            for g in mine:
                fx, fo = blocked_fours(g.moves)
                ours += fx if g.level_is_x else fo
                theirs += fo if g.level_is_x else fx
            plies = sum(g.plies for g in mine)
            row = {"level": lv, "opponent": op, "games": len(mine), "score": score,
                   "as_x": sum(g.score for g in xs), "x_games": len(xs),
                   "as_o": sum(g.score for g in os_), "o_games": len(os_), "wins": wins,
                   "draws": draws, "losses": len(mine) - wins - draws,
                   "distinct": len({g.moves for g in mine}),
                   "p99": percentile(times, 0.99),
                   "blocked_fours_per_100": 100 * ours / plies,
                   "their_blocked_fours_per_100": 100 * theirs / plies}
            rows.append(row)
            print(f"{lv:8} {op:12} {len(mine):5} {score:6.2f} "
                  f"{row['as_x']:4.1f}/{len(xs):<2} {row['as_o']:4.1f}/{len(os_):<2} "
                  f"{wins:3}-{draws}-{row['losses']:<3} {row['distinct']:12} {row['p99']:6.2f} "
                  f"{100 * ours / plies:5.1f} {100 * theirs / plies:5.1f}")
    return rows


def report_saved(plot: Path | None) -> None:
    """`report` over every saved set of games (``.bench/outside-*.json``), and its chart."""
    played = []
    for path in sorted(BENCH.glob("outside*.json")):
        played += [Game(**g) for g in json.loads(path.read_text())["games"]]
    rows = report(played)
    if plot is not None:
        _plot(rows, plot)


def _play(task: tuple[str, str, int]) -> Game:
    return play_outside(*task)


def _plot(rows: list[dict[str, object]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    labels = [f"{r['level']}\nvs {r['opponent']}" for r in rows]
    ax.bar(labels, [float(str(r["score"])) for r in rows], color="#3b6ea8")
    ax.axhline(0.95, color="#a83b3b", linestyle="--", linewidth=1, label="target 0.95")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score (wins + ½ draws)")
    ax.set_title("The levels against outside programs, 15×15 five or more")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"chart: {path}")


# ---------------------------------------------------------------- ladder
def bench_ladder(variant: str, games: int, jobs: int, plot: Path | None,
                 opening: int, balanced: bool) -> None:
    """`ttt ladder` between the four levels, each within its own bounds (``--seconds 0``),
    each pair of games from `opening` random moves (the levels past 64 cells answer alike:
    from the empty board, a pair would play two games over and over), `balanced` ones unless
    told otherwise (from a random one the colours mostly decide). With `plot` (a folder),
    the chart is ``plot/VARIANT.png``."""
    ttt = Path(sys.executable).parent / "ttt"
    command = [str(ttt), "ladder", variant, "--players", "easy,medium,hard,perfect",
               "--games", str(games), "--seconds", "0", "--jobs", str(jobs),
               "--opening", str(opening)]
    if balanced:
        command.append("--balanced")
    if plot is not None:
        command += ["--plot", str(plot / f"{variant}.png")]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    print(f"{variant}: {games} games a pair in {time.perf_counter() - started:.0f} s")


# ---------------------------------------------------------------- latency
def bench_latency(games: int) -> None:
    """Each level's move times in self-play from the empty board, with the compiled kernels
    loaded first (the first move in a fresh process is `bench_cold`'s)."""
    from tictactoe.search.wide.analysis import warm_up

    for variant in ("15x15k5", "19x19k5"):
        warm_up(Variant.parse(variant))
        for level in ("easy", "medium", "hard", "perfect"):
            times: list[float] = []
            for game in range(games):
                players = (player_for_level(level, seed=2 * game),
                           player_for_level(level, seed=2 * game + 1))
                p = Position(variant)
                while p.outcome() is None:
                    t0 = time.perf_counter()
                    choice = players[p.ply % 2].choose(p)
                    times.append(time.perf_counter() - t0)
                    p.push(choice.move)
            print(f"{variant} {level:8} {len(times):4} moves: p50 "
                  f"{statistics.median(times) * 1000:6.0f} ms, p99 "
                  f"{percentile(times, 0.99) * 1000:6.0f} ms, max {max(times) * 1000:6.0f} ms")


def bench_hints(games: int) -> None:
    from tictactoe.search.knowledge import analyse

    times: list[float] = []
    for game in range(games):
        players = (player_for_level("hard", seed=game), player_for_level("medium", seed=game))
        p = Position("15x15k5")
        while p.outcome() is None:
            p.push(players[p.ply % 2].choose(p).move)
            if p.outcome() is None:
                t0 = time.perf_counter()
                analyse(p, seconds=1.5)
                times.append(time.perf_counter() - t0)
    print(f"hints on 15x15 after each reply, {len(times)} positions: p50 "
          f"{statistics.median(times) * 1000:.0f} ms, p90 {percentile(times, 0.9) * 1000:.0f}"
          f" ms, max {max(times) * 1000:.0f} ms")


def bench_cold(runs: int) -> None:
    ttt = Path(sys.executable).parent / "ttt"
    for limit in ("1",):
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([str(ttt), "move", "15x15k5", "--level", "hard", "--seconds", limit],
                           check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
        print(f"ttt move 15x15k5 --level hard --seconds {limit} in a fresh process: "
              f"{', '.join(f'{t:.2f}' for t in times)} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["threats", "outside", "report", "ladder", "latency",
                                         "hints", "cold", "all"])
    parser.add_argument("--puzzles", type=int, default=500)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--levels", default="hard,perfect")
    parser.add_argument("--opponents", default="gomoku,gomokubench")
    parser.add_argument("--variant", default="15x15k5,19x19k5")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--plot", type=Path, default=None,
                        help="write a PNG chart here (ladder: a folder, one chart a board)")
    parser.add_argument("--opening", type=int, default=3,
                        help="ladder: random moves each pair of games starts from")
    parser.add_argument("--balanced", action=argparse.BooleanOptionalAction, default=True,
                        help="ladder: balanced openings (neither side ahead)")
    args = parser.parse_args()
    parts = ["threats", "outside", "ladder", "latency", "hints", "cold"] \
        if args.part == "all" else [args.part]
    if "threats" in parts:
        bench_threats(args.puzzles, args.seed, args.jobs)
    if "outside" in parts:
        bench_outside(args.levels.split(","), args.opponents.split(","), args.games,
                      args.jobs, args.plot)
    if "report" in parts:
        report_saved(args.plot)
    if "ladder" in parts:
        for variant in args.variant.split(","):
            bench_ladder(variant, args.games, args.jobs, args.plot, args.opening,
                         args.balanced)
    if "latency" in parts:
        bench_latency(max(1, args.games // 10))
    if "hints" in parts:
        bench_hints(max(1, args.games // 10))
    if "cold" in parts:
        bench_cold(3)


if __name__ == "__main__":
    main()
