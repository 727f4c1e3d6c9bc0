"""Every command's help reads whole: no sentence broken by a line break in the source.

At a width of 300 columns no help text needs wrapping, so a line of help that starts with
a lower-case word can only be the rest of a sentence cut by a hard line break.

And every command's help shows a flag without a value placeholder and names its arguments in
capitals, in the usage line too.
"""

from __future__ import annotations

import re

import pytest
import typer.main
from typer.core import TyperArgument, TyperOption
from typer.testing import CliRunner

from tictactoe.cli import app

COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
BOX = re.compile(r"[│╭╰─╮╯┃]")


def help_lines(args: list[str], width: int) -> list[str]:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return [BOX.sub("", line).strip() for line in result.output.splitlines()]


def broken_lines(lines: list[str]) -> list[str]:
    """Lines that continue a sentence (a lower-case start), except a command list's rows."""
    return [line for line in lines
            if re.match(r"[a-z]", line) and line.split()[0] not in COMMANDS]


def test_the_checker_sees_a_broken_sentence() -> None:
    lines = ["Small boards are proven at once; the search may reach the time limit, and",
             "the answer then says it is unproven.", "solve      The winner..."]
    assert broken_lines(lines) == ["the answer then says it is unproven."]


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_reads_whole(command: str) -> None:
    lines = help_lines([command] if command else [], 300)
    assert any(line.startswith("Usage:") for line in lines)
    assert broken_lines(lines) == []



def command_params(command: str) -> list[object]:
    group = typer.main.get_command(app)
    found = group.commands[command] if command else group  # type: ignore[attr-defined]
    return list(found.params)


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_shows_flags_without_a_value_and_arguments_in_capitals(command: str) -> None:
    """No ``<bool>`` after a flag (it takes no value), and the usage line names the
    arguments as ``POSITION`` (``[NAME]`` if optional), not ``{position}``."""
    lines = help_lines([command] if command else [], 200)
    rows = {line.split()[0]: line.split() for line in lines if line.startswith("--")}
    assert not any("<bool>" in line for line in lines)
    assert " ".join(rows["--help"][1:]) == "-h Show this message and exit."  # -h too
    usage = next(line for line in lines if line.startswith("Usage:")).split()
    assert not any(word.startswith("{") for word in usage), usage
    for param in command_params(command):
        if isinstance(param, TyperArgument):
            name = (param.name or "").upper()
            assert (name if param.required else f"[{name}]") in usage
            assert any(name in line.split()[:2] for line in lines), f"{name} in the list"
        elif isinstance(param, TyperOption) and param.is_flag:
            flag = param.opts[0]
            after = rows[flag][1:][len(param.secondary_opts):]  # after --x and any --no-x
            assert after[0] == (param.help or "").split()[0], rows[flag]  # then its help


def test_a_missing_argument_is_named_in_capitals() -> None:
    result = CliRunner().invoke(app, ["arena", "random"])
    assert result.exit_code == 2
    assert "usage: ttt arena [OPTIONS] FIRST SECOND" in result.output
    assert "Missing argument 'SECOND'" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["solve", "3x3", "--seconds", "nan"], "Invalid value for '--seconds'"),
    (["move", "3x3", "--player", "heuristic", "--depth", "0"], "Invalid value for '--depth'"),
    (["solve", "3x3", "--frob"], "No such option: --frob"),
    (["frobnicate"], "No such command 'frobnicate'"),
    (["arena", "random"], "Missing argument 'SECOND'"),
    (["move", "3x3", "--level", "easy", "--player", "mcts"], "give --player or --level"),
    (["play", "--start", "3/3/3 x", "--variant", "4x4"], "give --variant or --start"),
    (["play", "--think", "nan"], "--think must be a positive number of seconds"),
    (["play", "--think", "inf"], "--think must be a positive number of seconds"),
])
def test_a_usage_error_is_one_line(args: list[str], message: str) -> None:
    """Typer's own checks used to draw a box of four lines; every error is one line now,
    with the usage and where to read more."""
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


def test_version_and_short_help() -> None:
    from tictactoe import __version__

    version = CliRunner().invoke(app, ["--version"])
    assert version.exit_code == 0 and version.output.strip() == f"ttt (tictactoe) {__version__}"
    for args in (["-h"], ["solve", "-h"]):
        short = CliRunner().invoke(app, args)
        assert short.exit_code == 0 and "Usage: ttt" in short.output
        assert short.output == CliRunner().invoke(app, [*args[:-1], "--help"]).output
