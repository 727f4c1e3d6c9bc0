"""Job-level proving (``ttt prove --jobs``): the same value as the plain search and a proof
the checker accepts; a run interrupted or stopped by a limit goes on from its job folder
without running a finished job again; a worker killed mid-job (on the pool, and on a Dask
LocalCluster bound to 127.0.0.1) costs only its job; a folder of another run is refused."""

from __future__ import annotations

import gzip
import json
import lzma
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core import Position, Side, TicTacToeError
from tictactoe.executors import DaskCluster, InProcess, LocalPool
from tictactoe.proof import check_proof
from tictactoe.search.pn import game_value
from tictactoe.search.pn.jobs import (
    FOCUS,
    GROWTH_PLY,
    JOB_MODULES,
    Assembly,
    JobFolder,
    JobFolderError,
    JobProgress,
    JobResult,
    JobSpec,
    Node,
    _combine,
    _Driver,
    _expand,
    _select,
    _share,
    _update,
    classes,
    decode_fragment,
    prove_job,
    prove_with_jobs,
    unused_jobs,
)

BOARD = "4x7k4"
"""A draw whose plain search takes about 47,000 nodes: with jobs of 10,000 nodes, several
jobs, some of them split."""
JOB_NODES = 10_000


@pytest.fixture(scope="module")
def pool() -> Iterator[LocalPool]:
    with LocalPool(2, preload=JOB_MODULES) \
            as running:
        yield running


def test_jobs_agree_with_the_plain_search_and_the_proof_checks(pool: LocalPool,
                                                               tmp_path: Path) -> None:
    run = prove_with_jobs(BOARD, tmp_path / "jobs", backend=pool, job_nodes=JOB_NODES,
                          table_mb=16)
    assert run.value == game_value(BOARD, table_mb=64).value == "draw"
    assert run.jobs_run >= 7 and run.stopped is None
    assert run.proof == tmp_path / "jobs" / "proof.txt.gz"
    assert run.check is not None and check_proof(run.proof).value == "draw"
    # a win: one section, read off the first question's tree
    win = prove_with_jobs("6x5k4", tmp_path / "win", backend=pool, job_nodes=1_000,
                          table_mb=16, out=tmp_path / "win.txt.gz")
    assert win.value == "x" == game_value("6x5k4", table_mb=16).value
    assert check_proof(tmp_path / "win.txt.gz").value == "x"


