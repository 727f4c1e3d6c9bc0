"""Oren Patashnik's Qubic dictionary, the strategy it defines, and a verifier that walks it.

The dictionary holds 2,929 strategic moves for X, the first player, on the 4x4x4 cube. It
is the core of Patashnik's computer-assisted proof that the first player wins Qubic:
O. Patashnik, "Qubic: 4×4×4 Tic-Tac-Toe", *Mathematics Magazine* 53(4), 202-216, 1980.
Patashnik built it in 1976-77, and Ken Thompson gave it its final form in 1978. The data
comes from the public repository Quuxplusone/RecreationalMath (file
HararyTicTacToe/qubic.dictionary); it may be used provided its moves are unchanged and its
source is credited. The copy here (``reference/qubic-patashnik.dictionary``) holds its
data lines unchanged.

**Format.** One entry per line: a position, a space, X's move as a cell from 0 to 63. The
position lists cells from cell 0: ``x`` and ``o`` are marks, a decimal number skips that
many empty cells, and cells after the last mark are empty; X and O have equal counts, so X
is to move. Cells are ``16*layer + 4*row + column``, the project's row-major order. Each
position stands for its whole class under the cube's 192 symmetries.

**The strategy.** At X's turn: (1) win at once if possible; (2) else block O's threat (a
line of three O and an empty cell); (3) else play the dictionary move, if the position is in
the dictionary up to symmetry; (4) else play a *forced sequence* (threats, each forcing O's
one reply, ending in a double threat), found here by the proof checker's own threat search
(`tictactoe.proof.threats`). The dictionary relies on one existing wherever it has no entry.

`verify_strategy` walks this strategy from the empty board against every O reply (up to the
symmetries of each position, and leaving out replies after which X completes a line at
once), and confirms that every line of play ends in an X win. It can write the walk as a
proof file that `tictactoe.proof.check` verifies. From the empty cube the walk decides
317,789 X positions (up to symmetry) and finds no position where no rule applies; the
figures are in ``docs/qubic-patashnik.md``, and ``scripts/bench_patashnik.py`` reproduces
them.

>>> parse_position("x14o") == (1 << 0, 1 << 15)
True
>>> x, o, move = parse_entry("x2x1o14o 51")
>>> cells_of(x), cells_of(o), move
([0, 3], [5, 20], 51)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tictactoe.core import Position, Variant
from tictactoe.proof.format import Header, ProofWriter
from tictactoe.proof.threats import (
    MAX_POSITIONS,
    Board,
    ThreatSearch,
    board_of,
    cells_of,
    stabiliser,
    symmetry_between,
    threat_cells,
)

QUBIC = Variant.parse("4x4x4")

DICTIONARY_FILE = "qubic-patashnik.dictionary"
"""The dictionary's file name, in the ``reference`` folder next to this module."""

CREDIT = ('O. Patashnik, "Qubic: 4x4x4 Tic-Tac-Toe", Mathematics Magazine 53(4), 202-216, '
          "1980; data from Quuxplusone/RecreationalMath (HararyTicTacToe/qubic.dictionary)")
"""The source of the dictionary, to be credited wherever it is used."""

PUBLISHED_COUNTS = {0: 1, 2: 12, 4: 195, 6: 1448, 8: 788, 10: 309, 12: 110, 14: 51, 16: 15}
"""Entries by plies played, as the dictionary's documentation gives them (2,929 in all)."""


class DictionaryError(ValueError):
    """The dictionary file is malformed or holds an impossible entry."""


# --------------------------------------------------------------------------- parsing
def parse_position(text: str) -> tuple[int, int]:
    """The (X mask, O mask) of a dictionary position.

    >>> parse_position("") , parse_position("x2x")
    ((0, 0), (9, 0))
    >>> parse_position("x2q")
    Traceback (most recent call last):
    ...
    tictactoe.proof.patashnik.DictionaryError: bad character 'q' in position 'x2q'
    """
    x = o = 0
    cell = 0
    number = ""
    for ch in text:
        if ch.isascii() and ch.isdigit():
            number += ch
            continue
        if number:
            cell += int(number)
            number = ""
        if ch not in "xo":
            raise DictionaryError(f"bad character {ch!r} in position {text!r}")
        if cell >= QUBIC.cells:
            raise DictionaryError(f"position {text!r} runs past cell 63")
        if ch == "x":
            x |= 1 << cell
        else:
            o |= 1 << cell
        cell += 1
    if number and cell + int(number) > QUBIC.cells:
        raise DictionaryError(f"position {text!r} runs past cell 63")
    return x, o


