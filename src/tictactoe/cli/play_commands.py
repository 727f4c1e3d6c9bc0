"""``ttt solve``, ``ttt move`` and ``ttt arena``."""

from __future__ import annotations

import json
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tictactoe.cli.app import app
from tictactoe.cli.common import (
    console,
    counted,
    errors,
    fail,
    positions_from,
    reports_errors,
    writable_path,
)
from tictactoe.core import Position, Side, TicTacToeError
from tictactoe.extras import require
from tictactoe.players.arena import Game, Match, MatchInterrupted, play_match
from tictactoe.players.base import Limit, play_move
from tictactoe.players.levels import (
    LEVEL_DESCRIPTIONS,
    LEVELS,
    PLAYER_NAMES,
    make_player,
    player_for_level,
)
from tictactoe.proof.strategy import strategy_move
from tictactoe.search.score import Score
from tictactoe.search.solution import Solution, check_solvable, solution_json
from tictactoe.search.solver import quickest_engine, solve, solve_value
from tictactoe.search.words import side_words

DEFAULT_SECONDS = 60.0
"""Time limit of ``ttt solve`` unless told otherwise (0 means none)."""

BIG_BOARD_CELLS = 64
"""Past this many cells no solver here proves an opening: ``ttt solve`` estimates."""

BIG_SECONDS = 5.0
"""Time limit of ``ttt solve`` on a board past :data:`BIG_BOARD_CELLS` unless told
otherwise: the search there gives an estimate, and waiting longer rarely proves more."""

BEST_SHOWN = 8
"""At most this many tied best moves are listed when the answer is unproven."""

MOVE_SECONDS = 10.0
"""Time limit of ``ttt move`` for a searching player unless told otherwise (0 means none)."""

LEVELS_EPILOG = "\n\n".join(f"Level {name}: {text}."
                            for name, text in LEVEL_DESCRIPTIONS.items())
"""What each level means, a paragraph each, at the end of ``--help``."""

POSITION_HELP = "A position string ('o2/1x1/3 x'), a variant name (its empty board), or '-' " \
    "for one position per line on standard input."


def _outcome_text(score: Score, mover: Side, remaining: int) -> str:
    """``X wins in 5 plies``, ``draw (9 plies)``, ``O wins in 4 plies``, or a guess."""
    if not score.is_proven:
        return f"unproven: {side_words(score, mover)}"
    winner = score.winner(mover)
    if winner is None:
        return f"draw ({remaining} plies)"
    plies = score.plies
    within = getattr(score, "within", None)
    if plies is None and within is not None:
        return f"{winner.name} wins within {within} plies (proven; the exact length not computed)"
    if plies is None:
        return f"{winner.name} wins (proven; length not computed)"
    return f"{winner.name} wins in {plies} {'ply' if plies == 1 else 'plies'}"


def _solve_line(position: Position, solution: Solution, with_moves: bool, prefix: bool) -> str:
    remaining = position.variant.cells - position.ply
    text = _outcome_text(solution.score, position.turn, remaining)
    if solution.engine == "strategy":
        text += " (the move of the shipped proof's strategy)"
    elif not solution.proven and solution.score.is_proven:
        text += (f" (the other moves: stopped after {counted(solution.nodes, 'node')}, "
                 f"{solution.seconds:.1f} s)")
    elif not solution.proven:
        text += f" (stopped after {counted(solution.nodes, 'node')}, {solution.seconds:.1f} s)"
    best = [position.move_name(c) for c in solution.best]
    if not solution.score.is_proven and len(best) > BEST_SHOWN:
        best = [*best[:BEST_SHOWN], f"(and {len(best) - BEST_SHOWN} more)"]
    if best:  # a search stopped before it scored a move names none
        text += "; best: " + " ".join(best)
    if not solution.score.is_proven and position.variant.cells > BIG_BOARD_CELLS:
        text += (f"; an estimate, not a proof: {position.variant.name} has "
                 f"{position.variant.cells} cells, past the {BIG_BOARD_CELLS} the solvers "
                 "prove openings on (--seconds to search longer)")
    if with_moves:
        text += "; moves: " + ", ".join(
            f"{position.move_name(c)} {_outcome_text(s, position.turn, remaining)}"
            for c, s in solution.moves.items())
    return f"{position.to_string()}: {text}" if prefix else text


class SolverEngine(StrEnum):
    auto = "auto"
    compiled = "compiled"
    python = "python"


class SolveMethod(StrEnum):
    auto = "auto"
    ab = "ab"
    pn = "pn"


