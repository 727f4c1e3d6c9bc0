"""Positions: marks on a board, the side to move, a move stack, notation and legality.

>>> p = Position("3x3")
>>> p.push_name("b2"); p.push_name("a1")
>>> p
Position('o2/1x1/3 x')
>>> print(p)
   a b c
 1 o . .
 2 . x .
 3 . . .
>>> p.pop(), p.to_string()
(0, '3/1x1/3 o')
>>> Position("xxx/oo1/3 o").outcome()
Outcome(termination=<Termination.LINE: 1>, winner=<Side.X: 1>)
>>> Position("xxx/ooo/3 x").problems()
['both X and O have a line', 'X has a line but O moved last']
"""

from __future__ import annotations

import enum
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress
from typing import Literal, SupportsIndex

from tictactoe.core.errors import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    VariantError,
)
from tictactoe.core.symmetry import canonical_masks
from tictactoe.core.variant import MAX_COLUMNS, Variant, column_name


class Side(enum.IntEnum):
    """A player's mark. X always moves first."""

    X = 1
    O = 2  # noqa: E741

    @property
    def other(self) -> Side:
        """The opponent.

        >>> Side.X.other
        <Side.O: 2>
        """
        return Side.O if self is Side.X else Side.X

    @property
    def symbol(self) -> str:
        """``x`` or ``o``, as in position strings."""
        return "x" if self is Side.X else "o"

    @staticmethod
    def parse(text: str) -> Side:
        """Parse ``x`` or ``o`` (either case).

        >>> Side.parse("O")
        <Side.O: 2>
        """
        t = text.strip().lower()
        if t == "x":
            return Side.X
        if t == "o":
            return Side.O
        raise InvalidPositionError(f"side must be 'x' or 'o', not {text!r}")


class Termination(enum.Enum):
    """How a game ended."""

    LINE = 1
    """A side completed a line."""
    FULL_BOARD = 2
    """The board filled with no line: a draw."""


_DIGITS_AS_BYTES = bytes.maketrans(b"01", b"\x00\x01")


def cells_of(mask: int) -> list[int]:
    """The cells (bit numbers) set in `mask`, in increasing order: its binary digits,
    lowest first, as bytes 0 and 1 that `compress` reads in C (2-3 times as fast as a
    loop over the bits, on any size of board).

    >>> cells_of(0b1011), cells_of(0), cells_of(1 << 300)
    ([0, 1, 3], [], [300])
    """
    digits = bin(mask)[:1:-1].encode().translate(_DIGITS_AS_BYTES)
    return list(compress(range(len(digits)), digits))


@dataclass(frozen=True)
class Outcome:
    """The end of a game: how it ended, and the winner (None for a draw).

    >>> Outcome(Termination.FULL_BOARD, None).result()
    'draw'
    """

    termination: Termination
    winner: Side | None

    def result(self) -> str:
        """``x``, ``o`` or ``draw``."""
        return self.winner.symbol if self.winner else "draw"


@dataclass(frozen=True)
class Threat:
    """An open threat: a line where ``side`` has every cell but ``cell``, which is empty.

    >>> Position("xx1/3/o1o x").threats()
    [Threat(side=<Side.X: 1>, line=(0, 1, 2), cell=2, kind='row'), \
Threat(side=<Side.O: 2>, line=(6, 7, 8), cell=7, kind='row')]
    """

    side: Side
    line: tuple[int, ...]
    """The line's cells, in increasing order."""
    cell: int
    """The empty cell that completes the line."""
    kind: str
    """The line's kind (see `Variant.line_kind`)."""


