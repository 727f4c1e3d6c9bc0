"""Benchmark proof-number search past 64 cells (`tictactoe.search.pn.wide`): it prints node
counts, times, node rates and ratios, and checks every proof it writes.

    python scripts/bench_wide_pn.py threes [--count 12] [--seed 1] [--nodes 20000]
    python scripts/bench_wide_pn.py empty [--boards 9x9k4,10x10k4] [--nodes N]
    python scripts/bench_wide_pn.py open [--boards 9x9k5,...,14x14k5] [--seconds 240]
    python scripts/bench_wide_pn.py settings [--count 12] [--seconds 40]
    python scripts/bench_wide_pn.py width [--count 20] [--seed 7] [--seconds 8] [--widths 0,3,4,6]
    python scripts/bench_wide_pn.py passes [--count 40] [--seed 3]
    python scripts/bench_wide_pn.py nest [--nests 1,2,3] [--count 16] [--seconds 20]
    python scripts/bench_wide_pn.py vct [--budgets 2000,1000] [--count 20] [--seconds 8]
    python scripts/bench_wide_pn.py zones [--nests 1,2,3] [--nodes 3000000]

Every section takes ``--threes eager|lazy|off`` (when the win by threats with threes is
asked; default: the library's).

``threes``: random positions on 15x15 (k=5) that the side to move wins by threats with threes
but not by fours (found by `WideThreats.threes`), each proven twice in one run: with pass
subtrees (the defender's quiet replies outside the zone of the attacker's win after a pass
are covered, ``R ... Y``) and without (every quiet reply a child). It prints both runs'
proofs found, nodes, seconds and proof lines, and the ratios.

``empty``: boards from the empty board, with and without pass subtrees.

``settings``: the three settings of ``threes`` side by side, on 9x9 to 11x11 (k=4) from the
empty board and the ``threes`` positions (20,000 nodes each), then on 8 random 15x15
openings of 6 marks, X to move (``--seconds`` each).

``width``: how many of the attacker's moves a node tries (`WIDTH`, the best by shape score),
on random quiet positions of 15x15 (8-12 marks, X to move, no win by threats with up to two
threes for either side), each proven within ``--seconds`` under each width, and on 9x9 to
11x11 (k=4) from the empty board.

``passes``: how often the attacker would win by threats after a pass early on 15x15: random
openings (X on h8, the other marks on the 5x5 square around it, O to move; 3, 5, 7 and 9
marks) where neither side wins by fours and X has no win by fours after a pass, searched
with 2, 3 and 5 threes.

``nest``: how deep pass subtrees may nest (`NEST`), side by side: 9x9 and 10x10 (k=4) from
the empty board; 9x9 and 15x15 (k=5) from the empty board, 1,000,000 nodes each (``--nodes``),
where the root's proof number shows how far the search sees a win; and quiet 15x15
positions (as in ``width``, ``--seconds`` each).

``vct``: how many positions the attacker's win by threats with threes may visit
(`VCT_BUDGET`), side by side: 9x9 to 11x11 (k=4) from the empty board; 9x9 and 15x15 (k=5)
from the empty board, 1,000,000 nodes each (``--nodes``); and quiet 15x15 positions (as in
``width``, ``--seconds`` each).

``zones``: why the zones of pass subtrees are large early on 15x15: quiet defender's nodes
with X on h8 and one or two more marks, O to move, each pass subtree proven (``--nodes``)
under each nest; it prints the zone's size against the empty cells and how many of its
cells each rule of ``docs/proof-format.md`` put there first (`zone_rules`).

``open``: the open k=5 boards, each within a fixed budget (``--nest``); it prints the root's
proof and disproof numbers where the search does not finish, and saves them to
``.bench/open-boards.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tictactoe.core import Position, Side
from tictactoe.proof import check_proof
from tictactoe.proof.check import zone_rules
from tictactoe.search.pn.wide import DEFAULT_THREES, NEST, THREES, WidePnSearch
from tictactoe.search.wide import WideThreats


def _scattered(rng: random.Random, marks: int) -> Position | None:
    """A 15x15 position of `marks` random moves on the 7x7 square at the centre, or None if
    the game ends on the way."""
    p = Position("15x15k5")
    for _ in range(marks):
        cell = next(c for c in (rng.randrange(4, 11) * 15 + rng.randrange(4, 11)
                                for _ in range(100)) if not (p.x | p.o) >> c & 1)
        p.push(cell)
        if p.is_game_over():
            return None
    return p


def _opening(rng: random.Random, marks: int) -> Position:
    """X on h8, then random moves on the 5x5 square around it, until `marks` marks."""
    p = Position("15x15k5")
    p.push(7 * 15 + 7)
    while (p.x | p.o).bit_count() < marks:
        cell = rng.randrange(5, 10) * 15 + rng.randrange(5, 10)
        if not (p.x | p.o) >> cell & 1:
            p.push(cell)
    return p


def threes_positions(count: int, seed: int) -> list[Position]:
    """Positions of 8-17 random marks near the centre of 15x15 that the side to move wins
    by threats with threes, not by fours (neither side has a win by fours)."""
    rng = random.Random(seed)
    threats = WideThreats(Position("15x15k5").variant)
    found: list[Position] = []
    while len(found) < count:
        p = _scattered(rng, rng.randrange(8, 18))
        if p is None:
            continue
        me, them = (p.x, p.o) if p.turn.symbol == "x" else (p.o, p.x)
        if threats.run(me, them) is not None or threats.run(them, me) is not None:
            continue
        if threats.threes(me, them, threes=3, positions=200_000) is not None:
            found.append(p)
    return found


Setting = tuple[str, dict[str, Any]]
"""A label and the `WidePnSearch` options it stands for."""


def _prove(position: Position, options: dict[str, Any], nodes: int | None,
           seconds: float | None, folder: Path, name: str) -> dict[str, object]:
    search = WidePnSearch(position.variant, **options)
    result = search.prove(position, nodes=nodes, seconds=seconds)
    row: dict[str, object] = {"outcome": result.outcome, "nodes": result.nodes,
                              "seconds": result.seconds, "root_pn": result.root_pn,
                              "root_dn": result.root_dn, "lines": 0}
    if result.proven:
        out = folder / f"{name}.txt"
        row["lines"] = search.write_proof(position, out)
        started = time.perf_counter()
        check_proof(out)
        row["check_seconds"] = time.perf_counter() - started
    return row


def _compare(positions: list[tuple[str, Position]], settings: list[Setting],
             nodes: int | None, seconds: float | None = None) -> None:
    """Each position proven under each setting, one after the other in one run; totals and
    each setting's ratios to the first."""
    totals = {label: [0, 0, 0.0, 0] for label, _ in settings}
    with tempfile.TemporaryDirectory() as tmp:
        for name, p in positions:
            line = [f"{name:>10}"]
            for label, options in settings:
                row = _prove(p, options, nodes, seconds, Path(tmp), f"{name}-{label}")
                t = totals[label]
                t[0] += row["outcome"] == "win"
                t[1] += int(row["nodes"])  # type: ignore[call-overload]
                t[2] += float(row["seconds"])  # type: ignore[arg-type]
                t[3] += int(row["lines"])  # type: ignore[call-overload]
                unsolved = "" if row["outcome"] == "win" else f" (pn {row['root_pn']:,})"
                line.append(f"{label}: {row['outcome']:>7} {row['nodes']:>9,} nodes "
                            f"{row['seconds']:6.2f} s {row['lines']:>6,} lines{unsolved}")
            print("  ".join(line), flush=True)
    for label, _ in settings:
        won, n, s, lines = totals[label]
        print(f"{label:>18}: {won} proven, {n:,} nodes, {s:.1f} s "
              f"({n / max(s, 1e-9):,.0f} nodes/s), {lines:,} proof lines")
    first = totals[settings[0][0]]
    for label, _ in settings[1:]:
        t = totals[label]
        print(f"ratios ({label} / {settings[0][0]}): nodes {t[1] / max(first[1], 1):.2f}, "
              f"seconds {t[2] / max(first[2], 1e-9):.2f}, lines "
              f"{t[3] / max(first[3], 1):.2f}")


