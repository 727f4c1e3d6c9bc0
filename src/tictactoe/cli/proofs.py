"""``ttt check-proof``: verify a proof file with the independent checker."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from tictactoe.cli.app import app
from tictactoe.cli.common import console, errors, fail, reports_errors


@app.command("check-proof")
@reports_errors
def check_proof_command(
    file: Annotated[Path, typer.Argument(help="A proof file (gzip if it ends in .gz).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")]
    = False,
) -> None:
    """Check a proof file: every reply of the loser is answered, and every line of play ends
    in the claimed result.

    The checker uses the rules core alone, none of the search code that wrote the proof. It
    re-derives each forced leaf with its own threat search and stops at the first failure,
    naming the line and the position (exit status 1).
    """
    from tictactoe.proof import ProofError, check_proof

    if not file.is_file():
        raise fail(f"no proof file at {file}")
    with Progress(TextColumn("checking {task.description}"), BarColumn(),
                  TextColumn("{task.completed:,}/{task.total:,} lines"), TimeElapsedColumn(),
                  console=errors, transient=True, disable=not errors.is_terminal) as bar:
        task = bar.add_task(file.name, total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            stats = check_proof(file, progress=progress)
        except ProofError as err:
            raise fail(f"{file}: invalid proof: {err}", code=1) from None
    if as_json:
        print(json.dumps(dataclasses.asdict(stats)))
    else:
        console.print(stats.summary(), soft_wrap=True)
