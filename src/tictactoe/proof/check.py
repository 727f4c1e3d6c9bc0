"""The proof checker: verifies a proof file with the rules core alone.

It walks every section's tree in preorder, keeping the position as two bit masks (the
prover's marks and the opponent's), and checks each rule of ``docs/proof-format.md``. It
stops at the first failure with a `ProofCheckError` naming the line, the position and what
is wrong; a malformed file gives a `ProofFormatError`. On success it returns `CheckStats`.
A pass subtree (``R ... Y``) is checked in zone mode, which also gives its zone; the
search asks for a subtree's zone with `subtree_zone`.

>>> import io
>>> from tictactoe.proof.format import ProofWriter
>>> buffer = io.BytesIO()
>>> with ProofWriter(buffer, position="x1x/1o1/o2 x", value="x") as w:
...     _ = w.section("x", "win"); _ = w.win(1)
>>> check_proof(buffer.getvalue()).positions
1
>>> buffer = io.BytesIO()
>>> with ProofWriter(buffer, position="x1x/1o1/o2 x", value="x") as w:
...     _ = w.section("x", "win"); _ = w.win(5)
>>> check_proof(buffer.getvalue())
Traceback (most recent call last):
...
tictactoe.proof.errors.ProofCheckError: line 3: W 5 (c2): X's move does not complete a \
line (position 'x1x/1o1/o2 x')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from tictactoe.core import Position, Side, Variant
from tictactoe.proof.errors import ProofCheckError, ProofFormatError
from tictactoe.proof.format import (
    ProofReader,
    Record,
    Source,
    format_node,
    open_binary,
    parse_nodes,
    trailing,
    truncated,
)
from tictactoe.proof.threats import (
    Board,
    ThreatSearch,
    board_of,
    cells_of,
    scan,
    stabiliser,
    symmetry_between,
    threats_through,
)


@dataclass
class CheckStats:
    """What a successful check covered."""

    variant: str
    value: str
    lines: int
    positions: int = 0
    """Nodes checked: every position of every section's tree."""
    prover_nodes: int = 0
    opponent_nodes: int = 0
    leaves: dict[str, int] = field(default_factory=lambda: dict.fromkeys("WFPE=T", 0))
    replies_listed: int = 0
    replies_by_symmetry: int = 0
    """Unlisted replies covered as images of listed ones."""
    replies_by_win: int = 0
    """Unlisted replies covered because the prover then completes a line at once."""
    replies_by_zone: int = 0
    """Unlisted replies covered by a zone cover (``R ... Z ...``)."""
    replies_by_replay: int = 0
    """Unlisted replies covered by a replay (``R ... V ...``)."""
    replies_by_pass: int = 0
    """Unlisted replies covered by a pass subtree (``R ... Y``): outside its zone."""
    pass_subtrees: int = 0
    """Pass subtrees (``R ... Y``) checked, nested ones included."""
    forced_derived: int = 0
    """``F`` leaves whose threat sequence the checker found."""
    threat_positions: int = 0
    """Positions the threat search visited, over all ``F`` leaves."""
    max_depth: int = 0
    """Plies from the root to the deepest node."""
    seconds: float = 0.0

    def summary(self) -> str:
        """A few lines for people."""
        leaves = ", ".join(f"{kind} {n:,}" for kind, n in self.leaves.items() if n)
        rate = self.positions / self.seconds if self.seconds else 0.0
        return (
            f"proof of {self.value!r} on {self.variant}: valid\n"
            f"  {self.lines:,} lines, {self.positions:,} positions ({self.prover_nodes:,} "
            f"prover, {self.opponent_nodes:,} opponent), max depth {self.max_depth}\n"
            f"  leaves: {leaves or 'none'}\n"
            f"  replies: {self.replies_listed:,} listed, {self.replies_by_symmetry:,} by "
            f"symmetry, {self.replies_by_win:,} by immediate win"
            + (f", {self.replies_by_zone:,} by zone covers" if self.replies_by_zone else "")
            + (f", {self.replies_by_replay:,} by replays" if self.replies_by_replay else "")
            + (f", {self.replies_by_pass:,} by {self.pass_subtrees:,} pass subtree"
               + ("s" if self.pass_subtrees != 1 else "") if self.pass_subtrees else "")
            + "\n"
            f"  forced leaves derived: {self.forced_derived:,} ({self.threat_positions:,} "
            f"threat-search positions)\n"
            f"  {self.seconds:.2f} s ({rate:,.0f} positions/s)")


def prescan(source: Source, total: int) -> set[int]:
    """A quick pass before the check: the targets of every ``= n`` line (so that the
    checker keeps only the positions it will need), and the line count (so that a
    truncated file is reported as such before the check meets its end)."""
    found: set[int] = set()
    line = 0
    try:
        with open_binary(source) as stream:
            for raw in stream:
                line += 1
                if raw.startswith(b"= "):
                    text = raw[2:].strip()
                    if text.isdigit():
                        found.add(int(text))
    except (EOFError, OSError):
        raise ProofFormatError(f"cannot read the file after line {line} (truncated or corrupt "
                               "gzip?)", line=line + 1) from None
    if line > total + 1:
        raise trailing(total, total + 2)
    if line < total + 1:
        raise truncated(total, line)
    return found