def pn_chosen(position: Position, value_only: bool) -> bool:
    """``--method auto``: proof-number search for a value-only question on a 3-D board (the
    cube), where it measured far faster than alpha-beta (docs/benchmarks.md, "Proof-number
    search, the proofs and the cube"); alpha-beta everywhere else, where it was as fast or
    faster and also gives distances."""
    return value_only and len(position.variant.shape) == 3


def _pn_json(position: Position, found: Any) -> dict[str, object]:
    return {"position": position.to_string(), "method": "pn",
            "winner": None if found.value == "unknown" else found.value,
            "proven": found.proven, "nodes": found.nodes,
            "seconds": round(found.seconds, 6)}


def _pn_line(position: Position, found: Any, prefix: bool) -> str:
    text = {"x": "X wins", "o": "O wins", "draw": "draw"}.get(found.value)
    if text is None:
        last = found.questions[-1]
        text = (f"unproven (stopped after {counted(found.nodes, 'node')}, {found.seconds:.1f} s; "
                f"root proof number {last.root_pn:,}, disproof number {last.root_dn:,})")
    text += " (proof-number search: the value, without distances)"
    return f"{position.to_string()}: {text}" if prefix else text


@app.command("solve")
@reports_errors
def solve_command(
    position: Annotated[str, typer.Argument(help=POSITION_HELP)],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per position.")]
    = False,
    moves: Annotated[bool, typer.Option("--moves", help="Also the value of every move.")]
    = False,
    value: Annotated[bool, typer.Option(
        "--value", help="Prove the value and one best move only, without scoring the other "
                        "moves: much faster on big boards.")] = False,
    outcome: Annotated[bool, typer.Option(
        "--outcome", help="Prove who wins (or a draw) and a move that keeps it, with the "
                          "distance bounded, not exact: faster still than --value on big "
                          "boards.")] = False,
    nodes: Annotated[int | None, typer.Option(min=1, help="Stop after N nodes.")] = None,
    seconds: Annotated[float | None, typer.Option(
        min=0, help=f"Stop after S seconds (0: no limit); the answer is then marked "
                    f"unproven. Default {DEFAULT_SECONDS:g} s, and {BIG_SECONDS:g} s on a "
                    f"board past {BIG_BOARD_CELLS} cells, where the answer is an estimate.",
        show_default=False)]
    = None,
    engine: Annotated[SolverEngine, typer.Option(
        help="auto: the quickest here (the readable search on small boards until the "
             "compiled kernels are loaded, else the kernels); compiled; python: the readable "
             "search.")]
    = SolverEngine.auto,
    threads: Annotated[int, typer.Option(
        min=1, help="Threads for a big board: scoring its moves, or racing two searches "
                    "for --value (default: one per core).")]
    = os.cpu_count() or 1,
    method: Annotated[SolveMethod, typer.Option(
        help="ab: alpha-beta (values, distances, best moves); pn: proof-number search (the "
             "value only: who wins, or a draw); auto: pn for --value on the cube, else ab.")]
    = SolveMethod.auto,
) -> None:
    """The winner with perfect play, the plies to the end, and the best moves.

    Small boards are proven at once; on big ones the search may reach the time limit, and
    the answer then says it is unproven. Past 64 cells (15x15, 19x19, 5x5x5...) only
    positions close to a win are proven; an opening gets an estimate after a few seconds.
    """
    if value and moves:
        raise TicTacToeError("--value scores one best move only; it cannot go with --moves")
    if outcome and (moves or value):
        raise TicTacToeError("--outcome proves who wins only; it cannot go with --moves or "
                             "--value")
    if method is SolveMethod.pn and moves:
        raise TicTacToeError("--method pn proves the value only; it cannot go with --moves")
    def solver(pos: Position, **limits: Any) -> Solution:
        if value or outcome:  # the readable engine proves the exact value instead
            return solve_value(pos, threads=threads, **limits)
        return solve(pos, threads=threads, **limits)

    given = seconds
    for pos in positions_from(position, check_solvable):
        if given is None:
            seconds = BIG_SECONDS if pos.variant.cells > BIG_BOARD_CELLS else DEFAULT_SECONDS
        assert seconds is not None
        if (value or outcome or method is SolveMethod.pn) and strategy_move(pos) is not None:
            found = solve_value(pos)  # the shipped strategy answers at once
            if as_json:
                print(json.dumps(solution_json(pos, found)))
            else:
                console.print(_solve_line(pos, found, False, prefix=position == "-"),
                              soft_wrap=True)
            continue
        if method is SolveMethod.pn or (method is SolveMethod.auto
                                        and pn_chosen(pos, value_only=value or outcome)):
            _solve_pn(pos, nodes, seconds, as_json, prefix=position == "-")
            continue
        if outcome and engine is not SolverEngine.python and _outcome_fits(pos):
            _solve_outcome(pos, nodes, seconds, threads, as_json, prefix=position == "-")
            continue
        with errors.status(f"solving {pos.to_string()}", spinner="dots") if \
                errors.is_terminal and position != "-" else _nothing():
            chosen = quickest_engine(pos) if engine is SolverEngine.auto else engine.value
            solution = solver(pos, nodes=nodes, seconds=seconds or None, engine=chosen)
        if as_json:
            print(json.dumps(solution_json(pos, solution)))
        else:
            console.print(_solve_line(pos, solution, moves, prefix=position == "-"),
                          soft_wrap=True)


