"""Reference helpers for the tests, built only from the rules core: a plain minimax (no
pruning, no tables) and the positions reachable in play."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from tictactoe.core import Position, Side, Variant

Result = tuple[int, int]
"""(outcome for the side to move: +1 win, 0 draw, -1 loss; plies to the end)."""


def preference(result: Result) -> tuple[int, int]:
    outcome, plies = result
    return (outcome, -plies if outcome > 0 else plies)


def minimax_for(variant: Variant) -> Callable[[Position], dict[int, Result]]:
    """A memoised plain minimax over (x, o, turn) built only from the rules core."""

    @cache
    def value(x: int, o: int, turn: Side) -> Result:
        position = Position(variant)
        position.x, position.o, position.turn = x, o, turn
        outcome = position.outcome()
        if outcome is not None:
            return (0, 0) if outcome.winner is None else (-1, 0)
        return max((_child(position, cell) for cell in position.empty_cells()), key=preference)

    def _child(position: Position, cell: int) -> Result:
        child = position.play(cell)
        outcome, plies = value(child.x, child.o, child.turn)
        return (-outcome, plies + 1)

    def moves(position: Position) -> dict[int, Result]:
        return {cell: _child(position, cell) for cell in position.legal_moves()}

    return moves


def reachable(start: Position) -> list[Position]:
    """Every position reachable from `start` with the game still going on."""
    seen: dict[tuple[int, int, Side], Position] = {}
    stack = [start.copy(stack=False)]
    while stack:
        position = stack.pop()
        if position.key() in seen or position.is_game_over():
            continue
        seen[position.key()] = position
        stack.extend(position.play(c).copy(stack=False) for c in position.legal_moves())
    return list(seen.values())
