"""``ttt count`` and ``ttt enumerate``."""

from __future__ import annotations

import csv
import itertools
import json
import math
import shutil
import sys
import tempfile
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tictactoe.analysis.census import CENSUS_LIMIT, CENSUS_MAX_CELLS
from tictactoe.analysis.enumerate import KINDS, Kind, legal_positions
from tictactoe.cli.app import app
from tictactoe.cli.common import (
    console,
    errors,
    fail,
    given_options,
    refuse,
    reports_errors,
    writable_path,
)
from tictactoe.core import TicTacToeError, Variant
from tictactoe.core.errors import CensusBackendError
from tictactoe.extras import require

if TYPE_CHECKING:  # the census modules load numpy (and the kernels): imported on use
    from tictactoe.analysis.census import Census
    from tictactoe.analysis.sharded import PlyProgress
    from tictactoe.analysis.won import WonCount

VARIANT_HELP = (f"A board of at most {CENSUS_LIMIT} cells: 3x3, 4x4, 4x4k3, 4x5k4. "
                "5x5k4 and 3x3x3 need a cluster (--estimate says where a count fits). With "
                "--won, any board of at most 64 cells: 7x7, 7x7k5, 4x4x4.")


def human_bytes(n: float) -> str:
    """
    >>> human_bytes(4.6e9)
    '4.6 GB'
    """
    from tictactoe.analysis.estimate import human_bytes as human

    return human(n)


class CensusEngine(StrEnum):
    auto = "auto"
    compiled = "compiled"
    numpy = "numpy"
    python = "python"


class WonMethod(StrEnum):
    auto = "auto"
    exact = "exact"
    estimate = "estimate"


class Backend(StrEnum):
    auto = "auto"
    memory = "memory"
    local = "local"
    dask = "dask"


BACKEND_HELP = ("Where to count: memory (this process; the default up to 16 cells), local "
                "(sharded on a process pool; the default past 16 cells) or dask (sharded on "
                "a Dask cluster).")


COUNT_ONLY_OPTIONS = ("--json", "--plot", "--engine", "--backend", "--address", "--shards")
"""The options of ``ttt count`` that shape the count itself: refused with ``--estimate``."""


@app.command()
@reports_errors
def count(
    ctx: typer.Context,
    variant: Annotated[str, typer.Argument(help=VARIANT_HELP)],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    plot: Annotated[Path | None, typer.Option(help="Also save a chart of counts by ply (PNG).")]
    = None,
    engine: Annotated[CensusEngine, typer.Option(
        help="In memory: auto, the quickest here (the compiled kernels if installed, or "
             "numpy on small boards while they are not loaded, else numpy, else python); "
             "compiled; numpy, the sorted-frontier reference; python, plain Python.")]
    = CensusEngine.auto,
    backend: Annotated[str, typer.Option(help=BACKEND_HELP)] = "auto",
    workers: Annotated[int | None, typer.Option(
        help="Worker processes of the local pool or of a Dask cluster started here "
             "(default: one per core).")] = None,
    address: Annotated[str | None, typer.Option(
        help="Join the Dask scheduler at this address (tcp://host:8786) instead of starting "
             "a cluster here.")] = None,
    spill: Annotated[Path | None, typer.Option(
        help="Folder for the shards (shared by every worker on a cluster). The same command "
             "with the same folder goes on from where an interrupted count stopped.")] = None,
    shards: Annotated[int | None, typer.Option(
        help="Split every ply into this many shards (default: sized to the board).")] = None,
    estimate_only: Annotated[bool, typer.Option(
        "--estimate", help="Only print what the count would cost, and where it fits.")]
    = False,
    won: Annotated[bool, typer.Option(
        "--won", help="Count the won positions (for X, for O, by marks) and the reachable "
                      "positions, on boards of up to 64 cells: exact where a method reaches, "
                      "otherwise an estimate with its 95% interval.")] = False,
    method: Annotated[WonMethod, typer.Option(
        help="With --won: auto (exact by inclusion-exclusion over the lines where a board "
             "has few, by the census up to 16 cells, else estimated), exact (also the "
             "census up to 32 cells) or estimate (sample even where exact is possible).")]
    = WonMethod.auto,
    samples: Annotated[int | None, typer.Option(
        min=1, help="With --won, for an estimate: random fillings to draw after the pilot "
                    "round (default 200,000,000, about a minute on two cores).")] = None,
    seed: Annotated[int, typer.Option(
        min=0, help="With --won, for an estimate: the seed (the same seed gives the same "
                    "figures on any number of workers).")] = 0,
) -> None:
    """Count the reachable positions, terminal positions and games of a board, or with
    --won its won positions."""
    v = Variant.parse(variant)
    if won:
        _count_won(v, method.value, samples, seed, as_json, plot, backend, workers, address,
                   forbidden={"--spill": spill, "--shards": shards,
                              "--estimate": estimate_only or None,
                              "--engine": None if engine is CensusEngine.auto else engine})
        return
    for flag, value in (("--method", None if method is WonMethod.auto else method),
                        ("--samples", samples), ("--seed", seed or None)):
        if value is not None:
            raise fail(f"{flag} is for --won")
    chosen = _backend(backend, v)
    if estimate_only:
        given = given_options(ctx)
        refuse([flag for flag in COUNT_ONLY_OPTIONS if flag in given],
               "for a count, not for --estimate (which prints what a count would cost on each "
               "backend)")
        _print_estimate(v, workers, spill)
        return
    if chosen == "memory" and engine in (CensusEngine.numpy, CensusEngine.python):
        from tictactoe.analysis.census import check_census_size

        check_census_size(v)
    if plot is not None:
        require("plot", "ttt count --plot")
        _check_writable(plot)
    result = _run_census(v, chosen, engine.value, workers, address, spill, shards)
    _report(result, as_json, plot, _plot_census, _print_census)


