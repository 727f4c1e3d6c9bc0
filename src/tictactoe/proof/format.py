"""Read and write proof files, format versions 1 to 4 (``docs/proof-format.md``).

The reader streams: it reads one line at a time, checks the header, every token and the
shape of each section's tree (which node kinds may come where), and yields one `Record` per
line. Whether the proof is *correct* is the checker's business (`tictactoe.proof.check`).

>>> import io
>>> buffer = io.BytesIO()
>>> with ProofWriter(buffer, position="xx1/oo1/3 x", value="x") as writer:
...     writer.section("x", "win")
...     writer.win(2)
2
3
>>> print(buffer.getvalue().decode(), end="")
{"format": "tictactoe-proof", "version": 1, "variant": "3x3", "position": "xx1/oo1/3 x", \
"value": "x", "lines": 2}
S x win
W 2
>>> with ProofReader(buffer.getvalue()) as reader:
...     [(r.line, r.kind, r.cells) for r in reader]
[(2, 'S', ()), (3, 'W', (2,))]
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import secrets
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import IO, Any, BinaryIO, NamedTuple, cast

from tictactoe.core import Position, Side, TicTacToeError, Variant
from tictactoe.proof.errors import ProofFormatError

FORMAT_NAME = "tictactoe-proof"
"""The ``format`` field of every header."""

VERSION = 4
"""The newest format version this module reads and writes. Version 2 adds pairings (``P``)
at the opponent's turn in hold sections; version 3 adds zone covers (``R n c1 ... cn Z z1
... zj``) in hold sections, and ``T``, the first player's hold at the empty board by strategy
stealing; version 4 adds replays (``R n c1 ... cn V h1 ... hj``) in win and hold sections,
and pass subtrees (``R n c1 ... cn Y``) in win sections.
A writer marks a file with the lowest version that has every node it wrote, so that the
others stay readable by older readers."""

VERSIONS = (1, 2, 3, 4)
"""The versions this module reads."""

GZIP_MAGIC = b"\x1f\x8b"

PROVER_KINDS = frozenset("MWFPE=T")
"""Node kinds at positions where the prover is to move."""

LEAF_KINDS = frozenset("WFPE=T")
"""Prover nodes without children."""

VALUES = ("x", "o", "draw")
CLAIMS = ("win", "hold")

Source = str | os.PathLike[str] | bytes
"""Where a proof comes from: a path (gzip if it ends in ``.gz`` or starts with the gzip
magic bytes), or the file's bytes."""


@dataclass(frozen=True)
class Header:
    """The header line: the variant, the root position, the claimed value, and how many
    lines follow. `extra` holds the other keys (``seconds``, ``generator``, ...)."""

    variant: Variant
    position: str
    value: str
    lines: int
    extra: dict[str, Any] = field(default_factory=dict)
    version: int = 1
    """The format version: 4 if the file has a replay (``V``) or a pass subtree (``Y``), else
    3 if it has a zone cover or a ``T``, else 2 if it has a pairing at the opponent's turn,
    else 1."""

    def root(self) -> Position:
        """The root position.

        >>> Header(Variant.parse("3x3"), "3/3/3 x", "draw", 0).root().turn.symbol
        'x'
        """
        return Position.from_string(self.position)

    def to_json(self) -> str:
        """The header line (without the newline), keys in the documented order."""
        data: dict[str, Any] = {
            "format": FORMAT_NAME, "version": self.version, "variant": self.variant.name,
            "position": self.position, "value": self.value, "lines": self.lines}
        data.update((k, v) for k, v in self.extra.items() if k not in data)
        return json.dumps(data)