def parse_entry(line: str) -> tuple[int, int, int]:
    """(X mask, O mask, move) of one dictionary line."""
    text = line.rstrip("\n")
    position, sep, move = text.rpartition(" ")
    if not sep or not (move.isascii() and move.isdigit()) or int(move) >= QUBIC.cells:
        raise DictionaryError(f"expected 'POSITION MOVE' with a move 0-63, not {text!r}")
    x, o = parse_position(position)
    return x, o, int(move)


@dataclass(frozen=True)
class Entry:
    """One dictionary entry: the position (X to move), X's move, and its line in the file."""

    x: int
    o: int
    move: int
    line: int

    @property
    def ply(self) -> int:
        """Marks on the board."""
        return (self.x | self.o).bit_count()

    def position(self) -> Position:
        """The entry's position (X to move)."""
        position = Position(QUBIC)
        position.x, position.o = self.x, self.o
        return position


def invariant(board: Board, x: int, o: int) -> int:
    """A symmetry invariant of a position (as a hash): for each mark, the sorted (X count,
    O count) of the lines through it, as a multiset. Equivalent positions have equal
    invariants; the converse is checked separately.
    """
    k1 = board.k + 1
    masks = board.masks
    through = board.through_index
    classes: dict[int, int] = {}
    signatures = []
    for mark, cells in ((0, cells_of(x)), (1, cells_of(o))):
        for c in cells:
            signature = [mark]
            for i in through[c]:
                found = classes.get(i)
                if found is None:
                    m = masks[i]
                    found = classes[i] = (x & m).bit_count() * k1 + (o & m).bit_count()
                signature.append(found)
            signature[1:] = sorted(signature[1:])
            signatures.append(tuple(signature))
    signatures.sort()
    return hash(tuple(signatures))


class PositionIndex:
    """Positions of one variant, found again up to symmetry.

    Buckets by `invariant`, then looks for a symmetry within the bucket.
    """

    def __init__(self, board: Board) -> None:
        self.board = board
        self._buckets: dict[int, list[tuple[int, int, int]]] = {}
        self.size = 0

    def add(self, x: int, o: int, value: int) -> None:
        """File a position with a value (an int)."""
        self._buckets.setdefault(invariant(self.board, x, o), []).append((x, o, value))
        self.size += 1

    def find(self, x: int, o: int) -> tuple[tuple[int, ...], int] | None:
        """(a symmetry mapping the filed position onto this one, its value), or None."""
        for fx, fo, value in self._buckets.get(invariant(self.board, x, o), ()):
            perm = symmetry_between(self.board, fx, fo, x, o)
            if perm is not None:
                return perm, value
        return None


class Dictionary:
    """The parsed dictionary: its entries, and lookup up to the cube's symmetries.

    Parsing validates every entry: a position that can arise in play with X to move (equal
    counts, no line), a move on an empty cell, and no two entries in one symmetry class.
    """

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.board = board_of(QUBIC)
        self.entries = list(entries)
        self._index = PositionIndex(self.board)
        for number, entry in enumerate(self.entries):
            found = self._index.find(entry.x, entry.o)
            if found is not None:
                other = self.entries[found[1]]
                raise DictionaryError(
                    f"line {entry.line}: the position is equivalent to line {other.line}'s")
            self._index.add(entry.x, entry.o, number)

    def __len__(self) -> int:
        return len(self.entries)

    def counts_by_ply(self) -> dict[int, int]:
        """How many entries have each number of marks."""
        counts: dict[int, int] = {}
        for entry in self.entries:
            counts[entry.ply] = counts.get(entry.ply, 0) + 1
        return dict(sorted(counts.items()))

    def find(self, x: int, o: int) -> tuple[Entry, int] | None:
        """The entry for this position (up to symmetry) and X's move here (the entry's move
        mapped through the symmetry that relates the two), or None."""
        found = self._index.find(x, o)
        if found is None:
            return None
        perm, number = found
        entry = self.entries[number]
        return entry, perm[entry.move]

    def lookup(self, x: int, o: int) -> int | None:
        """X's dictionary move in this position, or None if no entry matches.

        >>> d = Dictionary([Entry(1 << 0, 1 << 21, 3, 1)])
        >>> d.lookup(1 << 3, 1 << 22)   # the mirror image: the move is mirrored too
        0
        """
        found = self.find(x, o)
        return None if found is None else found[1]


