"""The ``ttt`` command. Each group of subcommands lives in its own module and registers
itself on `app` when imported."""

from __future__ import annotations

import gc

from tictactoe.cli import (
    bench,  # noqa: F401
    census,  # noqa: F401
    ladder,  # noqa: F401
    play,  # noqa: F401
    play_commands,  # noqa: F401
    proofs,  # noqa: F401
    serve,  # noqa: F401
    show,  # noqa: F401
)
from tictactoe.cli.app import app
from tictactoe.pools import stop_on_terminate


def main() -> None:
    """Entry point of the ``ttt`` console script. SIGTERM stops a command as Ctrl-C does.

    Whatever is alive when the command ends is frozen out of the collector first: the last
    collection at exit would otherwise walk every object the compiled engines loaded (a
    third of a second after a gomoku move)."""
    stop_on_terminate()
    try:
        app()
    finally:
        gc.freeze()


__all__ = ["app", "main"]