class Record(NamedTuple):
    """One line after the header.

    `kind` is the first token: ``S`` (a section), ``M W F P E = T`` (prover nodes) or ``R``
    (and from version 2 on ``P`` at the opponent's turn too).
    `cells` holds the cells of ``M W F P R`` (for ``R`` the replies, without the count),
    `cover` the cells of an ``R`` node's zone cover (from version 3 on), `replay` the
    prover's moves of its replay (``V``, from version 4 on) and `passed` tells if it ends
    with ``Y`` (a pass subtree follows its replies' subtrees, from version 4 on).
    `target` is the line number of ``= n``. For ``S``, `side` and `claim` are the prover and
    its claim; for a node, `side` is the side to move and `depth` the plies from the
    section's root.
    """

    line: int
    kind: str
    cells: tuple[int, ...] = ()
    depth: int = 0
    side: str = ""
    claim: str = ""
    target: int = 0
    cover: tuple[int, ...] = ()
    replay: tuple[int, ...] = ()
    passed: bool = False


MARKS = {"Z": "a zone cover 'Z'", "V": "a replay 'V'", "Y": "a pass subtree 'Y'"}
"""The endings of an ``R`` line, at most one per line."""


def format_node(kind: str, cells: Iterable[int] = (), target: int = 0,
                cover: Iterable[int] = (), replay: Iterable[int] = (), *,
                passed: bool = False) -> str:
    """The text of a node line (without the newline).

    >>> format_node("R", (4, 0)), format_node("E"), format_node("=", target=12)
    ('R 2 4 0', 'E', '= 12')
    >>> format_node("R", (4,), cover=(7, 8))
    'R 1 4 Z 7 8'
    >>> format_node("R", (), replay=(33, 34))
    'R 0 V 33 34'
    >>> format_node("R", (9, 10), passed=True)
    'R 2 9 10 Y'
    """
    if kind == "=":
        return f"= {target}"
    parts = [str(c) for c in cells]
    if kind == "R":
        parts.insert(0, str(len(parts)))
        cover = tuple(cover)
        if cover:
            parts += ["Z", *map(str, cover)]
        replay = tuple(replay)
        if replay:
            parts += ["V", *map(str, replay)]
        if passed:
            parts.append("Y")
    return " ".join([kind, *parts])