def _compare_everywhere(settings: list[Setting], small: tuple[str, ...],
                        args: argparse.Namespace, count: int, seconds: float) -> None:
    """`settings` side by side on the `small` boards (k=4) from the empty board, on 9x9 and
    15x15 (k=5) from the empty board within ``--nodes`` (1,000,000), and on ``--count``
    (`count`) quiet 15x15 positions within ``--seconds`` (`seconds`) each."""
    _compare([(b, Position(b)) for b in small], settings, None)
    _compare([(b, Position(b)) for b in ("9x9k5", "15x15k5")], settings,
             args.nodes or 1_000_000)
    quiet = quiet_positions(args.count or count, 7 if args.seed is None else args.seed)
    _compare([(f"#{i + 1}", p) for i, p in enumerate(quiet)], settings, None,
             args.seconds or seconds)


def quiet_positions(count: int, seed: int) -> list[Position]:
    """Positions of 8-12 random marks near the centre of 15x15, X to move, that neither side
    wins by fours nor X by threats with up to two threes."""
    rng = random.Random(seed)
    threats = WideThreats(Position("15x15k5").variant)
    found: list[Position] = []
    while len(found) < count:
        p = _scattered(rng, 2 * rng.randrange(4, 7))
        if p is None:
            continue
        if threats.run(p.x, p.o) is not None or threats.run(p.o, p.x) is not None:
            continue
        if threats.threes(p.x, p.o, threes=2, positions=20_000) is None:
            found.append(p)
    return found


