"""The ``ttt`` command. Each group of subcommands lives in its own module."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="ttt",
    help="Tic-tac-toe on any m x n board with k in a row, and cubes: play it, solve it, count it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Subcommand modules register themselves on `app` when imported.
from tictactoe.cli import (  # noqa: E402
    bench,  # noqa: F401
    census,  # noqa: F401
    play,  # noqa: F401
    play_commands,  # noqa: F401
    serve,  # noqa: F401
)


def main() -> None:
    """Entry point of the ``ttt`` console script."""
    app()