# --------------------------------------------------------------------------- tree shape
class _Shape:
    """Where the next record of a section's preorder goes: tracks the open nodes.

    `pending` holds, for each open level, how many nodes it still expects; the next node's
    depth is ``len(pending) - 1``. The prover moves at even depths if it is to move at the
    root, else at odd depths. From `version` 2 on, a hold section may have a pairing (``P``)
    at the opponent's turn, from version 3 on an ``R`` node with a zone cover, which has
    one child more (`node`'s `cover`), and from version 4 on an ``R`` node with a replay
    (`node`'s `replay`; no child more) and, in a win section, one with a pass subtree
    (`node`'s `passed`; one child more).
    """

    __slots__ = ("claim", "pending", "prover", "prover_parity", "root_turn", "start",
                 "version")

    def __init__(self, root_turn: str, version: int = VERSION) -> None:
        self.root_turn = root_turn
        self.version = version
        self.pending: list[int] = []
        self.prover = ""
        self.claim = ""
        self.start = 0
        self.prover_parity = 0

    @property
    def open(self) -> bool:
        """True while the current section's tree is incomplete."""
        return bool(self.pending)

    def section(self, side: str, claim: str, line: int) -> None:
        if self.pending:
            raise ProofFormatError(
                f"a new section starts, but the tree of the section on line {self.start} still "
                f"expects {sum(self.pending)} more node(s)", line=line)
        self.prover, self.claim, self.start = side, claim, line
        self.prover_parity = 0 if side == self.root_turn else 1
        self.pending = [1]

    def node(self, kind: str, children: int, line: int, cover: bool = False,
             replay: bool = False, passed: bool = False) -> tuple[int, str]:
        """Place a node; return its depth and the side to move there. `cover`: an ``R``
        node with a zone cover (its `children` count the cover's); `replay`: an ``R`` node
        with a replay; `passed`: an ``R`` node with a pass subtree (its `children` count
        the pass subtree)."""
        pending = self.pending
        if not pending:
            if not self.start:
                raise ProofFormatError(
                    f"node {kind!r} before the first section: the body starts with 'S x win', "
                    "'S o win', 'S x hold' or 'S o hold'", line=line)
            raise ProofFormatError(
                f"node {kind!r} after the end of the tree of the section on line {self.start}: "
                "trailing garbage, or a section line missing", line=line)
        depth = len(pending) - 1
        prover_moves = depth % 2 == self.prover_parity
        mover = self.prover if prover_moves else ("o" if self.prover == "x" else "x")
        opponent_pairing = kind == "P" and not prover_moves and self.claim == "hold"
        if opponent_pairing and self.version < 2:
            raise ProofFormatError(
                f"a pairing 'P' at the opponent's turn ({mover.upper()} to move) at depth "
                f"{depth}: format version 2 allows it, this file is version {self.version}",
                line=line)
        if kind == "T" and (self.version < 3 or self.claim != "hold" or depth):
            raise ProofFormatError(
                "'T' (the first player's hold by strategy stealing) " + (
                    f"needs format version 3; this file is version {self.version}"
                    if self.version < 3 else "is a hold section's whole tree: it comes "
                    "right after 'S x hold' or 'S o hold'"), line=line)
        if cover and (self.version < 3 or self.claim != "hold"):
            raise ProofFormatError(
                "a zone cover 'Z' " + (
                    f"needs format version 3; this file is version {self.version}"
                    if self.version < 3 else "shows a hold: it is allowed in hold sections "
                    "only"), line=line)
        if replay and self.version < 4:
            raise ProofFormatError(
                f"a replay 'V' needs format version 4; this file is version {self.version}",
                line=line)
        if passed and (self.version < 4 or self.claim != "win"):
            raise ProofFormatError(
                "a pass subtree 'Y' " + (
                    f"needs format version 4; this file is version {self.version}"
                    if self.version < 4 else "shows a win: it is allowed in win sections "
                    "only"), line=line)
        if prover_moves != (kind in PROVER_KINDS) and not opponent_pairing:
            if prover_moves:
                raise ProofFormatError(
                    f"expected a node of the prover {self.prover.upper()} (one of M W F P E = T) "
                    f"at depth {depth}, found {kind!r}", line=line)
            raise ProofFormatError(
                f"expected the opponent's node 'R n ...' ({mover.upper()} to move"
                + (", or 'P' in a hold section" if self.version >= 2 else "")
                + f") at depth {depth}, found {kind!r}", line=line)
        pending[-1] -= 1
        if children:
            pending.append(children)
        else:
            while pending and not pending[-1]:
                pending.pop()
        return depth, mover


# --------------------------------------------------------------------------- reading
def open_binary(source: Source) -> BinaryIO:
    """Open a source for binary reading, decompressing gzip (by the name's ``.gz`` or by the
    magic bytes)."""
    if isinstance(source, bytes):
        if source[:2] == GZIP_MAGIC:
            return cast(BinaryIO, gzip.GzipFile(fileobj=io.BytesIO(source), mode="rb"))
        return io.BytesIO(source)
    try:
        with open(source, "rb") as raw:
            magic = raw.read(2)
        if magic == GZIP_MAGIC or os.fspath(source).endswith(".gz"):
            return cast(BinaryIO, gzip.open(source, "rb"))
        return open(source, "rb")
    except OSError as err:
        raise ProofFormatError(f"cannot open {os.fspath(source)!r}: {err.strerror}") from None


