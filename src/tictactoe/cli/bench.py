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

from tictactoe.cli.app import app
from tictactoe.cli.common import console, errors, reports_errors
from tictactoe.core import Position, Variant
from tictactoe.core.errors import TicTacToeError
from tictactoe.extras import require


class BenchCaseError(TicTacToeError):
    """An unknown benchmark case name."""


EXPECTED = {
    "3x3": "draw", "3x3-strong": "draw", "4x4": "draw",
    "4x4-census": "15,038,733,958,272 games",
    "5x5k4": "draw", "4x6k4": "draw", "6x5k4": "first player wins",
    "5x6k4": "first player wins", "6x6k4": "first player wins", "4x8k4": "draw",
    "9x4k4": "first player wins",
    "4x8k4-outcome": "draw", "9x4k4-outcome": "first player wins",
    "4x8k4-pn": "draw", "9x4k4-pn": "first player wins",
    "qubic-strategy": "X wins 20 of 20", "qubic-check": "valid",
    "qubic-dictionary": "2,929 X wins", "qubic-prove": "first player wins",
}
"""The known value of every case, by key; a solve that disagrees fails the bench."""

QUICK = ("3x3", "3x3-strong", "4x4", "4x4-census", "5x5k4", "4x6k4", "6x5k4", "5x6k4",
         "6x6k4", "qubic-strategy")
"""The cases `--quick` runs: all but the slow ones ((4,8,4) and (9,4,4) by every route,
the checker and the dictionary on the cube)."""

ON_REQUEST = ("qubic-prove",)
"""Cases that run only when named with ``--case`` (proving Qubic takes under 2 minutes)."""


_CASE_HELP = f"Run only this case (repeatable): {', '.join(EXPECTED)}."


@dataclass
class Case:
    """One benchmark case and what came of it."""

    key: str
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
    every_move_seconds: float | None = None
    """Seconds to score every move (`solve_position`), where measured."""
    ok: bool = True

    @property
    def ratio(self) -> float | None:
        """How many times faster the compiled path is than the readable Python one, doing
        the same work (every move scored, for the solves)."""
        compiled = self.every_move_seconds or self.seconds
        if self.python_seconds is None or not compiled:
            return None
        return self.python_seconds / compiled

    @property
    def met(self) -> bool:
        """Whether the case proved its value within its target time."""
        return self.proven and self.seconds is not None and self.seconds <= self.target


def _median(run: Callable[[], tuple[int, str, bool]], repeat: int,
            limit: float, *, warm: Callable[[], object] | None = None
            ) -> tuple[float, int, str, bool]:
    """Median seconds over up to `repeat` runs (one run if the first takes over a second),
    after `warm` (untimed: a small run that loads or compiles the case's kernels)."""
    if warm is not None:
        warm()
    times = []
    nodes, result, proven = 0, "", True
    for _ in range(repeat):
        started = time.perf_counter()
        nodes, result, proven = run()
        times.append(time.perf_counter() - started)
        if times[0] > min(1.0, limit / repeat):
            break
    return statistics.median(times), nodes, result, proven


ON_THREADS = ("4x8k4", "9x4k4")
"""Big boards whose value `ttt bench` proves on two threads (one if the machine has one
core), as `ttt solve --value` does by default: the plain questions race the deepening on
distance. The others take one thread."""


def _solve_case(name: str, limit: float,
                threads: int = 1) -> Callable[[], tuple[int, str, bool]]:
    """Prove the game value and one best move (`solve_value`)."""
    from tictactoe.search.compiled import describe_score, solve_value

    def run() -> tuple[int, str, bool]:
        r = solve_value(Position(name), seconds=limit, threads=threads)
        return r.nodes, describe_score(r.score) if r.proven else "unproven", r.proven

    return run


