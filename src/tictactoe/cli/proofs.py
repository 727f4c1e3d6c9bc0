"""``ttt prove``: prove a value by proof-number search and write the proof; ``ttt
check-proof``: verify a proof file with the independent checker."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from tictactoe.cli.app import app
from tictactoe.cli.common import console, counted, errors, fail, reports_errors, writable_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from tictactoe.core import Position, Side
    from tictactoe.search.pn import PnValue
    from tictactoe.search.pn.proofs import Writing


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


WIDE_CELLS = 64
"""Past this many cells `ttt prove` uses the search on per-line counts
(`tictactoe.search.pn.wide`), which proves wins only."""


@app.command("prove")
@reports_errors
def prove_command(
    position: Annotated[str, typer.Argument(
        help="A variant name (its empty board, e.g. 4x4x4) or a position string.")],
    out: Annotated[Path | None, typer.Option(
        "--out", help="Write the proof here (gzip if the name ends in .gz); without it, "
                      "only the value is proven.")] = None,
    seconds: Annotated[float, typer.Option(
        min=0, help="Stop after S seconds, the writing of the proof included (0: no "
                    "limit).")] = 0,
    nodes: Annotated[int | None, typer.Option(
        min=1, help="Stop after N search nodes, those searched while writing the proof "
                    "included.")] = None,
    table_mb: Annotated[float | None, typer.Option(
        "--table-mb", min=1, help="Megabytes of each transposition table (one per "
                                    "thread). Default: room for every position that can "
                                    "follow (and with --nodes, for what N nodes can store), "
                                    "at most 1 GB.", show_default=False)] = None,
    by_replies: Annotated[bool | None, typer.Option(
        "--by-replies/--no-by-replies",
        help="Seek the side to move's win two plies down first: each reply to each move "
             "proven on its own. Default: on for an empty board of 64 cells or more (the "
             "cube), off otherwise.", show_default=False)] = None,
    threads: Annotated[int | None, typer.Option(
        min=1, help="With --by-replies: prove the replies on N threads, each with a table "
                    "of --table-mb megabytes. Default: one per core, up to 4 (1 without "
                    "--by-replies).", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")]
    = False,
    jobs: Annotated[Path | None, typer.Option(
        "--jobs", help="Prove by jobs on workers, keeping each finished job in this folder: "
                       "the same command goes on from where a stopped run left off. The "
                       "proof goes to --out, or proof.txt.gz in the folder.",
        show_default=False)] = None,
    backend: Annotated[str, typer.Option(
        help="With --jobs: run the jobs on a process pool here (local) or on a Dask cluster "
             "(dask).")] = "local",
    address: Annotated[str | None, typer.Option(
        help="With --jobs --backend dask: join the Dask scheduler at this address "
             "(tcp://host:8786) instead of starting a cluster here.")] = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help="With --jobs: worker processes of the pool or of a Dask cluster started "
                    "here (default: one per core).", show_default=False)] = None,
    job_nodes: Annotated[int, typer.Option(
        "--job-nodes", min=1000, help="With --jobs: the search nodes of one job (its proof "
                                      "fragment may search as many again); a job that "
                                      "needs more is split into its children.")]
    = 1_000_000,
    max_job_nodes: Annotated[int | None, typer.Option(
        "--max-job-nodes", min=1000, help="With --jobs: a job that its nodes do not settle "
                                          "runs again with 4 times as many, up to this, "
                                          "before it is split, from the third ply on "
                                          "(default: --job-nodes, no growth).",
        show_default=False)] = None,
    epsilon: Annotated[float | None, typer.Option(
        min=0, help="With --jobs: the jobs' df-pn thresholds grow by the factor 1 + E "
                    "(default 0.25, as every search here; 0.6 halved the nodes of (8,8,5)'s "
                    "jobs).", show_default=False)] = None,
    width: Annotated[int | None, typer.Option(
        min=0, help=f"Past {WIDE_CELLS} cells: the attacker tries its N best moves by shape "
                    "score at each node (0: every move near a mark). Default: 4; with "
                    "--jobs, the folder's (it keeps the width its jobs searched with).",
        show_default=False)] = None,
    nest: Annotated[int | None, typer.Option(
        min=1, max=4, help=f"Past {WIDE_CELLS} cells, without --jobs: how deep the "
                           "attacker's wins after a pass may lie inside each other (1: "
                           "none inside another). Default: 3; a job folder keeps its own.",
        show_default=False)] = None,
    attacker: Annotated[str | None, typer.Option(
        help=f"Past {WIDE_CELLS} cells (wins only): ask only whether this side (x or o) "
             "wins. Default: both, in turns of growing node budgets.", show_default=False)] \
        = None,
    compact: Annotated[bool, typer.Option(
        "--compact", help="With --jobs, when no run uses the folder: drop the jobs no "
                          "proof reads, write older (gzip) job files as xz, and stop.")] \
        = False,
) -> None:
    """Prove the value of a position by proof-number search, and write the proof.

    The search shows its nodes and the root's proof and disproof numbers as it runs, the
    writing its lines and the share of the tree written; both stop cleanly at the limits or
    on Ctrl-C (exit status 1 at a limit, 130 on Ctrl-C).

    A proof is written whole or not at all: a stopped writing leaves no file and says how
    far it got. The proof file is for `ttt check-proof`.

    With --jobs DIR the first plies are a master tree whose frontier positions are jobs
    with a node budget, proven on a process pool or a Dask cluster.

    Each finished job is kept in DIR, so a run stopped by a limit, Ctrl-C or a crash goes
    on from there; the proof is assembled from the jobs' fragments and checked.
    """
    entered = time.perf_counter()  # --seconds counts from here: loading the engines too
    _writable(out)  # before any search: a typo must not cost a run
    from tictactoe.core import Position, TicTacToeError
    from tictactoe.search.solution import check_solvable

    root = Position(position)
    check_solvable(root, "prove")  # it can arise in play, and it goes on
    side = _attacker(position, attacker)
    if jobs is not None:
        if by_replies or (threads is not None and threads > 1):
            raise fail("--jobs splits the search into jobs itself: it does not take "
                       "--by-replies or --threads")
        if nest is not None:
            raise fail("--nest is for the search without --jobs: a job folder keeps the "
                       "nest its jobs searched with")
        if compact:
            _compact_jobs(position, jobs, as_json=as_json, width=width)
            return
        _prove_jobs(position, jobs, out=out, backend=backend, address=address,
                    workers=workers, job_nodes=job_nodes, max_job_nodes=max_job_nodes,
                    table_mb=table_mb, seconds=seconds or None, nodes=nodes,
                    epsilon=epsilon, as_json=as_json, entered=entered, width=width,
                    attacker=side)
        return
    for name, given in (("--backend", backend != "local"), ("--address", address),
                        ("--workers", workers), ("--job-nodes", job_nodes != 1_000_000),
                        ("--max-job-nodes", max_job_nodes), ("--compact", compact),
                        ("--epsilon", epsilon is not None)):
        if given:
            raise fail(f"{name} goes with --jobs DIR (proving by jobs on workers)")
    if root.variant.cells > WIDE_CELLS:
        for flag, used in (("--by-replies", by_replies), ("--threads", threads),
                           ("--table-mb", table_mb)):
            if used:
                raise fail(f"{flag} is for boards of at most {WIDE_CELLS} cells; "
                           f"{root.variant.name} is proven by the search past them")
        _prove_wide(root, out=out, seconds=seconds or None, nodes=nodes, as_json=as_json,
                    entered=entered, width=width, nest=nest, attacker=side)
        return
    for flag, given in (("--width", width), ("--nest", nest)):
        if given is not None:
            raise fail(f"{flag} is for boards of more than {WIDE_CELLS} cells; "
                       f"{root.variant.name} is proven by df-pn over every move")
    from tictactoe.search.pn import PnSearch
    from tictactoe.search.pn.proofs import (
        ProofUnavailableError,
        ProofWritingInterrupted,
        ProofWritingStoppedError,
        prove_by_replies_in_parallel,
        prove_settings,
        table_mb_for,
        write_proof,
    )

    if table_mb is None:
        table_mb = table_mb_for(root, nodes)
    try:
        by_replies, threads = prove_settings(root, by_replies, threads)
    except ValueError:
        raise TicTacToeError("--threads works with --by-replies (the replies are proven in "
                             "parallel)") from None
    figures: dict[str, object] = {"position": root.to_string(), "replies_first": by_replies,
                                  "threads": threads, "table_mb": table_mb}
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=errors,
                  transient=True, disable=not errors.is_terminal) as bar:
        task = bar.add_task("proving", total=None)

        def progress(done: int, pn: int, dn: int, elapsed: float) -> None:
            bar.update(task, description=f"proving {root.to_string()}: {done:,} nodes, "
                                         f"root pn {_number(pn)} dn {_number(dn)}")

        def parts(done: int, total: int, nodes: int, elapsed: float) -> None:
            bar.update(task, description=f"proving {root.to_string()} by replies on "
                                         f"{threads} threads: {done}/{total} replies, "
                                         f"{nodes:,} nodes")

        def writing(state: Writing) -> None:
            text = f"writing the proof: {state.summary()}"
            if state.researched:
                text += f", {state.researched:,} positions searched again"
            bar.update(task, description=text)

        written = None
        value_on_threads = None
        if out is not None:
            try:
                written = write_proof(root, out, by_replies=by_replies, threads=threads,
                                      table_mb=table_mb, nodes=nodes, seconds=seconds or None,
                                      progress=progress, part_progress=parts,
                                      write_progress=writing)
            except ProofWritingStoppedError as err:
                _report_unwritten(figures, err.value, err.writing, err.nodes, err.seconds,
                                  as_json)
                raise fail(str(err), code=1) from None
            except ProofWritingInterrupted as err:
                _report_unwritten(figures, err.value, err.writing, None, None, as_json)
                raise fail(f"{err}; no proof file was written", code=130) from None
            except ProofUnavailableError as err:
                if as_json:  # the figures of the search a limit stopped, as without --out
                    figures.update(value="unknown", nodes=err.nodes,
                                   seconds=round(err.seconds, 3), questions=[], written=False)
                    print(json.dumps(figures))
                raise fail(str(err), code=1) from None
            figures.update(threads=written.threads, search_nodes=written.search_nodes,
                           search_seconds=round(written.search_seconds, 3),
                           lines=written.header.lines,
                           extract_seconds=round(written.extract_seconds, 3),
                           searched_again=written.researched,
                           write_nodes=written.research_nodes, file=str(out),
                           bytes=out.stat().st_size)
        elif threads > 1:  # the value only, but the replies on threads
            try:
                value_on_threads = prove_by_replies_in_parallel(
                    root, threads=threads, table_mb=table_mb, seconds=seconds or None,
                    nodes=nodes, progress=parts)
            except ProofUnavailableError as err:
                _report_stopped(figures, err.nodes, err.seconds, threads, as_json)
                raise typer.Exit(1) from None
            if value_on_threads is None:  # the first move class is refuted: one search
                figures["threads"] = 1
        if written is not None:
            value = written.value
        elif value_on_threads is not None:
            value = value_on_threads
        else:
            search = PnSearch(root.variant, table_mb=table_mb)
            if by_replies:
                first = search.prove_by_replies(root, nodes=nodes, seconds=seconds or None,
                                                progress=progress)
                figures["by_replies"] = {"outcome": first.outcome, "nodes": first.nodes,
                                         "seconds": round(first.seconds, 3)}
            value = search.value(root, nodes=nodes, seconds=seconds or None,
                                 progress=progress)
    figures.update(value=value.value, nodes=value.nodes, seconds=round(value.seconds, 3),
                   questions=[{"attacker": q.attacker, "outcome": q.outcome,
                               "nodes": q.nodes, "root_pn": q.root_pn, "root_dn": q.root_dn}
                              for q in value.questions])
    if as_json:
        print(json.dumps(figures))
    else:
        text = {"x": "X wins", "o": "O wins", "draw": "a draw"}.get(value.value)
        last = value.questions[-1]
        if text is None:
            text = (f"unproven: stopped with root pn {_number(last.root_pn)}, "
                    f"dn {_number(last.root_dn)}")
        total = figures.get("search_nodes", value.nodes)
        spent = figures.get("search_seconds", value.seconds)
        console.print(f"{root.to_string()}: {text} ({total:,} nodes, {spent:.1f} s)",
                      soft_wrap=True)
        if out is not None:
            console.print(f"proof: {out} ({figures['lines']:,} lines, "
                          f"{figures['bytes']:,} bytes); check it with "
                          f"ttt check-proof {out}", soft_wrap=True)
    if not value.proven:
        raise typer.Exit(1)


def _left(seconds: float | None, since: float) -> float | None:
    """What is left of a limit of `seconds` (None: no limit) counted from `since`; at least a
    millisecond, so that a spent limit stops the search at once rather than lifting it.

    >>> _left(None, 0.0) is None, _left(5.0, time.perf_counter() - 10) == 0.001
    (True, True)
    """
    if not seconds:
        return None
    return max(0.001, seconds - (time.perf_counter() - since))


def _attacker(position: str, attacker: str | None) -> Side | None:
    """``--attacker``: the side, refused where it has no meaning (64 cells or fewer, where
    df-pn proves the value, both sides' questions)."""
    if attacker is None:
        return None
    from tictactoe.core import Position, Side

    side = Side.parse(attacker)
    variant = Position(position).variant
    if variant.cells <= WIDE_CELLS:
        raise fail(f"--attacker is for boards of more than {WIDE_CELLS} cells, where only "
                   f"wins are proven; {variant.name} is proven for its value")
    return side


def _prove_wide(root: Position, *, out: Path | None, seconds: float | None,
                nodes: int | None, as_json: bool, entered: float | None = None,
                width: int | None = None, nest: int | None = None,
                attacker: Side | None = None) -> None:
    """``ttt prove`` past 64 cells: does the side to move win, and (on a board with marks)
    does the other side, asked in turns (`ask_in_turn`), or only does `attacker` win?; the
    proof written and checked. `seconds` counts from `entered` (default: now), the loading
    of the compiled search included; `width` and `nest` are `WidePnSearch`'s (default
    `WIDTH`, `NEST`)."""
    started = time.perf_counter() if entered is None else entered
    from tictactoe.proof import check_proof
    from tictactoe.search.pn.wide import (
        NEST,
        WIDTH,
        WidePnSearch,
        ask_in_turn,
        sides_to_ask,
    )

    _writable(out)
    chosen_width = WIDTH if width is None else width
    chosen_nest = NEST if nest is None else nest
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=errors,
                  transient=True, disable=not errors.is_terminal) as bar:
        task = bar.add_task("proving", total=None)

        def progress_of(side: Side) -> Callable[[int, int, int, float], None]:
            def progress(done: int, pn: int, dn: int, elapsed: float) -> None:
                bar.update(task, description=f"does {side.symbol.upper()} win "
                                             f"{root.to_string()}? {done:,} nodes, root pn "
                                             f"{_number(pn)} dn {_number(dn)}")
            return progress

        left = None if seconds is None else max(0.0, seconds - (time.perf_counter()
                                                                - started))
        questions, search = ask_in_turn(
            root, sides_to_ask(root, attacker),
            lambda: WidePnSearch(root.variant, width=chosen_width, nest=chosen_nest),
            nodes=nodes, seconds=left, progress=progress_of)
        # the answer reported: the proven question, else the one a limit stopped, else
        # (every search ran out of moves) the last
        result = next((q for q in questions if q.proven), None) or next(
            (q for q in questions if q.stopped not in (None, "turn")), questions[-1])
        lines = 0
        if search is not None and out is not None:
            bar.update(task, description="writing the proof")
            lines = search.write_proof(root, out, search_nodes=sum(q.nodes for q in questions))
            bar.update(task, description="checking the proof")
            check_proof(out)
    total = sum(q.nodes for q in questions)
    elapsed = time.perf_counter() - started
    value = result.attacker if result.proven else "unknown"
    if any(q.stopped == "interrupted" for q in questions):
        raise fail("interrupted; nothing was written", code=130)
    figures = {"position": root.to_string(), "value": value, "nodes": total,
               "seconds": round(elapsed, 3), "search": "past 64 cells (wins only)",
               "width": chosen_width, "nest": chosen_nest,
               "questions": [{"attacker": q.attacker, "outcome": q.outcome, "nodes": q.nodes,
                              "root_pn": q.root_pn, "root_dn": q.root_dn,
                              "stopped": q.stopped} for q in questions]}
    if out is not None and result.proven:
        figures.update(file=str(out), lines=lines, bytes=out.stat().st_size, checked=True)
    if as_json:
        print(json.dumps(figures))
    else:
        if result.proven:
            text = f"{result.attacker.upper()} wins"
        else:
            tried = _tried(chosen_width)
            why = f"stopped by the {result.stopped} limit" if result.stopped else \
                f"no win found trying {tried} (this search proves wins only)"
            text = (f"unproven: {why}, root pn {_number(result.root_pn)}, "
                    f"dn {_number(result.root_dn)}")
        console.print(f"{root.to_string()}: {text} ({total:,} nodes, {elapsed:.1f} s)",
                      soft_wrap=True)
        if out is not None and result.proven:
            console.print(f"proof: {out} ({lines:,} lines, {figures['bytes']:,} bytes), "
                          "checked: valid", soft_wrap=True)
    if not result.proven:
        raise typer.Exit(1)