def _parse_header(text: bytes | None) -> Header:
    if not text:
        raise ProofFormatError("the file is empty: line 1 should be the JSON header", line=1)
    try:
        data = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise ProofFormatError(f"the header is not valid JSON: {err}", line=1) from None
    if not isinstance(data, dict):
        raise ProofFormatError("the header is not a JSON object", line=1)
    if data.get("format") != FORMAT_NAME:
        raise ProofFormatError(
            f"not a proof file: 'format' is {data.get('format')!r}, expected {FORMAT_NAME!r}",
            line=1)
    version = data.get("version")
    if version not in VERSIONS or isinstance(version, bool):
        raise ProofFormatError(
            f"unknown format version {version!r}: this reader knows versions "
            f"{', '.join(map(str, VERSIONS))}", line=1)
    for key in ("variant", "position", "value", "lines"):
        if key not in data:
            raise ProofFormatError(f"the header has no {key!r}", line=1)
    if not isinstance(data["variant"], str) or not isinstance(data["position"], str):
        raise ProofFormatError("'variant' and 'position' must be strings", line=1)
    try:
        variant = Variant.parse(data["variant"])
        root = Position.from_string(data["position"])
    except TicTacToeError as err:
        raise ProofFormatError(f"bad header: {err}", line=1) from None
    if root.variant != variant:
        raise ProofFormatError(
            f"the position {data['position']!r} is on {root.variant.name}, but the variant is "
            f"{variant.name}", line=1)
    if data["value"] not in VALUES:
        raise ProofFormatError(
            f"'value' is {data['value']!r}: expected 'x', 'o' or 'draw'", line=1)
    lines = data["lines"]
    if not isinstance(lines, int) or isinstance(lines, bool) or lines < 0:
        raise ProofFormatError(f"'lines' is {lines!r}: expected a whole number >= 0", line=1)
    known = ("format", "version", "variant", "position", "value", "lines")
    extra = {k: v for k, v in data.items() if k not in known}
    return Header(variant, root.to_string(), data["value"], lines, extra, version)