def _outcome_case(name: str, repeat: int, limit: float) -> Case:
    """Who wins only, the distance bounded (`solve_outcome`, as ``ttt solve --outcome``), on
    two threads (one if the machine has one core)."""
    from tictactoe.search.compiled import solve_outcome

    variant = Variant.parse(name)
    threads = min(2, os.cpu_count() or 1)
    case = Case(f"{name}-outcome", f"({variant.rows},{variant.columns},{variant.k}) who wins, "
                                   f"{threads} threads", 5.0, EXPECTED[f"{name}-outcome"],
                quick=False)

    def run() -> tuple[int, str, bool]:
        found = solve_outcome(Position(name), seconds=limit, threads=threads)
        words = {"x": "first player wins", "o": "second player wins"}.get(found.value,
                                                                           found.value)
        if found.plies is not None:
            words += f" in {found.plies[0]}-{found.plies[1]}"
        return found.nodes, words if found.proven else "unproven", found.proven

    case.seconds, case.nodes, case.result, case.proven = _median(run, repeat, limit)
    return case


def _every_move(case: Case, name: str, repeat: int, limit: float) -> None:
    """Also time scoring every move (`solve_position`), checking it finds the same value."""
    from tictactoe.search.compiled import describe_score, solve_position

    def run() -> tuple[int, str, bool]:
        r = solve_position(Position(name), seconds=limit)
        return r.nodes, describe_score(r.score) if r.proven else "unproven", r.proven

    seconds, _, result, proven = _median(run, repeat, limit)
    if proven:
        case.every_move_seconds = seconds
        if case.proven and result != case.result:
            case.ok = False
            case.result = f"{case.result}, every move: {result}"


def _value_word(result: str) -> str:
    if result.startswith("first player wins"):
        return "first player wins"
    return "draw" if result == "draw" else "first player wins" if result.startswith("win") \
        else result


TABLE_WIDTH = 150
"""The table's width at least: a narrower terminal wraps its lines, not its cells."""

EVERY_MOVE_ALWAYS = ("3x3", "4x4", "5x5k4", "4x6k4")
"""Cases whose every-move solve is timed too without ``--every-move`` (it is quick)."""


def _run_cases(quick: bool, repeat: int, limit: float, only: list[str] | None = None,
               every_move: bool = False) -> tuple[list[Case], float]:
    from tictactoe.search.compiled import warm_up

    jit = warm_up()
    cases: list[Case] = []
    keys = [k for k in EXPECTED if (not quick or k in QUICK) and (not only or k in only)
            and (k not in ON_REQUEST or (only and k in only))]

    def wanted(key: str) -> bool:
        return key in keys

    if wanted("3x3"):
        _solved_from_empty(cases, repeat, limit)
        _every_move(cases[-1], "3x3", max(repeat, 20), limit)
    if wanted("3x3-strong"):
        _strong(cases, repeat, limit)
    if wanted("4x4"):
        _four_by_four(cases, repeat, limit)
        _every_move(cases[-1], "4x4", repeat, limit)
    if wanted("4x4-census"):
        _census(cases, repeat, limit)
    for name in ("5x5k4", "4x6k4", "6x5k4", "5x6k4", "6x6k4", "4x8k4", "9x4k4"):
        if not wanted(name):
            continue
        variant = Variant.parse(name)
        fast = name in QUICK
        threads = min(2, os.cpu_count() or 1) if name in ON_THREADS else 1
        label = f", {threads} threads" if threads > 1 else ""
        case = Case(name, f"({variant.rows},{variant.columns},{variant.k}) solved{label}",
                    1.0 if fast else 5.0, EXPECTED[name], quick=fast)
        case.seconds, case.nodes, case.result, case.proven = _median(
            _solve_case(name, limit, threads), repeat, limit)
        if every_move or name in EVERY_MOVE_ALWAYS:
            _every_move(case, name, repeat, limit)
        cases.append(case)

    for name in ON_THREADS:
        if wanted(f"{name}-outcome"):
            cases.append(_outcome_case(name, repeat, limit))
    _proof_number_cases(cases, wanted, limit)
    for case in cases:
        if case.proven and case.expected not in (case.result, _value_word(case.result)):
            case.ok = False
    return cases, jit


