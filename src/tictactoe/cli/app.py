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
from typing import Any

import typer
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


class Command(TyperCommand):
    """A command whose help shows flags without a placeholder and arguments in capitals."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _plain(param)

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            _plain(option)
        return option

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                pieces.append(_usage_name(param))
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces


class Group(TyperGroup):
    """The ``ttt`` group: its own ``--help`` without a placeholder too."""

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            _plain(option)
        return option


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
)
