"""The symmetry group of a variant, derived from its winning lines.

A symmetry is a permutation of the cells that maps every winning line onto a winning line.
The group is found by backtracking search, never assumed, so it includes the surprising
symmetries: 4x4 with k=4 has 32 (the square's 8 times an "inside-out" swap), and 4x4x4 has 192.
The search finds one symmetry for each image of a base cell and multiplies it by the
symmetries that fix that cell (a stabiliser chain), so the cube's group takes a few
hundredths of a second.

>>> from tictactoe.core.variant import Variant
>>> [len(symmetries(Variant.parse(n))) for n in ("3x3", "4x4", "3x4", "4x4x4")]
[8, 32, 4, 192]
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from tictactoe.core.errors import BoardTooLargeError
from tictactoe.core.variant import Variant

SEARCH_BUDGET = 20_000_000
"""Work (cells times depth, summed over partial maps) the symmetry search may do before it
gives up with an error: a few seconds at most."""

MAX_SYMMETRIES = 100_000
"""Groups larger than this are not listed (degenerate boards such as 2x4x4 with k=2, whose
cells can be swapped almost freely)."""

Permutation = tuple[int, ...]
"""``p[i]`` is the cell that cell ``i`` moves to."""


@cache
def symmetries(variant: Variant) -> tuple[Permutation, ...]:
    """Every permutation of cells that maps the set of lines onto itself; identity first.

    Raises `BoardTooLargeError` on degenerate boards whose group is too large to list (two
    cells with the same lines to every other cell can be swapped freely).
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


def byte_tables(cells: int, perms: tuple[Permutation, ...] | list[Permutation],
                ) -> list[list[list[int]]]:
    """For each permutation, for each byte of a bit mask, the image of every byte value.

    Applying a permutation to a mask is then one lookup per byte, OR-ed together.

    >>> byte_tables(3, [(2, 1, 0)])[0][0][0b001]  # cell 0 goes to cell 2
    4
    """
    tables = []
    for perm in perms:
        per_chunk = []
        for chunk in range((cells + 7) // 8):
            bit_image = [1 << perm[chunk * 8 + bit] if chunk * 8 + bit < cells else 0
                         for bit in range(8)]
            values = [0]  # the images of the bytes below 2**bit, then with that bit added
            for image in bit_image:
                values += [value | image for value in values]
            per_chunk.append(values)
        tables.append(per_chunk)
    return tables


@cache
def _byte_tables(variant: Variant) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """`byte_tables` of the whole symmetry group, as tuples, cached per variant."""
    return tuple(tuple(tuple(chunk) for chunk in table)
                 for table in byte_tables(variant.cells, symmetries(variant)))


def transform_mask(variant: Variant, index: int, mask: int) -> int:
    """Apply symmetry number `index` to a bit mask of cells.

    >>> v = Variant.parse("3x3")
    >>> sorted({transform_mask(v, i, 0b1) for i in range(8)})  # corner a1 goes to corners
    [1, 4, 64, 256]
    """
    out = 0
    for chunk, table in enumerate(_byte_tables(variant)[index]):
        out |= table[(mask >> (8 * chunk)) & 0xFF]
    return out


def canonical_masks(variant: Variant, x: int, o: int) -> tuple[int, int]:
    """The least (x, o) pair over every symmetric image: equal for equivalent positions.

    >>> v = Variant.parse("3x3")
    >>> canonical_masks(v, 1 << 0, 0) == canonical_masks(v, 1 << 8, 0)
    True
    """
    best: tuple[int, int] | None = None
    for tables in _byte_tables(variant):
        tx = to = 0
        for chunk, table in enumerate(tables):
            shift = 8 * chunk
            tx |= table[(x >> shift) & 0xFF]
            to |= table[(o >> shift) & 0xFF]
        if best is None or (tx, to) < best:
            best = (tx, to)
    assert best is not None
    return best


@cache
def geometric_symmetries(variant: Variant) -> tuple[Permutation, ...]:
    """The symmetries that also keep every distance between cells: rotations and reflections.

    A subgroup of `symmetries`. On 4x4 with k=4 it has 8 of the 32 elements; the other 24
    turn the board "inside out" (swap the middle rows and columns with the outer ones).

    >>> from tictactoe.core.variant import Variant
    >>> [len(geometric_symmetries(Variant.parse(n))) for n in ("3x3", "4x4", "4x4x4")]
    [8, 8, 48]
    """

    def distance(a: int, b: int) -> int:
        ca, cb = variant.coordinates(a), variant.coordinates(b)
        return sum((p - q) ** 2 for p, q in zip(ca, cb, strict=True))

    cells = range(variant.cells)
    return tuple(
        perm for perm in symmetries(variant)
        if all(distance(a, b) == distance(perm[a], perm[b]) for a in cells for b in cells)
    )