@dataclass(frozen=True)
class Three:
    """A three on a board of five or more in a row (gomoku's "live three"): k-2 marks of
    ``side`` in a line that one more mark turns into an open four (k-1 in a row with an empty
    cell at each end: two cells that complete it, too many to block). ``shape`` is ``open``
    for marks in a row (``..XXX.``) and ``broken`` for marks with one empty cell among them
    (``.XX.X.``).

    >>> p = Position("1x9k5")
    >>> for name in ("c1", "a1", "d1", "i1", "e1"):   # o . x x x . . . o
    ...     p.push_name(name)
    >>> p.live_threes()   # b1 makes a four that O's a1 blocks at one end: only f1 counts
    [Three(side=<Side.X: 1>, marks=(2, 3, 4), cells=(5,), shape='open', kind='row')]
    """

    side: Side
    marks: tuple[int, ...]
    """The three's marks, in increasing order."""
    cells: tuple[int, ...]
    """The empty cells where one more mark makes an open four, in increasing order."""
    shape: Literal["open", "broken"]
    """``open`` (the marks in a row) or ``broken`` (one empty cell among them)."""
    kind: str
    """The line's kind (see `Variant.line_kind`)."""


class Status(enum.IntFlag):
    """Every reason a position cannot arise in play. `Status.VALID` (0) means it can.

    >>> Status.WRONG_TURN | Status.BOTH_WIN
    <Status.WRONG_TURN|BOTH_WIN: 12>
    """

    VALID = 0
    TOO_MANY_X = 1
    """X has more than one mark more than O."""
    TOO_MANY_O = 2
    """O has more marks than X."""
    WRONG_TURN = 4
    """The side to move is not the one the counts say."""
    BOTH_WIN = 8
    """Both sides have a line."""
    WINNER_NOT_LAST = 16
    """The side with a line did not make the last move."""
    WIN_LINES_DISJOINT = 32
    """The winner's lines share no cell, so they cannot all have been completed by one move."""


_ROW_TOKEN = re.compile(r"[0-9]+|[xo.]", re.IGNORECASE)  # ASCII digits only, not "３"