def _tried(width: int) -> str:
    """The attacker's moves that the search past 64 cells tries, in words."""
    return {0: "every move near the marks", 1: "the best move near the marks"}.get(
        width, f"the {width} best moves near the marks")


def _writable(out: Path | None) -> None:
    """Refuse at once an output path that cannot be written (before a long search)."""
    writable_path(out, "the proof")


def _compact_jobs(position: str, folder: Path, *, as_json: bool,
                  width: int | None = None) -> None:
    """``ttt prove --jobs DIR --compact``: the jobs no proof reads dropped, older job files
    rewritten as xz."""
    from tictactoe.core import Position
    from tictactoe.search.pn.jobs import MANIFEST, JobFolder, drop_unused_jobs

    if not (folder / MANIFEST).is_file():
        raise fail(f"{folder} is not a job folder (it has no {MANIFEST})")
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=errors,
                  transient=True, disable=not errors.is_terminal) as bar:
        task = bar.add_task("compacting", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, description=f"compacting {folder}: {done:,} of {total:,} "
                                         "older job files")

        jobs = JobFolder(folder, Position(position), width)
        before = jobs.size()
        bar.update(task, description=f"compacting {folder}: reading its master tree")
        dropped = drop_unused_jobs(jobs)
        after = jobs.compact(progress)[1]
    if as_json:
        print(json.dumps({"folder": str(folder), "bytes_before": before,
                          "bytes_after": after, "jobs_dropped": dropped}))
    else:
        console.print(f"{folder}: {before:,} bytes before, {after:,} after; {dropped:,} "
                      "jobs dropped that no proof reads")


