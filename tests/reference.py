"""Reference helpers for the tests, built only from the rules core: a plain minimax (no
pruning, no tables), the positions reachable in play, and the symmetry group by an
independent search."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache

from tictactoe.core import BoardTooLargeError, Position, Side, Variant
from tictactoe.core.symmetry import MAX_SYMMETRIES, SEARCH_BUDGET, Permutation

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


def pair_count_symmetries(variant: Variant) -> tuple[Permutation, ...]:
    """The symmetry group by the core's earlier search, kept as a reference for the fast
    one: each cell is told apart by its colour (refined from how many lines it shares with
    every other cell) and by how many lines it shares with the base cells fixed so far, with
    no refinement after fixing one. Slow on long boards and some cubes (seconds), and it
    gives up on its budget on a few 2x2xN boards, but exact wherever it answers.

    Raises `BoardTooLargeError` as `symmetries` does, or when it passes its budget.
    """
    n = variant.cells
    lines = variant.lines
    line_set = {frozenset(line) for line in lines}
    together = [[0] * n for _ in range(n)]  # how many lines hold both cells
    for line in lines:
        for a in line:
            for b in line:
                together[a][b] += 1
    colour = _refined_colours(together)

    # A base: cells whose line counts to every cell tell all cells apart. A symmetry is then
    # fixed by the images of the base, so only those are searched for. A cell's signature
    # (its colour and its line counts to the base cells so far) is kept as a small number.
    base: list[int] = []
    signature = list(colour)
    while len(set(signature)) < n:
        best = max(range(n), key=lambda b: (len({(signature[c], together[c][b])
                                                  for c in range(n)}), -b))
        grown = _renumber([(signature[c], together[c][best]) for c in range(n)])
        if len(set(grown)) == len(set(signature)):
            raise BoardTooLargeError(
                f"{variant.name} has too many symmetries to list: some cells can be swapped "
                "freely")
        base.append(best)
        signature = grown

    budget = [SEARCH_BUDGET]

    def extend(depth: int, source: list[int], target: list[int],
               first_only: bool) -> list[Permutation]:
        # source[c] and target[t] number each cell's colour and line counts to the base
        # cells placed so far, on each side; a symmetry maps equal to equal. With
        # `first_only`, one symmetry that extends the partial map is enough; without it,
        # source and target are the same (the base cells so far map to themselves) and every
        # symmetry fixing them is listed, as one per image of the next base cell (a coset
        # representative) times those that fix that cell too.
        budget[0] -= n * (depth + 1)
        if budget[0] < 0:
            raise BoardTooLargeError(
                f"{variant.name} has too many symmetries to list: the search passed its "
                f"budget of {SEARCH_BUDGET:,} steps")
        if depth == len(base):
            lookup = {sig: t for t, sig in enumerate(target)}
            perm = tuple(lookup[sig] for sig in source)
            if all(frozenset(perm[c] for c in line) in line_set for line in lines):
                return [perm]
            return []
        cell = base[depth]
        code: dict[tuple[int, int], int] = {}
        grown_source = [code.setdefault((source[c], together[c][cell]), len(code))
                        for c in range(n)]
        wanted = Counter(grown_source)
        representatives: list[Permutation] = []
        fixing: list[Permutation] = []
        for image in range(n):
            if target[image] != source[cell]:
                continue
            grown_target = [code.get((target[t], together[t][image]), -1) for t in range(n)]
            if -1 in grown_target or Counter(grown_target) != wanted:
                continue
            if first_only:
                one = extend(depth + 1, grown_source, grown_target, True)
                if one:
                    return one
            elif image == cell:
                fixing = extend(depth + 1, grown_source, grown_target, False)
            else:
                representatives += extend(depth + 1, grown_source, grown_target, True)
        if first_only:
            return []
        if len(fixing) * (1 + len(representatives)) > MAX_SYMMETRIES:
            raise BoardTooLargeError(
                f"{variant.name} has too many symmetries to list: over {MAX_SYMMETRIES:,}")
        return fixing + [tuple(r[f[c]] for c in range(n))
                         for r in representatives for f in fixing]

    found = extend(0, list(colour), list(colour), False)
    identity = tuple(range(n))
    found.sort(key=lambda p: (p != identity, p))
    return tuple(found)


def _renumber(keys: list[tuple[int, int]]) -> list[int]:
    """Each key as a small number, equal keys equal.

    >>> _renumber([(0, 1), (1, 0), (0, 1)])
    [0, 1, 0]
    """
    code: dict[tuple[int, int], int] = {}
    return [code.setdefault(key, len(code)) for key in keys]


def _refined_colours(together: list[list[int]]) -> list[int]:
    """Colour refinement: cells a symmetry could swap always share a colour."""
    n = len(together)
    colour = [0] * n
    count = 1
    while True:
        signature = [
            (colour[a], tuple(sorted((together[a][b], colour[b]) for b in range(n) if b != a)))
            for a in range(n)
        ]
        palette = {sig: i for i, sig in enumerate(sorted(set(signature)))}
        colour = [palette[sig] for sig in signature]
        if len(palette) == count:
            return colour
        count = len(palette)
