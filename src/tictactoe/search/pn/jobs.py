"""Job-level proving: the game value of a position by proof-number search split into jobs, on
a process pool or a Dask cluster (the executors of `tictactoe.executors`, which the sharded
census runs on too), with a checkable proof.

The driver keeps a *master tree* of the first plies for each question ("does X win?", then
if not "does O win?", as `PnSearch.value` asks them) and proof and disproof numbers on it.
Its frontier positions are *jobs*: each is proven by the df-pn kernels within a node budget
(`prove_job`), and a proven job reads its part of the proof (a *fragment*: the subtree of
the strategy, in the proof format's node lines) off its table. A job that its budget stops
is expanded: its children (one per class under the symmetries that keep the position)
become jobs in turn. The most-proving frontier positions run, as many at once as there are
workers.

Every finished job is written to the job folder (`JobFolder`), one small xz file each, as
soon as it comes back; a run stopped by Ctrl-C, a limit, a crash or a dead worker goes on,
when started again with the same folder, from the jobs it had finished: the master tree is
grown again the same way, and a job found in the folder is not run again. The proof is
assembled from the master tree and the fragments, and checked by `tictactoe.proof`.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     run = prove_with_jobs("4x4k3", folder, backend=InProcess())
...     run.value, run.check.value if run.check else None
('x', 'x')
"""

from __future__ import annotations

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "job-level proving")

import contextlib
import gzip
import hashlib
import json
import lzma
import os
import signal
import time
import uuid
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from tictactoe.core import Position, Side
from tictactoe.core.errors import CensusBackendError, TicTacToeError
from tictactoe.executors import DaskCluster, Executor, InProcess, LocalPool, open_executor
from tictactoe.proof import CheckStats, check_proof
from tictactoe.proof.format import ProofWriter, format_node
from tictactoe.proof.threats import board_of, cells_of, stabiliser

FORMAT = 1
"""Version of the job folder's layout."""

XZ_MAGIC = b"\xfd7zXZ\x00"
"""The first bytes of an xz stream (a gzip one starts ``1f 8b``)."""

MANIFEST = "jobs.json"
"""The file that says what a job folder proves."""

FRAGMENT_PRESET = 6 | lzma.PRESET_EXTREME
"""How hard a job's fragment is compressed (xz), in its worker. With the pairs of each
pairing in order, it takes a (8,8,5) fragment to about half the bytes of gzip -9 (the
format of folders written before; they are still read)."""

DEFAULT_JOB_NODES = 1_000_000
"""Nodes of one job's search unless told (its writing may search as many again)."""

DEFAULT_JOB_TABLE_MB = 256.0
"""Most megabytes of a worker's table unless told."""

JOB_GROWTH = 4
"""A job that its budget stops is run again with this many times the nodes, up to the
run's largest budget (`max_job_nodes`), before it is split."""

GROWTH_PLY = 3
"""Jobs this many plies below the folder's position, or deeper, grow (`JOB_GROWTH`); the
first moves and their replies are split at the first budget. On (8,8,5) the first moves
are far past one job; of 10 replies grown to 16 million nodes 2 settled, and each of the
other 8 lost about 700 s of CPU; third moves grown to 4 million settled where 1 million
split them into about 60 jobs each."""

FOCUS = 1.25
"""A node of the master tree stays with the child it chose last while that child's number
(the one the node minimises) is at most this many times the best child's, plus one, as
df-pn's 1+epsilon keeps a search in its child. Without it, two replies of the defender with
the same count of open third moves took turns: each settled job made the other look
cheaper, and both were worked through to the end where one was enough.

The same margin keeps a second worker beside a running job (`_select`): a child with a
job running below it is chosen for another only while its number, times `FOCUS` plus one,
is still the best. (Parallel df-pn's virtual proof and disproof numbers make a busy path
dearer in the same way.)"""

MIN_JOB_NODES = 1_000
"""A job is not started with fewer nodes than this (the run's node limit is near)."""

GRACE_SECONDS = 10.0
"""At the time limit, how long running jobs (which stop themselves) are waited for."""

POLL_SECONDS = 0.05
"""How often the driver looks at its running jobs."""

INF = 1 << 60
"""Proof and disproof numbers of a solved node (the kernels' infinity)."""

NARROW_CELLS = 64
"""Boards of at most this many cells are proven by the 64-bit df-pn (wins, holds and
draws); larger ones by the search on per-line counts, which proves wins only."""

JOB_MODULES = ("tictactoe.search.pn.jobs", "tictactoe.search.pn.proofs")
"""What a local pool's workers import before their first job."""


class JobFolderError(TicTacToeError):
    """A job folder cannot be used: not a folder, another run's, or unreadable."""


# --------------------------------------------------------------------------- one job
@dataclass(frozen=True)
class JobSpec:
    """One job, as sent to a worker: does `attacker` win `position`, within `nodes` (the
    search; its writing as many again) and `seconds`."""

    position: str
    attacker: str
    nodes: int
    seconds: float | None = None
    table_mb: float = DEFAULT_JOB_TABLE_MB
    fault: str | None = None
    """Fault injection for the tests: a file that the first job to see it claims (renames
    to ``.claimed``); that job then kills its own process after its search."""
    epsilon: float | None = None
    """df-pn's threshold factor 1 + `epsilon` (`epsilon_setting`); None: the default."""
    width: int | None = None
    """Past 64 cells: the attacker's moves tried at each node (`WidePnSearch`'s `width`);
    None: the default."""
    nest: int | None = None
    """Past 64 cells: how deep pass subtrees may nest (`WidePnSearch`'s `nest`); None: the
    default."""
    passed: bool = False
    """Past 64 cells: the job is the pass subtree of a quiet defender's node `position`
    (does the attacker win if the defender passes?)."""


@dataclass(frozen=True)
class JobResult:
    """A finished job: the outcome (``win``, ``no-win`` or ``unknown``), its figures, and a
    proven job's fragment (its node lines, ``= n`` counted from the fragment's first line,
    compressed: xz, or gzip in a folder written before). `cut` means the run's limits
    stopped it before its own budget did (it is not kept: a later run starts it again)."""

    position: str
    attacker: str
    outcome: str
    nodes: int
    seconds: float
    root_pn: int
    root_dn: int
    budget: int
    cut: bool = False
    lines: int = 0
    fragment: bytes = field(default=b"", repr=False)
    worker: int = 0
    regrow: int = 0
    """For an ``unknown`` job: the nodes it runs again with (0: it is split instead)."""
    passed: bool = False
    """The job is a pass subtree (`JobSpec.passed`)."""

    def meta(self) -> dict[str, Any]:
        """The fields but the fragment (the first line of the job's file), and `passed`
        only for a pass subtree (other jobs' files read as before it was kept)."""
        data = asdict(self)
        del data["fragment"]
        if not self.passed:
            del data["passed"]
        return data


_SEARCHES: dict[tuple[str, float, float | None, int | None, int | None], Any] = {}
"""Each worker process's searches, kept between jobs (by variant, table size, epsilon,
width and nest)."""


def prove_job(spec: JobSpec) -> JobResult:
    """Run one job in this process: the df-pn search, then, if it proved or disproved the
    win, the fragment read off its table.

    The worker keeps its table from job to job (a split job's children go to the worker
    that searched it). If that table held earlier jobs and the writing runs out of the
    job's nodes, the job is tried once more on a cleared table before it is given up: on
    (8,8,5) a warm table can settle a position at once through an earlier job's large
    subtree, whose writing then overruns, where a cold search finds a small proof.

    >>> r = prove_job(JobSpec("xx1/oo1/3 x", "x", 1000, table_mb=1))
    >>> r.outcome, decode_fragment(r.fragment)[0].cells
    ('win', (2,))
    """
    from tictactoe.search.pn import PnSearch
    from tictactoe.search.pn.driver import epsilon_setting

    started = time.perf_counter()
    position = Position(spec.position)
    key = (position.variant.name, spec.table_mb, spec.epsilon, spec.width, spec.nest)
    search = _SEARCHES.get(key)
    warm = search is not None  # its table holds an earlier job's search
    if search is None:
        _SEARCHES.clear()  # one table per worker
        if position.variant.cells > NARROW_CELLS:
            from tictactoe.search.pn.wide import EPSILON, NEST, WIDTH, WidePnSearch

            search = WidePnSearch(position.variant, epsilon=spec.epsilon or EPSILON,
                                  width=WIDTH if spec.width is None else spec.width,
                                  nest=NEST if spec.nest is None else spec.nest)
        else:
            options = {} if spec.epsilon is None else \
                {"epsilon": epsilon_setting(spec.epsilon)}
            search = PnSearch(position.variant, table_mb=spec.table_mb, **options)
        _SEARCHES[key] = search
    if position.variant.cells > NARROW_CELLS:
        return _attempt_wide(spec, position, search, started)
    if spec.passed:
        raise ValueError(f"pass subtrees are for boards of more than {NARROW_CELLS} cells")
    result, stop = _attempt(spec, position, search, started, spent=0)
    if stop == "nodes" and warm:
        search.clear()
        result, stop = _attempt(spec, position, search, started, spent=result.nodes)
    return result


