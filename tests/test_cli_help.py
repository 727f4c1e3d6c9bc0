"""Every command's help reads whole: no sentence broken by a line break in the source.

At a width of 300 columns no help text needs wrapping, so a line of help that starts with
a lower-case word can only be the rest of a sentence cut by a hard line break.
"""

from __future__ import annotations

import re

import pytest
import typer.main
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