def _saved_by(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the positions of the jobs the driver keeps from now on."""
    saved: list[str] = []
    keep = JobFolder.save

    def save(self: JobFolder, result: JobResult) -> None:
        saved.append(f"{result.attacker} {result.position}")
        keep(self, result)

    monkeypatch.setattr(JobFolder, "save", save)
    return saved


def test_an_interrupted_run_goes_on_without_running_a_finished_job_again(
        pool: LocalPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "jobs"
    first = _saved_by(monkeypatch)

    def interrupt(state: JobProgress) -> None:
        if state.done >= 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        prove_with_jobs(BOARD, folder, backend=pool, job_nodes=JOB_NODES, table_mb=16,
                        progress=interrupt)
    assert len(first) >= 4 and not (folder / "proof.txt.gz").exists()
    done = set(first)
    first.clear()
    states: list[JobProgress] = []
    run = prove_with_jobs(BOARD, folder, backend=pool, job_nodes=JOB_NODES, table_mb=16,
                          progress=states.append)
    assert run.value == "draw" and run.check is not None
    assert run.jobs_reused >= len(done)
    assert not done & set(first), "a job finished before the interruption ran again"
    # the estimate's pace leaves out what the folder had settled before this run
    started = [s for s in states if s.start_seconds > 0]
    assert started and started[0].start_share > 0
    assert all(s.share >= s.start_share for s in started)


@pytest.fixture(scope="module")
def one_worker() -> Iterator[LocalPool]:
    """One worker: jobs finish in the order they start, so two runs compare exactly."""
    with LocalPool(1, preload=JOB_MODULES) \
            as running:
        yield running


def test_a_job_its_budget_stops_runs_again_with_more_nodes_before_it_is_split(
        one_worker: LocalPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --max-job-nodes, a job that its nodes do not settle runs again with four times
    as many (its file then records the larger budget); a run with growth splits fewer
    positions into jobs than one without, gives the same value and a proof that checks;
    and a second run that allows more growth goes on from the folder."""
    grown = tmp_path / "grown"
    budgets: list[tuple[str, int, str]] = []
    keep = JobFolder.save

    def save(self: JobFolder, result: JobResult) -> None:
        budgets.append((result.position, result.budget, result.outcome))
        keep(self, result)

    monkeypatch.setattr(JobFolder, "save", save)
    # tables of their own sizes: a worker keeps its table between runs of the same size
    run = prove_with_jobs(BOARD, grown, backend=one_worker, job_nodes=2_000, max_job_nodes=32_000,
                          table_mb=11)
    assert run.value == "draw" and run.check is not None and run.check.value == "draw"
    by_position: dict[str, list[int]] = {}
    for position, budget, _ in budgets:
        by_position.setdefault(position, []).append(budget)
    regrown = [b for b in by_position.values() if len(b) > 1]
    assert regrown and all(b == sorted(b) and b[1] == 4 * b[0] for b in regrown)
    assert max(budget for _, budget, _ in budgets) > 2_000
    # the first moves and their replies are split at the first budget (`GROWTH_PLY`)
    assert all(Position(job).ply >= GROWTH_PLY for job, budget, _ in budgets
               if budget > 2_000)
    assert any(Position(job).ply < GROWTH_PLY and outcome == "unknown"
               for job, _, outcome in budgets)
    budgets.clear()
    plain = prove_with_jobs(BOARD, tmp_path / "plain", backend=one_worker, job_nodes=2_000,
                            table_mb=10)
    assert plain.value == "draw"
    assert len(by_position) < plain.jobs_run  # fewer positions became jobs
    # the folder of a run without growth, gone on with growth: its jobs are split as
    # before (the folder's tree is kept), and no finished job runs again (a job the
    # first run cancelled when its root was proven may run now)
    finished = {position for position, _, _ in budgets}
    budgets.clear()
    more = prove_with_jobs(BOARD, tmp_path / "plain", backend=one_worker, job_nodes=2_000,
                           max_job_nodes=8_000, table_mb=9)
    assert more.value == "draw" and more.check is not None and more.jobs_reused > 0
    assert not finished & {position for position, _, _ in budgets}
    with pytest.raises(TicTacToeError, match="must be at least"):
        prove_with_jobs(BOARD, tmp_path / "bad", backend=one_worker, job_nodes=5_000,
                        max_job_nodes=2_000)


def test_a_node_limit_stops_the_run_and_the_next_run_finishes(
        pool: LocalPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "jobs"
    saved = _saved_by(monkeypatch)
    # tables of their own (the workers keep one per variant and size between jobs), so
    # that no earlier test's proven positions shorten this run: it takes about 40,000 nodes
    stopped = prove_with_jobs(BOARD, folder, backend=pool, job_nodes=JOB_NODES, table_mb=12,
                              nodes=20_000)
    assert stopped.value == "unknown" and stopped.stopped == "nodes"
    assert stopped.nodes <= 20_000 and stopped.proof is None
    done = set(saved)
    saved.clear()
    run = prove_with_jobs(BOARD, folder, backend=pool, job_nodes=JOB_NODES, table_mb=16)
    assert run.value == "draw" and run.check is not None
    assert not done & set(saved)


def test_a_worker_killed_mid_job_on_the_pool_costs_only_its_job(pool: LocalPool,
                                                                tmp_path: Path) -> None:
    fault = tmp_path / "fault"
    fault.write_text("kill")
    before = pool.restarts
    run = prove_with_jobs("5x4k4", tmp_path / "jobs", backend=pool, job_nodes=1_000,
                          table_mb=16, fault=fault)
    assert fault.with_name("fault.claimed").exists() and pool.restarts > before
    assert run.value == "draw" and run.check is not None


def test_a_worker_killed_mid_job_on_dask_costs_only_its_job(tmp_path: Path) -> None:
    fault = tmp_path / "fault"
    fault.write_text("kill")
    with DaskCluster(2) as cluster:  # a LocalCluster on 127.0.0.1
        assert cluster.cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        before = set(cluster.client.scheduler_info()["workers"])
        run = prove_with_jobs("5x4k4", tmp_path / "jobs", backend=cluster, job_nodes=1_000,
                              table_mb=16, fault=fault)
        assert fault.with_name("fault.claimed").exists()
        cluster.client.wait_for_workers(2, timeout=60)
        after = set(cluster.client.scheduler_info()["workers"])
    assert after != before, "the nanny started a new worker in place of the killed one"
    assert run.value == "draw" and run.check is not None and run.check.value == "draw"


def test_a_folder_of_another_run_is_refused(tmp_path: Path) -> None:
    JobFolder(tmp_path / "jobs", position=Position("4x4k3"))
    with pytest.raises(JobFolderError, match=r"holds the jobs of 4x4k3 .* not of 5x5k4"):
        JobFolder(tmp_path / "jobs", position=Position("5x5k4"))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(JobFolderError, match="not a job folder"):
        JobFolder(tmp_path / "other", position=Position("5x5k4"))
    result = CliRunner().invoke(app, ["prove", "5x5k4", "--jobs", str(tmp_path / "jobs")])
    assert result.exit_code == 2 and "holds the jobs of 4x4k3" in result.output


def test_the_job_options_need_jobs() -> None:
    result = CliRunner().invoke(app, ["prove", "3x3", "--workers", "2"])
    assert result.exit_code == 2 and "--workers goes with --jobs DIR" in result.output
    result = CliRunner().invoke(app, ["prove", "3x3", "--jobs", "x", "--by-replies"])
    assert result.exit_code == 2 and "does not take --by-replies" in result.output
    result = CliRunner().invoke(app, ["prove", "3x3", "--epsilon", "0.6"])
    assert result.exit_code == 2 and "--epsilon goes with --jobs DIR" in result.output


def test_the_jobs_search_with_the_epsilon_they_are_given(tmp_path: Path) -> None:
    """`epsilon` reaches each job's df-pn search (its threshold factor), and the value and
    the proof do not depend on it; an epsilon out of range is refused before any job."""
    from tictactoe.search.pn import jobs
    from tictactoe.search.pn.driver import OPTIONS

    wide = prove_with_jobs(BOARD, tmp_path / "wide", backend=InProcess(),
                           job_nodes=JOB_NODES, table_mb=16, epsilon=0.6)
    (search,) = jobs._SEARCHES.values()
    assert search.misc[OPTIONS["epsilon"]] == 1638
    plain = prove_with_jobs(BOARD, tmp_path / "plain", backend=InProcess(),
                            job_nodes=JOB_NODES, table_mb=16)
    (search,) = jobs._SEARCHES.values()
    assert search.misc[OPTIONS["epsilon"]] == 1280
    assert wide.value == plain.value == "draw"
    assert wide.check is not None and plain.check is not None
    assert wide.nodes != plain.nodes  # the two searches differ
    for bad in (0.0, 4.5):
        with pytest.raises(TicTacToeError, match="epsilon must be more than 0 and at most 4"):
            prove_with_jobs(BOARD, tmp_path / f"bad{bad}", backend=InProcess(), epsilon=bad)
        assert not (tmp_path / f"bad{bad}").exists()
    result = CliRunner().invoke(app, ["prove", "3x3", "--jobs", str(tmp_path / "cli"),
                                      "--epsilon", "0"])
    assert result.exit_code == 2 and "epsilon must be more than 0" in result.output


def test_ttt_prove_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The figures as JSON on stdout; with stderr not a terminal (a log), progress lines
    there instead of the live view (one a minute, here every time)."""
    monkeypatch.setattr("tictactoe.cli.proofs.LOG_EVERY", 0.0)
    folder = tmp_path / "jobs"
    args = ["prove", "4x4k3", "--jobs", str(folder), "--workers", "1", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["value"] == "x" and figures["checked"] and figures["jobs_reused"] == 0
    assert "] does X win? jobs: " in result.stderr and "settled" in result.stderr
    again = json.loads(CliRunner().invoke(app, args).stdout)
    assert again["value"] == "x" and again["jobs_run"] == 0 and again["jobs_reused"] > 0
    text = CliRunner().invoke(app, args[:-1]).stdout
    assert "X wins (0 jobs run, " in text and " on 1 local worker)" in text
    stopped = CliRunner().invoke(app, ["prove", BOARD, "--jobs", str(tmp_path / "timed"),
                                       "--workers", "1", "--job-nodes", "10000",
                                       "--seconds", "0.5"])
    assert stopped.exit_code == 1, stopped.output
    assert "unproven: stopped by the time limit" in stopped.output


def test_the_time_limit_bounds_the_assembly_and_the_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A value proven by the folder's jobs whose assembly the time limit stops writes no
    proof and says how far it got; the next run writes it (its progress heard, to the last
    fragment). In ``ttt prove``, a check the limit stops is reported as not checked."""
    folder = tmp_path / "jobs"
    proof = folder / "proof.txt.gz"
    assert prove_with_jobs(BOARD, folder, backend=InProcess(), job_nodes=JOB_NODES,
                           table_mb=16).check is not None
    proof.unlink()
    stopped = prove_with_jobs(BOARD, folder, backend=InProcess(), seconds=1e-9)
    assert stopped.value == "draw" and stopped.jobs_run == 0 and stopped.proof is None
    assert stopped.stopped == "seconds" and stopped.unwritten is not None
    assert stopped.unwritten.assembly.jobs < stopped.unwritten.assembly.total
    assert not proof.exists() and not list(folder.glob(".*tmp"))
    args = ["prove", BOARD, "--jobs", str(folder), "--workers", "1"]
    result = CliRunner().invoke(app, [*args, "--seconds", "1e-9", "--json"])
    assert result.exit_code == 1, result.output
    figures = json.loads(result.stdout)
    assert figures["value"] == "draw" and not figures["written"]
    assert figures["unwritten"]["jobs_in_all"] > 0 and not proof.exists()
    heard: list[Assembly] = []
    written = prove_with_jobs(BOARD, folder, backend=InProcess(), writing=heard.append)
    assert written.check is not None and written.jobs_run == 0
    assert heard[-1].jobs == heard[-1].total == stopped.unwritten.assembly.total
    assert heard[-1].lines == written.lines

    def slow_check(source: Path, **options: object) -> None:
        time.sleep(1.5)  # past the limit of 1 s
        progress = options["progress"]
        assert callable(progress)
        progress(4096, 10_000)
        raise AssertionError("the check went on past the time limit")

    monkeypatch.setattr("tictactoe.proof.check_proof", slow_check)
    result = CliRunner().invoke(app, [*args, "--seconds", "1"])
    assert result.exit_code == 1, result.output
    assert "not checked: the time limit stopped the check at line 4,096" in result.output


def test_an_older_gzip_folder_is_read_and_compacted(pool: LocalPool, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer puts each pairing's pairs in order. A folder of gzip job files (the
    layout before xz, pairs in any order) is gone on without running a finished job
    again; ``--compact`` rewrites it as xz with each pairing's pairs in order, smaller, and
    the proof assembled from it still checks."""
    folder = tmp_path / "jobs"
    position = Position(BOARD)
    first = prove_with_jobs(BOARD, folder, backend=pool, job_nodes=JOB_NODES, table_mb=16)
    assert first.value == "draw"
    pairings = 0
    for new in (folder / "done").glob("*.xz"):  # as an older version wrote them
        head = lzma.LZMADecompressor()
        meta = head.decompress(new.read_bytes())
        body = lzma.decompress(head.unused_data) if head.unused_data else b""
        lines = []
        for line in body.split(b"\n") if body else []:
            if line.startswith(b"P "):
                cells = line.split()[1:]
                written = [tuple(map(int, cells[i:i + 2])) for i in range(0, len(cells), 2)]
                assert written == sorted(written) and all(a < b for a, b in written)
                pairs = [cells[i:i + 2][::-1] for i in range(0, len(cells), 2)][::-1]
                line = b" ".join([b"P", *(c for pair in pairs for c in pair)])
                pairings += 1
            lines.append(line)
        new.with_suffix(".gz").write_bytes(gzip.compress(meta + b"\n".join(lines)))
        new.unlink()
    assert pairings > 0
    (folder / "proof.txt.gz").unlink()
    saved = _saved_by(monkeypatch)
    older = prove_with_jobs(BOARD, folder, backend=pool, job_nodes=JOB_NODES, table_mb=16)
    assert older.value == "draw" and older.check is not None and saved == []
    stray = JobResult("x2x3/7/7/o1o1x2 o", "x", "no-win", 10, 0.1, 1, 1, 10_000)  # unreached
    stray_file = JobFolder(folder, position)._file(stray.position, "x", ".gz")
    stray_file.write_bytes(gzip.compress(json.dumps(stray.meta()).encode() + b"\n"))
    files = JobFolder(folder, position).count()
    result = CliRunner().invoke(app, ["prove", BOARD, "--jobs", str(folder), "--compact",
                                      "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["bytes_after"] < figures["bytes_before"]
    # compact() keeps each job again but those no proof reads (a job the first run's
    # second worker finished beside the one that settled its parent)
    kept = files - figures["jobs_dropped"]
    assert len(saved) == kept and kept > 0 and not stray_file.exists()
    saved.clear()
    assert not list((folder / "done").glob("*.gz"))
    assert JobFolder(folder, position).count() == kept
    for path in (folder / "done").glob("*.xz"):
        meta = json.loads(lzma.LZMADecompressor().decompress(path.read_bytes()))
        result_ = JobFolder(folder, position).load(meta["position"], meta["attacker"])
        assert result_ is not None
        for kind, nodes, *_ in decode_fragment(result_.fragment):
            if kind == "P":
                ordered = [nodes[i:i + 2] for i in range(0, len(nodes), 2)]
                assert ordered == sorted(ordered) and all(a < b for a, b in ordered)
    (folder / "proof.txt.gz").unlink()
    again = prove_with_jobs(BOARD, folder, backend=pool, job_nodes=JOB_NODES, table_mb=16)
    assert again.value == "draw" and again.check is not None and saved == []
    assert check_proof(folder / "proof.txt.gz").value == "draw"


def test_compact_drops_the_jobs_no_proof_reads(tmp_path: Path) -> None:
    """Below a settled position where its prover moves, the proof takes one move: the
    other moves' jobs (here several of O's replies to X d2, each proven a hold, as a run
    that tried one reply and then another leaves them) are dropped by ``--compact``, and so
    is a job no tree reaches. The folder then gives the same value and a proof that checks
    without running a job."""
    folder = tmp_path / "jobs"
    jobs = JobFolder(folder, Position(BOARD))
    node, replies, _ = _defender_to_move()
    after = node.position.to_string()
    jobs.save(JobResult(after, "x", "unknown", 1_000, 0.1, 2, 3, 1_000))  # it was split
    holds = []
    for reply in replies:
        job = prove_job(JobSpec(reply.position.to_string(), "x", 400_000, table_mb=16))
        if job.outcome == "no-win":
            jobs.save(job)
            holds.append(reply.position.to_string())
    assert len(holds) >= 3
    stray = replies[0].position.play(replies[0].position.legal_moves()[0])
    jobs.save(JobResult(stray.to_string(), "x", "unknown", 1_000, 0.1, 2, 3, 1_000))
    first = prove_with_jobs(BOARD, folder, backend=InProcess(), job_nodes=JOB_NODES,
                            table_mb=16)
    assert first.value == "draw" and first.check is not None
    expected = {jobs._file(text, "x") for text in holds[1:]} | {
        jobs._file(stray.to_string(), "x")}
    assert set(unused_jobs(jobs)) == expected
    files = jobs.count()
    result = CliRunner().invoke(app, ["prove", BOARD, "--jobs", str(folder), "--compact",
                                      "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["jobs_dropped"] == len(expected)
    assert figures["bytes_after"] < figures["bytes_before"]
    assert jobs.count() == files - len(expected) and unused_jobs(jobs) == []
    (folder / "proof.txt.gz").unlink()
    again = prove_with_jobs(BOARD, folder, backend=InProcess(), job_nodes=JOB_NODES,
                            table_mb=16)
    assert again.value == "draw" and again.jobs_run == 0
    assert check_proof(folder / "proof.txt.gz").value == "draw"


def test_a_damaged_job_file_is_reported(tmp_path: Path) -> None:
    folder = JobFolder(tmp_path / "jobs", Position("4x4k3"))
    result = JobResult("8/8 x", "x", "unknown", 5, 0.1, 1, 1, 10)
    folder.save(result)
    (path,) = (tmp_path / "jobs" / "done").glob("*.xz")
    path.write_bytes(path.read_bytes()[:10])
    with pytest.raises(JobFolderError, match="cannot read the job file"):
        folder.load("8/8 x", "x")


def _defender_to_move() -> tuple[Node, list[Node], Side]:
    """The master tree's node after X d2 on `BOARD` (O to move), expanded: (it, O's replies,
    the attacker)."""
    attacker = Side.X
    after = Position(BOARD).play(Position(BOARD).variant.parse_cell("d2"))
    node = Node(after, None, attacker)
    _expand(node, attacker)
    assert node.children is not None
    return node, node.children, attacker


def _two_split_replies() -> tuple[Node, Node, Node, Side]:
    """`_defender_to_move` with its first two replies split: (the node, them, the
    attacker)."""
    node, replies, attacker = _defender_to_move()
    first, second = replies[:2]
    for reply in (first, second):
        _expand(reply, attacker)
        assert reply.children is not None and len(reply.children) > 8
    return node, first, second, attacker


def test_the_master_tree_goes_on_with_a_split_reply_before_trying_every_other() -> None:
    """After the defender's reply r0 is split and all but two of its children are settled,
    the next job is one of those two, not a reply never tried: an open leaf counts its
    moves (up to symmetry) for the side that needs them all, as df-pn does."""
    node, replies, attacker = _defender_to_move()
    assert len(replies) > 2
    reply = replies[0]
    _expand(reply, attacker)
    assert reply.children is not None and len(reply.children) > 2
    for child in reply.children[2:]:
        child.outcome = "no-win"
    _update(node, attacker)
    fresh = replies[1]
    assert fresh.children is None and fresh.dn == len(classes(fresh.position)) > 2
    assert reply.dn == 2
    chosen = _select(node, attacker, {})
    assert chosen in reply.children[:2]


def test_the_master_tree_stays_with_the_reply_it_chose_while_it_is_near_the_best() -> None:
    """Two split replies of the defender with the same open count: a job settled under the
    other one does not pull the next job over (both would be worked through, where one
    refutation is enough), until the chosen one is clearly the worse (`FOCUS`)."""
    node, first, second, attacker = _two_split_replies()
    assert first.children is not None and second.children is not None
    _update(node, attacker)
    assert first.dn == second.dn
    assert _select(node, attacker, {}) in first.children
    second.children[0].outcome = "no-win"
    _update(node, attacker)
    assert second.dn < first.dn
    assert _select(node, attacker, {}) in first.children  # stays
    for child in second.children[1:len(second.children) // 2]:
        child.outcome = "no-win"
    _update(node, attacker)
    assert first.dn > second.dn * FOCUS + 1
    assert _select(node, attacker, {}) in second.children  # far worse: it moves over


def test_a_run_takes_all_the_folder_knows_before_it_runs_a_job(tmp_path: Path) -> None:
    """The folder's jobs are taken into the master tree before any job is chosen: with the
    first job the tree would choose missing, a run that can start no job (`nodes=1`) still
    takes every other first move's job from the folder."""
    folder = tmp_path / "jobs"
    first = prove_with_jobs(BOARD, folder, backend=InProcess(), job_nodes=JOB_NODES,
                            table_mb=16)
    assert first.value == "draw"
    position = Position(BOARD)
    root = Node(position, None, Side.X)
    _expand(root, Side.X)
    _update(root, Side.X)
    chosen = _select(root, Side.X, {})
    assert chosen is not None and root.children is not None
    jobs = JobFolder(folder, position)
    jobs._file(chosen.position.to_string(), "x").unlink()
    again = prove_with_jobs(BOARD, folder, backend=InProcess(), job_nodes=JOB_NODES,
                            table_mb=16, nodes=1)
    assert again.value == "unknown" and again.stopped == "nodes" and again.jobs_run == 0
    assert again.jobs_reused >= len(root.children) - 1


