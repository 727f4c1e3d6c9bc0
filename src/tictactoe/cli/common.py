"""Shared pieces of the command line: error reporting and position arguments."""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from tictactoe.core import Position, TicTacToeError
from tictactoe.extras import MissingExtraError

P = ParamSpec("P")
R = TypeVar("R")

PIPED_WIDTH = 1000
"""The width of output that goes to a file or a pipe, unless ``COLUMNS`` says otherwise: wide
enough that no number, table row or board row is cut or wrapped (Rich would take 80)."""


def _width() -> int | None:
    """None (the terminal's own width) on a terminal or with ``COLUMNS``, else `PIPED_WIDTH`."""
    return None if os.environ.get("COLUMNS") or sys.stdout.isatty() else PIPED_WIDTH


console = Console(highlight=False, width=_width())
errors = Console(stderr=True, highlight=False)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error and return the exit to raise."""
    errors.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    return typer.Exit(code)


def given_options(ctx: typer.Context) -> list[str]:
    """The options typed on the command line, by their flags (``--format``), in the order of
    ``--help``. An option left to its default is not among them; one given with its default
    value (``--format text``) is."""
    # by name: Typer carries its own copy of Click, whose ParameterSource is not click's
    return [param.opts[0] for param in ctx.command.params
            if param.name is not None and param.opts[0].startswith("-")
            and getattr(ctx.get_parameter_source(param.name), "name", None) == "COMMANDLINE"]


def refuse(flags: Sequence[str], why: str) -> None:
    """Refuse, with one ``error:`` line, the options `flags` given where they do not apply:
    the line names them all and says `why` (which follows "is" or "are"). Nothing if `flags`
    is empty.

    >>> refuse([], "for --count")
    >>> try:
    ...     refuse(["--limit", "--format"], "for a listing, not for --count")
    ... except typer.Exit as stop:
    ...     print("exit", stop.exit_code)
    exit 2
    """
    if not flags:
        return
    names = flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"
    raise fail(f"{names} {'is' if len(flags) == 1 else 'are'} {why}")


def writable_path(path: Path | None, what: str, suffix: str | None = None) -> None:
    """Refuse at once, with one ``error:`` line, an output path that cannot be written (a
    folder, a missing folder, or with `suffix`, another ending): before any long work.

    >>> try:
    ...     writable_path(Path("/"), "the chart")
    ... except typer.Exit as stop:
    ...     print("exit", stop.exit_code)
    exit 2
    """
    if path is None:
        return
    problem = None
    if path.is_dir():
        problem = f"{path} is a folder: name a file"
    elif not path.parent.is_dir():
        problem = f"no folder {path.parent}"
    elif suffix is not None and path.suffix.lower() != suffix:
        problem = f"{path} should end in {suffix}"
    elif path.exists() and not os.access(path, os.W_OK):
        problem = f"{path} is read-only"
    else:
        try:  # a file made and removed at once: the folder takes new files
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".ttt-check-"):
                pass
        except OSError as err:
            problem = f"the folder {path.parent} takes no new file ({err.strerror or err})"
    if problem is not None:
        raise fail(f"cannot write {what}: {problem}")


def counted(n: int, noun: str) -> str:
    """`n` and `noun`, plural unless `n` is 1.

    >>> counted(1, "job"), counted(1_200, "local worker")
    ('1 job', '1,200 local workers')
    """
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def reports_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the package's `ValueError`s, and a missing extra, into a one-line message and exit
    code 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except (TicTacToeError, MissingExtraError) as err:
            raise fail(str(err)) from None
        except OSError as err:  # a file that cannot be read or written (a full disk, say)
            where = f" {err.filename}" if err.filename else ""
            raise fail(f"cannot use{where}: {err.strerror or err}", code=1) from None
        except KeyboardInterrupt:
            raise fail("interrupted", code=130) from None

    return wrapper


def positions_from(source: str, check: Callable[[Position], None] | None = None
                   ) -> Iterator[Position]:
    """A position string, a variant name (its empty board), or ``-``: one per line of stdin,
    an error naming its line. `check` refuses a position it raises for."""
    if source != "-":
        position = Position(source)
        if check is not None:
            check(position)
        yield position
        return
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            position = Position(line.strip())
            if check is not None:
                check(position)
        except TicTacToeError as err:
            raise TicTacToeError(f"line {number} of the input: {err}") from None
        yield position
