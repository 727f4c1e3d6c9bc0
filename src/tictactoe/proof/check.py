"""The proof checker: verifies a proof file with the rules core alone.

It walks every section's tree in preorder, keeping the position as two bit masks (the
prover's marks and the opponent's), and checks each rule of ``docs/proof-format.md``. It
stops at the first failure with a `ProofCheckError` naming the line, the position and what
is wrong; a malformed file gives a `ProofFormatError`. On success it returns `CheckStats`.

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
from collections.abc import Callable
from dataclasses import dataclass, field

from tictactoe.core import Position, Side
from tictactoe.proof.errors import ProofCheckError, ProofFormatError
from tictactoe.proof.format import (
    ProofReader,
    Record,
    Source,
    open_binary,
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


class _Frame:
    """An opponent node whose children are being checked: `replies` holds, for each child,
    the opponent's marks it adds (one reply's cell, or a zone cover's cells)."""

    __slots__ = ("done", "line", "mine", "parent", "replies", "theirs")

    def __init__(self, mine: int, theirs: int, replies: list[int], line: int,
                 parent: int) -> None:
        self.mine, self.theirs, self.replies, self.line, self.parent = (
            mine, theirs, replies, line, parent)
        self.done = 0


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
        through = self.board.through
        hints = self.hints
        mine = self.mine
        theirs = self.theirs | bit
        blocks = self.their_threats
        if self.danger & bit:
            for m in through[reply]:
                if not m & mine:
                    rest = m & ~theirs
                    if rest and not rest & (rest - 1):
                        blocks |= rest
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
                made = 0
                for m in through[h]:
                    if not m & theirs:
                        rest = m & ~mine
                        if rest and not rest & (rest - 1):
                            made |= rest
            if made & (made - 1):
                return None
            if not made:
                return (f"after it V's move {name(h)} makes no threat of {self.prover} "
                        f"(step {i + 1})")
            theirs |= made  # the forced block, which leaves the prover without a threat
            blocks = 0
            for m in through[made.bit_length() - 1]:
                if not m & mine:
                    rest = m & ~theirs
                    if rest and not rest & (rest - 1):
                        blocks |= rest
            i += 1