class _NodeParser:
    """Turns the lines after the header into `Record`s, checking every token and, with a
    `_Shape`, where each node may come."""

    def __init__(self, variant: Variant) -> None:
        self._variant = variant
        self._cells = {str(c): c for c in range(variant.cells)}
        self._counts = {str(n): n for n in range(variant.cells + 1)}

    def _record(self, raw: bytes, line: int, shape: _Shape) -> Record:
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            raise ProofFormatError("the line is not ASCII text", line=line) from None
        if text.endswith("\n"):
            text = text[:-1]
        tokens = text.split(" ")
        kind = tokens[0]
        cells = self._cells
        if kind == "S":
            if len(tokens) != 3 or tokens[1] not in ("x", "o") or tokens[2] not in CLAIMS:
                raise ProofFormatError(
                    f"bad section line {text!r}: expected 'S x win', 'S o win', 'S x hold' or "
                    "'S o hold'", line=line)
            shape.section(tokens[1], tokens[2], line)
            return Record(line, "S", (), 0, tokens[1], tokens[2])
        if kind in ("M", "W"):
            if len(tokens) != 2 or tokens[1] not in cells:
                raise ProofFormatError(self._bad(text, f"'{kind} c' with one cell c"), line=line)
            depth, mover = shape.node(kind, kind == "M", line)
            return Record(line, kind, (cells[tokens[1]],), depth, mover)
        if kind == "R":
            if len(tokens) < 2 or tokens[1] not in self._counts:
                raise ProofFormatError(self._bad(text, "'R n c1 ... cn'"), line=line)
            count = self._counts[tokens[1]]
            cover: tuple[int, ...] = ()
            replay: tuple[int, ...] = ()
            passed = False
            if len(tokens) > count + 2 and tokens[count + 2] in MARKS:
                mark = tokens[count + 2]
                other = [m for m in MARKS if m != mark and m in tokens[count + 3:]]
                if other:
                    first, second = sorted((mark, other[0]), key="ZVY".index)
                    raise ProofFormatError(
                        f"{text!r} has both {MARKS[first]} and {MARKS[second]}: a node has at "
                        "most one of them", line=line)
                if mark == "Y":
                    if len(tokens) > count + 3:
                        raise ProofFormatError(
                            f"{text!r}: a pass subtree 'Y' ends the line (it lists no cell)",
                            line=line)
                    passed = True
                    tokens = tokens[:count + 2]
            if len(tokens) > count + 2 and tokens[count + 2] in ("Z", "V"):
                mark = tokens[count + 2]
                found = self._cell_list(tokens, count + 3, text, line)
                if not found:
                    raise ProofFormatError(
                        f"{text!r}: " + ("a zone cover 'Z'" if mark == "Z" else "a replay 'V'")
                        + " lists no cell", line=line)
                if mark == "Z":
                    cover = found
                else:
                    if len(set(found)) < len(found):
                        twice = next(c for c in found if found.count(c) > 1)
                        raise ProofFormatError(
                            f"{text!r}: the replay 'V' lists cell {twice} twice", line=line)
                    replay = found
                tokens = tokens[:count + 2]
            if len(tokens) != count + 2:
                raise ProofFormatError(
                    f"{text!r} announces {count} replies but lists {len(tokens) - 2}", line=line)
            replies = self._cell_list(tokens, 2, text, line)
            depth, mover = shape.node(kind, count + bool(cover) + passed, line, bool(cover),
                                      bool(replay), passed)
            return Record(line, kind, replies, depth, mover, cover=cover, replay=replay,
                          passed=passed)
        if kind in ("F", "P"):
            found = self._cell_list(tokens, 1, text, line)
            if kind == "P" and len(found) % 2:
                raise ProofFormatError(
                    f"{text!r} has an odd number of cells: a pairing lists pairs", line=line)
            depth, mover = shape.node(kind, 0, line)
            return Record(line, kind, found, depth, mover)
        if kind in ("E", "T"):
            if len(tokens) != 1:
                raise ProofFormatError(self._bad(text, f"'{kind}' alone"), line=line)
            depth, mover = shape.node(kind, 0, line)
            return Record(line, kind, (), depth, mover)
        if kind == "=":
            target = tokens[1] if len(tokens) == 2 else ""
            if not (target.isascii() and target.isdigit() and target[0] != "0"):
                raise ProofFormatError(self._bad(text, "'= n' with a line number n"), line=line)
            depth, mover = shape.node(kind, 0, line)
            return Record(line, kind, (), depth, mover, target=int(target))
        raise ProofFormatError(
            f"bad token {kind!r} at the start of {text!r}: a line starts with one of "
            "S M W F P E T = R", line=line)

    def _cell_list(self, tokens: list[str], start: int, text: str,
                   line: int) -> tuple[int, ...]:
        cells = self._cells
        try:
            return tuple([cells[t] for t in tokens[start:]])
        except KeyError:
            bad = next(t for t in tokens[start:] if t not in cells)
            raise ProofFormatError(
                f"bad token {bad!r} in {text!r}: cells are 0-{self._variant.cells - 1}, "
                "separated by single spaces", line=line) from None

    def _bad(self, text: str, expected: str) -> str:
        return (f"bad node line {text!r}: expected {expected} (cells 0-"
                f"{self._variant.cells - 1}, separated by single spaces)")


def parse_nodes(variant: Variant, lines: Iterable[str], prover: str, claim: str = "win",
                version: int = VERSION) -> Iterator[Record]:
    """The records of one tree given as node lines (no header, no section line): the
    prover `prover` is to move at its root, the lines are numbered from 1, and they must
    make exactly one whole tree (`ProofFormatError` otherwise).

    >>> [(r.line, r.kind, r.depth, r.passed) for r in parse_nodes(
    ...     Variant.parse("3x3"), ["M 4", "R 1 0 Y", "W 8", "W 2"], "x")]
    [(1, 'M', 0, False), (2, 'R', 1, True), (3, 'W', 2, False), (4, 'W', 2, False)]
    """
    if prover not in ("x", "o") or claim not in CLAIMS:
        raise ValueError(f"bad prover or claim {prover!r} {claim!r}")
    parser = _NodeParser(variant)
    shape = _Shape(prover, version)
    shape.section(prover, claim, 0)
    line = 0
    for text in lines:
        line += 1
        if not shape.open:
            raise ProofFormatError(f"the tree ends at line {line - 1}, but more lines follow",
                                   line=line)
        if text[:1] == "S":
            raise ProofFormatError(f"{text!r}: the lines of a tree have no section line",
                                   line=line)
        yield parser._record(text.encode("ascii", "replace"), line, shape)
    if shape.open:
        raise ProofFormatError(
            f"the lines end while the tree still expects {sum(shape.pending)} more node(s)",
            line=line + 1)