def test_a_split_job_keeps_its_numbers_until_its_children_settle() -> None:
    """Splitting a job where the defender moves does not by itself change the numbers (as
    a leaf its disproof number is 1; its children, each counting the attacker's moves,
    would make it dozens): the reply above it keeps its number, and the master tree stays
    with the reply it chose. What its children's jobs settle lowers it."""
    node, first, second, attacker = _two_split_replies()
    assert first.children is not None and second.children is not None
    for child in first.children[-3:]:  # fewer open third moves: the tree's choice
        child.outcome = "no-win"
    _update(node, attacker)
    assert _select(node, attacker, {}) in first.children
    before = first.dn
    hard = first.children[0]
    _expand(hard, attacker)  # a third move its job did not settle
    assert hard.children is not None
    _update(node, attacker)
    assert first.dn == pytest.approx(before) and hard.dn == pytest.approx(1)
    assert _combine(hard, attacker)[1] == _least_count(hard) > 1  # unscaled: dozens on 8x8
    chosen = _select(node, attacker, {})
    assert chosen is not None and chosen in hard.children  # it goes on below it
    # half the attacker's moves below the defender's first answer refuted: half a job left
    answer = chosen
    _expand(answer, attacker)
    assert answer.children is not None
    half = len(answer.children) // 2
    for child in answer.children[:half]:
        child.outcome = "no-win"
    _update(node, attacker)
    left = 1 - half / len(answer.children)
    assert hard.dn == pytest.approx(left * len(answer.children) / _least_count(hard))
    assert first.dn == pytest.approx(before - 1 + hard.dn)