def _prove_jobs(position: str, folder: Path, *, out: Path | None, backend: str,
                address: str | None, workers: int | None, job_nodes: int,
                max_job_nodes: int | None, table_mb: float | None, seconds: float | None,
                nodes: int | None, as_json: bool, epsilon: float | None = None,
                entered: float | None = None, width: int | None = None,
                attacker: Side | None = None) -> None:
    """``ttt prove --jobs``: job-level proving with a live view of the jobs."""
    from tictactoe.proof import ProofError, check_proof
    from tictactoe.search.pn.jobs import Assembly, JobProgress, prove_with_jobs
    from tictactoe.search.pn.wide import WIDTH

    if backend not in ("local", "dask"):
        raise fail(f"unknown backend {backend!r}: choose local or dask")
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=errors,
                  transient=True, disable=not errors.is_terminal) as bar:
        task = bar.add_task("starting the workers", total=None)

        logged = -LOG_EVERY  # when the last log line was printed

        def show(text: str, seconds: float) -> None:
            nonlocal logged
            bar.update(task, description=text)
            if not errors.is_terminal and seconds - logged >= LOG_EVERY:
                logged = seconds  # a log of a long run: a line now and then
                errors.print(f"[{_duration(seconds)}] {text}", soft_wrap=True)

        def progress(state: JobProgress) -> None:
            left = state.estimate
            guess = "" if left is None else f", about {_duration(left)} left"
            show(f"does {state.attacker.upper()} win? jobs: {state.done:,} done "
                 f"({state.reused:,} from the folder), {state.running} running, "
                 f"{state.pending:,} pending; root pn {_number(state.root_pn)} dn "
                 f"{_number(state.root_dn)}; {state.rate:,.0f} nodes/s; "
                 f"{state.share:.1%} settled{guess}", state.seconds)

        def writing(state: Assembly) -> None:
            show(f"writing the proof: {state.summary()}", time.perf_counter() - began)

        began = time.perf_counter()
        seconds = _left(seconds, began if entered is None else entered)
        deadline = None if seconds is None else began + seconds
        try:
            run = prove_with_jobs(position, folder, backend=backend, workers=workers,
                                  address=address, job_nodes=job_nodes,
                                  max_job_nodes=max_job_nodes, table_mb=table_mb, nodes=nodes,
                                  seconds=seconds, out=out, check=False, progress=progress,
                                  epsilon=epsilon, writing=writing, width=width,
                                  attacker=attacker)
        except KeyboardInterrupt:
            raise fail(f"interrupted: the finished jobs are kept in {folder}; the same "
                       "command goes on from there", code=130) from None
        checked_to: int | None = None  # the line the time limit stopped the check at
        if run.proof is not None:

            def checking(done: int, total: int) -> None:
                nonlocal checked_to
                now = time.perf_counter()
                if deadline is not None and now > deadline:
                    checked_to = done
                    raise _CheckStopped
                show(f"checking the proof: {done:,} of {total:,} lines", now - began)

            try:
                run.check = check_proof(run.proof, progress=checking)
            except _CheckStopped:
                pass
            except ProofError as err:
                raise fail(f"{run.proof}: the assembled proof is invalid: {err}",
                           code=1) from None
    figures = run.to_json()
    if checked_to is not None:
        figures["check_stopped_at_line"] = checked_to
    if as_json:
        print(json.dumps(figures))
    else:
        text = {"x": "X wins", "o": "O wins", "draw": "a draw"}.get(run.value)
        last = run.questions[-1]
        if text is None and run.stopped is None and last.outcome == "no-win":
            # past 64 cells: the jobs found no win among the moves they try
            width = WIDTH if last.root.width is None else last.root.width
            text = (f"unproven: no win found trying {_tried(width)} (this search proves wins "
                    f"only); the finished jobs are kept in {folder}")
        elif text is None:
            why = {"seconds": "the time limit", "nodes": "the node limit"}.get(
                run.stopped or "", "a limit")
            text = (f"unproven: stopped by {why} with root pn {_number(last.root.pn)}, dn "
                    f"{_number(last.root.dn)}; the finished jobs are kept in {folder}")
        console.print(f"{run.position}: {text} ({counted(run.jobs_run, 'job')} run, "
                      f"{run.jobs_reused:,} from the folder, {counted(run.nodes, 'node')}, "
                      f"{run.seconds:.1f} s on {counted(run.workers, run.backend + ' worker')})",
                      soft_wrap=True)
        if run.unwritten is not None:
            console.print(f"proof: {run.unwritten}: the same command assembles it from "
                          f"{folder}", soft_wrap=True)
        elif run.proof is not None and run.check is None:
            console.print(f"proof: {run.proof} ({run.lines:,} lines), not checked: the time "
                          f"limit stopped the check at line {checked_to:,}; check it with "
                          f"ttt check-proof {run.proof}", soft_wrap=True)
        elif run.proof is not None:
            console.print(f"proof: {run.proof} ({run.lines:,} lines), checked: valid",
                          soft_wrap=True)
    if run.value == "unknown" or run.check is None:
        raise typer.Exit(1)