class _Replay:
    """An ``R`` node's replay ``V h1 ... hj``; `why` replays it after one reply. What does
    not depend on the reply is computed once: both sides' threat cells at the node (`scan`),
    the cells where a reply makes a threat of the opponent (`danger`), and the threats the
    first hint makes, with the lines that make them.

    >>> from tictactoe.core import Variant
    >>> board = board_of(Variant.parse("6x6k4"))
    >>> mine, theirs = 1 << 14 | 1 << 15, 1 << 0 | 1 << 30  # X c3 d3, O a1 a6; O to move
    >>> threats = scan(board, mine, theirs)[:2]
    >>> replay = _Replay(board, mine, theirs, threats, (13,), "X", "O")  # V b3: a3 and e3
    >>> replay.why(20) is None
    True
    >>> replay.why(12)
    "after it V's move 13 (b3) makes one threat of X, at 16 (e3); O blocks it and V has no \
move left (step 2)"
    """

    __slots__ = ("board", "danger", "first", "first_lines", "hints", "mine", "my_threats",
                 "opponent", "prover", "their_threats", "theirs")

    def __init__(self, board: Board, mine: int, theirs: int, threats: tuple[int, int],
                 hints: tuple[int, ...], prover: str, opponent: str) -> None:
        self.board, self.mine, self.theirs, self.hints = board, mine, theirs, hints
        self.prover, self.opponent = prover, opponent
        self.my_threats, self.their_threats = threats
        want = board.k - 2
        danger = 0  # the lines with k-2 marks of the opponent and none of the prover
        if want > 0:
            for c in cells_of(theirs):
                for m in board.through[c]:
                    if not m & mine and (m & theirs).bit_count() == want:
                        danger |= m
        else:
            danger = board.full
        self.danger = danger
        after = mine | 1 << hints[0]
        first = lines = 0
        for m in board.through[hints[0]]:
            if not m & theirs:
                rest = m & ~after
                if rest and not rest & (rest - 1):
                    first |= rest
                    lines |= m
        self.first = first
        """The prover's threat cells after h1 unless the reply is on one of `first_lines`."""
        self.first_lines = lines

    def why(self, reply: int) -> str | None:
        """None if the replay wins after `reply` (a cell, empty at the node), else why not.

        The steps of ``docs/proof-format.md``: at step i, the prover to move, (a) a threat
        of the prover wins; (b) the opponent's threats must be on at most one cell, h_i;
        (c) h_i must exist and be empty; (d) h_i must make threats: on two cells it wins, on
        one the opponent's block is forced and step i+1 follows.
        """
        bit = 1 << reply
        if self.their_threats & bit:
            return f"it completes a line for {self.opponent}"
        if self.my_threats & ~bit:
            return None  # (a) at step 1
        name = self.board.name
        hints = self.hints
        mine = self.mine
        theirs = self.theirs | bit
        blocks = self.their_threats
        if self.danger & bit:
            blocks |= threats_through(self.board, reply, theirs, mine)
        i = 0
        made = 0
        while True:  # step i + 1: the prover to move and without a threat, so (a) fails
            if blocks:  # (b)
                if blocks & (blocks - 1):
                    a, b = cells_of(blocks)[:2]
                    return (f"after it {self.opponent} has threats on two cells, {name(a)} and "
                            f"{name(b)} (step {i + 1})")
                if i >= len(hints) or blocks != 1 << hints[i]:
                    return (f"after it {self.opponent} has a threat at "
                            f"{name(blocks.bit_length() - 1)}"
                            + (f", not at V's move {name(hints[i])}" if i < len(hints)
                               else " and V has no move left") + f" (step {i + 1})")
            if i >= len(hints):  # (c)
                return (f"after it V's move {name(hints[-1])} makes one threat of "
                        f"{self.prover}, at {name(made.bit_length() - 1)}; {self.opponent} "
                        f"blocks it and V has no move left (step {i + 1})")
            h = hints[i]
            if (mine | theirs) >> h & 1:
                return ((f"it takes V's move {name(h)}" if h == reply else
                         f"after it V's move {name(h)} is taken by {self.opponent}'s forced "
                         "block") + f" (step {i + 1})")
            mine |= 1 << h  # (d)
            if i == 0 and not self.first_lines & bit:
                made = self.first
            else:
                made = threats_through(self.board, h, mine, theirs)
            if made & (made - 1):
                return None
            if not made:
                return (f"after it V's move {name(h)} makes no threat of {self.prover} "
                        f"(step {i + 1})")
            theirs |= made  # the forced block, which leaves the prover without a threat
            blocks = threats_through(self.board, made.bit_length() - 1, theirs, mine)
            i += 1


SAME_REPLAYS = True
"""Whether a replay inside a pass subtree is skipped after a reply that provably replays it
exactly as an earlier reply did (`_Walk._zone_replays`); the tests turn it off to compare."""

REACH_BOUND = True
"""Whether rule 2's look at the lines through a cell (`_Walk._through`) stops at once when
the opponent's marks on all of them together are too few for any one line to meet its
bound; the tests turn it off to compare."""


class _Why(NamedTuple):
    """Why cells are in a pass subtree's zone: the rule (1-4 of ``docs/proof-format.md``),
    the line whose check put them there, and the details."""

    rule: int
    line: int
    what: str = ""
    """Rule 1: ``move`` (M, W), ``F`` or ``V`` (a cell of the line), ``reply`` (a listed
    reply); rule 2: ``pass`` at the first position of a pass subtree."""
    mask: int = 0
    """Rule 2: the line's cells."""
    marks: int = 0
    """Rule 2: the number of the opponent's marks on the line."""
    nested: _Zone | None = None
    """Rule 4: the nested pass subtree's zone."""