def _solve_pn(pos: Position, nodes: int | None, seconds: float, as_json: bool,
              prefix: bool) -> None:
    from tictactoe.search.pn import PnSearch

    search = PnSearch(pos.variant, table_mb=256)
    with errors.status(f"proving {pos.to_string()}", spinner="dots") if \
            errors.is_terminal and not prefix else _nothing():
        found = search.value(pos, nodes=nodes, seconds=seconds or None)
    if as_json:
        print(json.dumps(_pn_json(pos, found)))
    else:
        console.print(_pn_line(pos, found, prefix), soft_wrap=True)


def _outcome_fits(position: Position) -> bool:
    """Whether the compiled kernels can answer ``--outcome`` here (else the exact value
    answers it)."""
    from tictactoe.extras import available

    if not available("fast"):
        return False
    from tictactoe.search.compiled import fits

    return fits(position.variant)


def _solve_outcome(pos: Position, nodes: int | None, seconds: float, threads: int,
                   as_json: bool, prefix: bool) -> None:
    from tictactoe.search.compiled import solve_outcome

    with errors.status(f"solving {pos.to_string()}", spinner="dots") if \
            errors.is_terminal and not prefix else _nothing():
        found = solve_outcome(pos, nodes=nodes, seconds=seconds or None, threads=threads)
    move = None if found.move is None else pos.move_name(found.move)
    if as_json:
        print(json.dumps({"position": pos.to_string(), "method": "ab",
                          "winner": None if found.value == "unknown" else found.value,
                          "plies": None if found.plies is None else list(found.plies),
                          "move": move, "proven": found.proven, "nodes": found.nodes,
                          "seconds": round(found.seconds, 6)}))
        return
    text = {"x": "X wins", "o": "O wins", "draw": "draw"}.get(found.value)
    if text is None:
        text = f"unproven (stopped after {counted(found.nodes, 'node')}, {found.seconds:.1f} s)"
    elif found.plies is not None:
        low, high = found.plies
        text += f" in {low} {'ply' if low == 1 else 'plies'}" if low == high else \
            f" in {low} to {high} plies (who wins only: the distance bounded, not exact)"
    if move is not None and found.proven:
        text += f"; keeps it: {move}"
    console.print(f"{pos.to_string()}: {text}" if prefix else text, soft_wrap=True)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


@app.command("move", epilog=LEVELS_EPILOG)
@reports_errors
def move_command(
    position: Annotated[str, typer.Argument(help=POSITION_HELP)],
    player: Annotated[str | None, typer.Option(
        help=f"Who chooses: {', '.join(PLAYER_NAMES)} (default perfect).")] = None,
    level: Annotated[str | None, typer.Option(
        help=f"A difficulty level instead of a player: {', '.join(LEVELS)} "
             "(described below).")] = None,
    depth: Annotated[int | None, typer.Option(min=1, help="Search depth (heuristic).")]
    = None,
    seed: Annotated[int | None, typer.Option(help="Seed for reproducible choices.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per position.")]
    = False,
    nodes: Annotated[int | None, typer.Option(
        min=1, help="Stop a searching player after N nodes (MCTS: iterations).")] = None,
    seconds: Annotated[float, typer.Option(
        min=0, help="Stop a searching player after S seconds (0: no limit); an unproven "
                    "move is marked so.")] = MOVE_SECONDS,
) -> None:
    """The move a player chooses, with its score for the mover when the player scores moves.

    A searching player (perfect, mcts) answers within the time limit: where the perfect
    player cannot prove a move in time, it plays its best estimate and says it is unproven.
    """
    if player is not None and level is not None:
        raise fail("give --player or --level, not both")
    player = "perfect" if player is None else player
    name = player.strip().lower()
    if name not in PLAYER_NAMES:
        level_hint = f"; --level {name} chooses that level" if name in LEVELS else ""
        raise TicTacToeError(f"unknown player {player!r}: choose one of "
                             f"{', '.join(PLAYER_NAMES)}{level_hint}")
    chooser = (player_for_level(level, seed) if level is not None
               else make_player(player, seed=seed, depth=depth))
    for pos in positions_from(position, check_solvable):
        choice = play_move(pos, chooser, Limit(depth=depth, nodes=nodes,
                                               seconds=seconds or None))
        name = pos.move_name(choice.move)
        if as_json:
            print(json.dumps({"position": pos.to_string(), "move": name,
                              "score": choice.score.to_json() if choice.score else None,
                              "proven": choice.score is not None and choice.score.is_proven}))
        else:
            score = f" ({choice.score})" if choice.score is not None else ""
            if choice.score is not None and not choice.score.is_proven:  # a guess
                score = f", unproven: {side_words(choice.score, pos.turn)}"
            prefix = f"{pos.to_string()}: " if position == "-" else ""
            console.print(f"{prefix}{name}{score}", soft_wrap=True)