def _proof_number_cases(cases: list[Case], wanted: Callable[[str], bool], limit: float) -> None:
    """Proof-number search and the proofs: (4,8,4) and (9,4,4) by df-pn, the cube's
    strategy, the checker on the shipped proof, Patashnik's dictionary, Qubic from empty."""
    from tictactoe.search.pn import PnSearch

    for name in ("4x8k4", "9x4k4"):
        if wanted(f"{name}-pn"):
            variant = Variant.parse(name)
            case = Case(f"{name}-pn", f"({variant.rows},{variant.columns},{variant.k}) by df-pn",
                        5.0, EXPECTED[f"{name}-pn"], quick=False)
            found = PnSearch(variant).value(Position(variant), seconds=limit)
            case.seconds, case.nodes, case.proven = found.seconds, found.nodes, found.proven
            case.result = {"x": "first player wins", "o": "second player wins"}.get(
                found.value, found.value)
            cases.append(case)
    if wanted("qubic-strategy"):
        cases.append(_qubic_strategy())
    if wanted("qubic-check"):
        cases.append(_qubic_check())
    if wanted("qubic-dictionary"):
        cases.append(_qubic_dictionary(limit))
    if wanted("qubic-prove"):
        cases.append(_qubic_prove(limit))


def _qubic_prove(limit: float) -> Case:
    """What `ttt prove 4x4x4 --out F` does with its defaults: the replies to X's first move
    proven on one thread per core (up to 4), 1 GB tables, and the proof written (here to
    memory). The time is the whole of it; nodes are the search's."""
    import io

    from tictactoe.search.pn.proofs import ProofUnavailableError, default_threads, write_proof

    threads = default_threads(True)
    case = Case("qubic-prove", f"Qubic proved from empty, proof written ({threads} threads)",
                600.0, EXPECTED["qubic-prove"], quick=False)
    started = time.perf_counter()
    try:
        written = write_proof("4x4x4", io.BytesIO(), seconds=max(limit, 900.0))
    except ProofUnavailableError:
        case.seconds, case.result = time.perf_counter() - started, "unproven"
        return case
    case.seconds = time.perf_counter() - started
    case.nodes, case.proven = written.search_nodes, written.value.proven
    case.result = "first player wins" if written.value.value == "x" else written.value.value
    return case


def _qubic_strategy() -> Case:
    """The shipped strategy as X against random and rules players, 10 games each: the
    time is the slowest move (the target is the web's p99 of 50 ms), nodes the moves."""
    from tictactoe.core import Side
    from tictactoe.players import make_player
    from tictactoe.proof.strategy import shipped

    case = Case("qubic-strategy", "4x4x4: slowest X move from the proof", 0.05,
                EXPECTED["qubic-strategy"])
    strategy = shipped("4x4x4")
    if strategy is None:
        case.proven, case.result = False, "the shipped proof is missing"
        return case
    wins = moves = 0
    slowest = 0.0
    for game in range(20):
        opponent = make_player("random" if game % 2 else "rules", seed=game)
        board = Position("4x4x4")
        while not board.is_game_over():
            if board.turn is Side.X:
                started = time.perf_counter()
                move = strategy.move(board)
                slowest = max(slowest, time.perf_counter() - started)
                moves += 1
                if move is None:
                    break
            else:
                move = opponent.choose(board).move
            board.push(move)
        wins += board.winner() is Side.X
    case.seconds, case.result = slowest, f"X wins {wins} of 20"
    case.name += f" ({moves} moves)"
    return case