class _Zone:
    """A pass subtree being checked: its zone so far (`cells`), why each cell is in it
    (`reasons`, one entry per addition of new cells), and the replies of its ``R ... Y``
    node that the zone must leave out (`pending`; `top`: symmetry may cover them instead,
    outside other pass subtrees)."""

    __slots__ = ("cells", "line", "listed", "mine", "pending", "reasons", "theirs", "top")

    def __init__(self, line: int, mine: int, theirs: int, listed: int = 0, pending: int = 0,
                 top: bool = False) -> None:
        self.line, self.mine, self.theirs = line, mine, theirs
        self.listed, self.pending, self.top = listed, pending, top
        self.cells = 0
        self.reasons: list[tuple[int, _Why]] = []

    def add(self, bits: int, why: _Why) -> None:
        new = bits & ~self.cells
        if new:
            self.cells |= new
            self.reasons.append((new, why))

    def why(self, cell: int) -> _Why:
        """The reason that put `cell` in the zone first."""
        return next(why for bits, why in self.reasons if bits >> cell & 1)


class _Frame:
    """An opponent node whose children are being checked: `replies` holds, for each child,
    the opponent's marks it adds (one reply's cell, a zone cover's cells, or none for a
    pass subtree, which is then the last child and `passed` its zone)."""

    __slots__ = ("done", "line", "mine", "parent", "passed", "replies", "theirs")

    def __init__(self, mine: int, theirs: int, replies: list[int], line: int,
                 parent: int, passed: _Zone | None = None) -> None:
        self.mine, self.theirs, self.replies, self.line, self.parent = (
            mine, theirs, replies, line, parent)
        self.passed = passed
        self.done = 0


