"""The ``ttt`` Typer application that every subcommand module registers itself on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="ttt",
    help="Tic-tac-toe on any m x n board with k in a row, and cubes: play it, solve it, count it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)
