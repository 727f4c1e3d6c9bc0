"""``ttt play`` (the terminal app, or plain mode) and ``ttt history``.

Textual and the engines are imported only when a game starts, so other commands stay quick.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tictactoe.cli.app import app
from tictactoe.cli.common import console, fail, reports_errors
from tictactoe.cli.play_commands import LEVELS_EPILOG
from tictactoe.core import Position, Side, Variant
from tictactoe.core.record import GameRecord
from tictactoe.extras import require
from tictactoe.players.levels import DEFAULT_LEVEL, LEVELS, PLAYER_NAMES
from tictactoe.tui.game import HUMAN, Game
from tictactoe.tui.history import database_path, read_history


@app.command(epilog=LEVELS_EPILOG)
@reports_errors
def play(
    variant: Annotated[str | None, typer.Option(
        "--variant", "-v", help="Board: 3x3, 4x4, 5x5k4, 4x4x4 (qubic)... (default 3x3; "
                                "--start and --load bring their own).")] = None,
    level: Annotated[str | None, typer.Option(
        help=f"Computer level: {', '.join(LEVELS)} (default {DEFAULT_LEVEL}; "
             "described below).")] = None,
    player: Annotated[str | None, typer.Option(
        help=f"Computer player by name ({', '.join(PLAYER_NAMES)}), "
             "or 'human' for two people at one keyboard.")] = None,
    first: Annotated[str, typer.Option(
        help="The side you play: x moves first, o lets the computer open.")] = "x",
    seed: Annotated[int | None, typer.Option(help="Seed for a repeatable computer.")] = None,
    load: Annotated[Path | None, typer.Option(
        help="Continue a saved game record (JSON, also written by the browser app).")] = None,
    start: Annotated[str | None, typer.Option(
        help="Start from this position string instead of the empty board.")] = None,
    think: Annotated[float, typer.Option(
        help="Seconds the computer may think per move, and the hints per position.")] = 3.0,
    plain: Annotated[bool, typer.Option(
        "--plain", help="Line-by-line game on standard input and output (used automatically "
                        "when either is not a terminal).")] = False,
) -> None:
    """Play tic-tac-toe in the terminal against the computer, or two people at one keyboard."""
    if not think > 0 or think == float("inf"):  # nan and inf too
        raise fail(f"--think must be a positive number of seconds, not {think}")
    game = _game_from_options(variant, level, player, first, load, start)
    if plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
        from tictactoe.tui.plain import PlainGame

        PlainGame(game, stdin=sys.stdin, stdout=sys.stdout, seed=seed, computer_seconds=think,
                  hint_seconds=think).run()
        return
    require("tui", "the terminal app (ttt play; ttt play --plain needs no extra)")
    from tictactoe.tui.app import TicTacToeApp

    TicTacToeApp(game, seed=seed, computer_seconds=think, hint_seconds=think).run()


def _check_level(level: str) -> str:
    """A level's name, or an error that lists the levels (and points a player's name, or
    ``human``, at --player)."""
    name = level.strip().lower()
    if name in LEVELS:
        return name
    player = ("; --player human is for two people at one keyboard" if name == HUMAN
              else f"; --player {name} chooses that player" if name in PLAYER_NAMES else "")
    raise fail(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}{player}")


def _game_from_options(variant: str | None, level: str | None, player: str | None,
                       first: str, load: Path | None, start: str | None) -> Game:
    from tictactoe.tui.engine import check_player

    if level is not None and player is not None:
        raise fail("give --level or --player, not both")
    if variant is not None and (load is not None or start is not None):
        raise fail(f"give --variant or --{'load' if load is not None else 'start'}, not "
                   "both: a saved game or a position brings its own board")
    if first.lower() not in ("x", "o"):
        raise fail(f"--first must be x or o, not {first!r}")
    if level is not None:
        level = _check_level(level)
    chosen = check_player((level or player or DEFAULT_LEVEL).strip().lower())
    human = Side.parse(first.lower())
    players = ({Side.X: HUMAN, Side.O: HUMAN} if chosen == HUMAN
               else {human: HUMAN, human.other: chosen})
    if load is not None:
        if start is not None:
            raise fail("give --load or --start, not both")
        try:
            record = GameRecord.from_file(load)
        except OSError as err:
            raise fail(f"cannot read {load}: {err.strerror or err}") from None
        explicit = level is not None or player is not None or first.lower() != "x"
        if explicit:
            return Game.from_record(record, players=players)
        from tictactoe.tui.engine import game_from_record

        return game_from_record(record, players)
    if start is not None:
        position = Position(start)
        if not position.is_valid():
            raise fail(f"{start!r} cannot arise in play: {'; '.join(position.problems())}")
        return Game(position.variant, players=players, start=position)
    return Game(Variant.parse(variant or "3x3"), players=players)


@app.command()
@reports_errors
def history(
    data: Annotated[Path | None, typer.Option(
        help="The browser app's data folder (default: $TICTACTOE_DATA, else ./data).")] = None,
    limit: Annotated[int, typer.Option(help="Show at most this many games.")] = 20,
    record: Annotated[int | None, typer.Option(
        help="Print this game's JSON record instead (for ttt play --load).")] = None,
) -> None:
    """List the games played in the browser app, newest first."""
    path = database_path(data)
    if record is not None:
        for entry in read_history(path):
            if entry.number == record:
                print(entry.record.to_json())
                return
        raise fail(f"no game number {record} in {path.as_posix()}")
    if limit < 1:
        raise fail(f"--limit must be at least 1, not {limit}")
    entries = read_history(path, limit=limit)
    if not entries:
        console.print(f"no games yet in {path.as_posix()}")
        return
    table = Table(title=f"games in {path.as_posix()}", title_justify="left")
    for name, justify in (("#", "right"), ("started", "left"), ("board", "left"),
                          ("X", "left"), ("O", "left"), ("result", "left"),
                          ("moves", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for entry in entries:
        r = entry.record
        result = {"x": "X won", "o": "O won", "draw": "draw"}.get(r.result or "", "unfinished")
        moves = " ".join(r.moves)
        table.add_row(str(entry.number), r.started.replace("T", " ")[:16], r.variant,
                      r.players.get("x", "?"), r.players.get("o", "?"), result,
                      moves if len(moves) <= 40 else moves[:39] + "…")
    console.print(table)
