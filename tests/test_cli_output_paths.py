"""A command that writes a file refuses an output path it cannot write at once, with one
``error:`` line and exit status 2, before any long work: a missing folder, a folder, a
folder that takes no new file, or a chart that is not a PNG. (These used to end in a
traceback, some after the whole search.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.extras import available

MISSING = "/nonexistent-folder/out"

CASES = [
    (["prove", "4x4k3", "--out", f"{MISSING}.txt"], "cannot write the proof: no folder"),
    (["prove", "4x4k3", "--out", "{folder}"], "cannot write the proof: {folder} is a folder"),
    (["prove", "9x9k4", "--out", f"{MISSING}.txt"], "cannot write the proof: no folder"),
    (["prove", "4x4k3", "--jobs", "{folder}/jobs", "--out", f"{MISSING}.txt"],
     "cannot write the proof: no folder"),
    (["count", "3x3", "--plot", f"{MISSING}.png"], "cannot write the chart: no folder"),
    (["count", "3x3", "--plot", "{folder}"], "cannot write the chart: {folder} is a folder"),
    (["arena", "random", "rules", "--games", "1", "--plot", f"{MISSING}.png"],
     "cannot write the chart: no folder"),
    (["arena", "random", "rules", "--games", "1", "--plot", "{folder}/chart.svg"],
     "should end in .png"),
    (["ladder", "3x3", "--games", "1", "--plot", "{folder}"],
     "cannot write the chart: {folder} is a folder"),
    # a folder that takes no new file (/proc, or read-only): refused before the work too
    (["prove", "3x3", "--out", "/proc/p.proof"], "cannot write the proof: the folder /proc"),
    (["count", "3x3", "--plot", "/proc/c.png"], "cannot write the chart: the folder /proc"),
    (["ladder", "3x3", "--games", "1", "--plot", "/proc/l.png"],
     "cannot write the chart: the folder /proc"),
]


@pytest.mark.skipif(not available("plot") or not available("fast"),
                    reason="needs the plot and fast extras")
@pytest.mark.parametrize(("args", "message"), CASES, ids=[" ".join(c[0][:2]) for c in CASES])
def test_an_output_path_that_cannot_be_written_is_refused_at_once(
        tmp_path: Path, args: list[str], message: str) -> None:
    filled = [a.replace("{folder}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(app, filled)
    assert result.exit_code == 2, result.output
    assert message.replace("{folder}", str(tmp_path)) in result.output, result.output
    assert "Traceback" not in result.output and result.output.count("error:") == 1
    assert not list(tmp_path.glob("*.part")) and not (tmp_path / "jobs").exists()


def test_the_docs_gate_counts_warnings() -> None:
    """The test command builds the docs with ``--strict`` and without ``--quiet``: with
    ``--quiet`` MkDocs drops the warnings before strict mode counts them, and a broken anchor
    passed."""
    import re

    text = (Path(__file__).resolve().parent.parent / "scripts" / "dev.py").read_text()
    step = re.search(r'\[str\(BIN / "mkdocs"\)[^\]]*\]', text)
    assert step is not None and '"--strict"' in step.group(0)
    assert '"--quiet"' not in step.group(0) and '"-q"' not in step.group(0)