class _Walk:
    """The walk of one section's tree in preorder, keeping the position, and every node
    rule: shared by `Checker` (a whole file) and `subtree_zone` (one pass subtree).

    Inside a pass subtree (`_zones` not empty: one `_Zone` per pass subtree open around
    the current node, outermost first) it checks in *zone mode*: only ``M W F R`` nodes,
    ``F`` followed strictly, no symmetry, and every position adds to the zones.
    """

    def __init__(self, variant: Variant, stats: CheckStats,
                 max_threat_positions: int | None = None) -> None:
        self.board: Board = board_of(variant)
        self.search = ThreatSearch(variant) if max_threat_positions is None else \
            ThreatSearch(variant, max_positions=max_threat_positions)
        self.stats = stats
        # section state
        self.prover = Side.X
        self.claim = "win"
        self.section_line = 0
        self.mine = 0
        self.theirs = 0
        self._stack: list[_Frame] = []
        self._parent = 0  # line of the M node whose R node comes next
        self._refs: set[int] = set()
        self._saved: dict[int, tuple[int, int, int]] = {}
        self._zones: list[_Zone] = []

    # ------------------------------------------------------------------ errors
    def _position(self, mine: int, theirs: int, prover_to_move: bool) -> str:
        position = Position(self.board.variant)
        x, o = (mine, theirs) if self.prover is Side.X else (theirs, mine)
        position.x, position.o = x, o
        position.turn = self.prover if prover_to_move else self.prover.other
        return position.to_string()

    def _fail(self, record: Record, detail: str, *, prover_to_move: bool = True
              ) -> ProofCheckError:
        """The error for this record at the current position."""
        return ProofCheckError(detail, line=record.line, position=self._position(
            self.mine, self.theirs, prover_to_move))

    # ------------------------------------------------------------------ the walk
    def _visit(self, record: Record) -> None:
        """Check one node and go on to the position of the next one in preorder."""
        stats = self.stats
        stats.positions += 1
        if record.depth > stats.max_depth:
            stats.max_depth = record.depth
        kind = record.kind
        zones = self._zones
        if kind == "R":
            stats.opponent_nodes += 1
            cover, passed = self._check_replies(record)
            children = [1 << c for c in record.cells]
            if cover:
                children.append(cover)
            if passed is not None:
                children.append(0)
            if children:
                frame = _Frame(self.mine, self.theirs, children, record.line, self._parent,
                               passed)
                self._stack.append(frame)
                self._enter(frame)
                return
        elif record.side != self.prover.symbol:  # a pairing at the opponent's turn
            stats.opponent_nodes += 1
            if zones:
                raise self._not_in_zone(record, prover_to_move=False)
            stats.leaves[kind] += 1
            self._check_pairing(record, prover_to_move=False)
        else:
            stats.prover_nodes += 1
            if record.line in self._refs:
                self._saved[record.line] = (self.mine, self.theirs, self.section_line)
            if zones and kind not in ("M", "W", "F"):
                raise self._not_in_zone(record)
            if kind == "M":
                self._check_move(record)
                self._parent = record.line
                cell = 1 << record.cells[0]
                if zones:
                    zones[-1].add(cell, _Why(1, record.line, "move"))
                self.mine |= cell
                return
            stats.leaves[kind] += 1
            if kind == "W":
                self._check_win(record)
                if zones:
                    zones[-1].add(1 << record.cells[0], _Why(1, record.line, "move"))
            elif kind == "F":
                if zones:
                    self._check_strict_forced(record)
                else:
                    self._check_forced(record)
            elif kind == "P":
                self._check_pairing(record)
            elif kind == "E":
                self._check_end(record)
            elif kind == "T":
                self._check_stealing(record)
            else:
                self._check_same(record)
        # a leaf, or R 0: go on with the next sibling of the nearest open node
        stack = self._stack
        while stack:
            frame = stack[-1]
            if frame.done < len(frame.replies):
                self._enter(frame)
                return
            stack.pop()
            if frame.passed is not None:
                self._close_pass(frame.passed)

    def _enter(self, frame: _Frame) -> None:
        """Go to the position of the frame's next child."""
        i = frame.done
        frame.done = i + 1
        self.mine = frame.mine
        added = frame.replies[i]
        self.theirs = frame.theirs | added
        if frame.passed is not None and i == len(frame.replies) - 1:
            self._zones.append(frame.passed)  # the pass subtree: the same marks
            self._scan(frame.line)
        elif added and self._zones:
            self._through(added.bit_length() - 1, self.mine, self.theirs, frame.line)

    def _not_in_zone(self, record: Record, *, prover_to_move: bool = True
                     ) -> ProofCheckError:
        text = format_node(record.kind, record.cells, record.target)
        return self._fail(record, f"'{text}' inside {self._where()}: a pass subtree has only "
                                  "M, W, F and R nodes (no '=', 'P', 'E' or 'T')",
                          prover_to_move=prover_to_move)

    # ------------------------------------------------------------------ zones
    def _scan(self, line: int) -> None:
        """Rule 2 at the first position of a pass subtree (`line`: its ``R ... Y`` node's),
        every line: the empty cells of each line with no
        mark of the prover and at least k-1-d marks of the opponent, where d is the number of
        passes from the zone's node down to here (k-2 in a pass subtree itself, k-3 in a pass
        subtree inside it, and so on), go to the innermost zone whose bound the line meets
        (the outer ones receive them when it closes)."""
        zones = self._zones
        depth = len(zones)
        base = depth - self.board.k + 1
        mine, theirs = self.mine, self.theirs
        for m in self.board.masks:
            if not m & mine:
                count = (m & theirs).bit_count()
                j = base + count
                if j >= 0:
                    zone = zones[j if j < depth else depth - 1]
                    rest = m & ~theirs
                    if rest & ~zone.cells:
                        zone.add(rest, _Why(2, line, "pass", m, count))

    def _through(self, cell: int, mine: int, theirs: int, line: int) -> None:
        """Rule 2 after the opponent's mark on `cell` (in `theirs`): only the lines through
        it can meet the bound now and not before (a mark of the prover only takes lines
        away)."""
        zones = self._zones
        depth = len(zones)
        base = depth - self.board.k + 1
        if REACH_BOUND and base + (self.board.reach[cell] & theirs).bit_count() < 0:
            return  # no line through the cell has enough of the opponent's marks
        for m in self.board.through[cell]:
            if not m & mine:
                count = (m & theirs).bit_count()
                j = base + count
                if j >= 0:
                    zone = zones[j if j < depth else depth - 1]
                    rest = m & ~theirs
                    if rest & ~zone.cells:
                        zone.add(rest, _Why(2, line, mask=m, marks=count))

    def _open_pass(self, record: Record, listed: int, rest: int, their_threats: int
                   ) -> _Zone:
        """An ``R ... Y`` node: the replies left (`rest`) wait for the pass subtree's zone,
        but one that completes a line of the opponent is covered by nothing."""
        bad = rest & their_threats
        if bad:
            name = self.prover.other.name
            raise self._fail(record, f"R: {name}'s reply {self.board.name(cells_of(bad)[0])} "
                                     f"is not covered: it completes a line for {name}",
                             prover_to_move=False)
        return _Zone(record.line, self.mine, self.theirs, listed, rest, not self._zones)

    def _close_pass(self, zone: _Zone) -> None:
        """The pass subtree of `zone` is checked: its node's waiting replies must be
        outside the zone (or, outside other pass subtrees, images of listed replies); the
        zone joins the enclosing pass subtree's (rule 4)."""
        zones = self._zones
        zones.pop()
        stats = self.stats
        inside = zone.pending & zone.cells
        if inside and zone.top:
            images = 0
            replies = cells_of(zone.listed)
            for perm in stabiliser(self.board, zone.mine, zone.theirs):
                for c in replies:
                    images |= 1 << perm[c]
            stats.replies_by_symmetry += (inside & images).bit_count()
            inside &= ~images
        if inside:
            c = cells_of(inside)[0]
            raise ProofCheckError(
                f"R: {self.prover.other.name}'s reply {self.board.name(c)} is not covered: it "
                f"is in the zone of the pass subtree ({self._explain(zone, c)})",
                line=zone.line, position=self._position(zone.mine, zone.theirs, False))
        stats.replies_by_pass += (zone.pending & ~zone.cells).bit_count()
        stats.pass_subtrees += 1
        if zones:
            zones[-1].add(zone.cells, _Why(4, zone.line, nested=zone))

    def _explain(self, zone: _Zone, cell: int) -> str:
        """Which rule put `cell` in the zone, for people."""
        why = zone.why(cell)
        player, other = self.prover.name, self.prover.other.name
        line = why.line
        if why.rule == 1:
            text = {"move": f"{player} plays it on line {line}",
                    "reply": f"it is {other}'s reply listed on line {line}",
                    }.get(why.what, f"it is a cell of the {why.what} on line {line}")
        elif why.rule == 2:
            cells = " ".join(self.board.variant.cell_name(c) for c in cells_of(why.mask))
            where = (f"in a position checked on line {line}" if why.what != "pass" else
                     f"after the pass of line {line}" if line else "at the first position")
            text = f"the line {cells} has no mark of {player} and {why.marks} of {other} {where}"
        elif why.rule == 3:
            text = f"it is a threat cell of {player} that the check of line {line} relies on"
        else:
            assert why.nested is not None
            text = (f"it is in the zone of the pass subtree of line {line}: "
                    f"{self._explain(why.nested, cell)}")
        return f"rule {why.rule}: {text}"

    def _strict(self, line: int, label: str, mine: int, theirs: int, my_threats: int,
                blocks: int, hints: tuple[int, ...], reply: int = -1,
                touched: list[int] | None = None) -> str | None:
        """The replay's steps a-d (``docs/proof-format.md``) from this position, the
        prover to move with threats on `my_threats` and the opponent on `blocks`, adding
        to the current zone: the prover's threat cells (rule 3), the forced blocks (rule 1,
        as threat cells) and the lines through them (rule 2). None if it wins, else why
        not (`reply`: the opponent's reply a ``V`` replays after, -1 for an ``F``). The
        prover's moves and the forced blocks go to `touched`: the replay looks only at the
        lines through them."""
        zone = self._zones[-1]
        if my_threats:  # (a)
            zone.add(my_threats, _Why(3, line))
            return None
        name = self.board.name
        prover, opponent = self.prover.name, self.prover.other.name
        after = "after it " if reply >= 0 else ""
        i = 0
        made = 0
        while True:  # step i + 1: the prover to move and without a threat
            if blocks:  # (b)
                if blocks & (blocks - 1):
                    a, b = cells_of(blocks)[:2]
                    return (f"{after}{opponent} has threats on two cells, {name(a)} and "
                            f"{name(b)} (step {i + 1})")
                if i >= len(hints) or blocks != 1 << hints[i]:
                    return (f"{after}{opponent} has a threat at "
                            f"{name(blocks.bit_length() - 1)}"
                            + (f", not at {label}'s move {name(hints[i])}" if i < len(hints)
                               else f" and {label} has no move left") + f" (step {i + 1})")
            if i >= len(hints):  # (c)
                if not i:
                    return f"{prover} has no threat and {label} gives no move (step 1)"
                return (f"{after}{label}'s move {name(hints[i - 1])} makes one threat of "
                        f"{prover}, at {name(made.bit_length() - 1)}; {opponent} blocks it "
                        f"and {label} has no move left (step {i + 1})")
            h = hints[i]
            if (mine | theirs) >> h & 1:
                return ((f"it takes {label}'s move {name(h)}" if h == reply else
                         f"{after}{label}'s move {name(h)} is taken"
                         + (f" by {prover} already" if mine >> h & 1 else
                            f" by {opponent}'s forced block" if i else "")) + f" (step {i + 1})")
            mine |= 1 << h  # (d)
            if touched is not None:
                touched.append(h)
            made = threats_through(self.board, h, mine, theirs)
            if not made:
                return f"{after}{label}'s move {name(h)} makes no threat of {prover} (step {i + 1})"
            if made & ~zone.cells:
                zone.add(made, _Why(3, line))
            if made & (made - 1):
                return None
            theirs |= made  # the forced block, which leaves the prover without a threat
            t = made.bit_length() - 1
            if touched is not None:
                touched.append(t)
            self._through(t, mine, theirs, line)
            blocks = threats_through(self.board, t, theirs, mine)
            i += 1

    # ------------------------------------------------------------------ prover nodes
    def _empty_cell(self, record: Record, cell: int) -> None:
        if (self.mine | self.theirs) >> cell & 1:
            raise self._fail(record, f"{record.kind} {self.board.name(cell)}: the cell is "
                                     "taken")

    def _completes(self, cell: int) -> bool:
        mine = self.mine | 1 << cell
        return any(mine & m == m for m in self.board.through[cell])

    def _check_move(self, record: Record) -> None:
        cell = record.cells[0]
        self._empty_cell(record, cell)
        if self._completes(cell):
            raise self._fail(record, f"M {self.board.name(cell)} completes a line for "
                                     f"{self.prover.name}: write W for a winning move")

    def _check_win(self, record: Record) -> None:
        cell = record.cells[0]
        self._empty_cell(record, cell)
        if not self._completes(cell):
            raise self._fail(record, f"W {self.board.name(cell)}: {self.prover.name}'s move "
                                     "does not complete a line")

    def _check_forced(self, record: Record) -> None:
        search = self.search
        found = search.run(self.mine, self.theirs, record.cells)
        self.stats.threat_positions += search.positions
        if found is None:
            why = (f"stopped at the bound of {search.max_positions:,} positions"
                   if search.exhausted else f"searched {search.positions:,} positions")
            raise self._fail(record, f"F: the threat search finds no forced win for "
                                     f"{self.prover.name} here ({why})")
        self.stats.forced_derived += 1

    def _check_strict_forced(self, record: Record) -> None:
        """``F`` inside a pass subtree: its cells are followed strictly, as a replay's
        (steps a-d), with no threat search, so that the zone holds every cell it uses."""
        hints = record.cells
        zone = self._zones[-1]
        marks = 0
        for h in hints:
            marks |= 1 << h
        zone.add(marks, _Why(1, record.line, "F"))
        my_threats, their_threats, _ = scan(self.board, self.mine, self.theirs)
        why = self._strict(record.line, "F", self.mine, self.theirs, my_threats,
                           their_threats, hints)
        if why is not None:
            raise self._fail(record, "F: inside a pass subtree an F is followed strictly as "
                                     f"its cells give it, with no threat search: {why}")
        self.stats.forced_derived += 1

    def _check_pairing(self, record: Record, *, prover_to_move: bool = True) -> None:
        """The pairing's definition: whoever is to move, the prover answers a move of the
        opponent on a cell of a pair with the other cell, so every line without a mark of
        the prover, holding a pair, gets one before the opponent completes it."""
        if self.claim != "hold":
            raise self._fail(record, "P: a pairing shows a hold, not a win (hold sections only)",
                             prover_to_move=prover_to_move)
        cells = record.cells
        taken = self.mine | self.theirs
        seen = 0
        for c in cells:
            if taken >> c & 1:
                raise self._fail(record, f"P: cell {self.board.name(c)} is taken",
                                 prover_to_move=prover_to_move)
            if seen >> c & 1:
                raise self._fail(record, f"P: cell {self.board.name(c)} is in two pairs",
                                 prover_to_move=prover_to_move)
            seen |= 1 << c
        pairs = [1 << cells[i] | 1 << cells[i + 1] for i in range(0, len(cells), 2)]
        for m in self.board.masks:
            if not m & self.mine and not any(p & m == p for p in pairs):
                line = " ".join(self.board.variant.cell_name(c) for c in cells_of(m))
                raise self._fail(record, f"P: the line {line} has no mark of "
                                         f"{self.prover.name} and holds no pair",
                                 prover_to_move=prover_to_move)

    def _check_end(self, record: Record) -> None:
        if self.claim != "hold":
            raise self._fail(record, "E: the game is a draw here, not a win")
        if (self.mine | self.theirs) != self.board.full:
            raise self._fail(record, "E: the board is not full")

    def _check_stealing(self, record: Record) -> None:
        """Strategy stealing: at the empty board the first player holds. Were the second
        player to have a winning strategy, the first could make any move and then follow
        it as if second (an extra mark never hurts its owner, and a move the strategy asks
        for on the cell already taken is answered with any other move), and win: so the
        second player has none."""
        if self.mine | self.theirs:
            raise self._fail(record, "T: strategy stealing shows the first player's hold at "
                                     "the empty board only, and this position has marks")
        if self.prover is not Side.X:
            raise self._fail(record, "T: strategy stealing shows the hold of the first player "
                                     "(X) only")

    def _check_same(self, record: Record) -> None:
        target = record.target
        if target >= record.line:
            raise self._fail(record, f"= {target}: the line referred to must come earlier")
        if target not in self._saved:
            raise self._fail(record, f"= {target}: line {target} is not a node of the prover")
        mine, theirs, section = self._saved[target]
        if section != self.section_line:
            raise self._fail(record, f"= {target}: line {target} is in another section")
        if any(frame.parent == target for frame in self._stack):
            raise self._fail(record, f"= {target}: line {target} is an ancestor of this node")
        if symmetry_between(self.board, mine, theirs, self.mine, self.theirs) is None:
            other = self._position(mine, theirs, True)
            raise self._fail(record, f"= {target}: no symmetry maps the position of line "
                                     f"{target} ({other!r}) onto this one")

    # ------------------------------------------------------------------ opponent nodes
    def _check_replies(self, record: Record) -> tuple[int, _Zone | None]:
        """Check an ``R`` node; return its zone cover's cells as a mask (0 if none), and
        for an ``R ... Y`` node the zone its pass subtree will fill (else None)."""
        board = self.board
        mine, theirs = self.mine, self.theirs
        taken = mine | theirs
        empty = board.full & ~taken
        name = self.prover.other.name
        zone = self._zones[-1] if self._zones else None
        if zone is not None and record.cover:
            raise self._fail(record, f"R: a zone cover 'Z' inside {self._where()}: a pass "
                                     "subtree has no zone cover", prover_to_move=False)
        if not empty and self.claim == "win":
            raise self._fail(record, f"the board is full: a draw, not a win for "
                                     f"{self.prover.name}", prover_to_move=False)
        listed = 0
        my_threats, their_threats, _ = scan(board, mine, theirs)
        for c in record.cells:
            bit = 1 << c
            if taken & bit:
                raise self._fail(record, f"R: reply {board.name(c)} is on a taken cell",
                                 prover_to_move=False)
            if listed & bit:
                raise self._fail(record, f"R: reply {board.name(c)} is listed twice",
                                 prover_to_move=False)
            if their_threats & bit:
                raise self._fail(record, f"R: {name}'s reply {board.name(c)} completes a line "
                                         f"for {name}", prover_to_move=False)
            listed |= bit
        stats = self.stats
        stats.replies_listed += len(record.cells)
        if zone is not None:  # rules 1 and 3
            zone.add(listed, _Why(1, record.line, "reply"))
            if my_threats:
                zone.add(my_threats, _Why(3, record.line))
        cover = self._check_cover(record, listed) if record.cover else 0
        stats.replies_by_zone += cover.bit_count()
        replay = self._replay(record, my_threats, their_threats) if record.replay else None
        rest = empty & ~listed & ~cover
        if rest:
            if my_threats & (my_threats - 1):
                by_win = rest
            elif my_threats:
                by_win = rest & ~my_threats
            else:
                by_win = 0
            by_win &= ~their_threats  # a reply that wins for the opponent ends the game
            stats.replies_by_win += by_win.bit_count()
            rest &= ~by_win
        if record.passed:
            return cover, self._open_pass(record, listed, rest, their_threats)
        if not rest:
            return cover, None
        if replay is not None:
            if zone is not None:
                self._zone_replays(record, replay, rest, my_threats, their_threats)
                return cover, None
            failed = 0
            replays = replay.why
            for c in cells_of(rest):
                if replays(c) is not None:
                    failed |= 1 << c
            stats.replies_by_replay += (rest & ~failed).bit_count()
            rest = failed
            if not rest:
                return cover, None
        images = 0
        replies = record.cells
        for perm in stabiliser(board, mine, theirs):
            for c in replies:
                images |= 1 << perm[c]
        uncovered = rest & ~images if zone is None else rest
        if uncovered:
            c = cells_of(uncovered)[0]
            if replay is not None:
                why = f"{replay.why(c)}"
            elif their_threats >> c & 1:
                why = f"it completes a line for {name}"
            elif zone is not None and images >> c & 1:
                why = self._no_symmetry()
            else:
                why = (f"it is not listed, no symmetry of this position maps a listed reply "
                       f"to it, and {self.prover.name} cannot then complete a line at once"
                       if zone is None else f"it is not listed and {self.prover.name} cannot "
                       f"then complete a line at once")
            raise self._fail(record, f"R: {name}'s reply {board.name(c)} is not covered: {why}",
                             prover_to_move=False)
        stats.replies_by_symmetry += rest.bit_count()
        return cover, None

    def _replay(self, record: Record, my_threats: int, their_threats: int) -> _Replay:
        """A replay's cells must be empty at the node (the reader checks that they are
        distinct); the rest of its rule is checked per reply (`_Replay.why`)."""
        taken = self.mine | self.theirs
        for h in record.replay:
            if taken >> h & 1:
                raise self._fail(record, f"V: cell {self.board.name(h)} of the replay is taken",
                                 prover_to_move=False)
        if self._zones:
            marks = 0
            for h in record.replay:
                marks |= 1 << h
            self._zones[-1].add(marks, _Why(1, record.line, "V"))
        return _Replay(self.board, self.mine, self.theirs, (my_threats, their_threats),
                       record.replay, self.prover.name, self.prover.other.name)

    def _zone_replays(self, record: Record, replay: _Replay, rest: int, my_threats: int,
                      their_threats: int) -> None:
        """A replay inside a pass subtree covers the replies of `rest`, each replayed by
        `_strict`, which adds to the zone what the replay relies on; rule 2 also gets the
        lines through the reply."""
        board = self.board
        mine, theirs = self.mine, self.theirs
        line = record.line
        name = self.prover.other.name
        # Once a reply's replay has won looking only at lines that miss it (and the reply
        # made no threat of the opponent and took no threat cell of the prover), it was the
        # replay after a pass, step for step: any other such reply off those lines replays
        # the same way, adding nothing more to the zone, and needs no replay of its own.
        same = -1  # the cells of those lines (-1: no such reply yet)
        for r in cells_of(rest):
            bit = 1 << r
            if their_threats & bit:
                why: str | None = f"it completes a line for {name}"
            else:
                after = theirs | bit
                self._through(r, mine, after, line)
                made = threats_through(board, r, after, mine)
                if SAME_REPLAYS and same >= 0 and not made and not (same | my_threats) & bit:
                    continue
                touched: list[int] = []
                why = self._strict(line, "V", mine, after, my_threats & ~bit,
                                   their_threats | made, replay.hints, r, touched)
                if why is None and not made and not my_threats & bit:
                    seen = 0
                    for c in touched:
                        seen |= board.reach[c]
                    if not seen & bit:
                        same = seen
            if why is not None:
                if r in self._images(record):
                    why += f"; {self._no_symmetry()}"
                raise self._fail(record, f"R: {name}'s reply {board.name(r)} is not covered: "
                                         f"{why}", prover_to_move=False)
        self.stats.replies_by_replay += rest.bit_count()

    def _images(self, record: Record) -> set[int]:
        """The images of an ``R`` node's listed replies under the symmetries that keep the
        position (for messages inside a pass subtree, where they cover nothing)."""
        perms = stabiliser(self.board, self.mine, self.theirs)
        return {perm[c] for perm in perms for c in record.cells}

    def _no_symmetry(self) -> str:
        return (f"only symmetry would cover it, and inside {self._where()} symmetry covers "
                "nothing")

    def _where(self) -> str:
        """The innermost open pass subtree, for messages."""
        line = self._zones[-1].line
        return f"the pass subtree of line {line}" if line else "a pass subtree"

    def _check_cover(self, record: Record, listed: int) -> int:
        """A zone cover's rule: distinct empty cells, none listed as a reply, that do not
        complete a line of the opponent all together; the prover node that follows the
        replies' is for the position with every one of them the opponent's. A hold there
        is a hold after any one of them, which leaves the opponent fewer marks (an extra
        mark never hurts its owner)."""
        board = self.board
        taken = self.mine | self.theirs
        name = self.prover.other.name
        cover = 0
        for c in record.cover:
            bit = 1 << c
            if taken & bit:
                raise self._fail(record, f"Z: cell {board.name(c)} of the cover is taken",
                                 prover_to_move=False)
            if (cover | listed) & bit:
                raise self._fail(record, f"Z: cell {board.name(c)} is listed twice",
                                 prover_to_move=False)
            cover |= bit
        theirs = self.theirs | cover
        for m in board.masks:
            if theirs & m == m:
                line = " ".join(board.variant.cell_name(c) for c in cells_of(m))
                raise self._fail(record, f"Z: with every cell of the cover, {name} completes "
                                         f"the line {line}", prover_to_move=False)
        return cover