def _count_won(v: Variant, method: str, samples: int | None, seed: int, as_json: bool,
               plot: Path | None, backend: str, workers: int | None, address: str | None,
               forbidden: dict[str, object]) -> None:
    """``ttt count --won``: the exact count where a method reaches, else the estimate."""
    from tictactoe.analysis.won_count import count_won, route

    for flag, value in forbidden.items():
        if value is not None:
            raise fail(f"{flag} is for the census, not for --won")
    if plot is not None:
        require("plot", "ttt count --plot")
        _check_writable(plot)
    if route(v, method) == "sampled":
        require("fast", "ttt count --won (the estimate)")
        result = _estimate_won(v, samples, seed, backend, workers, address)
    elif samples is not None or seed:
        raise fail(f"--samples and --seed are for an estimate, and {v.name} is counted "
                   "exactly (--method estimate samples anyway)")
    elif backend != "auto" or workers is not None or address is not None:
        raise fail(f"{v.name} is counted exactly in this process: --backend, --workers "
                   "and --address are for an estimate")
    else:
        result = count_won(v, method=method)
    _report(result, as_json, plot, _plot_won, _print_won)


R = TypeVar("R", "Census", "WonCount")


def _report(result: R, as_json: bool, plot: Path | None, draw: Callable[[R, Path], None],
            show: Callable[[R], None]) -> None:
    """Draw the chart if asked, then print the JSON object or the tables."""
    if plot is not None:
        draw(result, plot)
    if as_json:
        print(json.dumps(result.to_json()))
        return
    show(result)
    if plot is not None:
        console.print(f"chart saved to {plot}")


def _check_writable(path: Path) -> None:
    """Refuse a chart path that cannot be written, before any counting."""
    writable_path(path, "the chart", ".png")


