"""The symmetry group of a variant, derived from its winning lines.

A symmetry is a permutation of the cells that maps every winning line onto a winning line.
The group is found by backtracking search, never assumed, so it includes the surprising
symmetries: 4x4 with k=4 has 32 (the square's 8 times an "inside-out" swap), 4x4x4 has 192
and 8x8 has 1536. The search fixes one cell after another (a stabiliser chain); after each
choice it refines the cells' colours through the lines, so that few choices remain, and it
finds one symmetry for each image of a cell, the others following as products. The search
takes at most 0.14 s on any board of up to 64 cells (most take a few hundredths); listing
the largest groups (2x15 with k=2 has 65,536) takes a few tenths more, and a degenerate board
whose cells swap freely is refused at once.

Past 64 cells (gomoku's 15x15, 19x19), a board whose k is below every side takes its
rotations and reflections that map lines onto lines, in milliseconds and with no search;
tests check that the search finds the same group on every board it reaches.

>>> from tictactoe.core.variant import Variant
>>> [len(symmetries(Variant.parse(n))) for n in ("3x3", "4x4", "3x4", "4x4x4")]
[8, 32, 4, 192]
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache
from operator import itemgetter

from tictactoe.core.errors import BoardTooLargeError
from tictactoe.core.variant import Variant

SEARCH_CELLS = 64
"""Boards up to this many cells always get the full search. Past it, a board whose k is
below every side takes its rotations and reflections (see `geometric_group_is_whole`)."""

SEARCH_BUDGET = 20_000_000
"""Work (cells and lines looked at, summed) the symmetry search may do before it gives up
with an error: a few seconds at most. No board of up to 64 cells comes near it."""

MAX_SYMMETRIES = 100_000
"""Groups larger than this are not listed (degenerate boards such as 2x4x4 with k=2, whose
cells can be swapped almost freely)."""

Permutation = tuple[int, ...]
"""``p[i]`` is the cell that cell ``i`` moves to."""


@cache
def symmetries(variant: Variant) -> tuple[Permutation, ...]:
    """Every permutation of cells that maps the set of lines onto itself; identity first.

    Raises `BoardTooLargeError` on degenerate boards whose group is too large to list: two
    cells on exactly the same lines (they can be swapped freely), or over `MAX_SYMMETRIES`.
    Large boards with k below every side take `geometric_symmetries` (each checked
    against the lines) without the search: a few milliseconds on 19x19.
    """
    if geometric_group_is_whole(variant):
        return geometric_symmetries(variant)
    found = [tuple(range(variant.cells))]
    for transversal in stabiliser_chain(variant):  # every product t0 * t1 * ...
        apply = [itemgetter(*t) for t in transversal]  # f -> f * t
        found = [then(f) for f in found for then in apply]
    found.sort()  # the identity is the least
    return tuple(found)


def group_size(variant: Variant) -> int:
    """How many symmetries the board has, without listing them (raises as `symmetries`).

    >>> group_size(Variant.parse("8x8")), group_size(Variant.parse("2x15"))
    (1536, 65536)
    """
    if geometric_group_is_whole(variant):
        return len(geometric_symmetries(variant))
    size = 1
    for transversal in stabiliser_chain(variant):
        size *= len(transversal)
    return size


@cache
def stabiliser_chain(variant: Variant) -> tuple[tuple[Permutation, ...], ...]:
    """The group as a chain: level ``i`` holds one symmetry for each image of base cell
    ``i`` among those that fix the base cells before it (identity first), so every symmetry
    is one product ``t0 * t1 * ...`` of an element of each level. Raises as `symmetries`.

    The search individualises a cell (gives it a colour of its own) on each side, refines
    both colourings in step through the lines (a cell's colour and the colours of the lines
    through it; a line's colour is its cells' colours), and only follows sides whose colour
    classes stay the same sizes. A symmetry maps equal colours to equal colours, so nothing
    is missed, and every permutation found is checked against the lines.
    """
    n = variant.cells
    lines = variant.lines
    through = variant.lines_through
    line_masks = set(variant.line_masks)
    twins: dict[tuple[int, ...], int] = {}
    for cell in range(n):
        if through[cell] in twins:
            raise BoardTooLargeError(
                f"{variant.name} has too many symmetries to list: some cells can be swapped "
                f"freely ({variant.cell_name(twins[through[cell]])} and "
                f"{variant.cell_name(cell)} lie on the same lines)")
        twins[through[cell]] = cell
    budget = [SEARCH_BUDGET]

    def spend(steps: int) -> None:
        budget[0] -= steps
        if budget[0] < 0:
            raise BoardTooLargeError(
                f"{variant.name} has too many symmetries to list: the search passed its "
                f"budget of {SEARCH_BUDGET:,} steps")

    # A multiset of colours is keyed by the sum of a random weight per colour (the same
    # multiset always gives the same key; two keys that happen to agree only make the
    # refinement weaker, never wrong: every permutation is checked against the lines).
    rng = random.Random(n)
    weight = [rng.getrandbits(60) for _ in range(n + 1)]
    line_weight = [rng.getrandbits(60) for _ in range(len(lines))]
    cells_of = [itemgetter(*line) for line in lines]  # k >= 2: a tuple each
    padding = len(lines)  # a line index whose code is 0, so that every cell has two or more
    lines_of = [itemgetter(*through[c], padding, padding) for c in range(n)]

    def refine(source: list[int], target: list[int]) -> tuple[list[int], list[int]] | None:
        """Both colourings refined in step until stable, or None where they part: a cell's
        new colour is its colour and the multiset of the colours of the lines through it, a
        line's colour the multiset of its cells' colours."""
        same = source is target
        classes = len(set(source))
        while True:
            spend(n + len(lines))
            weights = [weight[colour] for colour in source]
            line_keys = [sum(get(weights)) for get in cells_of]
            line_code = {key: line_weight[i] for i, key in enumerate(sorted(set(line_keys)))}
            coded = [line_code[key] for key in line_keys]
            coded.append(0)
            cell_keys = list(zip(source, [sum(get(coded)) for get in lines_of], strict=True))
            cell_code = {key: i for i, key in enumerate(sorted(set(cell_keys)))}
            refined = [cell_code[key] for key in cell_keys]
            if same:
                refined_target = refined
            else:
                weights = [weight[colour] for colour in target]
                target_line_keys = [sum(get(weights)) for get in cells_of]
                if sorted(target_line_keys) != sorted(line_keys):
                    return None
                coded = [line_code[key] for key in target_line_keys]
                coded.append(0)
                target_keys = list(zip(target, [sum(get(coded)) for get in lines_of],
                                       strict=True))
                if sorted(target_keys) != sorted(cell_keys):
                    return None
                refined_target = [cell_code[key] for key in target_keys]
            source, target = refined, refined_target
            if len(cell_code) == classes:
                return source, target
            classes = len(cell_code)

    def individualise(colours: list[int], cell: int) -> list[int]:
        out = list(colours)
        out[cell] = n  # a colour no other cell has
        return out

    def branch_cell(colours: list[int]) -> int:
        """A cell of the smallest colour class with more than one cell."""
        sizes = Counter(colours)
        return min((c for c in range(n) if sizes[colours[c]] > 1),
                   key=lambda c: (sizes[colours[c]], c))

    def one(source: list[int], target: list[int]) -> Permutation | None:
        """A symmetry mapping each source colour class onto the same target class."""
        pair = refine(source, target)
        if pair is None:
            return None
        source, target = pair
        if len(set(source)) == n:
            where = {colour: t for t, colour in enumerate(target)}
            perm = tuple(where[colour] for colour in source)
            spend(len(lines))
            if all(sum(1 << perm[c] for c in line) in line_masks for line in lines):
                return perm
            return None
        cell = branch_cell(source)
        fixed = individualise(source, cell)
        for image in range(n):
            if target[image] == source[cell]:
                found = one(fixed, individualise(target, image))
                if found is not None:
                    return found
        return None

    def chain(colours: list[int]) -> list[tuple[Permutation, ...]]:
        """The chain of the symmetries that keep every colour. A level's images are found
        as an orbit: an image that a product of the symmetries found so far reaches needs
        no search."""
        pair = refine(colours, colours)
        assert pair is not None
        colours = pair[0]
        if len(set(colours)) == n:
            return []
        cell = branch_cell(colours)
        fixed = individualise(colours, cell)
        below = chain(fixed)
        size = 1
        for level in below:
            size *= len(level)
        generators = [g for level in below for g in level[1:]]
        orbit: dict[int, Permutation] = {cell: tuple(range(n))}  # image -> a symmetry to it
        for image in range(n):
            if image in orbit or colours[image] != colours[cell]:
                continue
            found = one(fixed, individualise(colours, image))
            if found is None:
                continue
            generators.append(found)
            todo = list(orbit.items())
            while todo:  # close the orbit under every generator
                point, reach = todo.pop()
                for g in generators:
                    if g[point] not in orbit:
                        orbit[g[point]] = composed = tuple(itemgetter(*reach)(g))
                        todo.append((g[point], composed))
            spend(n * len(orbit) * len(generators))
            if size * len(orbit) > MAX_SYMMETRIES:
                raise BoardTooLargeError(
                    f"{variant.name} has too many symmetries to list: over "
                    f"{MAX_SYMMETRIES:,}")
        return [tuple(orbit[image] for image in sorted(orbit)), *below]

    return tuple(chain([0] * n))


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

    These are the box's own maps (axes swapped where their sides are equal, each axis
    reversed or not) that map every line onto a line; identity first. A subgroup of
    `symmetries`: on 4x4 with k=4 it has 8 of the 32 elements, the other 24 turn the board
    "inside out" (swap the middle rows and columns with the outer ones).

    >>> from tictactoe.core.variant import Variant
    >>> [len(geometric_symmetries(Variant.parse(n))) for n in ("3x3", "4x4", "4x4x4", "3x4")]
    [8, 8, 48, 4]
    """
    shape = variant.shape
    dims = len(shape)
    strides = [1] * dims
    for axis in range(dims - 2, -1, -1):
        strides[axis] = strides[axis + 1] * shape[axis + 1]
    line_masks = set(variant.line_masks)
    getters = [itemgetter(*line) for line in variant.lines]  # k >= 2: a tuple each
    found: set[Permutation] = set()
    for axes in itertools.permutations(range(dims)):
        if any(shape[a] != shape[i] for i, a in enumerate(axes)):
            continue
        for flips in itertools.product((False, True), repeat=dims):
            # coordinate i of the image is coordinate axes[i] of the cell, maybe reversed:
            # the image's index is a sum over source axes of one term each
            terms: list[list[int]] = [[]] * dims
            for i, (a, flip) in enumerate(zip(axes, flips, strict=True)):
                terms[a] = [(shape[i] - 1 - c if flip else c) * strides[i]
                            for c in range(shape[a])]
            images = [0]
            for a in range(dims):
                images = [base + term for base in images for term in terms[a]]
            perm = tuple(images)
            bit = [1 << image for image in perm]
            if all(sum(get(bit)) in line_masks for get in getters):
                found.add(perm)  # a side of 1 reverses onto itself: a set drops the repeats
    return tuple(sorted(found))


