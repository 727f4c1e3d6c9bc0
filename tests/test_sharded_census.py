"""The sharded census on a real process pool agrees with the in-memory census on every
field; survives a worker killed mid-task; goes on after an interruption; and says clearly
what is wrong with a backend name or a spill folder."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from subprocesses import take_ctrl_c

from tictactoe.analysis.backends import check_backend, count_sharded
from tictactoe.analysis.census import census
from tictactoe.analysis.compiled_census import census_counts
from tictactoe.analysis.sharded import sharded_census
from tictactoe.core import BoardTooLargeError, Variant
from tictactoe.core.errors import CensusBackendError, SpillError
from tictactoe.executors import InProcess, LocalPool


def _figures(fields: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in fields.items() if k not in ("seconds", "engine")}


@pytest.fixture(scope="module")
def pool() -> Iterator[LocalPool]:
    with LocalPool(2) as running:
        yield running


@pytest.mark.parametrize(("name", "shards"), [("3x3", 1), ("3x3", 3), ("3x4", 4), ("4x4", 8),
                                              ("3x5", 5)])
def test_local_pool_agrees_with_the_memory_census(pool: LocalPool, tmp_path: Path, name: str,
                                                  shards: int) -> None:
    v = Variant.parse(name)
    fields, run = sharded_census(v, pool, tmp_path / "spill", shards)
    assert _figures(fields) == _figures(census_counts(v))
    assert run.complete and fields["engine"] == "local"
    assert len(run.workers_seen) >= 1 and run.tasks_run == shards * len(run.tallies)
    assert not list((tmp_path / "spill").glob("ply-*")), "the shards are deleted when done"


def test_counts_past_64_bits_on_the_sharded_route(tmp_path: Path) -> None:
    """Edge rows then carry their high words to disk and back: still exact."""
    v = Variant.parse("3x4")
    plain = census_counts(v)
    root = 2**64 + 12345
    fields, _ = sharded_census(v, InProcess(), tmp_path / "s", 3, root_paths=root)
    assert fields["games"] == {k: n * root for k, n in plain["games"].items()}
    assert fields["canonical_games"] == plain["canonical_games"] * root
    assert fields["by_ply"] == plain["by_ply"]


def test_a_worker_killed_mid_task_changes_nothing(pool: LocalPool, tmp_path: Path) -> None:
    v = Variant.parse("3x4")
    fault = tmp_path / "fault"
    fault.write_text("5 1")  # the task of ply 5, shard 1 kills its own process
    restarts = pool.restarts
    fields, _ = sharded_census(v, pool, tmp_path / "spill", 4, fault=fault)
    assert not fault.exists() and fault.with_name("fault.claimed").exists()
    assert pool.restarts == restarts + 1
    assert _figures(fields) == _figures(census_counts(v))


def test_a_finished_census_answers_again_from_its_spill_folder(tmp_path: Path) -> None:
    v = Variant.parse("3x3")
    first, _ = sharded_census(v, InProcess(), tmp_path / "s", 2)
    again, run = sharded_census(v, InProcess(), tmp_path / "s", 2)
    assert run.tasks_run == 0 and _figures(again) == _figures(first)


def test_a_stopped_census_goes_on_from_the_last_finished_ply(tmp_path: Path) -> None:
    v = Variant.parse("3x4")
    partial, run = sharded_census(v, InProcess(), tmp_path / "s", 3, max_ply=5)
    assert not run.complete and partial["by_ply"] == census_counts(v)["by_ply"][:6]
    assert run.resumed_from_ply is None  # a fresh folder: nothing to go on from
    full, rest = sharded_census(v, InProcess(), tmp_path / "s", 3)
    assert rest.resumed_from_ply == 6 and rest.tasks_run == 3 * (len(full["by_ply"]) - 6)
    assert _figures(full) == _figures(census_counts(v))


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_stops_and_the_same_command_goes_on(tmp_path: Path) -> None:
    spill = tmp_path / "spill"
    command = [sys.executable, "-c", "from tictactoe.cli import main; main()", "count", "3x5",
               "--backend", "local", "--workers", "2", "--shards", "4", "--spill", str(spill),
               "--json"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, preexec_fn=take_ctrl_c) as process:
        try:
            deadline = time.monotonic() + 120
            while not (spill / "ply-07" / "complete.json").exists():
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline
                time.sleep(0.05)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=30)
        finally:
            process.kill()
    assert process.returncode == 130, err
    assert f"--spill {spill}" in err and "Traceback" not in err
    assert not (spill / "result.json").exists()
    result = census("3x5", backend="local", workers=2, spill=spill, shards=4)
    resumed = result.extra["resumed_from_ply"]
    assert resumed is not None and resumed >= 8
    assert result.figures() == census("3x5").figures()


# --------------------------------------------------------------------------- errors
def test_bad_backend_names_are_clear_errors() -> None:
    with pytest.raises(CensusBackendError, match="unknown backend 'spark': choose one of"):
        check_backend("spark")
    with pytest.raises(CensusBackendError, match="unknown backend"):
        census("3x3", backend="spark")
    with pytest.raises(CensusBackendError, match="--address names a Dask scheduler"):
        census("3x3", backend="local", address="tcp://127.0.0.1:8786")


def test_a_spill_folder_that_is_a_file_is_refused(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(SpillError, match="is not a folder"):
        sharded_census(Variant.parse("3x3"), InProcess(), afile, 2)
    with pytest.raises(SpillError, match="cannot write to the spill folder"):
        sharded_census(Variant.parse("3x3"), InProcess(), afile / "below", 2)


def test_a_spill_folder_holding_another_census_is_refused(tmp_path: Path) -> None:
    sharded_census(Variant.parse("3x3"), InProcess(), tmp_path / "s", 2)
    with pytest.raises(SpillError, match="holds a census of 3x3 in 2 shards"):
        sharded_census(Variant.parse("3x4"), InProcess(), tmp_path / "s", 2)


def test_a_full_disk_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer of edge files fails as on a full disk (ENOSPC) from ply 4 on."""
    real_save = np.save
    calls = {"n": 0}

    def save(handle: object, array: np.ndarray) -> None:
        calls["n"] += 1
        if calls["n"] > 12:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_save(handle, array)  # type: ignore[arg-type]

    monkeypatch.setattr(np, "save", save)
    with pytest.raises(SpillError, match=r"is full .no space left on device.*run the same"):
        sharded_census(Variant.parse("3x3"), InProcess(), tmp_path / "s", 2)