class Position:
    """A board position: the marks, the side to move and the stack of moves pushed.

    Build it from a position string, a variant name or a `Variant`:
    ``Position("o2/1x1/3 x")``, ``Position("4x4x4")``. The empty 3x3 board is the default.
    """

    __slots__ = ("_known", "_stack", "o", "turn", "variant", "x")

    def __init__(self, source: str | Variant = "3x3") -> None:
        self.variant: Variant
        self.x: int
        """Bit mask of X's cells (bit i is cell i)."""
        self.o: int
        """Bit mask of O's cells."""
        self.turn: Side
        """The side to move."""
        self._stack: list[int] = []
        self._known: tuple[int, int, Outcome | None] | None = None
        """``(x, o, outcome)``: the outcome known for these marks (None: the game goes on),
        so that a move is checked against the lines through its cell alone, and the result
        is not looked for again; None if nothing is known."""
        if isinstance(source, Variant):
            self.variant, self.x, self.o, self.turn = source, 0, 0, Side.X
            self._known = (0, 0, None)  # the empty board: the game goes on
        elif not isinstance(source, str):
            raise InvalidPositionError(f"a position is a string or a Variant, not "
                                       f"{type(source).__name__}")
        elif " " in source.strip() or "/" in source:
            self.variant, self.x, self.o, self.turn = _parse(source)
        else:
            try:
                variant = Variant.parse(source)
            except VariantError as err:
                raise InvalidPositionError(
                    f"{source!r} is neither a position string (like '3/3/3 x') nor a "
                    f"variant name: {err}") from None
            self.variant, self.x, self.o, self.turn = variant, 0, 0, Side.X
            self._known = (0, 0, None)

    # ----------------------------------------------------------------- strings
    @classmethod
    def from_string(cls, text: str) -> Position:
        """Parse a position string.

        >>> Position.from_string("5/5/5/5/5 x 4").variant.name
        '5x5k4'
        >>> Position.from_string("3/3/2 x")
        Traceback (most recent call last):
        ...
        tictactoe.core.errors.InvalidPositionError: row 3 has 2 cells but row 1 has 3 (at \
character 5 of '3/3/2 x')
        """
        position = cls.__new__(cls)
        position._stack = []
        position._known = None
        position.variant, position.x, position.o, position.turn = _parse(text)
        return position

    def to_string(self) -> str:
        """The position string: rows top to bottom, digit runs for empty cells, the side to
        move, then k if it is not the smallest dimension.

        >>> Position("4x4x4").to_string()
        '4/4/4/4:4/4/4/4:4/4/4/4:4/4/4/4 x'
        """
        v = self.variant
        layers = []
        for layer in range(v.layers):
            rows = []
            for row in range(v.rows):
                out, run = [], 0
                for col in range(v.columns):
                    cell = (layer * v.rows + row) * v.columns + col
                    mark = "x" if self.x >> cell & 1 else "o" if self.o >> cell & 1 else ""
                    if mark:
                        if run:
                            out.append(str(run))
                        out.append(mark)
                        run = 0
                    else:
                        run += 1
                if run:
                    out.append(str(run))
                rows.append("".join(out))
            layers.append("/".join(rows))
        text = f"{':'.join(layers)} {self.turn.symbol}"
        return text if v.k == min(v.shape) else f"{text} {v.k}"

    def __repr__(self) -> str:
        return f"Position({self.to_string()!r})"

    def __str__(self) -> str:
        return self.diagram()

    def _repr_svg_(self) -> str:
        """The board as an SVG picture, with the last pushed move marked: how a position shows
        in Jupyter. `tictactoe.svg.board` draws it with options (size, hints).

        >>> Position("xxx/oo1/3 o")._repr_svg_().count('class="cell winning')
        3
        """
        from tictactoe.core.svg import draw

        return draw(self.variant, self.x, self.o,
                    lastmove=self._stack[-1] if self._stack else None, title=self.to_string())

    def diagram(self, *, empty: str = ".") -> str:
        """The board as text with coordinates; cube layers are shown side by side.

        >>> print(Position("x1o/3/3 x").diagram())
           a b c
         1 x . o
         2 . . .
         3 . . .
        """
        v = self.variant
        width = len(str(v.rows))
        wide = v.columns > 26  # two-letter columns: two characters a cell
        letters = " ".join(column_name(c).rjust(2 if wide else 1) for c in range(v.columns))
        blocks: list[list[str]] = []
        for layer in range(v.layers):
            lines = [" " * (width + 2) + letters]
            for row in range(v.rows):
                marks = []
                for col in range(v.columns):
                    cell = (layer * v.rows + row) * v.columns + col
                    mark = ("x" if self.x >> cell & 1 else "o" if self.o >> cell & 1
                            else empty)
                    marks.append(mark.rjust(2) if wide else mark)
                lines.append(f" {row + 1:>{width}} " + " ".join(marks))
            if v.is_3d:
                lines.insert(0, f"layer {layer + 1}".center(len(lines[0])))
            blocks.append(lines)
        return "\n".join("    ".join(parts).rstrip() for parts in zip(*blocks, strict=True))

    # ----------------------------------------------------------------- identity
    def key(self) -> tuple[int, int, Side]:
        """A hashable key: (X mask, O mask, side to move)."""
        return (self.x, self.o, self.turn)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.variant == other.variant and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # positions are mutable

    def copy(self, *, stack: bool = True) -> Position:
        """A copy, with the move stack unless ``stack=False``."""
        clone = Position.__new__(Position)
        clone.variant, clone.x, clone.o, clone.turn = self.variant, self.x, self.o, self.turn
        clone._stack = list(self._stack) if stack else []
        clone._known = self._known
        return clone

    # ----------------------------------------------------------------- cells and moves
    def mark_at(self, cell: int) -> Side | None:
        """The mark on a cell, or None."""
        if self.x >> cell & 1:
            return Side.X
        if self.o >> cell & 1:
            return Side.O
        return None

    def marks(self, side: Side) -> int:
        """The bit mask of a side's cells."""
        return self.x if side is Side.X else self.o

    @property
    def occupied(self) -> int:
        return self.x | self.o

    @property
    def ply(self) -> int:
        """Number of marks on the board."""
        return self.occupied.bit_count()

    @property
    def holds_by_strategy_stealing(self) -> bool:
        """Whether strategy stealing shows that the side to move does not lose: at the empty
        board, the first player (an extra mark never hurts its owner in these games, so a
        winning strategy of the second player would win for the first).

        >>> [Position(p).holds_by_strategy_stealing for p in ("3x3", "x2/3/3 o")]
        [True, False]
        """
        return self.ply == 0

    @property
    def move_stack(self) -> list[int]:
        """The moves pushed since the position was set up (a copy)."""
        return list(self._stack)

    def empty_cells(self) -> list[int]:
        """Every empty cell in increasing order.

        >>> Position("x1o/1x1/2o x").empty_cells()
        [1, 3, 5, 6, 7]
        """
        return cells_of(self.variant.full_mask & ~self.occupied)

    def legal_moves(self) -> list[int]:
        """The empty cells, or none once the game is over."""
        return [] if self.is_game_over() else self.empty_cells()

    def parse_move(self, text: str) -> int:
        """Parse a move (``b2``, ``2:b3`` or an index) and check that it is legal here."""
        cell = self.variant.parse_cell(text)
        self._check_legal(cell)
        return cell

    def move_name(self, cell: int) -> str:
        """Name a cell: ``b2``, or ``2:b3`` on a cube."""
        return self.variant.cell_name(cell)

    def _check_legal(self, cell: SupportsIndex) -> int:
        """The move as a plain ``int`` (a numpy integer too), or the reason it is illegal."""
        if type(cell) is not int and (isinstance(cell, bool)
                                      or not hasattr(type(cell), "__index__")):
            raise InvalidMoveError(f"a move is a cell number (an int), not {cell!r}")
        index = operator.index(cell)
        if not 0 <= index < self.variant.cells:
            raise IllegalMoveError(
                f"cell {index} is off the {self.variant.name} board (0-{self.variant.cells - 1})")
        if self.occupied >> index & 1:
            raise IllegalMoveError(f"{self.move_name(index)} is already taken")
        outcome = self.outcome()
        if outcome is not None:
            result = "a draw" if outcome.winner is None else f"won by {outcome.winner.name}"
            raise IllegalMoveError(f"the game is over ({result}); no more moves")
        return index


    def push(self, cell: SupportsIndex) -> None:
        """Play a move for the side to move. Raises `IllegalMoveError` if it is not legal.

        Only the lines through the cell are checked for a win: the game went on before the
        move (else it would not be legal), so a line now is one through the move. A game of
        1,000 moves on 32x32 replays in milliseconds.
        """
        cell = self._check_legal(cell)
        bit = 1 << cell
        if self.turn is Side.X:
            self.x |= bit
            mine = self.x
        else:
            self.o |= bit
            mine = self.o
        mover, self.turn = self.turn, self.turn.other
        self._stack.append(cell)
        v = self.variant
        if mine.bit_count() >= v.k and any(mine & m == m for m in v.masks_through[cell]):
            ended: Outcome | None = Outcome(Termination.LINE, mover)
        elif (self.x | self.o) == v.full_mask:
            ended = Outcome(Termination.FULL_BOARD, None)
        else:
            ended = None
        self._known = (self.x, self.o, ended)

    def push_name(self, text: str) -> None:
        """Parse a move and push it."""
        self.push(self.parse_move(text))

    def pop(self) -> int:
        """Undo the last pushed move and return it. Raises IndexError on an empty stack."""
        cell = self._stack.pop()
        self.x &= ~(1 << cell)
        self.o &= ~(1 << cell)
        self.turn = self.turn.other
        self._known = (self.x, self.o, None)  # the move was legal: the game went on
        return cell

    def play(self, cell: SupportsIndex) -> Position:
        """A new position with the move played; this one is unchanged."""
        child = self.copy()
        child.push(cell)
        return child

    # ----------------------------------------------------------------- results
    def lines_of(self, side: Side) -> list[tuple[int, ...]]:
        """The lines a side has completed."""
        mask = self.marks(side)
        return [line for line, m in zip(self.variant.lines, self.variant.line_masks, strict=True)
                if mask & m == m]

    def threats(self) -> list[Threat]:
        """Every open threat of either side: a line with k-1 marks of one side and its
        last cell empty, X's first, each side's in the order of the lines. Whoever is to
        move, and whether or not the game is over.

        >>> [(t.side.symbol, t.cell, t.kind) for t in Position("4x4x4").threats()]
        []
        >>> p = Position("4x4x4")
        >>> for name in ("1:a2", "1:b1", "2:a2", "1:c1", "3:a2", "1:d1"):
        ...     p.push_name(name)
        >>> [(t.side.symbol, p.move_name(t.cell), t.kind) for t in p.threats()]
        [('x', '4:a2', 'pillar'), ('o', '1:a1', 'row')]
        """
        v = self.variant
        empty = v.full_mask & ~self.occupied
        found: list[Threat] = []
        for side in (Side.X, Side.O):
            mine = self.marks(side)
            for line, mask in zip(v.lines, v.line_masks, strict=True):
                gap = mask & ~mine
                if gap and gap & (gap - 1) == 0 and gap & empty:
                    found.append(Threat(side, line, gap.bit_length() - 1, v.line_kind(line)))
        return found

    def threes(self) -> list[Threat]:
        """Every open three of either side on boards of five or more in a row: an empty cell
        where the side, moving, would have threats on two cells at once (an open four, or
        two fours), one entry for each line with k-2 of its marks and no other mark through
        that cell; X's first, then by cell. ``kind`` is the line's kind.

        >>> p = Position("15x15k5")
        >>> for name in ("g8", "a1", "h8", "a3", "i8", "a5"):
        ...     p.push_name(name)
        >>> sorted({p.move_name(t.cell) for t in p.threes()})   # X's open three g8-i8
        ['f8', 'j8']
        >>> Position("3x3").threes()   # fewer than five in a row: none
        []
        """
        v = self.variant
        if v.k < 5:
            return []
        empty = v.full_mask & ~self.occupied
        found: list[Threat] = []
        for side in (Side.X, Side.O):
            mine, theirs = self.marks(side), self.marks(side.other)
            partners: dict[int, list[tuple[int, int]]] = {}
            for index, mask in enumerate(v.line_masks):
                if mask & theirs or (mask & mine).bit_count() != v.k - 2:
                    continue
                gaps = mask & empty
                a = gaps & -gaps
                b = gaps ^ a
                for cell, other in ((a, b), (b, a)):
                    partners.setdefault(cell.bit_length() - 1, []).append(
                        (other.bit_length() - 1, index))
            for cell in sorted(partners):
                lines = partners[cell]
                if len({other for other, _ in lines}) > 1:
                    found += [Threat(side, v.lines[i], cell, v.line_kind(v.lines[i]))
                              for _, i in lines]
        return found

    def live_threes(self) -> list[Three]:
        """Every three of either side on boards of five or more in a row (see `Three`): open
        (``..XXX.``) or broken (``.XX.X.``), each once with every cell that makes it an open
        four; X's first, then by their marks. A three with a mark of the other side or the
        board's edge where its open four needs an empty cell is not one (it makes only a
        four). None on boards of fewer than five in a row.

        >>> p = Position("15x15k5")
        >>> for name in ("g8", "a1", "h8", "a3", "j8", "o15"):
        ...     p.push_name(name)
        >>> [(t.shape, [p.move_name(c) for c in t.cells]) for t in p.live_threes()]
        [('broken', ['i8'])]
        >>> Position("4x4x4").live_threes()
        []
        """
        v = self.variant
        if v.k < 5:
            return []
        empty = v.full_mask & ~self.occupied
        found: dict[tuple[Side, tuple[int, ...]], tuple[set[int], int]] = {}
        for side in (Side.X, Side.O):
            mine = self.marks(side)
            for (span, line), (ends, inside) in zip(v.spans, v.span_masks, strict=True):
                gap = inside & ~mine  # one cell of the inside not the side's, and empty
                if empty & ends != ends or not gap & empty or gap & (gap - 1):
                    continue
                cell = gap.bit_length() - 1
                marks = tuple(c for c in span[1:-1] if c != cell)
                cells, _ = found.setdefault((side, marks), (set(), line))
                cells.add(cell)
        threes = []
        for (side, marks), (cells, line) in found.items():
            step = v.lines[line][1] - v.lines[line][0]
            shape: Literal["open", "broken"] = (
                "open" if marks[-1] - marks[0] == step * (len(marks) - 1) else "broken")
            threes.append(Three(side, marks, tuple(sorted(cells)), shape,
                                v.line_kind(v.lines[line])))
        return sorted(threes, key=lambda t: (t.side, t.marks))

    def has_line(self, side: Side) -> bool:
        mask = self.marks(side)
        return any(mask & m == m for m in self.variant.line_masks)

    def winning_lines(self) -> list[tuple[int, ...]]:
        """Every completed line, of either side."""
        return self.lines_of(Side.X) + self.lines_of(Side.O)

    def winner(self) -> Side | None:
        """The side with a line, if exactly one side has one."""
        x, o = self.has_line(Side.X), self.has_line(Side.O)
        if x != o:
            return Side.X if x else Side.O
        return None

    def outcome(self) -> Outcome | None:
        """How the game ended, or None if it goes on."""
        known = self._known
        if known is not None and known[0] == self.x and known[1] == self.o:
            return known[2]
        winner = self.winner()
        if winner is not None:
            found: Outcome | None = Outcome(Termination.LINE, winner)
        elif self.has_line(Side.X):  # both sides: impossible, but the game is still over
            found = Outcome(Termination.LINE, None)
        elif self.occupied == self.variant.full_mask:
            found = Outcome(Termination.FULL_BOARD, None)
        else:
            found = None
        self._known = (self.x, self.o, found)
        return found

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # ----------------------------------------------------------------- legality
    def status(self) -> Status:
        """Every reason this position cannot arise in play, as flags.

        >>> Position("xx1/o2/3 x").status()
        <Status.WRONG_TURN: 4>
        >>> Position("xxx/ooo/3 x").status()
        <Status.BOTH_WIN|WINNER_NOT_LAST: 24>
        """
        return self._diagnose()[0]

    def is_valid(self) -> bool:
        """True if the position can arise in a game from the empty board."""
        return self.status() == Status.VALID

    def problems(self) -> list[str]:
        """A readable message for each reason in `status()`; empty for a valid position."""
        return self._diagnose()[1]

    def _diagnose(self) -> tuple[Status, list[str]]:
        status, messages = Status.VALID, []
        nx, no = self.x.bit_count(), self.o.bit_count()
        counts_ok = nx - no in (0, 1)
        if nx - no > 1:
            status |= Status.TOO_MANY_X
            messages.append(f"X has {nx} marks and O has {no}: X can lead by at most one")
        if no > nx:
            status |= Status.TOO_MANY_O
            messages.append(f"O has {no} marks and X has {nx}: O cannot have more than X")
        if counts_ok:
            expected = Side.X if nx == no else Side.O
            if self.turn is not expected:
                status |= Status.WRONG_TURN
                messages.append(
                    f"with {nx} X and {no} O it is {expected.name}'s turn, not {self.turn.name}'s")
        known = self._known
        if known is not None and known[:2] == (self.x, self.o) and known[2] is None:
            x_lines, o_lines = [], []  # the game goes on (known move by move): nobody has a line
        else:
            x_lines, o_lines = self.lines_of(Side.X), self.lines_of(Side.O)
        if x_lines and o_lines:
            status |= Status.BOTH_WIN
            messages.append("both X and O have a line")
        last_mover = Side.O if nx == no else Side.X
        for side, lines in ((Side.X, x_lines), (Side.O, o_lines)):
            if not lines:
                continue
            if counts_ok and side is not last_mover:
                status |= Status.WINNER_NOT_LAST
                messages.append(f"{side.name} has a line but {last_mover.name} moved last")
            shared = set(lines[0]).intersection(*lines[1:])
            if not shared:
                status |= Status.WIN_LINES_DISJOINT
                names = ", ".join(
                    "-".join(self.variant.cell_name(c) for c in (line[0], line[-1]))
                    for line in lines)
                messages.append(
                    f"{side.name}'s lines ({names}) share no cell, so no single move completed "
                    "them all")
        return status, messages

    # ----------------------------------------------------------------- symmetry
    def canonical_key(self) -> tuple[int, int, Side]:
        """The same key for every position equivalent under the board's symmetries."""
        x, o = canonical_masks(self.variant, self.x, self.o)
        return (x, o, self.turn)

    def canonical(self) -> Position:
        """The representative of this position's symmetry class (without a move stack).

        >>> Position("x2/3/3 o").canonical() == Position("2x/3/3 o").canonical()
        True
        """
        clone = self.copy(stack=False)
        clone.x, clone.o, clone.turn = self.canonical_key()
        return clone

    def children(self) -> Iterator[tuple[int, Position]]:
        """Each legal move with the position it leads to."""
        for cell in self.legal_moves():
            yield cell, self.play(cell)