def _least_count(node: Node) -> int:
    """The fewest moves (up to symmetry) of `node`'s children."""
    assert node.children is not None
    return min(len(classes(child.position)) for child in node.children)


def test_a_job_split_by_a_run_with_fewer_nodes_grows_again(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """A job an older run split at a smaller largest budget, none of whose children has a
    job, runs again with `JOB_GROWTH` times the nodes before it is split; one whose
    children have jobs stays split as before. The first moves and their replies never
    grow (`GROWTH_PLY`): a run with growth splits a first move as the older run did."""
    position = Position(BOARD)
    line = [position]
    for _ in range(GROWTH_PLY + 1):
        line.append(line[-1].play(classes(line[-1])[0]))
    first, reply, deep, child = (line[ply].to_string() for ply in range(1, GROWTH_PLY + 2))

    def unknown(job: str, regrow: int = 0) -> JobResult:
        return JobResult(job, "x", "unknown", 2_000, 0.1, 5, 5, 2_000, regrow=regrow)

    def driver(folder: Path, *jobs: str) -> _Driver:
        found = JobFolder(folder, position)
        for job in jobs:
            found.save(unknown(job))
        return _Driver(found, InProcess(), job_nodes=2_000, max_job_nodes=8_000,
                       table_mb=16, nodes=None, seconds=None, progress=None, fault=None)

    # each alone in its folder: none of its children has a job
    grows = [driver(tmp_path / str(ply), job)._regrow(unknown(job))
             for ply, job in enumerate((first, reply, deep))]
    assert grows == [0, 0, 8_000]
    # a job the run that stopped it said to grow: as it said, from the third ply on
    alone = driver(tmp_path / "alone")
    assert alone._regrow(unknown(deep, regrow=32_000)) == 8_000
    assert alone._regrow(unknown(reply, regrow=8_000)) == 0
    assert driver(tmp_path / "split", deep, child)._regrow(unknown(deep)) == 0

    # end to end: the older run's first move is split, not run again
    folder = tmp_path / "run"
    JobFolder(folder, position).save(unknown(first))
    saved: list[tuple[str, int]] = []
    keep = JobFolder.save

    def save(self: JobFolder, result: JobResult) -> None:
        saved.append((result.position, result.budget))
        keep(self, result)

    monkeypatch.setattr(JobFolder, "save", save)
    done = prove_with_jobs(BOARD, folder, backend=InProcess(), job_nodes=2_000,
                           max_job_nodes=8_000, table_mb=16)
    assert done.value == "draw" and done.check is not None
    assert first not in {job for job, _ in saved}
    below = {Position(first).play(move).to_string() for move in classes(Position(first))}
    assert below & {job for job, _ in saved}


def test_a_second_worker_stays_below_the_reply_that_is_clearly_the_best() -> None:
    """A path with a running job weighs more (`FOCUS` times its number, plus one), but not
    so much that a second worker leaves a reply with far fewer of the attacker's moves left
    to refute: the next job is another of those moves, not a second reply (moot if the
    first reply holds)."""
    node, replies, attacker = _defender_to_move()
    first, second = replies[:2]
    _expand(first, attacker)
    assert first.children is not None and len(first.children) > 8
    for child in first.children[len(first.children) // 2:]:
        child.outcome = "no-win"
    _update(node, attacker)
    assert first.dn * FOCUS + 1 < second.dn
    assert _select(node, attacker, {}) is first.children[0]
    first.children[0].running = True
    chosen = _select(node, attacker, {})
    assert chosen is not None and chosen in first.children[1:] and chosen is not second


def test_a_second_worker_goes_beside_a_running_job_between_near_tied_replies() -> None:
    """Two split replies of the defender, near tied: one worker stays with the reply it
    chose last (`FOCUS`), but with its job running there the second worker takes the
    other reply (as on (9,4,4) it takes X's other first move where O refutes the first)
    instead of working through the rest of a reply that may be moot."""
    node, first, second, attacker = _two_split_replies()
    assert first.children is not None and second.children is not None
    second.children[0].outcome = "no-win"  # second is a little ahead
    _update(node, attacker)
    assert second.dn < first.dn <= second.dn * FOCUS + 1
    node.focus = first
    running = _select(node, attacker, {})
    assert running in first.children  # stays with the reply chosen last
    running.running = True
    assert _select(node, attacker, {}) in second.children
    running.running = False  # with no job below it, the reply chosen last stays
    node.focus = first
    assert _select(node, attacker, {}) in first.children


def test_the_share_settled_counts_one_refutation_where_one_is_enough() -> None:
    """Where the defender moves, one settled reply settles the node (toward the
    attacker's defeat); where the attacker moves, every child counts alike."""
    attacker = Side.X
    root = Node(Position(BOARD), None, attacker)
    _expand(root, attacker)
    assert root.children is not None
    first = root.children[0]
    _expand(first, attacker)
    assert first.children is not None and len(first.children) > 2
    assert _share(root, attacker) == 0.0
    first.children[1].outcome = "no-win"  # one refutation of the first move
    assert _share(first, attacker) == 1.0
    assert _share(root, attacker) == pytest.approx(1 / len(root.children))
    first.children[1].outcome = "win"  # toward a win the defender's replies all count
    assert _share(first, attacker) == pytest.approx(1 / len(first.children))
    assert _share(root, attacker) == _share(first, attacker)


def test_a_job_run_again_replaces_its_older_gzip_file(tmp_path: Path) -> None:
    """A job of an older folder run again (with more nodes) is saved as xz and its gzip
    file removed; a stale gzip file beside a newer xz one is dropped by ``compact``, not
    written over the newer result."""
    folder = JobFolder(tmp_path / "jobs", Position("4x4k3"))
    older = JobResult("8/8 x", "x", "unknown", 10, 0.1, 1, 1, 10, regrow=40)
    gz = tmp_path / "jobs" / "done" / f"{folder._file('8/8 x', 'x').stem}.gz"
    gz.write_bytes(gzip.compress(json.dumps(older.meta()).encode() + b"\n"))
    loaded = folder.load("8/8 x", "x")
    assert loaded is not None and loaded.budget == 10
    folder.save(JobResult("8/8 x", "x", "unknown", 40, 0.4, 1, 1, 40))
    assert not gz.exists()
    gz.write_bytes(gzip.compress(json.dumps(older.meta()).encode() + b"\n"))
    folder.compact()
    again = folder.load("8/8 x", "x")
    assert not gz.exists() and again is not None and again.budget == 40


def test_a_job_reached_by_two_move_orders_is_taken_from_the_folder_once(
        tmp_path: Path) -> None:
    """X a, O r, X b and X b, O r, X a are one position: one job in the folder, counted
    once among the jobs taken from it, though the master tree meets it twice."""
    root = Position(BOARD)
    first, second = classes(root)[0], classes(root)[1]
    reply = next(r for r in classes(root.play(first))
                 if r in classes(root.play(second)) and r not in (first, second)
                 and second in classes(root.play(first).play(r))
                 and first in classes(root.play(second).play(r)))
    third = root.play(first).play(reply).play(second).to_string()
    assert third == root.play(second).play(reply).play(first).to_string()
    split = [root.play(first).to_string(), root.play(first).play(reply).to_string(),
             root.play(second).to_string(), root.play(second).play(reply).to_string(), third]
    jobs = JobFolder(tmp_path / "jobs", root)
    for position in split:
        jobs.save(JobResult(position, "x", "unknown", 2_000, 0.1, 5, 5, 2_000))
    seen: list[JobProgress] = []

    def stop(state: JobProgress) -> None:
        seen.append(state)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        prove_with_jobs(BOARD, tmp_path / "jobs", backend=InProcess(), job_nodes=2_000,
                        table_mb=16, progress=stop)
    assert seen[0].reused == len(split)


def test_a_job_whose_writing_overruns_on_a_warm_table_is_tried_on_a_cleared_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's table kept from earlier jobs can settle a position through a large
    subtree whose writing overruns the job's nodes: the job is then searched and written
    once more on a cleared table, its nodes counted in all. On a cold table, or when the
    second try overruns too, the job is given up (cut) as before."""
    from tictactoe.search.pn import PnSearch, jobs, proofs

    overruns = [0]
    clears = [0]
    writers = {name: getattr(proofs._Extractor, name)
               for name in ("prover_node", "opponent_node")}

    def overrunning(name: str) -> object:
        def node(self: proofs._Extractor, *args: object) -> None:
            if overruns[0] > 0:
                overruns[0] -= 1
                self.limits.halt("nodes")
                raise proofs._Stop("nodes")
            writers[name](self, *args)
        return node

    for name in writers:
        monkeypatch.setattr(proofs._Extractor, name, overrunning(name))
    clear = PnSearch.clear

    def counted(self: PnSearch) -> None:
        clears[0] += 1
        clear(self)

    monkeypatch.setattr(PnSearch, "clear", counted)
    spec = JobSpec("x2/1o1/3 x", "x", 5_000, table_mb=1)
    jobs._SEARCHES.clear()
    overruns[0] = 1
    cold = prove_job(spec)  # the first job of this worker: nothing to clear
    assert cold.outcome == "unknown" and cold.cut and clears[0] == 0
    warm = prove_job(spec)  # after a job: the table is warm
    assert warm.outcome == "no-win" and not warm.cut and clears[0] == 0
    overruns[0] = 1
    again = prove_job(spec)
    assert again.outcome == "no-win" and not again.cut and clears[0] == 1
    assert decode_fragment(again.fragment) == decode_fragment(warm.fragment)
    overruns[0] = 2
    given_up = prove_job(spec)
    assert given_up.outcome == "unknown" and given_up.cut and clears[0] == 2