class ProofReader(_NodeParser):
    """Stream a proof file: `header`, then iterate for one `Record` per line after it.

    Raises `ProofFormatError` naming the line for anything that breaks the format,
    including a file shorter than the header's ``lines`` (truncated) or longer (trailing
    garbage). Use it as a context manager, or call `close`.
    """

    def __init__(self, source: Source) -> None:
        self._stream = open_binary(source)
        try:
            self.header = _parse_header(self._readline())
        except BaseException:
            self._stream.close()
            raise
        super().__init__(self.header.variant)

    def _readline(self) -> bytes | None:
        try:
            return self._stream.readline() or None
        except (EOFError, OSError, gzip.BadGzipFile) as err:
            raise ProofFormatError(f"cannot read the file: {err}") from None

    def __enter__(self) -> ProofReader:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._stream.close()

    def __iter__(self) -> Iterator[Record]:
        total = self.header.lines
        shape = _Shape(self.header.root().turn.symbol, self.header.version)
        stream = self._stream
        line = 1
        try:
            for raw in stream:
                line += 1
                if line > total + 1:
                    raise trailing(total, line)
                yield self._record(raw, line, shape)
        except (EOFError, OSError, gzip.BadGzipFile) as err:
            raise ProofFormatError(
                f"cannot read the file after line {line}: {err} (truncated or corrupt gzip?)",
                line=line + 1) from None
        if line < total + 1:
            raise truncated(total, line)
        if shape.open:
            raise ProofFormatError(
                f"truncated tree: the file ends while the section on line {shape.start} still "
                f"expects {sum(shape.pending)} more node(s)", line=line + 1)
        if not shape.start:
            raise ProofFormatError("the file has no section", line=line + 1)


def truncated(total: int, last: int) -> ProofFormatError:
    """The error for a file that ends at line `last` although its header announces `total`
    lines after it."""
    return ProofFormatError(
        f"truncated file: the header says {total} lines follow it, but the file ends after "
        f"line {last}", line=last + 1)


def trailing(total: int, line: int) -> ProofFormatError:
    """The error for a line past the header's count."""
    return ProofFormatError(
        f"trailing garbage: the header says {total} lines follow it, so the file should end "
        f"at line {total + 1}", line=line)


def read_header(source: Source) -> Header:
    """Only the header of a proof file."""
    with ProofReader(source) as reader:
        return reader.header


def iter_records(source: Source) -> Iterator[Record]:
    """Every record of a proof file, closing it at the end."""
    with ProofReader(source) as reader:
        yield from reader