def _attempt(spec: JobSpec, position: Position, search: Any, started: float, spent: int
             ) -> tuple[JobResult, str | None]:
    """One search and writing of a job on `search`'s table, and why its writing stopped
    (``nodes``, ``seconds`` or None); `spent`: the nodes of an earlier attempt, counted
    in the figures."""
    from tictactoe.search.pn.proofs import _Extractor, _Limits, _Recorded, _Stop

    attacker = Side.parse(spec.attacker)
    seconds = spec.seconds
    if seconds is not None:
        seconds = max(0.0, seconds - (time.perf_counter() - started))
    result = search.prove(position, attacker=attacker, nodes=spec.nodes, seconds=seconds)
    if spec.fault is not None:
        _maybe_fail(Path(spec.fault))
    elapsed = time.perf_counter() - started

    def unknown(nodes: int, cut: bool) -> JobResult:
        return JobResult(spec.position, spec.attacker, "unknown", spent + nodes,
                         time.perf_counter() - started, result.root_pn, result.root_dn,
                         spec.nodes, cut=cut, worker=os.getpid())

    if result.outcome == "unknown":
        # the job's own budget, or the run's deadline (then it is not kept)
        cut = result.nodes < spec.nodes
        return unknown(result.nodes, cut), None
    win = result.outcome == "win"
    prover = attacker if win else attacker.other
    recorded = _Recorded()
    deadline = None if spec.seconds is None else started + spec.seconds
    limits = _Limits(deadline, spec.nodes)
    extractor = _Extractor(search, recorded, limits)
    limits.spent = extractor.live_nodes
    mine, theirs = position.marks(prover), position.marks(prover.other)
    try:
        if position.turn is prover:
            extractor.prover_node(mine, theirs, win, {})
        else:
            extractor.opponent_node(mine, theirs, win, {})
    except _Stop:
        return unknown(result.nodes + extractor.research_nodes, True), limits.reason
    text = "\n".join(format_node(kind, cells, target, cover)
                     for kind, cells, target, cover in recorded.nodes).encode("ascii")
    return JobResult(spec.position, spec.attacker, result.outcome,
                     spent + result.nodes + extractor.research_nodes,
                     elapsed + extractor.state().seconds, result.root_pn, result.root_dn,
                     spec.nodes, lines=len(recorded.nodes),
                     fragment=lzma.compress(text, preset=FRAGMENT_PRESET),
                     worker=os.getpid()), None


def _attempt_wide(spec: JobSpec, position: Position, search: Any, started: float
                  ) -> JobResult:
    """A job past 64 cells (`tictactoe.search.pn.wide`, which proves wins only): a win
    with its fragment, or ``unknown``."""
    seconds = spec.seconds
    result = search.prove(position, attacker=Side.parse(spec.attacker), nodes=spec.nodes,
                          seconds=seconds, passed=spec.passed)
    if spec.fault is not None:
        _maybe_fail(Path(spec.fault))
    if result.outcome != "win":
        return JobResult(spec.position, spec.attacker, "unknown", result.nodes,
                         time.perf_counter() - started, result.root_pn, result.root_dn,
                         spec.nodes, cut=result.stopped not in (None, "nodes"),
                         worker=os.getpid(), passed=spec.passed)
    lines = search.fragment(position, passed=spec.passed)
    return JobResult(spec.position, spec.attacker, "win", result.nodes,
                     time.perf_counter() - started, result.root_pn, result.root_dn,
                     spec.nodes, lines=len(lines),
                     fragment=lzma.compress("\n".join(lines).encode("ascii"),
                                            preset=FRAGMENT_PRESET),
                     worker=os.getpid(), passed=spec.passed)


def _maybe_fail(fault: Path) -> None:
    try:
        fault.rename(fault.with_name(fault.name + ".claimed"))
    except OSError:
        return  # another job claimed it, or there is none
    os.kill(os.getpid(), signal.SIGKILL)


def unpack(data: bytes) -> bytes:
    """Compressed bytes, xz or gzip (by their first bytes), unpacked.

    >>> unpack(lzma.compress(b"F 7")), unpack(gzip.compress(b"F 7"))
    (b'F 7', b'F 7')
    """
    if data.startswith(XZ_MAGIC):
        return lzma.decompress(data)
    return gzip.decompress(data)


def ordered_pairs(line: bytes) -> bytes:
    """A node line with a pairing's pairs in order (each pair's cells too), as
    `ProofWriter.pairing` now writes them; other lines as they are.

    >>> ordered_pairs(b"P 9 2 0 5"), ordered_pairs(b"M 4")
    (b'P 0 5 2 9', b'M 4')
    """
    if not line.startswith(b"P "):
        return line
    cells = [int(c) for c in line.split()[1:]]
    pairs = sorted(tuple(sorted(cells[i:i + 2])) for i in range(0, len(cells), 2))
    return b"P " + b" ".join(b"%d %d" % pair for pair in pairs)


class FragmentNode(NamedTuple):
    """One node line of a fragment."""

    kind: str
    cells: tuple[int, ...] = ()
    target: int = 0
    """The line of ``= n``, counted from the fragment's first line."""
    cover: tuple[int, ...] = ()
    """An ``R`` node's zone cover (``Z``)."""
    replay: tuple[int, ...] = ()
    """An ``R`` node's replay (``V``)."""
    passed: bool = False
    """An ``R`` node with a pass subtree (``Y``)."""


def decode_fragment(data: bytes) -> list[FragmentNode]:
    """A fragment's nodes, with targets counted from its first line.

    >>> [tuple(n) for n in decode_fragment(lzma.compress(b"M 4\\nR 2 0 1\\n= 0\\nR 1 2 Z 5 6"))]
    [('M', (4,), 0, (), (), False), ('R', (0, 1), 0, (), (), False), \
('=', (), 0, (), (), False), ('R', (2,), 0, (5, 6), (), False)]
    >>> decode_fragment(lzma.compress(b"R 0 V 9\\nR 1 3 Y"))[1]
    FragmentNode(kind='R', cells=(3,), target=0, cover=(), replay=(), passed=True)
    """
    nodes: list[FragmentNode] = []
    text = unpack(data).decode("ascii")
    for line in text.split("\n") if text else []:
        kind, *tokens = line.split(" ")
        if kind == "=":
            nodes.append(FragmentNode("=", (), int(tokens[0])))
        elif kind == "R":
            count = int(tokens[0])
            replies = tuple(int(t) for t in tokens[1:count + 1])
            marker = tokens[count + 1] if len(tokens) > count + 1 else ""
            rest = tuple(int(t) for t in tokens[count + 2:])
            nodes.append(FragmentNode("R", replies, 0, rest if marker == "Z" else (),
                                      rest if marker == "V" else (), marker == "Y"))
        else:
            nodes.append(FragmentNode(kind, tuple(int(t) for t in tokens)))
    return nodes


