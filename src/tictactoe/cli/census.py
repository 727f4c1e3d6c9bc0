"""``ttt count`` and ``ttt enumerate``."""

from __future__ import annotations

import csv
import itertools
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tictactoe.analysis.census import Census, census, check_census_size
from tictactoe.analysis.enumerate import KINDS, Kind, legal_positions
from tictactoe.cli.app import app
from tictactoe.cli.common import console, errors, fail, reports_errors
from tictactoe.core import Variant
from tictactoe.extras import require


class CensusEngine(StrEnum):
    auto = "auto"
    compiled = "compiled"
    numpy = "numpy"
    python = "python"


@app.command()
@reports_errors
def count(
    variant: Annotated[str, typer.Argument(help="Variant name: 3x3, 4x4, 5x5k4, 4x4x4, qubic...")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    plot: Annotated[Path | None, typer.Option(help="Also save a chart of counts by ply (PNG).")]
    = None,
    engine: Annotated[CensusEngine, typer.Option(
        help="auto: the compiled kernels if installed, else numpy, else python; numpy: the "
             "sorted-frontier reference; python: plain Python.")]
    = CensusEngine.auto,
) -> None:
    """Count the reachable positions, terminal positions and games of a board."""
    v = Variant.parse(variant)
    check_census_size(v)
    if plot is not None:
        require("plot", "ttt count --plot")
    with Progress(TextColumn("counting {task.description}"), BarColumn(),
                  TextColumn("ply {task.completed}/{task.total}"), TimeElapsedColumn(),
                  console=errors, transient=True, disable=not errors.is_terminal) as bar:
        task = bar.add_task(v.name, total=v.cells + 1)
        result = census(v, engine=engine.value,
                        progress=lambda done, total: bar.update(task, completed=done))
    if plot is not None:
        _plot_census(result, plot)
    if as_json:
        print(json.dumps(result.to_json()))
        return
    _print_census(result)
    if plot is not None:
        console.print(f"chart saved to {plot}")


def _print_census(c: Census) -> None:
    console.print(f"[bold]{c.variant}[/]: {c.positions:,} reachable positions "
                  f"({c.seconds:.2f} s, {c.engine})")
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


@app.command("enumerate")
@reports_errors
def enumerate_positions(
    variant: Annotated[str, typer.Argument(help="Variant name: 3x3, 5x5k4, 4x4x4...")],
    won: Annotated[bool, typer.Option("--won", help="Won positions.")] = False,
    terminal: Annotated[bool, typer.Option("--terminal", help="Won or drawn (full) positions.")]
    = False,
    all_: Annotated[bool, typer.Option("--all", help="Every legal position.")] = False,
    output: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.text,
    limit: Annotated[int | None, typer.Option(min=0, help="Stop after N positions.")] = None,
    count_only: Annotated[bool, typer.Option("--count", help="Print only how many there are.")]
    = False,
) -> None:
    """Stream legal positions, one per line, found by constraint search with backtracking."""
    chosen = [k for k, flag in zip(KINDS, (all_, won, terminal), strict=True) if flag]
    if len(chosen) != 1:
        raise fail("choose exactly one of --won, --terminal, --all")
    kind: Kind = chosen[0]
    v = Variant.parse(variant)
    if count_only:
        check_census_size(v)
        c = census(v)
        won_count = c.terminal["x"] + c.terminal["o"]
        print({"all": c.positions, "won": won_count,
               "terminal": won_count + c.terminal["draw"]}[kind])
        return
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