# --------------------------------------------------------------------------- writing
class NodeWriter:
    """The named node helpers over one method, `node(kind, cells, target, cover, replay,
    passed)`, and the `next_line` property: `ProofWriter` writes the nodes to a file; a
    subclass may keep them elsewhere (``tictactoe.search.pn.proofs`` keeps a subtree in
    memory)."""

    @property
    def next_line(self) -> int:
        """The line number the next node will have."""
        raise NotImplementedError

    def node(self, kind: str, cells: Iterable[int] = (), target: int = 0,
             cover: Iterable[int] = (), replay: Iterable[int] = (), passed: bool = False
             ) -> int:
        """Write a node of any kind; return its line number. `cover`: an ``R`` node's zone
        cover; `replay`: an ``R`` node's replay (``V``); `passed`: an ``R`` node with a pass
        subtree (``Y``), which follows its replies' subtrees."""
        raise NotImplementedError

    def move(self, cell: int) -> int:
        """``M c``: the prover plays c; the opponent's node follows."""
        return self.node("M", (cell,))

    def win(self, cell: int) -> int:
        """``W c``: the prover completes a line."""
        return self.node("W", (cell,))

    def forced(self, hint: Iterable[int] = ()) -> int:
        """``F c1 c2 ...``: the prover wins by a threat sequence (the cells are a hint)."""
        return self.node("F", hint)

    def pairing(self, pairs: Iterable[tuple[int, int]]) -> int:
        """``P a1 b1 a2 b2 ...``: a pairing strategy holds (hold sections only), at the
        prover's turn or, from version 2 on, at the opponent's. The pairs are written in
        order, each pair's cells too, so that the pairings of near positions read alike and
        compress well."""
        ordered = sorted((min(a, b), max(a, b)) for a, b in pairs)
        return self.node("P", [c for pair in ordered for c in pair])

    def end(self) -> int:
        """``E``: the board is full."""
        return self.node("E")

    def stealing(self) -> int:
        """``T``: the prover, the first player at the empty board, holds by strategy
        stealing (a hold section's whole tree; version 3)."""
        return self.node("T")

    def same(self, line: int) -> int:
        """``= n``: the same position, up to symmetry, as the prover node on line n."""
        return self.node("=", target=line)

    def replies(self, cells: Iterable[int], cover: Iterable[int] = (),
                replay: Iterable[int] = (), passed: bool = False) -> int:
        """``R n c1 ... cn``: the opponent's replies; their prover nodes follow in order.
        With a `cover` (hold sections, version 3), ``R n c1 ... cn Z z1 ... zj``: then the
        prover node for the position with every ``z`` the opponent's follows last. With a
        `replay` (version 4), ``R n c1 ... cn V h1 ... hj``: every other reply is met by the
        threat sequence whose prover moves are the ``h`` (no node follows for it). With
        `passed` (win sections, version 4), ``R n c1 ... cn Y``: the prover node of the
        position where the opponent passed follows last, and every reply outside that pass
        subtree's zone is covered by it."""
        return self.node("R", cells, cover=cover, replay=replay, passed=passed)