@app.command("arena")
@reports_errors
def arena_command(
    first: Annotated[str, typer.Argument(help="A player or level; X in odd-numbered games.")],
    second: Annotated[str, typer.Argument(help="A player or level; X in even-numbered games.")],
    variant: Annotated[str, typer.Option(help="The board, e.g. 3x3, 4x4k3.")] = "3x3",
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed; the same seed replays the same match.")]
    = 0,
    depth: Annotated[int | None, typer.Option(min=1, help="Heuristic search depth.")] = None,
    alternate: Annotated[bool, typer.Option(
        help="Alternate colours; with --no-alternate the first player is X in every game.")]
    = True,
    nodes: Annotated[int | None, typer.Option(
        min=1, help="Stop a searching player after N nodes a move (MCTS: iterations).")]
    = None,
    seconds: Annotated[float, typer.Option(
        min=0, help="Stop a searching player after S seconds a move (0: no limit); the "
                    "levels past 64 cells keep their own bounds.")] = 0.0,
    plot: Annotated[Path | None, typer.Option(help="Save a chart of the results (PNG).")]
    = None,
) -> None:
    """Play a match, alternating colours, and print wins, draws, losses and game length.

    On big boards give the searching players a limit (``--seconds 1``): the perfect player
    without one solves every position to the end.
    """
    for name in (first, second):
        make_player(name)  # unknown names fail before any game is played
    if plot is not None:
        require("plot", "ttt arena --plot")
        writable_path(plot, "the chart", ".png")
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=errors, transient=True,
                  disable=not errors.is_terminal) as bar:
        task = bar.add_task(f"{first} vs {second}", total=games)

        def advance(_: Game) -> None:
            bar.advance(task)

        try:
            match = play_match(first, second, variant=variant, games=games, seed=seed,
                               depth=depth, on_game=advance, alternate=alternate,
                               limit=Limit(nodes=nodes, seconds=seconds or None))
        except MatchInterrupted as stop:
            match = stop.match
    finished = len(match.games) == games
    if match.games:
        _print_match(match)
        if plot is not None:
            _plot_match(match, plot)
            console.print(f"chart saved to {plot}")
    if not finished:  # Ctrl-C: the games finished before it are shown above
        raise fail(f"interrupted after {len(match.games)} of {games} games", code=130)


def _print_match(match: Match) -> None:
    table = Table(title=f"{match.variant.name}: {len(match.games)} games, "
                        f"average length {match.average_length:.1f} plies")
    for column in ("player", "wins", "draws", "losses", "wins as X", "wins as O"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for s in match.standings:
        table.add_row(s.name, str(s.wins), str(s.draws), str(s.losses), str(s.wins_as_x),
                      str(s.wins_as_o))
    console.print(table)


def _plot_match(match: Match, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    names = [s.name for s in match.standings]
    wins = [s.wins for s in match.standings]
    draws = [s.draws for s in match.standings]
    losses = [s.losses for s in match.standings]
    left.bar(names, wins, label="wins", color="tab:green")
    left.bar(names, draws, bottom=wins, label="draws", color="tab:gray")
    left.bar(names, losses, bottom=[w + d for w, d in zip(wins, draws, strict=True)],
             label="losses", color="tab:red")
    left.set_ylabel("games")
    left.set_title("results")
    left.legend()
    lengths = [g.length for g in match.games]
    right.hist(lengths, bins=range(min(lengths), max(lengths) + 2), align="left",
               color="tab:blue")
    right.set_xticks(sorted(set(lengths)))
    right.set_xlabel("game length (plies)")
    right.set_ylabel("games")
    right.set_title(f"average {match.average_length:.1f} plies")
    fig.suptitle(f"{names[0]} vs {names[1]} on {match.variant.name}, {len(match.games)} games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