def load_dictionary(path: str | os.PathLike[str]) -> Dictionary:
    """Read and validate the dictionary file."""
    entries = []
    with open(path, encoding="ascii") as lines:
        for number, line in enumerate(lines, start=1):
            try:
                x, o, move = parse_entry(line)
            except DictionaryError as err:
                raise DictionaryError(f"line {number}: {err}") from None
            position = Position(QUBIC)
            position.x, position.o = x, o
            problems = position.problems()
            if x.bit_count() != o.bit_count():
                problems.append("X and O do not have equal counts, so X is not to move")
            if position.outcome() is not None:
                problems.append("the game is over")
            if (x | o) >> move & 1:
                problems.append(f"the move {move} is on a taken cell")
            if problems:
                raise DictionaryError(
                    f"line {number}: {line.strip()!r}: {'; '.join(problems)}")
            entries.append(Entry(x, o, move, number))
    return Dictionary(entries)


def find_dictionary() -> Path | None:
    """The dictionary file shipped with this package, or None if it is absent."""
    path = Path(__file__).resolve().parent / "reference" / DICTIONARY_FILE
    return path if path.is_file() else None


# --------------------------------------------------------------------------- the strategy
@dataclass(frozen=True)
class Decision:
    """X's choice at one position: `rule` is ``win``, ``block``, ``dictionary``,
    ``forced`` or ``none`` (no rule applies: a failure, explained by `reason`). `moves`
    holds the move, or the forced sequence's moves."""

    rule: str
    moves: tuple[int, ...] = ()
    reason: str = ""
    searched: int = 0
    """Positions the threat search visited."""
    entry: int = 0
    """The dictionary line used, for a dictionary move."""


class Strategy:
    """Patashnik's strategy for X: win, block, dictionary move, forced sequence."""

    def __init__(self, dictionary: Dictionary, *, max_positions: int = MAX_POSITIONS) -> None:
        self.dictionary = dictionary
        self.board = dictionary.board
        self.threats = ThreatSearch(QUBIC, max_positions=max_positions)

    def decide(self, x: int, o: int) -> Decision:
        """X's move in a position with X to move."""
        board = self.board
        wins = threat_cells(board, x, o)
        if wins:
            return Decision("win", (cells_of(wins)[0],))
        blocks = threat_cells(board, o, x)
        if blocks & (blocks - 1):
            return Decision("none", reason=f"O threatens cells {cells_of(blocks)}: X cannot "
                                           "block both")
        if blocks:
            return Decision("block", (blocks.bit_length() - 1,))
        found = self.dictionary.find(x, o)
        if found is not None:
            entry, move = found
            if (x | o) >> move & 1:
                return Decision("none", reason=f"the dictionary move {move} is taken")
            return Decision("dictionary", (move,), entry=entry.line)
        sequence = self.threats.run(x, o)
        searched = self.threats.positions
        if sequence is None:
            bound = (f", stopped at the bound of {self.threats.max_positions:,}"
                     if self.threats.exhausted else "")
            return Decision("none", reason="not in the dictionary, and the threat search "
                                           f"finds no forced sequence ({searched:,} positions"
                                           f"{bound})", searched=searched)
        return Decision("forced", tuple(sequence), searched=searched)