# --------------------------------------------------------------------------- the folder
class JobFolder:
    """The job folder: ``jobs.json`` (what is proven), ``done/`` (one xz file per finished
    job: a JSON line of its figures, then its fragment; older folders have gzip files, still
    read), and ``proof.txt.gz`` once proven.

    Every file is written beside its name and renamed into place, so a run killed at any
    moment leaves only whole files.

    Past 64 cells the manifest also keeps the `width` its jobs search with (the attacker's
    moves at each node, which the master tree's moves follow too); a run that asks for
    another width is refused. None asks for the folder's own (the default for a new one).
    It keeps their `nest` too (how deep pass subtrees may nest: the default for a new
    folder, 1 for one from before it was kept), and whether its master tree gives a quiet
    defender's node a pass subtree (`passes`: yes for a new folder, no for one from before
    it could)."""

    def __init__(self, path: Path | str, position: Position, width: int | None = None) -> None:
        self.path = Path(path)
        self.position = position
        self.done = self.path / "done"
        self.width: int | None = None
        """Past 64 cells, the width of the folder's jobs; None on smaller boards."""
        self.nest: int | None = None
        """Past 64 cells, how deep its jobs' pass subtrees may nest; None on smaller boards."""
        self.passes = False
        """Past 64 cells, whether a quiet defender's node of the master tree is split into
        a pass subtree first, then only the replies in its zone."""
        self._claim(width)

    def _claim(self, width: int | None) -> None:
        path = self.path
        if path.exists() and not path.is_dir():
            raise JobFolderError(f"the job folder {path} is a file, not a folder")
        manifest = path / MANIFEST
        wanted: dict[str, Any] = {"format": FORMAT, "kind": "tictactoe-jobs",
                                  "variant": self.position.variant.name,
                                  "position": self.position.to_string()}
        wide = self.position.variant.cells > NARROW_CELLS
        if wide:
            from tictactoe.search.pn.wide import NEST, WIDTH

            wanted["width"] = WIDTH if width is None else width
            wanted["nest"] = NEST
            wanted["passes"] = True
        elif width is not None:
            raise JobFolderError(f"the width is for boards of more than {NARROW_CELLS} cells; "
                                 f"{self.position.variant.name} is proven by df-pn over every "
                                 "move")
        if manifest.exists():
            try:
                found = json.loads(manifest.read_text())
            except (OSError, ValueError) as err:
                raise JobFolderError(f"cannot read {manifest}: {err}") from None
            if not isinstance(found, dict) or found.get("kind") != "tictactoe-jobs":
                raise JobFolderError(f"{manifest} is not a job folder's manifest")
            if found.get("format") != FORMAT:
                raise JobFolderError(f"the job folder {path} has layout version "
                                     f"{found.get('format')!r}; this version reads {FORMAT}")
            if found.get("position") != wanted["position"]:
                raise JobFolderError(
                    f"the job folder {path} holds the jobs of {found.get('variant')} "
                    f"(position {found.get('position')!r}), not of "
                    f"{self.position.variant.name} (position {wanted['position']!r}): "
                    "choose another folder")
            if wide:
                # a folder from before the width was kept searched with the default
                held = found.get("width", WIDTH)
                if width is not None and held != width:
                    raise JobFolderError(
                        f"the job folder {path} holds jobs searched with width {held}, not "
                        f"{width}: leave --width out to go on with {held}, or choose "
                        "another folder")
                self.width = held
                # and without nested pass subtrees, before their depth was kept
                self.nest = found.get("nest", 1)
                # and with every quiet reply in the master tree, before its pass subtrees
                self.passes = bool(found.get("passes", False))
        else:
            if path.is_dir() and any(path.iterdir()):
                raise JobFolderError(f"{path} is not empty and has no {MANIFEST}: it is not a "
                                     "job folder; choose a new or empty folder")
            try:
                path.mkdir(parents=True, exist_ok=True)
                _write_atomic(manifest, json.dumps(wanted).encode())
            except OSError as err:
                raise JobFolderError(f"cannot write to the job folder {path}: "
                                     f"{err.strerror or err}") from None
            self.width = wanted.get("width")
            self.nest = wanted.get("nest")
            self.passes = wide
        self.done.mkdir(exist_ok=True)

    def _file(self, position: str, attacker: str, suffix: str = ".xz", passed: bool = False
              ) -> Path:
        digest = hashlib.sha1(position.encode()).hexdigest()[:20]
        return self.done / f"{attacker}{'p' if passed else ''}-{digest}{suffix}"

    def save(self, result: JobResult) -> None:
        """Keep a finished job (not one the run's limits cut): two xz streams, its figures
        (a JSON line) and its fragment as the worker compressed it."""
        head = lzma.compress(json.dumps(result.meta()).encode() + b"\n", preset=1)
        _write_atomic(self._file(result.position, result.attacker, passed=result.passed),
                      head + result.fragment)
        if not result.passed:
            # an older gzip file of the same job (a job run again with more nodes) is stale
            self._file(result.position, result.attacker, ".gz").unlink(missing_ok=True)

    def has(self, position: str, attacker: str) -> bool:
        """Whether a run finished the job (without reading it)."""
        return self._file(position, attacker).exists() or \
            self._file(position, attacker, ".gz").exists()

    def load(self, position: str, attacker: str, passed: bool = False) -> JobResult | None:
        """The job's result if a run finished it, else None; `passed`: the job of the
        position's pass subtree."""
        path = self._file(position, attacker, passed=passed)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            if passed:
                return None
            path = self._file(position, attacker, ".gz")  # a folder written before
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                return None
        try:
            if data.startswith(XZ_MAGIC):
                reader = lzma.LZMADecompressor()
                head, fragment = reader.decompress(data), reader.unused_data
                if not reader.eof:
                    raise EOFError("the file ends inside its first stream")
            else:
                head, _, body = gzip.decompress(data).partition(b"\n")
                fragment = gzip.compress(body, 1, mtime=0) if body else b""
            meta = json.loads(head)
        except (OSError, EOFError, lzma.LZMAError, ValueError) as err:
            raise JobFolderError(f"cannot read the job file {path}: {err}; delete it to "
                                 "run that job again") from None
        if meta.get("position") != position or meta.get("attacker") != attacker or \
                meta.get("passed", False) != passed:
            raise JobFolderError(f"the job file {path} is for another job")
        return JobResult(**meta, fragment=fragment)

    def count(self) -> int:
        """Finished jobs in the folder."""
        return sum(1 for p in self.done.iterdir() if p.suffix in (".xz", ".gz"))

    def compact(self, progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        """Write the folder's older gzip files as xz, the pairs of each pairing in order
        (as the writer now puts them); the folder's bytes before and after. `progress`
        hears (files done, files in all)."""
        before = self.size()
        older = sorted(self.done.glob("*.gz"))
        for done, old in enumerate(older):
            if progress is not None:
                progress(done, len(older))
            if old.with_suffix(".xz").exists():  # stale: the job ran again since
                old.unlink()
                continue
            head, _, body = gzip.decompress(old.read_bytes()).partition(b"\n")
            meta = json.loads(head)
            lines = [ordered_pairs(line) for line in body.split(b"\n")] if body else []
            fragment = lzma.compress(b"\n".join(lines), preset=FRAGMENT_PRESET) \
                if body else b""
            self.save(JobResult(**meta, fragment=fragment))  # removes the gzip file
        return before, self.size()

    def size(self) -> int:
        """Bytes of the folder's files."""
        return sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# --------------------------------------------------------------------------- master tree
def classes(position: Position) -> list[int]:
    """The empty cells, one per class under the symmetries that keep the position, most
    lines through the cell first (then by index).

    >>> classes(Position("3x3"))
    [4, 0, 1]
    """
    board = board_of(position.variant)
    x, o = position.marks(Side.X), position.marks(Side.O)
    symmetric = stabiliser(board, x, o)
    covered = 0
    out = []
    for c in sorted(cells_of(board.full & ~(x | o)), key=lambda c: (-len(board.through[c]), c)):
        if covered >> c & 1:
            continue
        out.append(c)
        for perm in symmetric:
            covered |= 1 << perm[c]
    return out


class Node:
    """A position of the master tree, for one question (`attacker` wins?): an OR node where
    the attacker moves, an AND node where the defender does."""

    __slots__ = ("_moves", "attacker", "budget", "children", "dn", "dn_scale", "focus", "hint",
                 "move", "outcome", "owner", "passed", "passes", "pn", "pn_scale",
                 "position", "replay", "running", "terminal", "width")

    def __init__(self, position: Position, move: int | None, attacker: Side,
                 width: int | None = None, passes: bool = False,
                 owner: Node | None = None) -> None:
        self.position = position
        self.width = width
        """Past 64 cells: the attacker's moves at each node (`WidePnSearch`'s `width`;
        None: its default)."""
        self.passes = passes
        """Past 64 cells: a quiet defender's node is split into its pass subtree first
        (`JobFolder.passes`)."""
        self.owner = owner
        """For a pass subtree (a leaf, one job: the attacker moves though `position` has the
        defender to move), the defender's node it belongs to; else None."""
        self.passed = owner is not None
        self.move = move
        self.children: list[Node] | None = None
        self.running = False
        self.hint = -1
        """The worker that ran the parent's job (its table holds this position's search
        so far), or -1."""
        self.focus: Node | None = None
        """The child chosen last (`_select` stays with it within `FOCUS`)."""
        self.budget = 0
        """The nodes of this position's job, once one is started."""
        self.outcome = "unknown"
        """``win``/``no-win`` once solved; a leaf solved by a job has its fragment saved."""
        self._moves: list[int] | None = None
        self.attacker = attacker
        self.replay: tuple[int, ...] = ()
        """Past 64 cells, at the defender's turn: the attacker's fours after a pass that
        cover the replies not in `moves` (the proof's ``V``)."""
        self.terminal = not self.passed and position.is_game_over()
        if self.terminal:
            self.outcome = "win" if position.winner() is attacker else "no-win"
        self.pn, self.dn = _numbers(self.outcome)
        self.pn_scale = self.dn_scale = 1.0
        """Once split, what the children's numbers are multiplied by (`_expand`)."""

    @property
    def solved(self) -> bool:
        return self.outcome != "unknown"

    @property
    def awaiting_pass(self) -> bool:
        """Whether this quiet defender's node has only its pass subtree as a child, not yet
        settled: then its zone's replies (if won) or all of them become children."""
        return self.children is not None and len(self.children) == 1 and \
            self.children[0].passed and not self.children[0].solved

    @property
    def attacker_moves(self) -> bool:
        """Whether the attacker moves here (an OR node): its turn, or a pass subtree."""
        return self.passed or self.position.turn is self.attacker

    @property
    def moves(self) -> list[int]:
        """The side to move's moves, one per class under the symmetries that keep the
        position (`classes`), worked out once: for an open leaf's numbers, then its
        children."""
        if self._moves is None:
            if self.position.variant.cells > NARROW_CELLS:
                self._moves, self.replay = _wide_search(
                    self.position.variant, self.width).moves(self.position, self.attacker)
            else:
                self._moves = classes(self.position)
        return self._moves


def _wide_search(variant: Any, width: int | None) -> Any:
    """The driver's search past 64 cells, for its master tree's children (one at a time)."""
    from tictactoe.search.pn.wide import WIDTH, WidePnSearch

    key = (variant.name, width)
    search = _MASTER_SEARCH.get(key)
    if search is None:
        _MASTER_SEARCH.clear()
        search = _MASTER_SEARCH[key] = WidePnSearch(
            variant, width=WIDTH if width is None else width)
    return search


_MASTER_SEARCH: dict[tuple[str, int | None], Any] = {}


def _wide(position: Position) -> bool:
    """Whether `position` is proven by the search past 64 cells (wins only)."""
    return position.variant.cells > NARROW_CELLS


def _exhausted(result: JobResult) -> bool:
    """Whether a job past 64 cells found no win among the moves its search tries (its
    root disproven, not stopped by a limit): splitting it or giving it more nodes would
    try the same moves again."""
    return result.outcome == "unknown" and not result.cut and result.root_dn == 0 and \
        _wide(Position(result.position))


def _numbers(outcome: str) -> tuple[float, float]:
    return {"win": (0, INF), "no-win": (INF, 0)}.get(outcome, (1, 1))


PASS_SHORT = 3
"""A quiet defender's node of the master tree is split into its pass subtree first only
where the attacker has at least k minus this many marks, so that with its move after the
pass it can hold k - 2 on a line (a three, on k=5). With fewer, the pass subtree is nearly
the game itself: on 15x15, X's win with two moves in a row from its first mark was not
won by jobs of 1,000,000 nodes, and a single search of it had its proof number past 10,000
after 2,000,000 nodes and rising."""

def _open_leaf_numbers(node: Node, attacker: Side) -> tuple[float, float]:
    """An open leaf's proof and disproof numbers: 1 for the side that needs one move, and
    the count of moves (up to symmetry) for the side that needs them all, as df-pn counts
    an unexpanded node (its ``and_pn``). With 1 and 1, a defender's node whose best reply
    was split (its disproof number the sum of its children's) always lost to a sibling
    reply never tried, so every reply was tried, each as a job of the largest budget,
    before any went deeper; counted by moves, a split reply whose children are mostly
    settled is gone on with."""
    if node.passed:
        return 1, 1
    count = max(1, len(node.moves))
    return (1, count) if node.attacker_moves else (count, 1)


@dataclass
class Question:
    """One question's master tree and its figures."""

    attacker: Side
    root: Node
    jobs_run: int = 0
    nodes: int = 0
    seconds: float = 0.0
    outcomes: dict[str, int] = field(default_factory=dict)
    """How many jobs ended in each outcome."""
    reused: set[str] = field(default_factory=set, repr=False)
    """The positions of the jobs taken from the folder: a job reached by two move orders
    is one job."""

    @property
    def jobs_reused(self) -> int:
        return len(self.reused)

    @property
    def outcome(self) -> str:
        return self.root.outcome


def _update(node: Node, attacker: Side) -> None:
    """Outcomes and proof and disproof numbers of a subtree, bottom up."""
    if node.children is None:
        if node.solved:
            node.pn, node.dn = _numbers(node.outcome)
        else:
            node.pn, node.dn = _open_leaf_numbers(node, attacker)
        return
    for child in node.children:
        _update(child, attacker)
    outcomes = [c.outcome for c in node.children]
    good, bad = ("win", "no-win") if node.attacker_moves else ("no-win", "win")
    if good in outcomes:
        node.outcome = good
    elif all(o == bad for o in outcomes):
        node.outcome = bad
    else:
        node.outcome = "unknown"
    if node.solved:
        node.pn, node.dn = _numbers(node.outcome)
        return
    pn, dn = _combine(node, attacker)
    node.pn, node.dn = min(INF, pn * node.pn_scale), min(INF, dn * node.dn_scale)


def _combine(node: Node, attacker: Side) -> tuple[float, float]:
    """A split node's proof and disproof numbers from its children's, before its scales."""
    assert node.children is not None
    pns = [c.pn for c in node.children]
    dns = [c.dn for c in node.children]
    if node.attacker_moves:  # OR
        return min(pns), min(INF, sum(dns))
    if node.awaiting_pass:  # its zone's replies to come, counted as the search counts them
        from tictactoe.search.pn.wide import ZONE_PN

        return min(INF, pns[0] + ZONE_PN), dns[0]
    return min(INF, sum(pns)), min(dns)


def _selectable(node: Node, memo: dict[int, bool]) -> bool:
    key = id(node)
    if key not in memo:
        if node.solved or node.pn == 0 or node.dn == 0:
            memo[key] = False
        elif node.children is None:
            memo[key] = not node.running
        else:
            memo[key] = any(_selectable(c, memo) for c in node.children)
    return memo[key]


def _select(root: Node, attacker: Side, memo: dict[int, bool]) -> Node | None:
    """The most-proving frontier position that is not running, or None: from the root,
    the child with the least proof number where the attacker moves, else the least
    disproof number, as `_focus` weighs them.

    (Job-level proof-number search counts a running job as settled, a "virtual win" the
    way its parent chose it. On (8,8,5), with the first worker on one of X's third moves
    below O's reply d4, that counted d4 as lost for O, and the second worker went to
    another reply, O e4, and grew it to 16 million nodes, while the other third moves below
    d4 were the work to do. Counted as settled the way its parent leaned, on (9,4,4) X's
    first moves a5 and b5 were near tied, 16 open replies against 17, and both workers went
    on below a5, which O refutes: 1.3-1.8 million nodes where one worker needs 1.0
    million.)"""
    node = root
    if not _selectable(node, memo):
        return None
    busy: dict[int, bool] = {}

    def running_below(child: Node) -> bool:
        return _busy(child, busy)

    while node.children is not None:
        options = [c for c in node.children if _selectable(c, memo)]
        if node.attacker_moves:
            chosen = _focus(node, options, lambda c: c.pn, running_below)
        else:
            chosen = _focus(node, options, lambda c: c.dn, running_below)
        node.focus = node = chosen
    return node


def _focus(node: Node, options: list[Node], number: Callable[[Node], float],
           busy: Callable[[Node], bool]) -> Node:
    """The child to go on with. A child with a job running below it counts `FOCUS` times
    its number plus one (a worker is there already: the next goes beside it unless it is
    still clearly the best place). The child chosen last stays while no job runs below it
    and its number is within `FOCUS` of the best's, plus one; else the best.

    >>> a, b = Node(Position("3x3"), 0, Side.X), Node(Position("3x3"), 1, Side.X)
    >>> a.pn, b.pn = 16, 18
    >>> parent = Node(Position("3x3"), None, Side.X)
    >>> _focus(parent, [a, b], lambda c: c.pn, lambda c: False) is a
    True
    >>> _focus(parent, [a, b], lambda c: c.pn, lambda c: c is a) is b  # 16 * 1.25 + 1 > 18
    True
    """
    def weighed(child: Node) -> float:
        return number(child) * FOCUS + 1 if busy(child) else number(child)

    best = min(options, key=weighed)
    last = node.focus
    if last is not None and last is not best and last in options and not busy(last) \
            and number(last) <= weighed(best) * FOCUS + 1:
        return last
    return best


def _busy(node: Node, memo: dict[int, bool]) -> bool:
    """Whether a job runs at `node` or below it."""
    key = id(node)
    if key not in memo:
        memo[key] = node.running if node.children is None else \
            any(_busy(c, memo) for c in node.children)
    return memo[key]


def _expand(node: Node, attacker: Side) -> None:
    """Split a leaf into its children, scaled so that its numbers stay what they were as a
    leaf until its children's jobs say more (`Node.pn_scale`, `Node.dn_scale`).

    (Unscaled, a split job where the defender moves jumped: as a leaf its disproof number
    is 1 (one reply refutes), split it is the least of its children's, each the count of
    the attacker's moves, about 60 on 8x8. On (8,8,5) one hard third move that its job did
    not settle added 60 to its parent reply's disproof number, and the tree left a reply
    with 37 open third moves for one with 50.)"""
    if node.passed or not node.moves:
        # past 64 cells, a node the search settles at once (a job decides it), or a pass
        # subtree (one job, never split)
        return
    if node.passes and not node.attacker_moves and _wide(node.position) and \
            node.position.marks(attacker).bit_count() >= node.position.variant.k - PASS_SHORT and \
            _wide_search(node.position.variant, node.width).quiet(node.position, attacker):
        # its pass subtree first: if won, only the replies in its zone (`_settle_pass`)
        node.children = [Node(node.position, None, attacker, node.width, owner=node)]
        node.pn_scale = node.dn_scale = 1.0
        return
    pn, dn = _open_leaf_numbers(node, attacker)
    node.children = _replies(node, node.moves)
    for child in node.children:
        if not child.solved:
            child.pn, child.dn = _open_leaf_numbers(child, attacker)
    joint_pn, joint_dn = _combine(node, attacker)
    node.pn_scale = pn / joint_pn if 0 < joint_pn < INF else 1.0
    node.dn_scale = dn / joint_dn if 0 < joint_dn < INF else 1.0


def _replies(node: Node, moves: list[int]) -> list[Node]:
    """The children of `node` for these moves."""
    return [Node(node.position.play(c), c, node.attacker, node.width, node.passes)
            for c in moves]


def _settle_pass(leaf: Node, lines: list[str] | None) -> list[Node]:
    """A pass subtree is settled: its node (the quiet defender's) takes as children the
    pass and the replies in its zone, given the subtree's node `lines` (won), or every
    reply (None: not won). The new children."""
    node = leaf.owner
    assert node is not None and node.children == [leaf]
    if lines is None:
        node.children = _replies(node, node.moves)
    else:
        search = _wide_search(node.position.variant, node.width)
        zone = search.zone_replies(node.position, node.attacker, lines)
        node.children = [leaf, *_replies(node, zone)]
    for child in node.children:
        if not child.solved:
            child.pn, child.dn = _open_leaf_numbers(child, node.attacker)
    return [c for c in node.children if c is not leaf]


def _frontier(node: Node) -> tuple[int, int]:
    """(frontier positions not solved and not running, running) under `node`."""
    if node.solved:
        return 0, 0
    if node.children is None:
        return (0, 1) if node.running else (1, 0)
    pending = running = 0
    for child in node.children:
        p, r = _frontier(child)
        pending += p
        running += r
    return pending, running


def _share(node: Node, attacker: Side) -> float:
    """The share of the tree settled (an estimate): the larger of the shares toward the
    attacker's win and toward its defeat (`_share_toward`)."""
    return max(_share_toward(node, attacker, True), _share_toward(node, attacker, False))


def _share_toward(node: Node, attacker: Side, win: bool) -> float:
    """The share of the tree settled toward the attacker's win (`win`) or its defeat: 1 for
    a node solved that way, 0 for one solved the other way or open; else, where the side
    that proves it moves, its best child's (it needs only one), and elsewhere the mean of
    its children's (every child weighs the same)."""
    if node.solved:
        return 1.0 if (node.outcome == "win") == win else 0.0
    if node.children is None:
        return 0.0
    shares = [_share_toward(c, attacker, win) for c in node.children]
    if node.attacker_moves == win:
        return max(shares)
    return sum(shares) / len(shares)


# --------------------------------------------------------------------------- executors
def open_job_executor(backend: str, workers: int | None = None,
                      address: str | None = None) -> LocalPool | DaskCluster:
    """The executor of a backend name: ``local`` (a process pool whose workers have imported
    the prover) or ``dask``."""
    return open_executor(backend, workers, address, preload=JOB_MODULES)


# --------------------------------------------------------------------------- the run
ESTIMATE_SHARE = 0.001
"""The least share of the master tree a run must have settled before it guesses the time
left."""

ESTIMATE_CAP = 365 * 24 * 3600.0
"""A guess of the time left past a year is not shown."""


@dataclass(frozen=True)
class JobProgress:
    """What the progress display hears, a few times a second."""

    attacker: str
    """The question: does this side win?"""
    done: int
    """Jobs finished in this run, and found done in the folder."""
    reused: int
    running: int
    pending: int
    """Frontier positions of the master tree not yet started."""
    root_pn: float
    root_dn: float
    nodes: int
    seconds: float
    share: float
    """The share of the master tree settled (an estimate)."""
    start_share: float = 0.0
    """The share that jobs taken from the folder settled: not this run's pace."""
    start_seconds: float = 0.0
    """The run's seconds when it started its first job."""

    @property
    def rate(self) -> float:
        """Nodes per second of this run."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def estimate(self) -> float | None:
        """Seconds left for this question at the pace of this run's jobs (the share they
        settled, in the time since the first started), or None.

        >>> JobProgress("x", 3, 0, 1, 4, 5, 6, 1000, 10.0, 0.25).estimate
        30.0
        >>> JobProgress("x", 9, 6, 1, 4, 5, 6, 1000, 12.0, 0.75, 0.5, 2.0).estimate
        10.0

        None too while this run has settled under `ESTIMATE_SHARE` of the tree (a guess from
        a sliver, such as 10**50 hours, says nothing) or the guess passes `ESTIMATE_CAP`.

        >>> JobProgress("x", 3, 0, 1, 4, 5, 6, 1000, 3600.0, 1e-9).estimate is None
        True
        """
        gained = self.share - self.start_share
        if gained < ESTIMATE_SHARE or self.share >= 1:
            return None
        left = (self.seconds - self.start_seconds) * (1 - self.share) / gained
        return left if left <= ESTIMATE_CAP else None


@dataclass
class JobRun:
    """The figures of a job-level run: the value (``x``, ``o``, ``draw`` or ``unknown``),
    each question's, the proof written (or None) and the checker's verdict."""

    position: str
    value: str
    questions: list[Question]
    nodes: int
    seconds: float
    jobs_run: int
    jobs_reused: int
    workers: int
    backend: str
    stopped: str | None = None
    """``seconds`` or ``nodes`` if a limit stopped the run."""
    proof: Path | None = None
    lines: int = 0
    check: CheckStats | None = None
    restarts: int = 0
    unwritten: AssemblyStopped | None = None
    """A proven value whose proof's assembly the time limit stopped (nothing was
    written): how far it got."""

    def to_json(self) -> dict[str, Any]:
        return {"position": self.position, "value": self.value, "nodes": self.nodes,
                "seconds": round(self.seconds, 3), "jobs_run": self.jobs_run,
                "jobs_reused": self.jobs_reused, "workers": self.workers,
                "backend": self.backend, "stopped": self.stopped,
                "proof": None if self.proof is None else str(self.proof),
                "lines": self.lines, "checked": self.check is not None,
                "written": self.proof is not None,
                **({} if self.unwritten is None else {"unwritten": {
                    "lines": self.unwritten.assembly.lines,
                    "jobs": self.unwritten.assembly.jobs,
                    "jobs_in_all": self.unwritten.assembly.total}}),
                "questions": [{"attacker": q.attacker.symbol, "outcome": q.outcome,
                               "root_pn": q.root.pn, "root_dn": q.root.dn,
                               "jobs_run": q.jobs_run, "jobs_reused": q.jobs_reused,
                               "nodes": q.nodes} for q in self.questions]}


class _Driver:
    """Runs the questions' master trees on an executor, within the limits."""

    def __init__(self, folder: JobFolder, executor: Executor, *, job_nodes: int,
                 max_job_nodes: int, table_mb: float, nodes: int | None,
                 seconds: float | None, progress: Callable[[JobProgress], None] | None,
                 fault: str | None, epsilon: float | None = None,
                 width: int | None = None, nest: int | None = None) -> None:
        self.folder = folder
        self.executor = executor
        self.job_nodes = job_nodes
        self.max_job_nodes = max(job_nodes, max_job_nodes)
        self.table_mb = table_mb
        self.limit_nodes = nodes
        self.started = time.perf_counter()
        self.deadline = None if seconds is None else self.started + seconds
        self.progress = progress
        self.fault = fault
        self.epsilon = epsilon
        self.width = width
        self.nest = nest
        self.spent = 0  # nodes of the jobs finished in this run
        self.jobs_run = 0
        self.jobs_reused = 0
        self.stopped: str | None = None
        self.restarts = 0
        self._last = 0.0
        self._reused_share = 0.0  # the share settled by jobs taken from the folder
        self._started_at: float | None = None  # the run's seconds at its first job
        self._pool_restart = getattr(executor, "restart", None)
        self._split_before: dict[str, bool] = {}  # `_regrow`: a job's children have jobs
        self._note = getattr(executor, "note_success", None)

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def ask(self, question: Question, until: int | None = None) -> None:
        """Grow the question's master tree until its root is solved or a limit stops it, or
        (with `until`) until the question's jobs have spent that many nodes in all: no
        new job starts then, and the round ends when the running ones are back."""
        root = question.root
        self._reused_share, self._started_at = 0.0, None  # each question's pace is its own
        self._absorb(question, root.children or [])
        running: dict[int, tuple[Any, Node, JobSpec, int]] = {}  # id(leaf) -> (future, ...)
        capacity = max(1, self.executor.workers)
        began = time.perf_counter()
        try:
            while not root.solved:
                spent_round = until is not None and question.nodes >= until
                if self.stopped is None and not spent_round:
                    self._fill(question, running, capacity)
                if root.solved:
                    break
                if not running:
                    if self.stopped is None and not spent_round:  # nothing to run
                        self.stopped = "nodes"
                    break
                self._collect(question, running)
                left = self.seconds_left()
                if left is not None and left < 0:
                    self.stopped = self.stopped or "seconds"
                    if left < -GRACE_SECONDS:
                        break
                self._report(question, running)
        finally:
            for future, leaf, _, _ in running.values():
                leaf.running = False
                if hasattr(future, "cancel"):
                    future.cancel()
            question.seconds += time.perf_counter() - began
        self._report(question, running, force=True)

    def _next(self, question: Question) -> Node | None:
        """The next job's position: the most-proving one that is not running, a path
        with a running job weighed dearer (`_focus`)."""
        return _select(question.root, question.attacker, {})

    def _committed(self, running: dict[int, tuple[Any, Node, JobSpec, int]]) -> int:
        return sum(2 * spec.nodes for _, _, spec, _ in running.values())

    def _fill(self, question: Question, running: dict[int, tuple[Any, Node, JobSpec, int]],
              capacity: int) -> None:
        attacker = question.attacker
        while len(running) < capacity and not question.root.solved:
            leaf = self._next(question)
            if leaf is None:
                return
            text = leaf.position.to_string()
            found = self.folder.load(text, attacker.symbol, leaf.passed)
            if found is not None and not self._grows(found):
                self._absorb(question, [leaf])
                continue
            # a job its budget stopped runs again with the nodes its run chose
            budget = leaf.budget = self.job_nodes if found is None else self._regrow(found)
            if self.limit_nodes is not None:
                budget = min(budget, (self.limit_nodes - self.spent
                                      - self._committed(running)) // 2)
                if budget < MIN_JOB_NODES:
                    if not running:
                        self.stopped = "nodes"
                    return
            left = self.seconds_left()
            if left is not None and left <= 0:
                self.stopped = "seconds"
                return
            spec = JobSpec(text, attacker.symbol, budget, left, self.table_mb, self.fault,
                           self.epsilon, self.width, self.nest, leaf.passed)
            if self._started_at is None:
                self._started_at = time.perf_counter() - self.started
            busy = {w for _, _, _, w in running.values()}
            idle = [w for w in range(capacity) if w not in busy]
            worker = leaf.hint if leaf.hint in idle else idle[0]
            future = self.executor.submit(prove_job, spec, worker=worker,
                                          key=f"job-{attacker.symbol}-{uuid.uuid4().hex[:12]}")
            leaf.running = True
            running[id(leaf)] = (future, leaf, spec, worker)

    def _collect(self, question: Question, running: dict[int, tuple[Any, Node, JobSpec, int]]
                 ) -> None:
        finished = [k for k, (future, _, _, _) in running.items() if future.done()]
        if not finished:
            time.sleep(POLL_SECONDS)
            return
        for k in finished:
            future, leaf, spec, worker = running[k]
            try:
                result: JobResult = future.result()
            except BrokenProcessPool:
                self._restart(running)
                return
            except Exception as err:
                if type(err).__name__ == "KilledWorker":
                    raise CensusBackendError(f"Dask gave up on a job after its workers died: "
                                             f"{err}") from None
                raise
            del running[k]
            leaf.running = False
            if self._note is not None:
                self._note()
            self.jobs_run += 1
            question.jobs_run += 1
            self.spent += result.nodes
            question.nodes += result.nodes
            short = result.outcome == "unknown" and spec.nodes < leaf.budget
            if result.cut or short:
                left = self.seconds_left()
                if short or self.stopped is not None or (left is not None and left <= 0):
                    continue  # the run's limits stopped it: it runs again next time
                # stopped early for another reason: split it, but do not keep it
                self._apply(question, leaf, result, worker)
                continue
            if (result.outcome == "unknown" and result.budget < self.max_job_nodes
                    and (result.passed or self._deep_enough(result))):
                result = replace(result, regrow=min(self.max_job_nodes,
                                                    result.budget * JOB_GROWTH))
            self.folder.save(result)
            self._apply(question, leaf, result, worker)

    def _restart(self, running: dict[int, tuple[Any, Node, JobSpec, int]]) -> None:
        """A worker of the local pool died: the jobs running on it failed with it. Start
        it again and submit them again."""
        assert self._pool_restart is not None
        self._pool_restart()
        self.restarts += 1
        for k, (future, leaf, spec, worker) in list(running.items()):
            if not future.done() or not isinstance(future.exception(), BrokenProcessPool):
                continue
            left = self.seconds_left()
            spec = replace(spec, seconds=left)
            running[k] = (self.executor.submit(prove_job, spec, worker=worker), leaf, spec,
                          worker)

    def _grows(self, result: JobResult) -> bool:
        """Whether a job that its budget stopped runs again with more nodes rather than
        being split (`_regrow`)."""
        return not _exhausted(result) and self._regrow(result) > result.budget

    def _deep_enough(self, result: JobResult) -> bool:
        """Whether the job is `GROWTH_PLY` plies below the folder's position or deeper."""
        return Position(result.position).ply - self.folder.position.ply >= GROWTH_PLY

    def _regrow(self, result: JobResult) -> int:
        """The nodes a job that its budget stopped runs again with (at most its budget:
        it is split). The run that stopped it said (`JobResult.regrow`), within this run's
        largest budget. A job that a run with a smaller largest budget split, none of whose
        children has a job in the folder, grows again too (`JOB_GROWTH`): a run with more
        nodes to give may settle it as one job, where its children are many jobs. Else a
        folder's jobs are split as the runs before decided."""
        if result.outcome != "unknown" or not (result.passed or self._deep_enough(result)):
            return 0
        if result.regrow:
            return min(result.regrow, self.max_job_nodes)
        if result.budget >= self.max_job_nodes:
            return 0
        if result.passed:  # a pass subtree is never split
            return min(self.max_job_nodes, result.budget * JOB_GROWTH)
        key = result.position
        if key not in self._split_before:
            position = Position(key)
            self._split_before[key] = any(
                self.folder.has(position.play(move).to_string(), result.attacker)
                for move in classes(position))
        return 0 if self._split_before[key] else \
            min(self.max_job_nodes, result.budget * JOB_GROWTH)

    def _apply(self, question: Question, leaf: Node, result: JobResult,
               worker: int = -1) -> None:
        opened = self._take(question, leaf, result, worker)
        if leaf.children is not None:
            self._absorb(question, leaf.children)
        if opened:
            self._absorb(question, opened)
        _update(question.root, question.attacker)

    def _absorb(self, question: Question, leaves: list[Node]) -> None:
        """Take every job of the folder that finished `leaves` (and, where one was split,
        its children's, and theirs, as the runs before left them), so that
        the master tree knows all the folder knows before it chooses: a tree that stays
        with its choices (`FOCUS`) would otherwise not meet them and run them again."""
        attacker = question.attacker
        before = _share(question.root, attacker)
        stack = list(leaves)
        while stack:
            leaf = stack.pop()
            if leaf.solved or leaf.running or leaf.children is not None:
                continue
            key = leaf.position.to_string()
            found = self.folder.load(key, attacker.symbol, leaf.passed)
            if found is None or self._grows(found):
                continue
            name = key + " pass" if leaf.passed else key
            if name not in question.reused:
                question.reused.add(name)
                self.jobs_reused += 1
            stack.extend(self._take(question, leaf, found))
            stack.extend(leaf.children or ())
        _update(question.root, attacker)
        self._reused_share += _share(question.root, attacker) - before

    def _take(self, question: Question, leaf: Node, result: JobResult,
              worker: int = -1) -> list[Node]:
        """A job's result into the master tree (its numbers are not updated here); the
        nodes it adds beside `leaf` (a pass subtree settled: its node's replies)."""
        attacker = question.attacker
        question.outcomes[result.outcome] = question.outcomes.get(result.outcome, 0) + 1
        if leaf.passed:
            if result.outcome == "win":
                leaf.outcome = "win"
                lines = unpack(result.fragment).decode("ascii").split("\n")
                opened = _settle_pass(leaf, lines)
                for child in opened:  # the table of the job's worker knows them
                    child.hint = worker if worker >= 0 else leaf.hint
                return opened
            if self._grows(result) and not result.cut:
                if worker >= 0:
                    leaf.hint = worker
                return []
            if result.cut:
                return []  # the run's limits stopped it: it runs again
            leaf.outcome = "no-win"  # not won within the largest budget: every reply
            return _settle_pass(leaf, None)
        if result.outcome == "unknown" and not result.cut and (
                _exhausted(result) or (_wide(leaf.position) and not leaf.moves)):
            # past 64 cells: no win among the moves the search tries, and a split would
            # try the same moves (or none): a dead end of the master tree, not a proof
            leaf.outcome = "no-win"
        elif self._grows(result) and not result.cut:
            # it runs again with more nodes (`_fill` reads them from its file), on the same
            # worker: that worker's table holds its search
            if worker >= 0:
                leaf.hint = worker
        elif result.outcome == "unknown":
            _expand(leaf, attacker)
            assert leaf.children is not None
            for child in leaf.children:  # the table of the job's worker knows them
                child.hint = worker if worker >= 0 else leaf.hint
        else:
            leaf.outcome = result.outcome
        return []

    def _report(self, question: Question, running: dict[int, tuple[Any, Node, JobSpec, int]],
                force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.perf_counter()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        pending, _ = _frontier(question.root)
        self.progress(JobProgress(question.attacker.symbol, self.jobs_run + self.jobs_reused,
                                  self.jobs_reused, len(running), pending, question.root.pn,
                                  question.root.dn, self.spent, now - self.started,
                                  _share(question.root, question.attacker),
                                  self._reused_share, self._started_at or 0.0))


def prove_with_jobs(position: Position | str, folder: Path | str, *, backend: str |
                    Executor = "local", workers: int | None = None,
                    address: str | None = None, job_nodes: int = DEFAULT_JOB_NODES,
                    max_job_nodes: int | None = None,
                    table_mb: float | None = None, nodes: int | None = None,
                    seconds: float | None = None, out: Path | str | None = None,
                    check: bool = True, progress: Callable[[JobProgress], None] | None = None,
                    fault: Path | str | None = None, epsilon: float | None = None,
                    writing: Callable[[Assembly], None] | None = None,
                    width: int | None = None, attacker: Side | None = None) -> JobRun:
    """The game value of `position` by job-level proof-number search, its proof assembled
    from the jobs' fragments (written to `out`, by default ``proof.txt.gz`` in the folder)
    and, with `check`, verified by the checker.

    `backend` is ``local``, ``dask`` (with `address`, an existing scheduler) or an executor
    already running (entered: `LocalPool`, `DaskCluster`, `InProcess`); `workers` sizes a
    pool or a cluster started here. A job has `job_nodes` nodes; one that they do not settle
    is run again with `JOB_GROWTH` times as many, up to `max_job_nodes` (default: no
    growth), and then split into its children. Each worker keeps one table of `table_mb`
    megabytes between its jobs (default: room for what a job can store, at most
    `DEFAULT_JOB_TABLE_MB`). `nodes` bounds the nodes of the jobs run (each job's writing
    counts as much as its search), `seconds` the whole run. `epsilon` sets the jobs' df-pn
    threshold factor 1 + `epsilon` (`epsilon_setting`; default 0.25, as every search here).
    Past 64 cells `width` is the attacker's moves tried at each node (`WidePnSearch`), kept
    in the folder: a run asking for another is refused (None: the folder's, or the default).
    Past 64 cells `attacker` asks only whether that side wins (default: both, the side to
    move first, in turns of growing node budgets: `_ask_in_turn`).
    A run that a limit stops returns the value ``unknown``; the jobs it finished stay in
    the folder for the next run. `seconds` bounds the proof's assembly too (`writing` hears
    how far it has got): one it stops writes nothing, and the run says how far it got
    (`JobRun.unwritten`); the next run assembles it from the folder. Ctrl-C stops the
    workers and raises `KeyboardInterrupt`.
    """
    if isinstance(position, str):
        position = Position(position)
    if position.is_game_over():
        raise TicTacToeError(f"the game is over in {position.to_string()}: there is nothing "
                             "to prove")
    if position.variant.cells > NARROW_CELLS:
        from tictactoe.core import BoardTooLargeError
        from tictactoe.search.pn.wide import MAX_CELLS

        if position.variant.cells > MAX_CELLS:
            raise BoardTooLargeError(f"{position.variant.name} has {position.variant.cells} "
                                     f"cells: proof-number search takes boards of at most "
                                     f"{MAX_CELLS}")
        if width is not None and width < 0:
            raise TicTacToeError(f"the width must be 0 (every move near a mark) or more, not "
                                 f"{width}")
    elif width is not None:
        raise TicTacToeError(f"the width is for boards of more than {NARROW_CELLS} cells; "
                             f"{position.variant.name} is proven by df-pn over every move")
    if _wide(position):
        from tictactoe.search.pn.wide import sides_to_ask

        attackers = sides_to_ask(position, attacker)  # as `ttt prove` asks without jobs
    elif attacker is None:
        attackers = [position.turn, position.turn.other]
    else:
        raise TicTacToeError(f"the attacker is for boards of more than {NARROW_CELLS} cells, "
                             f"where only wins are proven; {position.variant.name} is proven "
                             "for its value, both sides' questions")
    if job_nodes < MIN_JOB_NODES:
        raise TicTacToeError(f"--job-nodes must be at least {MIN_JOB_NODES:,}, not {job_nodes}")
    if epsilon is not None:
        from tictactoe.search.pn.driver import epsilon_setting

        try:
            epsilon_setting(epsilon)
        except ValueError as err:
            raise TicTacToeError(str(err)) from None
    largest = job_nodes if max_job_nodes is None else max_job_nodes
    if largest < job_nodes:
        raise TicTacToeError(f"--max-job-nodes ({largest:,}) must be at least --job-nodes "
                             f"({job_nodes:,})")
    if table_mb is None and position.variant.cells > NARROW_CELLS:
        table_mb = DEFAULT_JOB_TABLE_MB  # the search past 64 cells keeps its own tables
    if table_mb is None:
        from tictactoe.search.pn.proofs import table_mb_for

        table_mb = min(DEFAULT_JOB_TABLE_MB, table_mb_for(position, 2 * largest))
    jobs = JobFolder(folder, position, width)
    executor = backend if not isinstance(backend, str) else \
        open_job_executor(backend, workers, address)
    questions: list[Question] = []
    # an executor given by the caller is running already (the caller starts and stops it)
    with executor if isinstance(backend, str) else contextlib.nullcontext(executor):
        driver = _Driver(jobs, executor, job_nodes=job_nodes, max_job_nodes=largest,
                         table_mb=table_mb, nodes=nodes,
                         seconds=seconds, progress=progress,
                         fault=None if fault is None else str(fault), epsilon=epsilon,
                         width=jobs.width, nest=jobs.nest)
        if _wide(position) and len(attackers) > 1:
            _ask_in_turn(driver, [_question(position, side, jobs) for side in attackers],
                         questions)
        else:
            for side in attackers:
                question = _question(position, side, jobs)
                questions.append(question)
                driver.ask(question)
                if question.outcome != "no-win" or position.holds_by_strategy_stealing:
                    break
        used = executor.workers
        name = executor.name
    last = next((q for q in questions if q.outcome == "win"), questions[-1])
    if last.outcome == "win":
        value = last.attacker.symbol
    elif last.outcome == "no-win" and not _wide(position):
        value = "draw"
    else:
        value = "unknown"  # past 64 cells a no-win is only no win among the moves tried
    run = JobRun(position.to_string(), value, questions, driver.spent,
                 time.perf_counter() - driver.started, driver.jobs_run, driver.jobs_reused,
                 used, name, driver.stopped, restarts=driver.restarts)
    if value == "unknown":
        return run
    target = Path(out) if out is not None else jobs.path / "proof.txt.gz"
    try:
        run.lines = write_job_proof(position, questions, value, jobs, target,
                                    deadline=driver.deadline, progress=writing,
                                    jobs=driver.jobs_run + driver.jobs_reused,
                                    nodes=run.nodes)
    except AssemblyStopped as stopped:
        run.unwritten = stopped
        run.stopped = "seconds"
        return run
    run.proof = target
    if check:
        run.check = check_proof(target)
    return run


# --------------------------------------------------------------------------- pruning
def folder_trees(folder: JobFolder) -> list[Question]:
    """The master trees as the folder's jobs grew them, one per question (the first
    player's alone where strategy stealing answers the other's). Every job that its budget
    stopped counts as split, so that the trees reach every job that any run split."""
    position = folder.position
    driver = _Driver(folder, InProcess(), job_nodes=MIN_JOB_NODES,
                     max_job_nodes=MIN_JOB_NODES, table_mb=1, nodes=None, seconds=None,
                     progress=None, fault=None)
    questions = []
    for attacker in (position.turn, position.turn.other):
        question = _question(position, attacker, folder)
        driver._absorb(question, question.root.children or [])
        questions.append(question)
        if position.holds_by_strategy_stealing:
            break
    return questions


def unused_jobs(folder: JobFolder) -> list[Path]:
    """The folder's job files that no proof will read: below a settled position where the
    side that proves it moves, the jobs of every move but the one its proof takes (others
    settled too, or were tried before it), and jobs that no tree reaches."""
    used: set[Path] = set()

    def reach(node: Node, attacker: Side) -> None:
        for suffix in (".xz", ".gz"):
            path = folder._file(node.position.to_string(), attacker.symbol, suffix,
                                node.passed)
            if path.exists():
                used.add(path)
        for child in _needed(node, attacker):
            reach(child, attacker)

    for question in folder_trees(folder):
        reach(question.root, question.attacker)
    return sorted(p for p in folder.done.iterdir()
                  if p.suffix in (".xz", ".gz") and p not in used)


def drop_unused_jobs(folder: JobFolder) -> int:
    """Delete the folder's `unused_jobs` (run it while no run uses the folder); how many."""
    unused = unused_jobs(folder)
    for path in unused:
        path.unlink()
    return len(unused)


def _needed(node: Node, attacker: Side) -> list[Node]:
    """The children that a settled node's proof walks (the proof's writer, its count of jobs
    and `unused_jobs` agree on them): where the side that proves it moves, the first child
    settled that way; elsewhere, and below an open node, every child."""
    children = node.children or []
    if node.solved and children:
        prover = attacker if node.outcome == "win" else attacker.other
        if node.attacker_moves == (prover is attacker):
            return [next(c for c in children if c.outcome == node.outcome)]
    return children


# --------------------------------------------------------------------------- the proof
@dataclass(frozen=True)
class Assembly:
    """How far the assembly of a proof from a folder's fragments has got."""

    lines: int
    """Lines written so far."""
    jobs: int
    """Jobs whose fragments were read so far."""
    total: int
    """Jobs the proof reads in all (a position met again is written as a reference to
    its first fragment; it counts here too)."""

    def summary(self) -> str:
        """
        >>> Assembly(1234, 5, 40).summary()
        '1,234 lines, the fragments of 5 of 40 jobs'
        """
        return f"{self.lines:,} lines, the fragments of {self.jobs:,} of {self.total:,} jobs"


class AssemblyStopped(TicTacToeError):
    """The time limit stopped the assembly of a proven value's proof: nothing was
    written. `assembly` says how far it got."""

    def __init__(self, assembly: Assembly) -> None:
        super().__init__(f"the time limit stopped the proof's assembly after "
                         f"{assembly.summary()}; nothing was written")
        self.assembly = assembly


class _Assembler:
    """Counts the fragments read, tells `progress` a few times a second, and stops at
    the `deadline` (a `time.perf_counter` time)."""

    def __init__(self, writer: ProofWriter, total: int, deadline: float | None,
                 progress: Callable[[Assembly], None] | None) -> None:
        self.writer = writer
        self.total = total
        self.deadline = deadline
        self.progress = progress
        self.jobs = 0
        self._last = time.perf_counter()

    def state(self) -> Assembly:
        return Assembly(self.writer.next_line - 2, self.jobs, self.total)

    def read(self) -> None:
        """One more job's fragment is about to be written."""
        now = time.perf_counter()
        if self.deadline is not None and now > self.deadline:
            raise AssemblyStopped(self.state())
        self.jobs += 1
        if self.progress is not None and now - self._last >= 0.2:
            self._last = now
            self.progress(self.state())


def _question(position: Position, attacker: Side, jobs: JobFolder) -> Question:
    """A new question, its master tree's first ply split into jobs."""
    root = Node(position, None, attacker, jobs.width, jobs.passes)
    _expand(root, attacker)
    _update(root, attacker)
    return Question(attacker, root)


def _ask_in_turn(driver: _Driver, waiting: list[Question], questions: list[Question]) -> None:
    """Past 64 cells, both sides' wins asked in rounds, as `ttt prove` asks them without
    jobs (`tictactoe.search.pn.wide.ask_in_turn`): each question's jobs spend `ROUND_NODES`
    nodes, then `ROUND_GROWTH` times as many each round (a round ends once its running
    jobs are back), until one is won or a limit stops the run; a question settled without
    a win is not asked again, and the other runs on alone. `questions` gets each question
    as it is first asked."""
    from tictactoe.search.pn.wide import ROUND_GROWTH, ROUND_NODES

    budget = ROUND_NODES
    while waiting and driver.stopped is None:
        for question in list(waiting):
            if all(q is not question for q in questions):
                questions.append(question)
            driver.ask(question, None if len(waiting) == 1 else question.nodes + budget)
            if question.outcome == "win" or driver.stopped is not None:
                return
            if question.root.solved:
                waiting.remove(question)
        budget *= ROUND_GROWTH


def write_job_proof(position: Position, questions: list[Question], value: str,
                    folder: JobFolder, target: Path, *, deadline: float | None = None,
                    progress: Callable[[Assembly], None] | None = None, **extra: Any) -> int:
    """Assemble the proof from the master trees and the fragments; its line count.
    `progress` hears how far it has got; past `deadline` (a `time.perf_counter` time) it
    stops with `AssemblyStopped` and writes nothing."""
    with ProofWriter(target, position=position, value=value, compress=True,
                     generator="tictactoe.search.pn.jobs", **extra) as writer:
        if value != "draw":
            winner = Side.parse(value)
            question = next(q for q in questions if q.attacker is winner)
            assembler = _Assembler(writer, _proof_jobs(question.root, winner), deadline,
                                   progress)
            writer.section(winner, "win")
            _emit(writer, question.root, winner, True, folder, {}, assembler)
        else:
            assembler = _Assembler(writer, sum(_proof_jobs(q.root, q.attacker)
                                               for q in questions), deadline, progress)
            for question in questions:  # each side's hold is the other's no-win
                holder = question.attacker.other
                writer.section(holder, "hold")
                _emit(writer, question.root, question.attacker, False, folder, {},
                      assembler)
            if len(questions) == 1:  # the first player's hold at the empty board
                writer.section(position.turn, "hold")
                writer.stealing()
        if progress is not None:
            progress(assembler.state())
    assert writer.header is not None
    return writer.header.lines


def _proof_jobs(node: Node, attacker: Side) -> int:
    """The jobs that the proof of a settled `node` reads (as `_emit` walks it)."""
    if node.terminal:
        return 0
    if node.children is None:
        return 1
    return sum(_proof_jobs(c, attacker) for c in _needed(node, attacker))


def _emit(writer: ProofWriter, node: Node, attacker: Side, win: bool, folder: JobFolder,
          seen: dict[tuple[int, int, bool], int], assembler: _Assembler) -> None:
    """Write the proof of `node` for its question's prover: the attacker (`win`) or the
    defender (a hold)."""
    prover = attacker if win else attacker.other
    wanted = "win" if win else "no-win"
    position = node.position
    if node.terminal:  # only a full board reaches here (a line is written as W)
        if position.turn is prover:
            writer.end()
        else:
            writer.replies([])
        return
    if node.children is None:
        assembler.read()
        key = (position.marks(prover), position.marks(prover.other), position.turn is prover)
        if key in seen and not node.passed:
            writer.same(seen[key])
            return
        result = folder.load(position.to_string(), attacker.symbol, node.passed)
        if result is None or result.outcome != wanted:
            raise JobFolderError(f"the job of {position.to_string()}"
                                 f"{' (its pass subtree)' if node.passed else ''} is missing "
                                 f"from the folder {folder.path} or changed")
        base = writer.next_line
        if position.turn is prover and not node.passed:
            seen[key] = base
        for kind, cells, target, cover, replay, passed in decode_fragment(result.fragment):
            writer.node(kind, cells, base + target if kind == "=" else 0, cover, replay,
                        passed=passed)
        return
    if position.turn is prover:
        (child,) = _needed(node, attacker)
        assert child.move is not None
        if child.terminal and child.position.winner() is prover:
            writer.win(child.move)
            return
        writer.move(child.move)
        _emit(writer, child, attacker, win, folder, seen, assembler)
        return
    replies = [c for c in node.children if not c.passed]
    passes = [c for c in node.children if c.passed]  # its pass subtree comes last
    writer.node("R", [c.move for c in replies if c.move is not None],
                replay=() if passes else node.replay, passed=bool(passes))
    for child in replies + passes:
        _emit(writer, child, attacker, win, folder, seen, assembler)