def _qubic_check() -> Case:
    from tictactoe.proof import ProofError, check_proof
    from tictactoe.proof.strategy import shipped_path

    case = Case("qubic-check", "checker on the shipped Qubic proof", 120.0,
                EXPECTED["qubic-check"], quick=False)
    path = shipped_path("4x4x4")
    if path is None:
        case.proven, case.result = False, "the shipped proof is missing"
        return case
    started = time.perf_counter()
    try:
        stats = check_proof(path)
    except ProofError as err:
        case.result = f"rejected: {err}"
    else:
        case.result, case.nodes = "valid", stats.positions
    case.seconds = time.perf_counter() - started
    return case


def _qubic_dictionary(limit: float) -> Case:
    """Patashnik's dictionary checked by df-pn: each entry's move proven to keep the win, then
    the entry's position proven an X win, deepest first in one 1 GB table (a shallow
    position finds the deeper ones of the strategy proven), the whole within `limit`
    seconds. Nodes are those of all 5,858 questions."""
    from tictactoe.core import Side
    from tictactoe.proof.patashnik import find_dictionary, load_dictionary
    from tictactoe.search.pn import PnSearch

    case = Case("qubic-dictionary", "Patashnik's dictionary proved by df-pn (moves, positions)",
                60.0, EXPECTED["qubic-dictionary"], quick=False)
    path = find_dictionary()
    if path is None:
        case.proven, case.result = False, "the dictionary is missing"
        return case
    entries = sorted(load_dictionary(path).entries, key=lambda e: (-e.ply, e.line))
    search = PnSearch("4x4x4", table_mb=1024)
    search.prove(entries[0].position(), attacker=Side.X)  # load the kernels first
    search.clear()
    started = time.perf_counter()
    wins = nodes = 0
    for entry in entries:
        left = limit - (time.perf_counter() - started)
        if left <= 0:
            case.proven = False
            break
        answers = search.prove_move(entry.position(), entry.move, seconds=left)
        nodes += sum(a.nodes for a in answers)
        wins += all(a.outcome == "win" for a in answers)
    case.seconds, case.nodes = time.perf_counter() - started, nodes
    case.result = f"{wins:,} X wins" if case.proven else f"stopped after {wins:,} X wins"
    return case


def _solved_from_empty(cases: list[Case], repeat: int, limit: float) -> None:
    from tictactoe.search.readable import solve_python

    case = Case("3x3", "3x3 solved from empty", 0.0003, EXPECTED["3x3"])
    case.seconds, case.nodes, case.result, case.proven = _median(
        _solve_case("3x3", limit), max(repeat, 20), limit)
    started = time.perf_counter()
    solve_python("3x3")
    case.python_seconds = time.perf_counter() - started
    cases.append(case)


def _strong(cases: list[Case], repeat: int, limit: float) -> None:
    from tictactoe.search.compiled import describe_score, reachable_positions, strong_solution
    from tictactoe.search.readable import solve_python

    positions = reachable_positions(Variant.parse("3x3"))
    case = Case("3x3-strong", f"3x3 strong solution ({len(positions):,} positions)", 0.003,
                EXPECTED["3x3-strong"])

    def strong() -> tuple[int, str, bool]:
        solution = strong_solution("3x3")
        if len(solution.scores) != len(positions):
            return solution.nodes, f"{len(solution.scores)} positions", True
        return solution.nodes, describe_score(solution.score(0, 0)), True

    case.seconds, case.nodes, case.result, case.proven = _median(
        strong, max(repeat, 10), limit, warm=lambda: strong_solution("3x3"))
    started = time.perf_counter()
    for p in positions:
        solve_python(p)
    case.python_seconds = time.perf_counter() - started
    cases.append(case)


def _four_by_four(cases: list[Case], repeat: int, limit: float) -> None:
    from tictactoe.search.readable import solve_python

    case = Case("4x4", "4x4 k=4 solved", 0.1, EXPECTED["4x4"])
    case.seconds, case.nodes, case.result, case.proven = _median(
        _solve_case("4x4", limit), repeat, limit)
    started = time.perf_counter()
    reference = solve_python("4x4", seconds=limit)
    if reference.proven:
        case.python_seconds = time.perf_counter() - started
    cases.append(case)