def test_a_real_full_file_system_is_a_clear_error(tmp_path: Path) -> None:
    """A 256 KB tmpfs, where the system lets us mount one (as root on Linux)."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        with pytest.raises(SpillError, match="is full"):
            sharded_census(Variant.parse("3x4"), InProcess(), mount / "s", 2)
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_boards_that_do_not_fit_are_refused_with_the_estimate(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tictactoe.analysis import estimate

    monkeypatch.setattr(estimate, "free_disk", lambda folder: 10**10)
    with pytest.raises(SpillError, match=r"5x5k4 needs about .* TB of disk.*needs a cluster"):
        count_sharded(Variant.parse("5x5k4"), "local", spill=tmp_path / "s")
    monkeypatch.setattr(estimate, "available_memory", lambda: 8 * 10**9)
    with pytest.raises(BoardTooLargeError, match=r"would need about .* GB of memory"):
        census("5x5k4", backend="memory")
    with pytest.raises(BoardTooLargeError, match="at most 32"):
        census("6x6k4", backend="local")


def test_the_stored_result_keeps_exact_counts(tmp_path: Path) -> None:
    sharded_census(Variant.parse("3x3"), InProcess(), tmp_path / "s", 2, root_paths=3**50)
    stored = json.loads((tmp_path / "s" / "result.json").read_text())
    assert int(stored["games"]["x"]) == 131184 * 3**50
