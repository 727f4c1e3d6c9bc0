"""The ``ttt`` Typer application that every subcommand module registers itself on.

Typer's help (since it carries its own copy of Click) shows a type after every parameter,
flags included (``--json <bool>``, as if a flag took a value), and writes a required argument
as ``{position}`` in the usage line. The command and group classes here keep the help the
way Click writes it: a flag without a value placeholder, and arguments in capitals
(``POSITION``, ``[POSITION]`` when optional) in the usage line, the argument list and the
error messages. Every command gets them through `Ttt.command`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

# Typer's own copy of Click, whose contexts and errors its commands use
from typer._click import exceptions as click_errors
from typer._click.core import Context
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.models import CommandFunctionType


def _plain(param: object) -> None:
    """Give a flag an empty value placeholder and an argument its name in capitals (unless
    the parameter names its own)."""
    if isinstance(param, TyperOption) and param.metavar is None:
        if param.is_flag or param.count:
            param.metavar = ""
    elif isinstance(param, TyperArgument) and param.metavar is None and param.name:
        param.metavar = param.name.upper()


def _usage_name(argument: TyperArgument) -> str:
    """An argument as the usage line shows it: ``NAME``, ``[NAME]`` if optional, ``...`` if
    it takes several values."""
    name = argument.metavar or (argument.name or "").upper()
    if not argument.required:
        name = f"[{name}]"
    return f"{name}..." if argument.nargs != 1 else name


def one_line(err: click_errors.UsageError) -> typer.Exit:
    """A usage error (a missing argument, a bad value, an unknown option) as the one
    ``error:`` line every other error is, with the usage and where to read more; exit 2.
    Typer would draw a box of four lines or more."""
    from tictactoe.cli.common import fail

    ctx = err.ctx
    usage = ctx.get_usage().strip().replace("Usage: ", "usage: ", 1) if ctx else ""
    where = f" ({usage}; {ctx.command_path} --help for more)" if ctx else ""
    message = " ".join(err.format_message().split())
    return fail(f"{message}{where}", code=err.exit_code)


T = TypeVar("T")


def _parse_in_one_line(make: Callable[[], T]) -> T:
    try:
        return make()
    except click_errors.NoArgsIsHelpError:
        raise
    except click_errors.UsageError as err:
        raise one_line(err) from None


class _Plain:
    """What the command and the group share: parameters shown plainly (`_plain`), and usage
    errors in one line (`one_line`)."""

    params: list[Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _plain(param)

    def make_context(self, info_name: str | None, args: list[str],
                     parent: Context | None = None, **extra: Any) -> Context:
        make: Callable[..., Context] = super().make_context  # type: ignore[misc]
        return _parse_in_one_line(lambda: make(info_name, args, parent, **extra))

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option: TyperOption | None = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            _plain(option)
        return option


class Command(_Plain, TyperCommand):
    """A command whose help shows flags without a placeholder and arguments in capitals, and
    whose usage errors are one line."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                pieces.append(_usage_name(param))
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces


class Group(_Plain, TyperGroup):
    """The ``ttt`` group: its own ``--help`` without a placeholder too, and one-line usage
    errors (an unknown command or option)."""

    def resolve_command(self, ctx: Context, args: list[str]) -> Any:
        return _parse_in_one_line(lambda: super(Group, self).resolve_command(ctx, args))


class Ttt(typer.Typer):
    """A Typer app whose commands are `Command`s unless one asks for another class."""

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None,
                **kwargs: Any) -> Callable[[CommandFunctionType], CommandFunctionType]:
        return super().command(name, cls=cls or Command, **kwargs)


app = Ttt(
    name="ttt",
    cls=Group,
    help="Tic-tac-toe on any m x n board with k in a row, and cubes: play it, solve it, count it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(show: bool) -> None:
    if show:
        from tictactoe import __version__

        typer.echo(f"ttt (tictactoe) {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the version and exit.")] = False) -> None:
    """Tic-tac-toe on any m x n board with k in a row, and cubes: play it, solve it, count
    it."""