def geometric_group_is_whole(variant: Variant) -> bool:
    """Whether `symmetries` may be taken to be `geometric_symmetries` without a search: on
    boards past `SEARCH_CELLS` cells whose k is below every side (gomoku, 19x19 with k=5).
    The full search finds the same group on every such board it reaches (tests compare
    them on every board up to 64 cells and on larger ones), and it takes milliseconds.

    >>> from tictactoe.core.variant import Variant
    >>> [geometric_group_is_whole(Variant.parse(n)) for n in ("19x19k5", "9x9", "8x8k5")]
    [True, False, False]
    """
    return variant.cells > SEARCH_CELLS and variant.k < min(variant.shape)


def position_symmetries(variant: Variant, x: int, o: int) -> tuple[int, ...]:
    """The numbers (indices into `symmetries`) of the symmetries that map the position (X's
    and O's masks) onto itself; 0, the identity, first.

    >>> v = Variant.parse("3x3")
    >>> len(position_symmetries(v, 0, 0)), len(position_symmetries(v, 1 << 4, 1 << 0))
    (8, 2)
    """
    return tuple(i for i in range(len(symmetries(variant)))
                 if transform_mask(variant, i, x) == x and transform_mask(variant, i, o) == o)


def equivalent_cells(variant: Variant, x: int, o: int) -> list[list[int]]:
    """The empty cells in classes of cells that a symmetry of the position maps onto each
    other (a move in one cell of a class is worth what a move in any other is): each class
    in increasing order, the classes by their least cell. Raises as `symmetries`.

    >>> v = Variant.parse("3x3")
    >>> equivalent_cells(v, 0, 0)  # corners, edges, centre
    [[0, 2, 6, 8], [1, 3, 5, 7], [4]]
    >>> equivalent_cells(v, 1 << 4, 1 << 0)  # X in the centre, O in a corner
    [[1, 3], [2, 6], [5, 7], [8]]
    """
    perms = [symmetries(variant)[i] for i in position_symmetries(variant, x, o)]
    taken = x | o
    classes: dict[int, list[int]] = {}
    for cell in range(variant.cells):
        if taken >> cell & 1:
            continue
        least = min(perm[cell] for perm in perms)
        classes.setdefault(least, []).append(cell)
    return [classes[least] for least in sorted(classes)]