class Checker(_Walk):
    """Check one proof. `check_proof` is the usual entry point."""

    def __init__(self, source: Source, *, max_threat_positions: int | None = None,
                 progress: Callable[[int, int], None] | None = None) -> None:
        self.source = source
        self.progress = progress
        """Called as ``progress(lines_done, lines_total)`` every few thousand lines."""
        self.reader = ProofReader(source)
        self.header = self.reader.header
        super().__init__(self.header.variant, CheckStats(
            self.header.variant.name, self.header.value, self.header.lines),
            max_threat_positions)

    # ------------------------------------------------------------------ main loop
    def run(self) -> CheckStats:
        """Check the whole file; raise at the first failure."""
        started = time.perf_counter()
        try:
            self._run()
        finally:
            self.reader.close()
        self.stats.seconds = time.perf_counter() - started
        return self.stats

    def _run(self) -> None:
        header = self.header
        root = header.root()
        problems = root.problems()
        if problems:
            raise ProofCheckError(f"the root position cannot arise in play: {problems[0]}",
                                  line=1, position=header.position)
        if root.winner() is not None or root.has_line(Side.X) or root.has_line(Side.O):
            raise ProofCheckError("the game is already over at the root: nothing to prove",
                                  line=1, position=header.position)
        self._refs = prescan(self.source, header.lines)
        sections: list[tuple[str, str]] = []
        last = 1
        progress = self.progress
        visit = self._visit
        for record in self.reader:
            last = record.line
            if progress is not None and not last & 4095:
                progress(last, header.lines + 1)
            if record.kind == "S":
                self._start_section(record, sections, root)
                self._stack.clear()
                self._zones.clear()
                self._parent = 0
                continue
            visit(record)
        self._finish(sections, last)

    # ------------------------------------------------------------------ sections
    def _start_section(self, record: Record, sections: list[tuple[str, str]],
                       root: Position) -> None:
        value = self.header.value
        side, claim = record.side, record.claim
        if value == "draw":
            if claim != "hold":
                raise ProofCheckError(
                    f"the value is draw, so the sections are 'S x hold' and 'S o hold', not "
                    f"'S {side} {claim}'", line=record.line)
            if (side, claim) in sections:
                raise ProofCheckError(f"a second 'S {side} hold' section", line=record.line)
        else:
            if sections:
                raise ProofCheckError(
                    "a win proof has one section; a second one starts here", line=record.line)
            if (side, claim) != (value, "win"):
                raise ProofCheckError(
                    f"the value is {value!r}, so the section is 'S {value} win', not "
                    f"'S {side} {claim}'", line=record.line)
        sections.append((side, claim))
        self.prover = Side.parse(side)
        self.claim = claim
        self.section_line = record.line
        self.mine, self.theirs = (root.x, root.o) if self.prover is Side.X else (root.o, root.x)

    def _finish(self, sections: list[tuple[str, str]], last: int) -> None:
        value = self.header.value
        if value == "draw":
            missing = [s for s in ("x", "o") if (s, "hold") not in sections]
            if missing:
                raise ProofCheckError(
                    f"the value is draw, but there is no 'S {missing[0]} hold' section: a "
                    "draw needs both sides' hold proofs", line=last)
        elif not sections:
            raise ProofCheckError(f"no 'S {value} win' section", line=last)