def _estimate_won(v: Variant, samples: int | None, seed: int, backend: str,
                  workers: int | None, address: str | None) -> WonCount:
    from tictactoe.analysis.won_count import count_won
    from tictactoe.executors import InProcess, open_executor

    name = "local" if backend == "auto" else backend
    if name not in ("memory", "local", "dask"):
        raise fail(f"unknown backend {backend!r}: choose one of memory, local, dask")
    if name == "memory" and (workers is not None or address is not None):
        raise fail("--workers and --address are for the local and dask backends")
    executor = InProcess() if name == "memory" else open_executor(
        name, workers, address, preload=("tictactoe.analysis.won_sampling",))
    with Progress(TextColumn(f"sampling {v.name}"), BarColumn(),
                  TextColumn("{task.completed:,.0f} of {task.total:,.0f} fillings"),
                  TimeElapsedColumn(), console=errors, transient=True,
                  disable=not errors.is_terminal) as bar, executor:
        task = bar.add_task(v.name, total=1)

        def show(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return count_won(v, method="estimate", samples=samples, seed=seed,
                         executor=executor, progress=show)


def _figure(value: float, exact: bool) -> str:
    return f"{int(value):,}" if exact else f"{value:.4g}"


def _print_won(w: WonCount) -> None:
    if w.exact:
        how = {"lines": f"exact, by inclusion-exclusion over its {w.extra.get('lines')} lines",
               "census": "exact, by the census"}[w.method]
    else:
        how = (f"an estimate by sampling ({w.samples:,} fillings, seed {w.seed}); 95% "
               "intervals")
    console.print(f"[bold]{w.variant}[/]: won positions, {how} ({w.seconds:.2f} s)")
    table = Table(box=None, pad_edge=False)
    table.add_column("")
    table.add_column("exact" if w.exact else "estimate", justify="right")
    if not w.exact:
        table.add_column("95% interval", justify="right")
        table.add_column("±", justify="right")
    for name, figure in (("X has just won", "won_x"), ("O has just won", "won_o"),
                         ("won in all", "won"), ("reachable positions", "positions")):
        value = getattr(w, figure)
        row = [name, _figure(value, w.exact)]
        if not w.exact:
            low, high = w.interval(figure)
            row += [f"{low:.4g} to {high:.4g}",
                    f"{100 * (high - low) / 2 / value:.2f}%" if value else "-"]
        table.add_row(*row)
    console.print(table)
    if w.by_marks is None:
        console.print("(the census gives totals, not counts by marks)")
        return
    marks = Table(box=None, pad_edge=False)
    for name in ("marks", "X has just won", "O has just won", "positions"):
        marks.add_column(name, justify="right")
    for m, (x, o, p) in enumerate(w.by_marks):
        if p:
            marks.add_row(str(m), _figure(x, w.exact), _figure(o, w.exact),
                          _figure(p, w.exact))
    console.print(marks)


def _plot_won(w: WonCount, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if w.by_marks is None:
        raise fail("the census gives totals only: no chart by marks (--method estimate "
                   "draws one)")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    marks = range(len(w.by_marks))
    # as floats: the exact counts pass 2 ** 63 on 7x7 (matplotlib takes C integers)
    ax.bar(list(marks), [float(r[2]) for r in w.by_marks], color="#cccccc", label="positions")
    ax.bar(list(marks), [float(r[0]) for r in w.by_marks], label="X has just won")
    ax.bar(list(marks), [float(r[1]) for r in w.by_marks], label="O has just won")
    ax.set_yscale("log")
    ax.set_xlabel("marks on the board")
    ax.set_ylabel("positions")
    kind = "exact" if w.exact else "estimated"
    ax.set_title(f"{w.variant}: won positions by marks ({kind})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _count_by_lines(v: Variant, kind: Kind, census_options: list[str]) -> int:
    """``ttt enumerate --count`` past the census's reach: exact by inclusion-exclusion over
    the lines where it reaches, else a clear error (an estimate is not a count). The
    census's options given (`census_options`) are refused: this count runs here."""
    from tictactoe.analysis.won import exact_won, lines_reach

    why = lines_reach(v)
    if why is not None:
        raise fail(f"{v.name} has {v.cells} cells, past the census's {CENSUS_LIMIT}, and {why}; "
                   f"ttt count {v.name} --won estimates its won and reachable positions")
    refuse(census_options, f"for the census, and {v.name} has {v.cells} cells, past its "
                           f"{CENSUS_LIMIT}: it is counted by inclusion-exclusion over its "
                           "lines, in this process")
    w = exact_won(v)
    assert w.by_marks is not None
    won = int(w.won)
    full = w.by_marks[v.cells]
    drawn = int(full[2] - full[0] - full[1])  # full boards with no line
    return {"all": int(w.positions), "won": won, "terminal": won + drawn}[kind]


def _backend(name: str, v: Variant) -> str:
    if name == "auto":
        return "memory" if v.cells <= CENSUS_MAX_CELLS else "local"
    if name == "memory":
        return name
    require("fast", f"the {name} backend of the census")
    from tictactoe.analysis.backends import check_backend

    return check_backend(name)


def _run_census(v: Variant, backend: str, engine: str, workers: int | None,
                address: str | None, spill: Path | None, shards: int | None) -> Census:
    """The census on a backend, with a progress display on a terminal."""
    from tictactoe.analysis.census import census, quickest_engine

    if backend == "memory":
        if engine == "auto":
            engine = quickest_engine(v)
        for flag, value in (("--workers", workers), ("--address", address),
                            ("--spill", spill), ("--shards", shards)):
            if value is not None:
                raise CensusBackendError(f"{flag} is for the sharded backends (local, dask), "
                                         "not for memory")
        with Progress(TextColumn("counting {task.description}"), BarColumn(),
                      TextColumn("ply {task.completed}/{task.total}"), TimeElapsedColumn(),
                      console=errors, transient=True, disable=not errors.is_terminal) as bar:
            task = bar.add_task(v.name, total=v.cells + 1)
            return census(v, engine=engine, backend="memory",
                          progress=lambda done, total: bar.update(task, completed=done))
    folder = spill if spill is not None else Path(tempfile.mkdtemp(prefix="ttt-census-"))
    columns = (TextColumn("{task.description}"), BarColumn(),
               TextColumn("shards {task.completed}/{task.total}"),
               TextColumn("{task.fields[positions]} positions, disk {task.fields[disk]}, "
                          "{task.fields[rate]}/s"), TimeElapsedColumn())
    try:
        with Progress(*columns, console=errors, transient=True,
                      disable=not errors.is_terminal) as bar:
            task = bar.add_task(f"{v.name} ply 0/{v.cells}", total=1, positions="0",
                                disk="0 B", rate="0")

            def show(p: PlyProgress) -> None:
                bar.update(task, description=f"{v.name} ply {p.ply}/{p.plies}",
                           completed=p.shards_done, total=p.shards,
                           positions=f"{p.positions:,}", disk=human_bytes(p.disk_bytes),
                           rate=f"{p.rate:,.0f}")

            result = census(v, backend=backend, workers=workers, address=address,
                            spill=folder, shards=shards, ply_progress=show)
    except KeyboardInterrupt:
        if spill is None and not any(folder.glob("ply-*/complete.json")):
            raise fail("interrupted", code=130) from None
        raise fail(f"interrupted; run the same command with --spill {folder} to go on from "
                   "the last finished ply", code=130) from None
    except TicTacToeError as err:
        if spill is None and any(folder.glob("ply-*/complete.json")):
            raise fail(f"{err} (the plies counted so far are kept: add --spill {folder} to "
                       "go on)") from None
        raise
    finally:
        if spill is None and not any(folder.glob("ply-*/complete.json")):
            shutil.rmtree(folder, ignore_errors=True)
    if spill is None:
        shutil.rmtree(folder, ignore_errors=True)
        result.extra["spill"] = None
    return result


def fillings_bound(v: Variant) -> int:
    """Ways to fill the board with X and O in turn counts, X first: an upper bound on the
    reachable positions (every one is such a filling; fillings with two wins are not).

    >>> fillings_bound(Variant.parse("3x3"))
    6046
    """
    n = v.cells
    return sum(math.comb(n, (p + 1) // 2) * math.comb(n - (p + 1) // 2, p // 2)
               for p in range(n + 1))


def _print_out_of_reach(v: Variant) -> None:
    bound = fillings_bound(v)
    console.print(f"[bold]{v.name}[/]: {v.cells} cells, out of reach of any count: the census "
                  f"keeps each side's marks in {CENSUS_LIMIT} bits, so it counts boards of at "
                  f"most {CENSUS_LIMIT} cells")
    console.print(f"its positions are at most {bound:.3g} (every filling with X and O in "
                  f"turn counts, about 10^{len(str(bound)) - 1}); visiting that many at a "
                  f"billion a second would take {bound / 1e9 / 3.156e7:.3g} years")
    console.print("(an upper bound, not a sample: the sampled estimate also keeps a board in "
                  "64 bits)")


def _print_estimate(v: Variant, workers: int | None, spill: Path | None) -> None:
    if v.cells > CENSUS_LIMIT and v.cells > 64:
        _print_out_of_reach(v)
        return
    require("fast", "ttt count --estimate")
    from tictactoe.analysis.estimate import available_memory, estimate, free_disk, human_seconds
    from tictactoe.executors import check_workers

    guess = estimate(v)
    cores = check_workers(workers)
    folder = spill if spill is not None else Path(tempfile.gettempdir())
    memory_ok = guess.memory_bytes <= 0.9 * available_memory()
    disk_ok = guess.disk_bytes <= free_disk(folder)
    console.print(f"[bold]{v.name}[/]: about {guess.positions:,.3g} reachable positions "
                  f"({sum(guess.canonical_by_ply):,.3g} up to its {guess.symmetries} "
                  f"symmetries), the most at ply {guess.widest_ply} "
                  f"({max(guess.positions_by_ply):,.3g})")
    console.print(f"memory backend: about {human_bytes(guess.memory_bytes)} of memory "
                  f"({human_bytes(available_memory())} available: "
                  f"{'fits' if memory_ok else 'does not fit'}), "
                  f"about {human_seconds(guess.seconds())} on one core")
    console.print(f"local backend: about {human_bytes(guess.disk_bytes)} of disk at the widest "
                  f"ply ({human_bytes(free_disk(folder))} free in {folder}: "
                  f"{'fits' if disk_ok else 'does not fit'}), "
                  f"{human_bytes(guess.written_bytes)} written in all, about "
                  f"{human_seconds(guess.seconds(cores, sharded=True))} on {cores} workers, "
                  f"{guess.shards(workers=cores)} shards")
    if memory_ok and v.cells <= CENSUS_MAX_CELLS:
        verdict = "count it in memory (the default)"
    elif disk_ok:
        verdict = "count it with the local backend (the default past 16 cells)" + (
            "; it also fits in memory (--backend memory)" if memory_ok else "")
    else:
        verdict = ("it needs a cluster: --backend dask --address tcp://HOST:8786 --spill "
                   "SHARED_FOLDER (see docs/counting.md)")
    console.print(verdict)
    console.print("(positions sampled, 20,000 fillings per ply; time at rates measured on a "
                  "2-core machine)")


def _print_census(c: Census) -> None:
    console.print(f"[bold]{c.variant}[/]: {c.positions:,} reachable positions "
                  f"({c.seconds:.2f} s, {c.engine})")
    if "shards" in c.extra:
        resumed = c.extra["resumed_from_ply"]
        if not resumed:
            went_on = ""
        elif resumed > Variant.parse(c.variant).cells:  # the folder held the whole count
            went_on = ", counted by an earlier run in this folder"
        else:
            went_on = f", went on from ply {resumed}"
        console.print(f"{c.extra['workers']} workers, {c.extra['shards']} shards, disk at most "
                      f"{human_bytes(c.extra['peak_disk_bytes'])}{went_on}")
    table = Table(box=None, pad_edge=False)
    for name in ("ply", "positions", "up to symmetry"):
        table.add_column(name, justify="right")
    canonical = c.canonical_by_ply or []
    for ply, n in enumerate(c.by_ply):
        table.add_row(str(ply), f"{n:,}",
                      f"{canonical[ply]:,}" if ply < len(canonical) else "-")
    table.add_row("all", f"{c.positions:,}",
                  f"{c.canonical_positions:,}" if c.canonical_positions is not None else "-",
                  style="bold")
    console.print(table)
    summary = Table("", box=None, pad_edge=False)
    for name in ("X wins", "O wins", "draw"):
        summary.add_column(name, justify="right")
    summary.add_row("terminal positions", *(f"{c.terminal[k]:,}" for k in ("x", "o", "draw")))
    if c.canonical_terminal is not None:
        summary.add_row("  up to symmetry",
                        *(f"{c.canonical_terminal[k]:,}" for k in ("x", "o", "draw")))
    summary.add_row("games", *(f"{c.games[k]:,}" for k in ("x", "o", "draw")))
    console.print(summary)
    console.print(f"games in all: {sum(c.games.values()):,}")
    if c.canonical_games is not None:
        console.print(f"games with symmetric moves merged at each step: {c.canonical_games:,}")
        console.print(f"symmetries: {c.symmetries} (of which rotations and reflections: "
                      f"{c.geometric_symmetries})")
        console.print(f"positions up to rotations and reflections alone: "
                      f"{c.geometric_canonical_positions:,}")
    else:
        console.print("canonical figures: none (the symmetry group is too large to list)")


def _plot_census(c: Census, path: Path) -> None:
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    plies = range(len(c.by_ply))
    ax.bar([p - 0.2 for p in plies], c.by_ply, width=0.4, label="positions")
    if c.canonical_by_ply is not None:
        ax.bar([p + 0.2 for p in range(len(c.canonical_by_ply))], c.canonical_by_ply,
               width=0.4, label="up to symmetry")
    ax.set_xticks(list(plies))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:,.0f}"))
    ax.set_xlabel("ply (marks on the board)")
    ax.set_ylabel("reachable positions")
    ax.set_title(f"{c.variant}: {c.positions:,} reachable positions by ply")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


class Format(StrEnum):
    text = "text"
    jsonl = "jsonl"
    csv = "csv"


LISTING_OPTIONS = ("--format", "--limit")
"""The options of ``ttt enumerate`` that shape the listing: refused with ``--count``."""
CENSUS_OPTIONS = ("--backend", "--workers", "--address", "--spill", "--shards")
"""The options of ``ttt enumerate`` that say where the census counts: refused without
``--count``, and past the census's reach (counted by the lines, in this process)."""


@app.command("enumerate")
@reports_errors
def enumerate_positions(
    ctx: typer.Context,
    variant: Annotated[str, typer.Argument(help="Variant name: 3x3, 5x5k4, 4x4x4...")],
    won: Annotated[bool, typer.Option("--won", help="Won positions.")] = False,
    terminal: Annotated[bool, typer.Option("--terminal", help="Won or drawn (full) positions.")]
    = False,
    all_: Annotated[bool, typer.Option("--all", help="Every legal position.")] = False,
    output: Annotated[Format, typer.Option(
        "--format", help="Output format of the listing (not with --count).")] = Format.text,
    limit: Annotated[int | None, typer.Option(
        min=0, help="Stop the listing after N positions (not with --count).")] = None,
    count_only: Annotated[bool, typer.Option(
        "--count", help=f"Print only how many there are, counted by the census (boards of at "
                        f"most {CENSUS_LIMIT} cells) or past it by inclusion-exclusion over "
                        "the lines (7x7, up to 10x10 with k the side).")] = False,
    backend: Annotated[str, typer.Option(help="With --count: " + BACKEND_HELP)] = "auto",
    workers: Annotated[int | None, typer.Option(help="With --count: worker processes.")]
    = None,
    address: Annotated[str | None, typer.Option(
        help="With --count: the Dask scheduler to join.")] = None,
    spill: Annotated[Path | None, typer.Option(help="With --count: folder for the shards.")]
    = None,
    shards: Annotated[int | None, typer.Option(help="With --count: shards per ply.")] = None,
) -> None:
    """Stream legal positions, one per line, found by constraint search with backtracking.

    With --count, count them with the census instead (on the sharded route past 16 cells).
    --format and --limit are for the listing; --backend, --workers, --address, --spill and
    --shards for --count by the census: given elsewhere, they are refused."""
    chosen = [k for k, flag in zip(KINDS, (all_, won, terminal), strict=True) if flag]
    if len(chosen) != 1:
        raise fail("choose exactly one of --won, --terminal, --all")
    kind: Kind = chosen[0]
    v = Variant.parse(variant)
    given = given_options(ctx)
    census_given = [flag for flag in CENSUS_OPTIONS if flag in given]
    if count_only:
        refuse([flag for flag in LISTING_OPTIONS if flag in given],
               "for listing positions, not for --count (which prints one number)")
        if v.cells > CENSUS_LIMIT:
            print(_count_by_lines(v, kind, census_given))
            return
        c = _run_census(v, _backend(backend, v), "auto", workers, address, spill, shards)
        won_count = c.terminal["x"] + c.terminal["o"]
        print({"all": c.positions, "won": won_count,
               "terminal": won_count + c.terminal["draw"]}[kind])
        return
    refuse(census_given, "for --count (where the census runs), not for listing positions "
                         "(a constraint search in this process)")
    stream = legal_positions(v, kind)
    if limit is not None:
        stream = itertools.islice(stream, limit)
    writer = csv.writer(sys.stdout, lineterminator="\n") if output is Format.csv else None
    if writer:
        writer.writerow(["position", "result", "ply"])
    try:
        for position in stream:
            outcome = position.outcome()
            result = outcome.result() if outcome else None
            if output is Format.text:
                print(position.to_string())
            elif output is Format.jsonl:
                print(json.dumps({"position": position.to_string(), "result": result,
                                  "ply": position.ply}))
            else:
                assert writer is not None
                writer.writerow([position.to_string(), result or "", position.ply])
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
