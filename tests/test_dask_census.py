"""The sharded census on a real Dask LocalCluster bound to 127.0.0.1: the same figures as the
in-memory census, nothing listening beyond the loopback, a killed worker costs nothing, and
clear errors for a scheduler that cannot be reached or a Dask that is not installed."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from tictactoe import executors
from tictactoe.analysis.census import census
from tictactoe.analysis.compiled_census import census_counts
from tictactoe.analysis.sharded import sharded_census
from tictactoe.cli import app
from tictactoe.core import Variant
from tictactoe.core.errors import CensusBackendError
from tictactoe.executors import DaskCluster


def _figures(fields: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in fields.items() if k not in ("seconds", "engine")}


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskCluster]:
    with DaskCluster(2) as running:
        yield running


@pytest.mark.parametrize(("name", "shards"), [("3x3", 2), ("3x4", 4), ("4x4", 8), ("3x5", 5)])
def test_dask_agrees_with_the_memory_census(cluster: DaskCluster, tmp_path: Path, name: str,
                                            shards: int) -> None:
    v = Variant.parse(name)
    fields, run = sharded_census(v, cluster, tmp_path / "spill", shards)
    assert _figures(fields) == _figures(census_counts(v))
    assert fields["engine"] == "dask" and run.complete


def _tree(pid: int) -> list[psutil.Process]:
    me = psutil.Process(pid)
    return [me, *me.children(recursive=True)]


def test_the_local_cluster_listens_on_the_loopback_only(cluster: DaskCluster) -> None:
    listening = [c.laddr for p in _tree(psutil.Process().pid)
                 for c in p.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    assert listening, "the scheduler and the workers listen somewhere"
    assert {address.ip for address in listening} == {"127.0.0.1"}
    assert cluster.workers == 2


def test_a_worker_killed_mid_task_changes_nothing(cluster: DaskCluster, tmp_path: Path) -> None:
    v = Variant.parse("3x4")
    before = set(cluster.client.scheduler_info()["workers"])
    fault = tmp_path / "fault"
    fault.write_text("6 2")  # the task of ply 6, shard 2 kills its worker process
    fields, _ = sharded_census(v, cluster, tmp_path / "spill", 4, fault=fault)
    assert fault.with_name("fault.claimed").exists()
    assert _figures(fields) == _figures(census_counts(v))
    cluster.client.wait_for_workers(2, timeout=60)
    after = set(cluster.client.scheduler_info()["workers"])
    assert after != before, "the nanny started a new worker in place of the killed one"


def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", 1.0)
    with pytest.raises(CensusBackendError, match=r"cannot reach the Dask scheduler at "
                                                 r"tcp://127\.0\.0\.1:9"):
        census("3x3", backend="dask", address="tcp://127.0.0.1:9", spill=tmp_path)
    result = CliRunner().invoke(app, ["count", "3x3", "--backend", "dask", "--address",
                                      "tcp://127.0.0.1:9", "--spill", str(tmp_path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "cannot reach the Dask scheduler" in result.output


def test_an_address_needs_a_shared_spill_folder() -> None:
    with pytest.raises(CensusBackendError, match="--address needs --spill"):
        census("3x3", backend="dask", address="tcp://127.0.0.1:9")


def test_without_dask_the_backend_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(CensusBackendError, match=r"pip install 'tictactoe\[dask\]'"):
        census("3x3", backend="dask")
    result = CliRunner().invoke(app, ["count", "3x3", "--backend", "dask"])
    assert result.exit_code == 2 and "pip install 'tictactoe[dask]'" in result.output
    assert "the dask backend needs the package distributed, but it is not installed" \
        in result.output
    assert "Traceback" not in result.output