def check_proof(source: Source, *, max_threat_positions: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> CheckStats:
    """Check a proof file (a path or the file's bytes) and return its statistics.

    Raises `ProofFormatError` if the file is malformed and `ProofCheckError` if it does
    not prove its claim, at the first problem found. `progress`, if given, is called as
    ``progress(lines_done, lines_total)`` every 4,096 lines.
    """
    return Checker(source, max_threat_positions=max_threat_positions, progress=progress).run()


def subtree_zone(variant: Variant | str, prover_marks: int, opponent_marks: int, prover: str,
                 lines: Iterable[str]) -> int:
    """The zone (a mask of cells) of a pass subtree: `lines` are its node lines in preorder
    (``M 4``, ``R 2 0 1 V 9``, ``F 7 8``, ...; the lines of an ``R ... Y`` node's last
    subtree), checked in zone mode from the position with these marks and `prover`
    (``x`` or ``o``) to move, exactly as the checker checks the pass subtree of such a
    node. Every empty cell outside the zone that completes no line of the opponent is a
    reply the pass subtree covers (``docs/proof-format.md``, "Pass subtrees").

    Raises `ProofFormatError` (a bad line, or lines that are not one whole tree) or
    `ProofCheckError` (the tree does not check in zone mode) with the reason; the line
    numbers in the message count `lines` from 1.

    On 6x6k4, X has c3 d3 (cells 14, 15) and O a1 f6. After a pass X b3 (13) makes b3 c3
    d3 with threats at a3 and e3 (12, 16), and every reply of O loses at once; nothing of
    O's is near, so the zone is those three cells:

    >>> cells_of(subtree_zone("6x6k4", 1 << 14 | 1 << 15, 1 << 0 | 1 << 35, "x",
    ...                       ["M 13", "R 0"]))
    [12, 13, 16]
    >>> subtree_zone("6x6k4", 1 << 14 | 1 << 15, 1 << 0 | 1 << 35, "x", ["M 13", "R 0", "W 9"])
    Traceback (most recent call last):
    ...
    tictactoe.proof.errors.ProofFormatError: line 3: the tree ends at line 2, but more lines \
follow
    """
    return _zone_walk(variant, prover_marks, opponent_marks, prover, lines).cells


def zone_rules(variant: Variant | str, prover_marks: int, opponent_marks: int, prover: str,
               lines: Iterable[str]) -> dict[int, int]:
    """How many cells of a pass subtree's zone (`subtree_zone`, the same arguments) each
    rule of ``docs/proof-format.md`` put there first: rule -> cells.

    >>> zone_rules("6x6k4", 1 << 14 | 1 << 15, 1 << 0 | 1 << 35, "x", ["M 13", "R 0"])
    {1: 1, 3: 2}
    """
    counts: dict[int, int] = {}
    for bits, why in _zone_walk(variant, prover_marks, opponent_marks, prover,
                                lines).reasons:
        counts[why.rule] = counts.get(why.rule, 0) + bits.bit_count()
    return dict(sorted(counts.items()))


def _zone_walk(variant: Variant | str, prover_marks: int, opponent_marks: int, prover: str,
               lines: Iterable[str]) -> _Zone:
    """`subtree_zone`'s check in zone mode; the zone with its reasons."""
    v = variant if isinstance(variant, Variant) else Variant.parse(variant)
    side = Side.parse(prover)
    walk = _Walk(v, CheckStats(v.name, side.symbol, 0))
    board = walk.board
    walk.prover = side
    walk.mine, walk.theirs = prover_marks, opponent_marks
    position = walk._position(prover_marks, opponent_marks, True)
    if prover_marks & opponent_marks or (prover_marks | opponent_marks) & ~board.full:
        raise ProofCheckError("the marks overlap or lie off the board", position=position)
    if any(m & prover_marks == m or m & opponent_marks == m for m in board.masks):
        raise ProofCheckError("a line is complete already: the game is over",
                              position=position)
    zone = _Zone(0, prover_marks, opponent_marks)
    walk._zones.append(zone)
    walk._scan(0)
    for record in parse_nodes(v, lines, side.symbol):
        walk._visit(record)
    return zone