class Checker:
    """Check one proof. `check_proof` is the usual entry point."""

    def __init__(self, source: Source, *, max_threat_positions: int | None = None,
                 progress: Callable[[int, int], None] | None = None) -> None:
        self.source = source
        self.progress = progress
        """Called as ``progress(lines_done, lines_total)`` every few thousand lines."""
        self.reader = ProofReader(source)
        self.header = self.reader.header
        self.board: Board = board_of(self.header.variant)
        self.search = ThreatSearch(self.header.variant) if max_threat_positions is None else \
            ThreatSearch(self.header.variant, max_positions=max_threat_positions)
        self.stats = CheckStats(self.header.variant.name, self.header.value, self.header.lines)
        # section state
        self.prover = Side.X
        self.claim = "win"
        self.section_line = 0
        self.mine = 0
        self.theirs = 0

    # ------------------------------------------------------------------ errors
    def _position(self, mine: int, theirs: int, prover_to_move: bool) -> str:
        position = Position(self.header.variant)
        x, o = (mine, theirs) if self.prover is Side.X else (theirs, mine)
        position.x, position.o = x, o
        position.turn = self.prover if prover_to_move else self.prover.other
        return position.to_string()

    def _fail(self, record: Record, detail: str, *, prover_to_move: bool = True
              ) -> ProofCheckError:
        """The error for this record at the current position."""
        return ProofCheckError(detail, line=record.line, position=self._position(
            self.mine, self.theirs, prover_to_move))

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
        refs = prescan(self.source, header.lines)
        saved: dict[int, tuple[int, int, int]] = {}
        sections: list[tuple[str, str]] = []
        stack: list[_Frame] = []
        stats = self.stats
        leaves = stats.leaves
        parent = 0  # line of the M node whose R node comes next
        last = 1
        progress = self.progress
        for record in self.reader:
            last = record.line
            if progress is not None and not last & 4095:
                progress(last, header.lines + 1)
            kind = record.kind
            if kind == "S":
                self._start_section(record, sections, root)
                stack.clear()
                parent = 0
                continue
            stats.positions += 1
            if record.depth > stats.max_depth:
                stats.max_depth = record.depth
            if kind == "R":
                stats.opponent_nodes += 1
                cover = self._check_replies(record)
                children = [1 << c for c in record.cells]
                if cover:
                    children.append(cover)
                if children:
                    frame = _Frame(self.mine, self.theirs, children, record.line, parent)
                    frame.done = 1
                    stack.append(frame)
                    self.theirs |= children[0]
                    continue
            elif record.side != self.prover.symbol:  # a pairing at the opponent's turn
                stats.opponent_nodes += 1
                leaves[kind] += 1
                self._check_pairing(record, prover_to_move=False)
            else:
                stats.prover_nodes += 1
                if record.line in refs:
                    saved[record.line] = (self.mine, self.theirs, self.section_line)
                if kind == "M":
                    self._check_move(record)
                    parent = record.line
                    self.mine |= 1 << record.cells[0]
                    continue
                leaves[kind] += 1
                if kind == "W":
                    self._check_win(record)
                elif kind == "F":
                    self._check_forced(record)
                elif kind == "P":
                    self._check_pairing(record)
                elif kind == "E":
                    self._check_end(record)
                elif kind == "T":
                    self._check_stealing(record)
                else:
                    self._check_same(record, saved, stack)
            # a leaf, or R 0: go on with the next sibling of the nearest open node
            while stack:
                frame = stack[-1]
                if frame.done < len(frame.replies):
                    self.mine = frame.mine
                    self.theirs = frame.theirs | frame.replies[frame.done]
                    frame.done += 1
                    break
                stack.pop()
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

    def _check_same(self, record: Record, saved: dict[int, tuple[int, int, int]],
                    stack: list[_Frame]) -> None:
        target = record.target
        if target >= record.line:
            raise self._fail(record, f"= {target}: the line referred to must come earlier")
        if target not in saved:
            raise self._fail(record, f"= {target}: line {target} is not a node of the prover")
        mine, theirs, section = saved[target]
        if section != self.section_line:
            raise self._fail(record, f"= {target}: line {target} is in another section")
        if any(frame.parent == target for frame in stack):
            raise self._fail(record, f"= {target}: line {target} is an ancestor of this node")
        if symmetry_between(self.board, mine, theirs, self.mine, self.theirs) is None:
            other = self._position(mine, theirs, True)
            raise self._fail(record, f"= {target}: no symmetry maps the position of line "
                                     f"{target} ({other!r}) onto this one")

    # ------------------------------------------------------------------ opponent nodes
    def _check_replies(self, record: Record) -> int:
        """Check an ``R`` node; return its zone cover's cells as a mask (0 if none)."""
        board = self.board
        mine, theirs = self.mine, self.theirs
        taken = mine | theirs
        empty = board.full & ~taken
        name = self.prover.other.name
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
        cover = self._check_cover(record, listed) if record.cover else 0
        stats.replies_by_zone += cover.bit_count()
        replay = self._replay(record, my_threats, their_threats) if record.replay else None
        rest = empty & ~listed & ~cover
        if not rest:
            return cover
        if my_threats & (my_threats - 1):
            by_win = rest
        elif my_threats:
            by_win = rest & ~my_threats
        else:
            by_win = 0
        by_win &= ~their_threats  # a reply that wins for the opponent ends the game
        stats.replies_by_win += by_win.bit_count()
        rest &= ~by_win
        if not rest:
            return cover
        if replay is not None:
            failed = 0
            replays = replay.why
            for c in cells_of(rest):
                if replays(c) is not None:
                    failed |= 1 << c
            stats.replies_by_replay += (rest & ~failed).bit_count()
            rest = failed
            if not rest:
                return cover
        images = 0
        replies = record.cells
        for perm in stabiliser(board, mine, theirs):
            for c in replies:
                images |= 1 << perm[c]
        uncovered = rest & ~images
        if uncovered:
            c = cells_of(uncovered)[0]
            if replay is not None:
                why = f"{replay.why(c)}"
            elif their_threats >> c & 1:
                why = f"it completes a line for {name}"
            else:
                why = (f"it is not listed, no symmetry of this position maps a listed reply "
                       f"to it, and {self.prover.name} cannot then complete a line at once")
            raise self._fail(record, f"R: {name}'s reply {board.name(c)} is not covered: {why}",
                             prover_to_move=False)
        stats.replies_by_symmetry += rest.bit_count()
        return cover

    def _replay(self, record: Record, my_threats: int, their_threats: int) -> _Replay:
        """A replay's cells must be empty at the node (the reader checks that they are
        distinct); the rest of its rule is checked per reply (`_Replay.why`)."""
        taken = self.mine | self.theirs
        for h in record.replay:
            if taken >> h & 1:
                raise self._fail(record, f"V: cell {self.board.name(h)} of the replay is taken",
                                 prover_to_move=False)
        return _Replay(self.board, self.mine, self.theirs, (my_threats, their_threats),
                       record.replay, self.prover.name, self.prover.other.name)

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


def check_proof(source: Source, *, max_threat_positions: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> CheckStats:
    """Check a proof file (a path or the file's bytes) and return its statistics.

    Raises `ProofFormatError` if the file is malformed and `ProofCheckError` if it does
    not prove its claim, at the first problem found. `progress`, if given, is called as
    ``progress(lines_done, lines_total)`` every 4,096 lines.
    """
    return Checker(source, max_threat_positions=max_threat_positions, progress=progress).run()