def _census(cases: list[Case], repeat: int, limit: float) -> None:
    from tictactoe.analysis.census import census
    from tictactoe.analysis.compiled_census import census_counts

    case = Case("4x4-census", "4x4 census (9,722,011 positions)", 3.0, EXPECTED["4x4-census"])

    def count() -> tuple[int, str, bool]:
        c = census_counts(Variant.parse("4x4"))
        return c["positions"], f"{sum(c['games'].values()):,} games", True

    case.seconds, case.nodes, case.result, case.proven = _median(
        count, repeat, limit, warm=lambda: census_counts(Variant.parse("3x3")))
    started = time.perf_counter()
    census("4x4", engine="numpy")
    case.python_seconds = time.perf_counter() - started
    cases.append(case)


@app.command()
@reports_errors
def bench(
    quick: bool = typer.Option(False, "--quick", help="Skip the two slowest boards."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    repeat: int = typer.Option(5, min=1, help="Runs per fast case (the median is kept)."),
    limit: float = typer.Option(120.0, min=0.1, help="Seconds allowed per solve."),
    case: list[str] | None = typer.Option(None, "--case", help=_CASE_HELP),  # noqa: B008
    every_move: bool = typer.Option(
        False, "--every-move", help="Also time scoring every move on the big boards."),
) -> None:
    """Time the compiled solver and census, warm, against their targets.

    A solve proves the game value and one best move; the "every move" column times scoring
    every legal move as well (as ``ttt solve`` does), always on the small boards and on the
    big ones with ``--every-move``.
    """
    require("fast", "ttt bench (it times the compiled core)")
    case = case or []
    unknown = [c for c in case if c not in EXPECTED]
    if unknown:
        raise BenchCaseError(f"unknown case {unknown[0]!r}; expected one of "
                             f"{', '.join(EXPECTED)}")
    cases, jit = _run_cases(quick, repeat, limit, case, every_move)
    cores = os.cpu_count() or 1
    if as_json:
        rows = [asdict(c) | {"ratio": c.ratio, "met": c.met} for c in cases]
        console.print_json(json.dumps({"cores": cores, "jit_seconds": jit, "cases": rows}))
    else:
        table = Table(title=f"ttt bench ({cores} cores; JIT or cache load {jit:.2f} s, "
                            "not included)")
        for column in ("case", "result", "time", "target", "nodes", "nodes/s",
                       "every move", "vs Python"):
            table.add_column(column, justify="left" if column in ("case", "result")
                             else "right", no_wrap=column == "case")
        for c in cases:
            seconds = c.seconds or 0.0
            rate = _rate(c.nodes / seconds) if c.nodes and seconds else "-"
            mark = "" if c.met else " (missed)"
            table.add_row(c.name, c.result if c.ok else f"[red]WRONG: {c.result}[/]",
                          _duration(seconds), _duration(c.target) + mark,
                          f"{c.nodes:,}" if c.nodes else "-", rate,
                          _duration(c.every_move_seconds) if c.every_move_seconds else "-",
                          f"{c.ratio:,.0f}x" if c.ratio else "-")
        narrow = console.width
        console.width = max(narrow, TABLE_WIDTH)  # wider than the terminal, cells unwrapped
        try:
            console.print(table)
        finally:
            console.width = narrow
    wrong = [c for c in cases if not c.ok]
    if wrong:
        for c in wrong:
            errors.print(f"[bold red]error:[/] {c.name}: got {c.result}, expected {c.expected}")
        raise typer.Exit(1)


def _rate(per_second: float) -> str:
    if per_second >= 1e6:
        return f"{per_second / 1e6:.1f} M"
    if per_second >= 1e3:
        return f"{per_second / 1e3:.1f} k"
    return f"{per_second:.0f}"


def _duration(seconds: float) -> str:
    if seconds < 0.01:
        return f"{seconds * 1000:.2f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"