# --------------------------------------------------------------------------- the walk
@dataclass
class WalkStats:
    """What a walk of the strategy covered."""

    x_positions: int = 0
    """X-to-move positions decided (each class once; repeats are transpositions)."""
    transpositions: int = 0
    wins: int = 0
    blocks: int = 0
    dictionary_hits: int = 0
    forced: int = 0
    forced_with_blocks: int = 0
    """Forced sequences in which O's forced reply makes a threat that X blocks with a
    threat of its own (the definition allows it)."""
    longest_forced: int = 0
    """X's moves in the longest forced sequence."""
    threat_positions: int = 0
    o_nodes: int = 0
    o_replies: int = 0
    """O replies followed (one per class under the position's symmetries)."""
    o_by_symmetry: int = 0
    o_by_win: int = 0
    """O replies left out because X then completes a line at once."""
    max_ply: int = 0
    seconds: float = 0.0
    failures: list[tuple[str, str]] = field(default_factory=list)
    """(position string, reason) of each position where no rule applies."""
    dictionary_used: set[int] = field(default_factory=set)
    """Lines of the dictionary entries the walk used."""

    @property
    def ok(self) -> bool:
        return not self.failures

    def table(self) -> str:
        """The figures as a small table."""
        rows = [
            ("X positions decided", self.x_positions),
            ("  won at once", self.wins),
            ("  blocks", self.blocks),
            ("  dictionary moves", self.dictionary_hits),
            ("  forced sequences", self.forced),
            ("    with a block by a threat", self.forced_with_blocks),
            ("    longest (X moves)", self.longest_forced),
            ("  no rule applies", len(self.failures)),
            ("transpositions (repeats)", self.transpositions),
            ("dictionary entries used", len(self.dictionary_used)),
            ("O nodes", self.o_nodes),
            ("O replies followed", self.o_replies),
            ("O replies by symmetry", self.o_by_symmetry),
            ("O replies losing at once", self.o_by_win),
            ("threat-search positions", self.threat_positions),
            ("deepest ply", self.max_ply),
        ]
        width = max(len(name) for name, _ in rows)
        lines = [f"{name:<{width}}  {value:>12,}" for name, value in rows]
        lines.append(f"{'seconds':<{width}}  {self.seconds:>12.1f}")
        return "\n".join(lines)


class Walk:
    """Walk the strategy depth first from a position with X to move, against every O
    reply; optionally write the walk as a proof file's ``S x win`` section."""

    def __init__(self, strategy: Strategy, *, writer: ProofWriter | None = None,
                 progress: Callable[[WalkStats], None] | None = None,
                 progress_every: int = 10_000) -> None:
        self.strategy = strategy
        self.board = strategy.board
        self.writer = writer
        self.stats = WalkStats()
        self.seen = PositionIndex(self.board)
        self.progress = progress
        self.progress_every = progress_every
        self._line = 2  # line numbers when no writer is given

    def _emit(self, kind: str, cells: Iterable[int] = (), target: int = 0) -> int:
        if self.writer is not None:
            return self.writer.node(kind, cells, target)
        self._line += 1
        return self._line - 1

    def run(self, x: int, o: int) -> WalkStats:
        """Walk from (x, o), X to move."""
        started = time.perf_counter()
        self._x_node(x, o)
        self.stats.seconds += time.perf_counter() - started
        return self.stats

    def _x_node(self, x: int, o: int) -> None:
        stats = self.stats
        found = self.seen.find(x, o)
        if found is not None:
            stats.transpositions += 1
            self._emit("=", target=found[1])
            return
        line = self.writer.next_line if self.writer is not None else self._line
        self.seen.add(x, o, line)
        stats.x_positions += 1
        ply = (x | o).bit_count()
        stats.max_ply = max(stats.max_ply, ply)
        if self.progress is not None and stats.x_positions % self.progress_every == 0:
            self.progress(stats)
        decision = self.strategy.decide(x, o)
        stats.threat_positions += decision.searched
        rule = decision.rule
        if rule == "win":
            stats.wins += 1
            self._emit("W", decision.moves)
            return
        if rule == "forced":
            stats.forced += 1
            stats.longest_forced = max(stats.longest_forced, len(decision.moves))
            if forced_blocks(self.board, x, o, decision.moves):
                stats.forced_with_blocks += 1
            self._emit("F", decision.moves)
            return
        if rule == "none":
            position = Position(QUBIC)
            position.x, position.o = x, o
            stats.failures.append((position.to_string(), decision.reason))
            self._emit("F")  # the claim that fails; a checker rejects it here
            return
        if rule == "block":
            stats.blocks += 1
        else:
            stats.dictionary_hits += 1
            stats.dictionary_used.add(decision.entry)
        move = decision.moves[0]
        self._emit("M", decision.moves)
        self._o_node(x | 1 << move, o)

    def _o_node(self, x: int, o: int) -> None:
        board = self.board
        stats = self.stats
        stats.o_nodes += 1
        empty = board.full & ~(x | o)
        wins = threat_cells(board, x, o)
        if wins & (wins - 1):
            open_cells = 0
        elif wins:
            open_cells = wins
        else:
            open_cells = empty
        stats.o_by_win += (empty & ~open_cells).bit_count()
        replies: list[int] = []
        if open_cells:
            symmetric = stabiliser(board, x, o) if open_cells & (open_cells - 1) else []
            covered = 0
            for c in cells_of(open_cells):
                if covered >> c & 1:
                    stats.o_by_symmetry += 1
                    continue
                replies.append(c)
                covered |= 1 << c
                for perm in symmetric:
                    covered |= 1 << perm[c]
        stats.o_replies += len(replies)
        self._emit("R", replies)
        for c in replies:
            self._x_node(x, o | 1 << c)