class ProofWriter(NodeWriter):
    """Write a proof file line by line; the header (with its line count) is written on
    `close`. Each node method returns the node's line number, for later ``= n`` references.

    `target` is a path (gzip if it ends in ``.gz`` or ``compress=True``), written whole on
    `close` or not at all, or a binary file object. The writer refuses a tree of the wrong
    shape (`ProofFormatError`), so a file it closes always reads back; whether the proof is
    correct is for the checker to say.
    """

    def __init__(self, target: str | os.PathLike[str] | IO[bytes], *, position: Position | str,
                 value: str, compress: bool | None = None, **extra: Any) -> None:
        root = position if isinstance(position, Position) else Position.from_string(position)
        if value not in VALUES:
            raise ValueError(f"value must be 'x', 'o' or 'draw', not {value!r}")
        self.variant = root.variant
        self.position = root.to_string()
        self.value = value
        self.extra = extra
        self._target = target
        if compress is None:
            compress = isinstance(target, str | os.PathLike) and os.fspath(target).endswith(
                ".gz")
        self._compress = compress
        self._body = tempfile.SpooledTemporaryFile(max_size=1 << 24)  # noqa: SIM115
        self._shape = _Shape(root.turn.symbol)
        self._version = 1  # 2 once a pairing at the opponent's turn, 3 a cover or T, 4 V, Y
        self._next = 2
        self._closed = False
        self.header: Header | None = None
        """The header written, once the writer is closed."""

    @property
    def next_line(self) -> int:
        """The line number the next record will have."""
        return self._next

    def _emit(self, text: str) -> int:
        self._body.write(text.encode("ascii") + b"\n")
        self._next += 1
        return self._next - 1

    def section(self, side: str | Side, claim: str) -> int:
        """Start a section: ``S x win`` and so on."""
        symbol = side.symbol if isinstance(side, Side) else side
        if symbol not in ("x", "o") or claim not in CLAIMS:
            raise ValueError(f"bad section {symbol!r} {claim!r}")
        self._shape.section(symbol, claim, self._next)
        return self._emit(f"S {symbol} {claim}")

    def node(self, kind: str, cells: Iterable[int] = (), target: int = 0,
             cover: Iterable[int] = (), replay: Iterable[int] = (), passed: bool = False
             ) -> int:
        """Write a node of any kind; see the named helpers below."""
        cells, cover, replay = tuple(cells), tuple(cover), tuple(replay)
        if any(not 0 <= c < self.variant.cells for c in cells + cover + replay):
            raise ValueError(f"a cell of {cells + cover + replay} is off the "
                             f"{self.variant.name} board")
        if (cover or replay) and kind != "R":
            raise ValueError(f"only an 'R' node has a zone cover or a replay, not {kind!r}")
        if passed and kind != "R":
            raise ValueError(f"only an 'R' node has a pass subtree ('Y'), not {kind!r}")
        if cover and replay:
            raise ValueError("an 'R' node has at most one of a zone cover and a replay")
        if passed and (cover or replay):
            raise ValueError("an 'R' node with a pass subtree ('Y') has no zone cover and no "
                             "replay")
        if len(set(replay)) < len(replay):
            raise ValueError(f"the replay {replay} lists a cell twice")
        children = 1 if kind == "M" else len(cells) + bool(cover) + passed if kind == "R" \
            else 0
        if kind not in PROVER_KINDS and kind != "R":
            raise ValueError(f"unknown node kind {kind!r}")
        _, mover = self._shape.node(kind, children, self._next, bool(cover), bool(replay),
                                    passed)
        if kind == "P" and mover != self._shape.prover:
            self._version = max(self._version, 2)
        if cover or kind == "T":
            self._version = max(self._version, 3)
        if replay or passed:
            self._version = 4
        return self._emit(format_node(kind, cells, target, cover, replay, passed=passed))

    def __enter__(self) -> ProofWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if kind is None:
            self.close()
        else:
            self._body.close()

    def discard(self) -> None:
        """Drop what was written: nothing reaches the target (a no-op once closed)."""
        if not self._closed:
            self._closed = True
            self._body.close()

    def close(self) -> Header:
        """Write the header and the body to the target; return the header."""
        if self._closed:
            raise ValueError("the proof writer is already closed")
        if self._shape.open or not self._shape.start:
            self._body.close()
            raise ProofFormatError(
                "cannot close the proof: " + ("the last section's tree is incomplete"
                                              if self._shape.open else "it has no section"))
        self._closed = True
        header = Header(self.variant, self.position, self.value, self._next - 2, self.extra,
                        self._version)
        if isinstance(self._target, str | os.PathLike):
            # a temporary file next to the target, renamed over it once whole: no partial
            # file is ever left at the target (a full disk, Ctrl-C)
            target = os.fspath(self._target)
            folder, name = os.path.split(target)
            temporary = os.path.join(folder, f".{name}.{os.getpid()}-{secrets.token_hex(4)}"
                                             ".part")
            try:
                with open(temporary, "xb") as out:
                    self._copy(header, out)
                os.replace(temporary, target)
            except BaseException:
                self._body.close()
                with contextlib.suppress(OSError):
                    os.remove(temporary)
                raise
        else:
            self._copy(header, self._target)
        self._body.close()
        self.header = header
        return header

    def _copy(self, header: Header, out: IO[bytes]) -> None:
        sink: IO[bytes] = cast(IO[bytes], gzip.GzipFile(fileobj=out, mode="wb", mtime=0)) \
            if self._compress else out
        sink.write(header.to_json().encode("utf-8") + b"\n")
        self._body.seek(0)
        while chunk := self._body.read(1 << 20):
            sink.write(chunk)
        if sink is not out:
            sink.close()
