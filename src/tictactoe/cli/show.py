"""``ttt show``: a position as text, or as a picture (SVG, or PNG with the ``plot`` extra)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from tictactoe.cli.app import app
from tictactoe.cli.common import console, fail, reports_errors, writable_path
from tictactoe.core import Position
from tictactoe.extras import require
from tictactoe.search.solver import solve


@app.command()
@reports_errors
def show(
    position: Annotated[str, typer.Argument(
        help="A position string ('o2/1x1/3 x') or a variant name (its empty board).")],
    svg: Annotated[Path | None, typer.Option(
        "--svg", help="Write the picture as SVG to FILE ('-': standard output).")] = None,
    png: Annotated[Path | None, typer.Option(
        "--png", help="Write the picture as PNG to FILE (needs the plot extra).")] = None,
    size: Annotated[int | None, typer.Option(
        min=16, max=8192, help="Width of the picture in pixels.")] = None,
    last: Annotated[str | None, typer.Option(
        "--last", help="Mark this cell as the last move (b2, 2:b3 or an index).")] = None,
    hints: Annotated[bool, typer.Option(
        "--hints", help="Write each empty cell's value on it, as the web app's hints.")] = False,
    seconds: Annotated[float, typer.Option(
        min=0.01, help="Time limit of the search behind --hints.")] = 10.0,
    coordinates: Annotated[bool, typer.Option(
        "--coordinates/--no-coordinates", help="Column letters and row numbers.")] = True,
) -> None:
    """Show a position: as text, or write it as an SVG or PNG picture."""
    from tictactoe.svg import board
    from tictactoe.svg import png as rasterise

    if png is not None:
        require("plot", "ttt show --png")
    for path, suffix in ((svg, ".svg"), (png, ".png")):
        if path is not None and str(path) != "-":
            writable_path(path, "the picture", suffix)
    p = Position(position)
    cell = p.variant.parse_cell(last) if last is not None else None
    if cell is not None and not p.occupied >> cell & 1:
        raise fail(f"--last {p.move_name(cell)} is an empty cell: name the mark played last")
    if svg is None and png is None:
        if hints:
            raise fail("--hints goes with --svg or --png (the text board has no room for them)")
        console.print(p.diagram(), highlight=False)
        problems = p.problems()
        status = p.outcome()
        console.print(f"{p.to_string()}: " + (
            f"cannot arise in play: {'; '.join(problems)}" if problems else
            f"{p.turn.name} to move" if status is None else
            "draw" if status.winner is None else f"{status.winner.name} won"), soft_wrap=True)
        return
    solution = solve(p, seconds=seconds) if hints and not p.is_game_over() else None
    picture = board(p, size=size, lastmove=cell, hints=solution, coordinates=coordinates)
    try:
        if svg is not None:
            if str(svg) == "-":
                sys.stdout.write(picture + "\n")
            else:
                svg.write_text(picture + "\n", encoding="utf-8")
        if png is not None:
            png.write_bytes(rasterise(picture))
    except OSError as err:
        raise fail(f"cannot write the picture: {err}") from None
    for path, kind in ((svg, "SVG"), (png, "PNG")):
        if path is not None and str(path) != "-":
            console.print(f"{kind} picture saved to {path}", highlight=False)
