"""``ttt bench``: time the compiled core against its targets and the readable reference.

A benchmark, not a test: every case runs warm (after JIT; the JIT time is reported apart),
fast cases take the median of several runs, and every solved value is checked against the
known one; a wrong value exits with status 1.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import typer
from rich.table import Table

from tictactoe.cli import app
from tictactoe.cli.common import console, errors, reports_errors
from tictactoe.core import Position, Variant


@dataclass
class Case:
    """One benchmark case and what came of it."""

    name: str
    target: float
    """Target seconds (median warm run)."""
    expected: str
    quick: bool = True
    seconds: float | None = None
    nodes: int | None = None
    result: str = ""
    proven: bool = True
    python_seconds: float | None = None
    ok: bool = True

    @property
    def ratio(self) -> float | None:
        """How many times faster the compiled path is than the readable Python one."""
        if self.python_seconds is None or not self.seconds:
            return None
        return self.python_seconds / self.seconds

    @property
    def met(self) -> bool:
        """Whether the case proved its value within its target time."""
        return self.proven and self.seconds is not None and self.seconds <= self.target


def _median(run: Callable[[], tuple[int, str, bool]], repeat: int,
            limit: float) -> tuple[float, int, str, bool]:
    """Median seconds over up to `repeat` runs (one run if the first takes over a second)."""
    times = []
    nodes, result, proven = 0, "", True
    for _ in range(repeat):
        started = time.perf_counter()
        nodes, result, proven = run()
        times.append(time.perf_counter() - started)
        if times[0] > min(1.0, limit / repeat):
            break
    return statistics.median(times), nodes, result, proven


def _solve_case(name: str, limit: float) -> Callable[[], tuple[int, str, bool]]:
    from tictactoe.engines.compiled import describe_score, solve_position

    def run() -> tuple[int, str, bool]:
        r = solve_position(Position(name), seconds=limit)
        return r.nodes, describe_score(r.score) if r.proven else "unproven", r.proven

    return run


def _value_word(result: str) -> str:
    return "draw" if result == "draw" else "first player wins" if result.startswith("win") \
        else result


def _run_cases(quick: bool, repeat: int, limit: float) -> tuple[list[Case], float]:
    from tictactoe.engines.census import census
    from tictactoe.engines.compiled import (
        census_counts,
        describe_score,
        reachable_positions,
        strong_solution,
        warm_up,
    )
    from tictactoe.engines.solver import solve_python

    jit = warm_up()
    cases: list[Case] = []

    case = Case("3x3 solved from empty", 0.0003, "draw")
    case.seconds, case.nodes, case.result, case.proven = _median(
        _solve_case("3x3", limit), max(repeat, 20), limit)
    started = time.perf_counter()
    solve_python("3x3")
    case.python_seconds = time.perf_counter() - started
    cases.append(case)

    positions = reachable_positions(Variant.parse("3x3"))
    case = Case(f"3x3 strong solution ({len(positions):,} positions)", 0.003, "draw")

    def strong() -> tuple[int, str, bool]:
        solution = strong_solution("3x3")
        if len(solution.scores) != len(positions):
            return solution.nodes, f"{len(solution.scores)} positions", True
        return solution.nodes, describe_score(solution.score(0, 0)), True

    case.seconds, case.nodes, case.result, case.proven = _median(strong, max(repeat, 10), limit)
    started = time.perf_counter()
    for p in positions:
        solve_python(p)
    case.python_seconds = time.perf_counter() - started
    cases.append(case)

    case = Case("4x4 k=4 solved", 0.1, "draw")
    case.seconds, case.nodes, case.result, case.proven = _median(
        _solve_case("4x4", limit), repeat, limit)
    started = time.perf_counter()
    reference = solve_python("4x4", seconds=limit)
    if reference.proven:
        case.python_seconds = time.perf_counter() - started
    cases.append(case)

    case = Case("4x4 census (9,722,011 positions)", 3.0, "15,038,733,958,272 games")

    def count() -> tuple[int, str, bool]:
        c = census_counts(Variant.parse("4x4"))
        return c["positions"], f"{sum(c['games'].values()):,} games", True

    case.seconds, case.nodes, case.result, case.proven = _median(count, repeat, limit)
    started = time.perf_counter()
    census("4x4", engine="numpy")
    case.python_seconds = time.perf_counter() - started
    cases.append(case)

    boards = [("5x5k4", "draw", True), ("4x6k4", "draw", True), ("6x5k4", "win", True),
              ("5x6k4", "win", True), ("6x6k4", "win", True), ("4x8k4", "draw", False),
              ("9x4k4", "win", False)]
    for name, value, fast in boards:
        if quick and not fast:
            continue
        m, n, k = Variant.parse(name).rows, Variant.parse(name).columns, 4
        case = Case(f"({m},{n},{k}) solved", 1.0 if fast else 60.0,
                    "draw" if value == "draw" else "first player wins", quick=fast)
        case.seconds, case.nodes, case.result, case.proven = _median(
            _solve_case(name, limit), repeat, limit)
        cases.append(case)

    for case in cases:
        if case.proven and case.expected not in (case.result, _value_word(case.result)):
            case.ok = False
    return cases, jit


@app.command()
@reports_errors
def bench(
    quick: bool = typer.Option(False, "--quick", help="Skip the two slowest boards."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    repeat: int = typer.Option(5, min=1, help="Runs per fast case (the median is kept)."),
    limit: float = typer.Option(120.0, min=0.1, help="Seconds allowed per solve."),
) -> None:
    """Time the compiled solver and census, warm, against their targets."""
    cases, jit = _run_cases(quick, repeat, limit)
    cores = os.cpu_count() or 1
    if as_json:
        rows = [asdict(c) | {"ratio": c.ratio, "met": c.met} for c in cases]
        console.print_json(json.dumps({"cores": cores, "jit_seconds": jit, "cases": rows}))
    else:
        table = Table(title=f"ttt bench ({cores} cores; JIT or cache load {jit:.2f} s, "
                            "not included)")
        for column in ("case", "result", "time", "target", "nodes", "nodes/s",
                       "vs Python"):
            table.add_column(column, justify="left" if column in ("case", "result")
                             else "right")
        for c in cases:
            seconds = c.seconds or 0.0
            rate = f"{c.nodes / seconds / 1e6:.1f} M" if c.nodes and seconds else "-"
            mark = "" if c.met else " (missed)"
            table.add_row(c.name, c.result if c.ok else f"[red]WRONG: {c.result}[/]",
                          _duration(seconds), _duration(c.target) + mark,
                          f"{c.nodes:,}" if c.nodes else "-", rate,
                          f"{c.ratio:,.0f}x" if c.ratio else "-")
        console.print(table)
    wrong = [c for c in cases if not c.ok]
    if wrong:
        for c in wrong:
            errors.print(f"[bold red]error:[/] {c.name}: got {c.result}, expected {c.expected}")
        raise typer.Exit(1)


def _duration(seconds: float) -> str:
    if seconds < 0.01:
        return f"{seconds * 1000:.2f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"
