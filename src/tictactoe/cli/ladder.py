"""``ttt ladder``: a round robin between computer players, rated on the Elo scale."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tictactoe.cli.app import app
from tictactoe.cli.common import console, errors, fail, reports_errors, writable_path
from tictactoe.core import TicTacToeError
from tictactoe.extras import require
from tictactoe.players.ladder import (
    DEFAULT_PLAYERS,
    DEFAULT_SECONDS,
    Ladder,
    LadderGame,
    LadderInterrupted,
    play_ladder,
)
from tictactoe.players.levels import make_player


def _names(players: str) -> list[str]:
    names = [name.strip().lower() for name in players.split(",") if name.strip()]
    for name in names:
        make_player(name)  # unknown names fail before any game is played
    if len(names) < 2:
        raise TicTacToeError(f"a ladder needs at least two players, not {players!r}")
    return names


@app.command("ladder")
@reports_errors
def ladder_command(
    variant: Annotated[str, typer.Argument(help="The board, e.g. 3x3, 4x4k3.")],
    games: Annotated[int, typer.Option(min=1, help="Games per pair of players.")] = 10,
    players: Annotated[str, typer.Option(
        help="The players or levels, separated by commas; in each pair the one listed first "
             "is X in odd-numbered games.")] = ",".join(DEFAULT_PLAYERS),
    seconds: Annotated[float, typer.Option(
        min=0, help="Stop a searching player after S seconds a move (0: no limit); the "
                    "levels past 64 cells keep their own bounds.")]
    = DEFAULT_SECONDS,
    nodes: Annotated[int | None, typer.Option(
        min=1, help="Stop a searching player after N nodes a move (MCTS: iterations); "
                    "unlike --seconds, the same on every machine.")] = None,
    seed: Annotated[int, typer.Option(help="Seed; the same seed replays the same ladder.")]
    = 0,
    jobs: Annotated[int, typer.Option(
        min=1, help="Play games in this many worker processes (the results do not change).")]
    = 1,
    opening: Annotated[int, typer.Option(
        min=0, help="Start each pair of games (one with each colour) from N random moves "
                    "near the centre, so that players that always answer alike play "
                    "different games.")] = 0,
    balanced: Annotated[bool, typer.Option(
        help="With --opening, past 64 cells: openings neither side is ahead after, so that "
             "the play decides the games, not the colours.")] = False,
    plot: Annotated[Path | None, typer.Option(
        help="Save a chart of the ratings with their intervals (PNG).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ladder as JSON.")]
    = False,
) -> None:
    """Play a round robin between computer players and rate them.

    Every pair plays --games games, alternating colours. The ratings are Bradley-Terry
    maximum-likelihood ratings on the Elo scale (a draw is half a win), with the mean rating
    0; ± gives the 95% interval.

    One virtual draw between every pair keeps the rating of a player who wins every game
    finite. On big boards keep a limit per move: the perfect player without one solves every
    position to the end.
    """
    names = _names(players)
    if plot is not None:
        require("plot", "ttt ladder --plot")
        writable_path(plot, "the chart", ".png")
    total = games * len(names) * (len(names) - 1) // 2
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=errors, transient=True,
                  disable=not errors.is_terminal) as bar:
        task = bar.add_task(f"{variant} ladder", total=total)

        def advance(_: LadderGame) -> None:
            bar.advance(task)

        stopped = None
        try:
            ladder = play_ladder(variant, names, games=games, seconds=seconds or None,
                                 nodes=nodes, seed=seed, jobs=jobs, on_game=advance,
                                 opening=opening, balanced=balanced)
        except LadderInterrupted as stop:  # Ctrl-C: rate the games finished before it
            ladder, stopped = stop.ladder, stop
    if as_json:
        print(json.dumps(ladder.to_json()))
    else:
        _print_ladder(ladder)
    if plot is not None:
        _plot_ladder(ladder, plot)
        (errors if as_json else console).print(f"chart saved to {plot}", soft_wrap=True)
    if stopped is not None:
        raise fail(f"interrupted after {len(ladder.games)} of {stopped.scheduled} games "
                   "(rated above)", code=130)


def _start_words(ladder: Ladder) -> str:
    """How the ladder's games started: ``, from 3 balanced random moves`` or nothing."""
    kind = "balanced random" if ladder.balanced else "random"
    return f", from {ladder.opening} {kind} moves" if ladder.opening else ""


def _print_ladder(ladder: Ladder) -> None:
    count = len(ladder.games)
    start = _start_words(ladder)
    table = Table(title=f"{ladder.variant}: {count} games, {ladder.games_per_pair} per pair"
                        f"{start}")
    for column in ("rank", "player", "rating ± 95%", "score", "W/D/L", "games"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for rank, r in enumerate(ladder.ratings, start=1):
        table.add_row(str(rank), r.name, f"{r.rating:+.0f} ± {r.interval:.0f}",
                      f"{r.score_rate:.0%}", f"{r.wins}/{r.draws}/{r.losses}", str(r.games))
    console.print(table)
    order = [r.name for r in ladder.ratings]
    console.print(f"Points of each row player against each column player, of "
                  f"{ladder.games_per_pair} games:")
    matrix = Table()
    matrix.add_column("")
    for name in order:
        matrix.add_column(name, justify="right")
    for row in order:
        matrix.add_row(row, *("" if row == col else f"{ladder.pair(row, col).points:g}"
                              for col in order))
    console.print(matrix)


def _plot_ladder(ladder: Ladder, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = list(reversed(ladder.ratings))  # the best at the top
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(ratings)))
    ax.errorbar([r.rating for r in ratings], range(len(ratings)),
                xerr=[r.interval for r in ratings], fmt="o", color="tab:blue",
                ecolor="tab:gray", capsize=4)
    ax.set_yticks(range(len(ratings)), [r.name for r in ratings])
    ax.axvline(0.0, color="lightgray", linewidth=1, zorder=0)
    ax.set_xlabel("rating (Elo, mean 0) with 95% interval")
    ax.set_title(f"Ratings on {ladder.variant}, {ladder.games_per_pair} games per pair"
                 f"{_start_words(ladder)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
