"""Stream legal positions by constraint search with backtracking (seed 000, section 4).

Cells are filled in order with empty, X or O. A partial board is abandoned as soon as it can
no longer end as a legal position of the kind asked for: the counts cannot come out right, the
loser has completed a line, the winner's lines no longer share a cell, or no line is left that
the winner could still complete. So even on 4x4x4, with 3^64 fillings, positions stream at once.

>>> from itertools import islice
>>> [p.to_string() for p in islice(legal_positions("3x3", "won"), 2)]
['3/1oo/xxx o', '2x/1xx/ooo x']
>>> sum(1 for _ in legal_positions("3x3", "won"))
942
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from tictactoe.core import Position, Side, Variant

Kind = Literal["all", "won", "terminal"]
KINDS: tuple[Kind, ...] = ("all", "won", "terminal")

_EMPTY, _X, _O = 0, 1, 2


def legal_positions(variant: Variant | str, kind: Kind = "all") -> Iterator[Position]:
    """Every legal position of a kind, each once: ``all``, ``won`` or ``terminal``
    (won or a full-board draw). Classes take turns, so both winners appear early."""
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    streams = [_search(v, Side.X), _search(v, Side.O)]
    if kind == "all":
        streams.insert(0, _search(v, None, full_only=False))
    elif kind == "terminal":
        streams.append(_search(v, None, full_only=True))
    while streams:
        for stream in list(streams):
            item = next(stream, None)
            if item is None:
                streams.remove(stream)
            else:
                yield item


def _search(v: Variant, winner: Side | None, *, full_only: bool = False) -> Iterator[Position]:
    """Positions won by `winner`, or with no line at all when `winner` is None.

    ``full_only`` keeps only full boards (the drawn terminal positions).
    """
    n = v.cells
    masks = v.line_masks
    # The lines decided when each cell is filled: those whose last cell it is.
    ending_at: list[list[int]] = [[] for _ in range(n)]
    for mask in masks:
        ending_at[mask.bit_length() - 1].append(mask)
    loser = winner.other if winner else None
    target_leads = (1,) if winner is Side.X else (0,) if winner is Side.O else (0, 1)
    choices = (_X, _O) if full_only else (_EMPTY, _X, _O)
    marks = [0, 0, 0]  # masks by value; index 0 unused
    counts = [0, 0, 0]

    def feasible(cell: int) -> bool:
        """Can the cells after `cell` still be filled to meet the count rules?"""
        left = n - cell - 1
        lead = counts[_X] - counts[_O]
        if full_only:
            return any(abs(t - lead) <= left and (left - (t - lead)) % 2 == 0
                       for t in target_leads)
        return any(abs(t - lead) <= left for t in target_leads)

    def line_still_possible(cell: int, shared: int) -> bool:
        """Is some winner line complete, or still completable by the cells after `cell`?"""
        if shared != -1:
            return True
        assert winner is not None
        filled = (1 << (cell + 1)) - 1
        own = marks[_X if winner is Side.X else _O]
        # Completable: every cell of the line filled so far holds the winner's mark.
        return any(mask & filled & ~own == 0 for mask in masks)

    def fill(cell: int, shared: int) -> Iterator[Position]:
        # `shared` is the intersection of the winner's completed lines; -1 before the first.
        if cell == n:
            if winner is not None and shared == -1:
                return
            position = Position(v)
            position.x, position.o = marks[_X], marks[_O]
            position.turn = Side.X if counts[_X] == counts[_O] else Side.O
            yield position
            return
        bit = 1 << cell
        for value in choices:
            marks[value] |= bit
            counts[value] += 1
            now_shared, ok = shared, feasible(cell)
            for mask in ending_at[cell] if ok else ():
                if value == _EMPTY:
                    break
                if mask & marks[value] != mask:
                    continue
                side = Side.X if value == _X else Side.O
                if side is not winner:  # a line for the loser, or any line when none may win
                    ok = False
                    break
                now_shared = mask if now_shared == -1 else now_shared & mask
                if now_shared == 0:
                    ok = False
                    break
            if ok and winner is not None and loser is not None:
                ok = line_still_possible(cell, now_shared)
            if ok:
                yield from fill(cell + 1, now_shared)
            marks[value] &= ~bit
            counts[value] -= 1

    return fill(0, -1)