LOG_EVERY = 60.0
"""Seconds between the progress lines of ``ttt prove --jobs`` when its error stream is not a
terminal (a log file): the live view needs one."""


class _CheckStopped(Exception):
    """The time limit stopped the check of an assembled proof."""


def _duration(seconds: float) -> str:
    """
    >>> _duration(42), _duration(3700)
    ('42 s', '1 h 1 min')
    """
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"


def _report_unwritten(figures: dict[str, object], value: PnValue, writing: Writing,
                      nodes: int | None, seconds: float | None, as_json: bool) -> None:
    """With --json, print the figures of a proven value whose proof a limit or Ctrl-C
    stopped writing (the message is printed as an error)."""
    if not as_json:
        return
    figures.update(value=value.value, nodes=value.nodes, seconds=round(value.seconds, 3),
                   written=False, lines=writing.lines, share=round(writing.share, 4),
                   searched_again=writing.researched, write_nodes=writing.nodes,
                   write_seconds=round(writing.seconds, 3))
    if nodes is not None and seconds is not None:
        figures.update(total_nodes=nodes, total_seconds=round(seconds, 3))
    print(json.dumps(figures))


def _report_stopped(figures: dict[str, object], nodes: int, seconds: float, threads: int,
                    as_json: bool) -> None:
    """Print the figures of a search by replies on threads that a limit stopped (there is no
    one root with proof and disproof numbers then)."""
    figures.update(value="unknown", nodes=nodes, seconds=round(seconds, 3), questions=[])
    if as_json:
        print(json.dumps(figures))
    else:
        console.print(f"{figures['position']}: unproven: stopped by the limit, by replies on "
                      f"{threads} threads ({nodes:,} nodes, {seconds:.1f} s)", soft_wrap=True)


def _number(n: float) -> str:
    """A proof or disproof number: a job run's master tree scales them (fractions)."""
    if n >= 1 << 60:
        return "inf"
    return f"{n:,.0f}" if n >= 100 or n == int(n) else f"{n:.3g}"