def _parse(text: str) -> tuple[Variant, int, int, Side]:
    """Parse a position string into (variant, X mask, O mask, side to move)."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position string is text, not {type(text).__name__}")
    if len(text) > 4096:
        raise InvalidPositionError(f"position string too long ({len(text)} characters)")
    where = f"of {text!r}"
    fields = text.split()
    if len(fields) not in (2, 3):
        raise InvalidPositionError(
            f"expected 'BOARD SIDE' or 'BOARD SIDE K', found {len(fields)} fields in {text!r}")
    board = fields[0]
    offset = text.index(board)
    try:
        turn = Side.parse(fields[1])
    except InvalidPositionError:
        raise InvalidPositionError(
            f"the side to move must be 'x' or 'o', not {fields[1]!r} (field 2 {where})") from None
    layers_x: list[list[list[int]]] = []  # per layer, per row: list of 0/1/2 cells
    pos = offset
    for layer_text in board.split(":"):
        rows: list[list[int]] = []
        for row_text in layer_text.split("/"):
            cells: list[int] = []
            at = pos
            for token in _ROW_TOKEN.finditer(row_text):
                if token.start() != at - pos:
                    bad = row_text[at - pos]
                    raise InvalidPositionError(
                        f"unexpected {bad!r} at character {at + 1} {where}: cells are x, o, . "
                        "or a digit run")
                piece = token.group().lower()
                if piece[0] in "0123456789":
                    run = int(piece)
                    if run == 0 or run > MAX_COLUMNS:
                        raise InvalidPositionError(
                            f"empty run {piece!r} at character {at + 1} {where} must be "
                            f"1-{MAX_COLUMNS}")
                    cells.extend([0] * run)
                else:
                    cells.append({"x": 1, "o": 2, ".": 0}[piece])
                at = pos + token.end()
            if at - pos != len(row_text):
                raise InvalidPositionError(
                    f"unexpected {row_text[at - pos]!r} at character {at + 1} {where}: cells are "
                    "x, o, . or a digit run")
            if not cells:
                raise InvalidPositionError(f"empty row at character {pos + 1} {where}")
            if rows and len(cells) != len(rows[0]):
                raise InvalidPositionError(
                    f"row {len(rows) + 1} has {len(cells)} cells but row 1 has {len(rows[0])} "
                    f"(at character {pos + 1} {where})")
            if layers_x and len(cells) != len(layers_x[0][0]):
                raise InvalidPositionError(
                    f"layer {len(layers_x) + 1} has rows of {len(cells)} cells but layer 1 has "
                    f"{len(layers_x[0][0])} (at character {pos + 1} {where})")
            rows.append(cells)
            pos += len(row_text) + 1
        if layers_x and len(rows) != len(layers_x[0]):
            raise InvalidPositionError(
                f"layer {len(layers_x) + 1} has {len(rows)} rows but layer 1 has "
                f"{len(layers_x[0])} {where}")
        layers_x.append(rows)
    shape: tuple[int, ...] = (len(layers_x[0]), len(layers_x[0][0]))
    if len(layers_x) > 1:
        shape = (len(layers_x), *shape)
    k: int | None = None
    if len(fields) == 3:
        if not (fields[2].isascii() and fields[2].isdigit()):
            raise InvalidPositionError(f"k must be a whole number, not {fields[2]!r} (field 3 "
                                       f"{where})")
        k = int(fields[2])
    try:
        variant = Variant.of(shape, k)
    except VariantError as err:
        raise InvalidPositionError(f"{err} (in {text!r})") from None
    x = o = 0
    cell = 0
    for rows in layers_x:
        for row in rows:
            for value in row:
                if value == 1:
                    x |= 1 << cell
                elif value == 2:
                    o |= 1 << cell
                cell += 1
    return variant, x, o, turn