def pass_rates(count: int, seed: int) -> None:
    """Print, for openings of 3 to 9 marks with O to move, how many X wins by threats with
    up to 2, 3 and 5 threes after O passes (``passes``)."""
    rng = random.Random(seed)
    variant = Position("15x15k5").variant
    threats = WideThreats(variant)
    tries = ((2, 2_000), (3, 20_000), (5, 200_000))
    for marks in (3, 5, 7, 9):
        won = dict.fromkeys(tries, 0)
        seen = 0
        started = time.perf_counter()
        while seen < count:
            p = _opening(rng, marks)
            if p.is_game_over() or p.turn.symbol != "o":
                continue
            if threats.run(p.o, p.x) is not None or threats.run(p.x, p.o) is not None:
                continue
            seen += 1
            for threes, positions in tries:
                won[threes, positions] += threats.threes(p.x, p.o, threes=threes,
                                                         positions=positions) is not None
        cells = "  ".join(f"{t} threes, {n:,} positions: {won[t, n]}" for t, n in tries)
        print(f"{marks} marks, {seen} openings: {cells} "
              f"({time.perf_counter() - started:.1f} s)", flush=True)


ZONE_OPENINGS = ("h8 a1 h9", "h8 a1 i9", "h8 a1 h9 o15 j10", "h8 h9 i9 a1 j7")
"""Quiet defender's nodes early on 15x15 (O to move) for the ``zones`` section."""


def zone_sizes(nests: list[int], nodes: int) -> None:
    """Each of `ZONE_OPENINGS`' pass subtrees proven under each nest; its zone by rule."""
    for moves in ZONE_OPENINGS:
        p = Position("15x15k5")
        for name in moves.split():
            p.push(p.variant.parse_cell(name))
        empty = p.variant.cells - (p.x | p.o).bit_count()
        for nest in nests:
            search = WidePnSearch(p.variant, nest=nest)
            if not search.quiet(p, Side.X):
                print(f"{moves}: not quiet")
                break
            started = time.perf_counter()
            result = search.prove(p, attacker=Side.X, passed=True, nodes=nodes)
            seconds = time.perf_counter() - started
            line = (f"{moves:>18}  nest {nest}: {result.outcome}, {result.nodes:,} nodes, "
                    f"{seconds:.1f} s")
            if result.proven:
                lines = search.fragment(p, passed=True)
                rules = zone_rules(p.variant, p.x, p.o, "x", lines)
                by_rule = ", ".join(f"rule {r}: {n}" for r, n in rules.items())
                line += (f", {len(lines):,} proof lines; zone {sum(rules.values())} of "
                         f"{empty} empty cells ({by_rule})")
            print(line, flush=True)