def forced_blocks(board: Board, x: int, o: int, moves: Iterable[int]) -> int:
    """How many moves of X's forced sequence block a threat made by O's forced reply.

    >>> b = board_of(Variant.parse("3x3"))
    >>> forced_blocks(b, 1 << 0 | 1 << 8, 1 << 4, [1, 6])  # O's c1 threatens a3: X takes it
    1
    """
    count = 0
    blocks = 0
    for c in moves:
        if blocks >> c & 1:
            count += 1
        x |= 1 << c
        made = 0
        for m in board.through[c]:
            if not m & o:
                rest = m & ~x
                if rest and not rest & (rest - 1):
                    made |= rest
        if made & (made - 1) or not made:
            break
        o |= made
        t = made.bit_length() - 1
        blocks = 0
        for m in board.through[t]:
            if not m & x:
                rest = m & ~o
                if rest and not rest & (rest - 1):
                    blocks |= rest
    return count


def verify_strategy(dictionary: Dictionary, *, start: Position | None = None,
                    writer: ProofWriter | None = None,
                    progress: Callable[[WalkStats], None] | None = None,
                    progress_every: int = 10_000,
                    max_positions: int = MAX_POSITIONS) -> WalkStats:
    """Walk the strategy from `start` (default: the empty cube; X must be to move) against
    every O reply, and return the figures. ``stats.ok`` is True if every line of play ends
    in an X win by the strategy's rules."""
    position = start if start is not None else Position(QUBIC)
    if position.variant != QUBIC or position.turn.symbol != "x":
        raise ValueError("the walk starts from a 4x4x4 position with X to move")
    walk = Walk(Strategy(dictionary, max_positions=max_positions), writer=writer,
                progress=progress, progress_every=progress_every)
    if writer is not None:
        writer.section("x", "win")
    return walk.run(position.x, position.o)


def write_strategy_proof(dictionary: Dictionary,
                         target: str | os.PathLike[str] | IO[bytes], *,
                         start: Position | None = None,
                         progress: Callable[[WalkStats], None] | None = None,
                         progress_every: int = 10_000,
                         **extra: Any) -> tuple[Header, WalkStats]:
    """Walk the strategy and write it as a proof file (value ``x``). If the walk meets a
    position where no rule applies, the file claims a forced win there, which the checker
    rejects; ``stats.ok`` tells."""
    position = start if start is not None else Position(QUBIC)
    extra.setdefault("generator", "tictactoe.proof.patashnik")
    extra.setdefault("source", CREDIT)
    with ProofWriter(target, position=position, value="x", **extra) as writer:
        stats = verify_strategy(dictionary, start=position, writer=writer, progress=progress,
                                progress_every=progress_every)
        writer.extra.setdefault("seconds", round(stats.seconds, 1))
        writer.extra.setdefault("x_positions", stats.x_positions)
        writer.extra.setdefault("dictionary_moves", stats.dictionary_hits)
        writer.extra.setdefault("forced_leaves", stats.forced)
    assert writer.header is not None
    return writer.header, stats