def openings(count: int, seed: int, stones: int = 6) -> list[Position]:
    """Random openings on 15x15 (k=5): X on h8, then `stones` - 1 marks on the 5x5 square
    around it, X to move, nobody winning."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        p = _opening(rng, stones)
        if not p.is_game_over():
            found.append(p)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("section",
                        choices=["threes", "empty", "open", "settings", "width", "passes",
                                 "nest", "vct", "zones"])
    parser.add_argument("--count", type=int, default=None,
                        help="default 12 (width: 20, passes: 40)")
    parser.add_argument("--seed", type=int, default=None,
                        help="default 1 (width: 7, passes: 3)")
    parser.add_argument("--nodes", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=None,
                        help="default 240 (width: 8)")
    parser.add_argument("--boards", default=None)
    parser.add_argument("--widths", default="0,3,4,6",
                        help="the widths the width section compares (0: every move)")
    parser.add_argument("--threes", choices=THREES, default=DEFAULT_THREES,
                        help="when the win by threats with threes is asked")
    parser.add_argument("--nest", type=int, default=NEST,
                        help="how deep pass subtrees may nest (open)")
    parser.add_argument("--nests", default="1,2,3", help="the nests the nest section compares")
    parser.add_argument("--budgets", default="2000,1000",
                        help="the win by threats' budgets the vct section compares")
    args = parser.parse_args()
    if args.section == "zones":
        zone_sizes([int(n) for n in args.nests.split(",")], args.nodes or 3_000_000)
        return 0
    if args.section == "vct":
        budgets: list[Setting] = [(f"vct {b}", {"threes": args.threes, "vct_budget": int(b)})
                                  for b in args.budgets.split(",")]
        _compare_everywhere(budgets, ("9x9k4", "10x10k4", "11x11k4"), args, 20, 8.0)
        return 0
    if args.section == "nest":
        nests: list[Setting] = [(f"nest {n}", {"threes": args.threes, "nest": int(n)})
                                for n in args.nests.split(",")]
        _compare_everywhere(nests, ("9x9k4", "10x10k4"), args, 16, 20.0)
        return 0
    if args.section == "passes":
        pass_rates(args.count or 40, 3 if args.seed is None else args.seed)
        return 0
    if args.section == "width":
        quiet = quiet_positions(args.count or 20, 7 if args.seed is None else args.seed)
        quiet_seconds = args.seconds or 8.0
    args.count = args.count or 12
    args.seed = 1 if args.seed is None else args.seed
    args.seconds = args.seconds or 240.0
    passes: list[Setting] = [("Y", {"threes": args.threes}),
                             ("no Y", {"threes": args.threes, "passes": False})]
    if args.section == "threes":
        found = threes_positions(args.count, args.seed)
        _compare([(f"#{i + 1}", p) for i, p in enumerate(found)], passes,
                 args.nodes or 20_000)
        return 0
    if args.section == "empty":
        boards = (args.boards or "9x9k4,10x10k4").split(",")
        _compare([(b, Position(b)) for b in boards], passes, args.nodes or 2_000_000)
        return 0
    if args.section == "width":
        widths: list[Setting] = [(f"width {w}", {"threes": args.threes, "width": int(w)})
                                 for w in args.widths.split(",")]
        boards = (args.boards or "9x9k4,10x10k4,11x11k4").split(",")
        _compare([(b, Position(b)) for b in boards], widths, args.nodes or 2_000_000)
        _compare([(f"#{i + 1}", p) for i, p in enumerate(quiet)], widths, None,
                 quiet_seconds)
        return 0
    if args.section == "settings":
        settings: list[Setting] = [(t, {"threes": t}) for t in THREES]
        boards = (args.boards or "9x9k4,10x10k4,11x11k4").split(",")
        positions = [(b, Position(b)) for b in boards]
        positions += [(f"#{i + 1}", p) for i, p in
                      enumerate(threes_positions(args.count, args.seed))]
        _compare(positions, settings, args.nodes or 20_000)
        _compare([(f"open{i + 1}", p) for i, p in enumerate(openings(8, args.seed))],
                 settings, None, args.seconds)
        return 0
    boards = (args.boards or ",".join(f"{n}x{n}k5" for n in range(9, 15))).split(",")
    saved = Path(".bench") / "open-boards.json"
    saved.parent.mkdir(exist_ok=True)
    results = json.loads(saved.read_text()) if saved.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        for board in boards:
            row = _prove(Position(board), {"threes": args.threes, "nest": args.nest},
                         args.nodes, args.seconds, Path(tmp), board)
            row.update(budget_seconds=args.seconds, budget_nodes=args.nodes,
                       threes=args.threes, nest=args.nest)
            results[board] = row
            saved.write_text(json.dumps(results, indent=1))
            rate = int(row["nodes"]) / max(float(row["seconds"]), 1e-9)  # type: ignore[call-overload, arg-type]
            print(f"{board}: {row['outcome']}, {row['nodes']:,} nodes in "
                  f"{row['seconds']:.0f} s ({rate:,.0f} nodes/s), root pn {row['root_pn']:,} "
                  f"dn {row['root_dn']:,}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
