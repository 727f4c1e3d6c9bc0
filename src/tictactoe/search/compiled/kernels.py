"""Numba kernels of the exact solver, on 64-bit boards.

A position is two ``uint64`` masks, ``me`` (the side to move) and ``opp``. The value of a
position depends only on these two masks, so the transposition table is keyed on them and
serves X and O alike.

Scores are integers for the side to move: a win in ``d`` plies is ``BIG - d``, a loss in ``d``
plies is ``-(BIG - d)`` and a draw is 0, so a faster win and a slower loss score higher.

The search is fail-soft alpha-beta over these exact scores, with

* immediate win, forced block and double threat (two cells to block: lost in 2) at every node;
* forks (one move making two threats): the mover's wins in exactly 3; against the
  opponent's, only moves on its lines or making a threat are searched (the others lose in
  exactly 4), and without one a side two marks short needs 5 plies;
* each node scans only the lines its parent found open (a list per depth in ``buf``, on
  boards of ``LIVE_LISTS`` lines or more);
* near the root, one table entry for all symmetric images of a position (``SYMMETRIC``);
* pairing strategies: if the opponent can take two empty cells of each of my open lines,
  no cell twice (a bipartite matching), it answers each of my moves in its pair and I
  cannot win; where lines overlap in two cells or more (k-windows of longer rows), a
  bounded search then lets one pair serve several lines (two pairs hold a row of eight
  against k=4, where a pair per window needs ten cells); tried only when I have at most
  half as many open lines as empty cells;
* dead-line pruning and distance bounds: a side needs at least as many more marks as the
  fewest empty cells of its open lines, which bounds its fastest possible win, and a side
  with no open line cannot win at all;
* fork bounds near the window's edge: every win ends with a fork, so a side needs as many
  moves as the empty cells of two open lines that share one, less one (`fork_moves`); a
  side that cannot win in time this way is cut off, and where only its fastest win would
  do, only moves on the pairs that allow it are searched;
* a transposition table of lower and upper bounds: one ``int64`` row per bucket of two
  entries (64 bytes; not aligned to cache lines, which measured no gain), a
  depth-preferred entry and an always-replaced one, each stamped with a generation so that
  emptying the table is one increment; a node asks for its row to be prefetched before it
  scans its lines;
* move ordering: the table move first, alone (when it cuts, as it mostly does, the other
  moves are never weighed), then cells of lines one mark short of a threat (own, then the
  opponent's), then the open lines through each cell weighted by their marks (the mover's
  four times the opponent's: ``12 << 2 * marks`` against ``3 << 2 * marks``), history
  counts and the static order as tie-breaks, picked lazily (most nodes cut on their first
  move).

The drivers ask null-window questions: "is this a win?" and "a loss?" (a win/draw/loss
search, cheap because any win cuts), then "a win within d plies?" for d = 1, 3, 5, ... until
the answer is yes (iterative deepening on distance), which gives the fastest win exactly;
the slowest loss likewise. Every question reuses the table: its bounds hold for any window.

The ``uint64`` masks are never mixed with signed integers: numba would silently make the
result a float.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tictactoe.search.bits import prefetch_row

BIG = 1000
"""A win in ``d`` plies scores ``BIG - d``."""
INF = 30000
ZERO = np.uint64(0)
ONE = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)
_S29 = np.uint64(29)
_S32 = np.uint64(32)
_MUL1 = np.uint64(0x9E3779B97F4A7C15)
_MUL2 = np.uint64(0xC2B2AE3D27D4EB4F)

# The int64 ``misc`` array shared by the kernels: counters, then the static move order and
# the history counts (64 cells each).
NODES = 0
LIMIT = 1
ABORTED = 2
GENERATION = 3
CELLS = 4
SYMMETRIC = 5
LIVE_LISTS = 6
BUDGET = 7
"""A second node limit, set by `exact` for one question at a time."""
ORDER = 8
HISTORY = ORDER + 64
# Scratch space of `pairing`: each cell's line, then per line its cells, the cells it holds,
# the line it was reached from, the cell it gives up, and the search queue.
PAIR_OWNER = HISTORY + 64
PAIR_CELLS = PAIR_OWNER + 64
PAIR_HELD = PAIR_CELLS + 32
PAIR_FROM = PAIR_HELD + 32
PAIR_VIA = PAIR_FROM + 32
PAIR_QUEUE = PAIR_VIA + 32
PAIRING = PAIR_QUEUE + 32
"""Whether the search looks for pairing strategies (a boolean)."""
UNFINISHED = PAIRING + 1
"""Set by `ask` when its budget stopped the question."""
FIRST_BUDGET = UNFINISHED + 1
"""Nodes allowed to each question in the first round of `exact`; doubled every round."""
PLAN = FIRST_BUDGET + 1
"""How `exact` finds a big position's score: `PLAN_RACE`, `PLAN_PLAIN` or
`PLAN_DEEPENING`."""
# Scratch space of `shared_pairing`: each open line's empty cells, then per level of its
# search the pair chosen, the cells used before it, the next option and the options.
SHARED_SETS = PLAN + 1
SHARED_PAIRS = SHARED_SETS + 64
SHARED_USED = SHARED_PAIRS + 32
SHARED_NEXT = SHARED_USED + 32
SHARED_COUNT = SHARED_NEXT + 32
SHARED_OPTIONS = SHARED_COUNT + 32
SHARED_WIDTH = 28
"""Room for the pairs of one line's empty cells (8 cells: 28 pairs)."""
SHARED_SCORES = SHARED_OPTIONS + 32 * SHARED_WIDTH
SHARED_BUDGET = SHARED_SCORES + 32 * SHARED_WIDTH
"""Steps allowed to each `shared_pairing` search (0: never tried)."""
SHARED_FOUND = SHARED_BUDGET + 1
"""How many pairs the last `shared_pairing` that succeeded chose (``SHARED_PAIRS`` on)."""
SHARED_SERVED = SHARED_FOUND + 1
"""Per level of `shared_pairing`'s search, the lines (bits by index) that its pairs serve."""
SHARED_CELL_LINES = SHARED_SERVED + 33
"""Per cell, the unserved lines (bits by index) through it, while a level is scored."""
SHARED_CELL_ALL = SHARED_CELL_LINES + 64
"""Per cell, every listed line (bits by index) through it, for the whole search."""
STOPPED_AT = SHARED_CELL_ALL + 64
"""The empty cells of the node where the node limit last stopped `search`: the moves in
``buf[n, CURRENT]`` for every ``n`` above it are the path to that node."""
MISC_SIZE = STOPPED_AT + 1
PLAN_RACE = 0
"""Deepening on distance and the plain questions race in rounds of node budgets."""
PLAN_PLAIN = 1
"""Only the plain questions (`exact_plain`)."""
PLAN_DEEPENING = 2
"""Only deepening on distance, without budgets."""

# A table entry is four int64 words: me, opp, packed data and a check word over the three
# (`check_word`); a bucket row holds two.
ENTRY = 4
ROW = 2 * ENTRY
_OFF = 32768
_HISTORY_CAP = 1 << 30
LIVE_COUNT = 192
LIVE = 193
MAX_LINES = 1024
CURRENT = LIVE + MAX_LINES
"""The column of ``buf`` where each depth keeps the move it is searching, and next to it
(``TRIED``) how many moves it searched before (`outcome` splits a stopped question there)."""
TRIED = CURRENT + 1
BUF_WIDTH = TRIED + 1
"""``buf`` holds, per count of empty cells, the move list (cells, keys), the cell weights,
then the indices of the lines still open to one side (``LIVE_COUNT`` of them)."""
_OWN_WEIGHT = 12
_OPP_WEIGHT = 3


@njit(cache=True, nogil=True)
def zero_rows(table: np.ndarray) -> None:  # pragma: no cover - compiled
    """Write zeros over a 2-D ``int64`` table without holding the interpreter lock."""
    for r in range(table.shape[0]):
        for c in range(table.shape[1]):
            table[r, c] = 0


@njit(cache=True)
def popcount(x: np.uint64) -> np.int64:  # pragma: no cover - compiled
    """Number of set bits (SWAR)."""
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


@njit(cache=True)
def table_index(me: np.uint64, opp: np.uint64, mask: np.uint64) -> np.int64:  # pragma: no cover
    """Slot of a position in a table of ``mask + 1`` entries (multiplicative hashing)."""
    h = me * _MUL1 ^ opp * _MUL2
    h ^= h >> _S29
    h *= _MUL1
    h ^= h >> _S32
    return np.int64(h & mask)


@njit(cache=True)
def lift(child: int) -> int:  # pragma: no cover - compiled
    """A child's score (for its mover) seen from the parent: one ply further, sign flipped."""
    if child > 0:
        return -child + 1
    if child < 0:
        return -child - 1
    return 0


@njit(cache=True)
def lower(bound: int) -> int:  # pragma: no cover - compiled
    """The child's window bound matching a parent bound (the inverse of `lift`)."""
    if bound > 0:
        return -(bound + 1)
    if bound < 0:
        return 1 - bound
    return 0


@njit(cache=True, inline="always")
def check_word(key_me: np.int64, key_opp: np.int64, data: np.int64) -> np.int64:  # pragma: no cover
    """An entry's fourth word, from its other three: threads that share a table write
    entries unlocked, and a read that mixes two writes fails this check."""
    return key_me ^ key_opp * np.int64(-7046029254386353131) ^ data * np.int64(-4417276706812531889)


@njit(cache=True)
def probe(tt: np.ndarray, row: np.int64, key_me: np.int64, key_opp: np.int64,
          generation: np.int64) -> tuple[int, np.int64]:  # pragma: no cover - compiled
    """The offset of the position's entry in its bucket row (or -1) and its data word,
    read once and checked against the entry's check word."""
    data = tt[row, 2]
    if tt[row, 0] == key_me and tt[row, 1] == key_opp and data >> 48 == generation \
            and tt[row, 3] == check_word(key_me, key_opp, data):
        return 0, data
    data = tt[row, ENTRY + 2]
    if tt[row, ENTRY] == key_me and tt[row, ENTRY + 1] == key_opp \
            and data >> 48 == generation \
            and tt[row, ENTRY + 3] == check_word(key_me, key_opp, data):
        return ENTRY, data
    return -1, np.int64(0)


@njit(cache=True)
def pack(lo: int, hi: int, move: int, nempty: int, generation: np.int64) -> int:  # pragma: no cover
    """One entry's data word: bounds, best move, empty cells and generation."""
    return int((lo + _OFF) | (hi + _OFF) << 16 | (move + 1) << 32 | nempty << 40
               | generation << 48)


@njit(cache=True)
def fork_cells(mine: np.uint64, theirs: np.uint64, twice: np.uint64, lines: np.ndarray,
               buf: np.ndarray, row: int) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """The cells where ``mine`` makes two threats at once, among ``twice`` (cells on two
    lines of ``mine`` two marks short), and the cells on the lines of every such fork.

    Lines are those listed open in ``buf[row]``.
    """
    forks = ZERO
    relevant = ALL
    candidates = twice
    while candidates != ZERO:
        bit = candidates & (ZERO - candidates)
        candidates ^= bit
        cells = ZERO
        for q in range(buf[row, LIVE_COUNT]):
            line = lines[buf[row, LIVE + q]]
            if line & bit != ZERO and line & theirs == ZERO:
                e = line & ~mine
                if popcount(e) == 2:
                    cells |= e
        if popcount(cells) >= 3:
            forks |= bit
            relevant &= cells
    return forks, relevant


@njit(cache=True)
def pairing(side: np.uint64, other: np.uint64, empty: np.uint64, lines: np.ndarray,
            buf: np.ndarray, row: int, misc: np.ndarray) -> bool:  # pragma: no cover
    """Whether ``other`` can answer every move of ``side`` in a pair of cells, so that
    ``side`` never completes a line: two empty cells of each line open to ``side``, no cell
    used twice (lines share at most one cell, so a pair serves one line). A bipartite
    matching, each line taking two cells, grown by augmenting paths.

    Lines are those listed open in ``buf[row]``; at most 32 lines qualify (64 cells).
    """
    count = 0
    for q in range(buf[row, LIVE_COUNT]):
        line = lines[buf[row, LIVE + q]]
        if line & other == ZERO:
            if count == 32:
                return False
            misc[PAIR_CELLS + count] = np.int64(line & empty)
            misc[PAIR_HELD + count] = 0
            count += 1
    if 2 * count > popcount(empty):
        return False
    for c in range(misc[CELLS]):
        misc[PAIR_OWNER + c] = -1
    for start in range(count):
        for _ in range(2):  # two cells for each line, one augmenting path each
            visited = ONE << np.uint64(start)
            misc[PAIR_QUEUE] = start
            head = 0
            tail = 1
            found = False
            while head < tail and not found:
                u = misc[PAIR_QUEUE + head]
                head += 1
                candidates = np.uint64(misc[PAIR_CELLS + u]) & ~np.uint64(misc[PAIR_HELD + u])
                while candidates != ZERO:
                    bit = candidates & (ZERO - candidates)
                    candidates ^= bit
                    c = int(popcount(bit - ONE))
                    w = misc[PAIR_OWNER + c]
                    if w < 0:  # a free cell: u takes it, and each line on the path passes on
                        z = u
                        cell = c
                        while True:
                            misc[PAIR_OWNER + cell] = z
                            misc[PAIR_HELD + z] = np.int64(np.uint64(misc[PAIR_HELD + z])
                                                          | ONE << np.uint64(cell))
                            if z == start:
                                break
                            cell = misc[PAIR_VIA + z]
                            misc[PAIR_HELD + z] = np.int64(np.uint64(misc[PAIR_HELD + z])
                                                          & ~(ONE << np.uint64(cell)))
                            z = misc[PAIR_FROM + z]
                        found = True
                        break
                    if visited & ONE << np.uint64(w) == ZERO:
                        visited |= ONE << np.uint64(w)
                        misc[PAIR_FROM + w] = u
                        misc[PAIR_VIA + w] = c
                        misc[PAIR_QUEUE + tail] = w
                        tail += 1
            if not found:
                return False
    return True


@njit(cache=True)
def _open_level(level: int, count: int, used: np.uint64,
                misc: np.ndarray) -> int:  # pragma: no cover - compiled
    """List the options of `shared_pairing`'s search at ``level``: the free pairs of the
    unserved line with the fewest free cells, those serving the most unserved lines first.
    Returns 1 if there are options, 0 at a dead end, -1 if every line is served.

    The lines served so far are kept per level as bits (``SHARED_SERVED``): the level's
    last pair adds the lines holding it. A pair's score is the count of unserved lines
    through both its cells (``SHARED_CELL_LINES``)."""
    served = ZERO
    if level > 0:
        served = np.uint64(misc[SHARED_SERVED + level - 1])
        pair = np.uint64(misc[SHARED_PAIRS + level - 1])
        a = pair & (ZERO - pair)  # the lines holding both cells of the pair
        served |= np.uint64(misc[SHARED_CELL_ALL + popcount(a - ONE)]) \
            & np.uint64(misc[SHARED_CELL_ALL + popcount((pair ^ a) - ONE)])
    misc[SHARED_SERVED + level] = np.int64(served)
    fewest = 99
    best = -1
    for i in range(count):
        if served & ONE << np.uint64(i) != ZERO:
            continue
        c = popcount(np.uint64(misc[SHARED_SETS + i]) & ~used)
        if c < fewest:
            fewest = int(c)
            best = i
            if c < 2:
                return 0
    if best < 0:
        return -1
    if level == 32:
        return 0
    free = np.uint64(misc[SHARED_SETS + best]) & ~used
    rest = free
    while rest != ZERO:  # the unserved lines through each free cell
        bit = rest & (ZERO - rest)
        rest ^= bit
        c = popcount(bit - ONE)
        misc[SHARED_CELL_LINES + c] = np.int64(np.uint64(misc[SHARED_CELL_ALL + c]) & ~served)
    base = SHARED_OPTIONS + level * SHARED_WIDTH
    n = 0
    rest = free
    while rest != ZERO and n < SHARED_WIDTH:
        a = rest & (ZERO - rest)
        rest ^= a
        lines_a = np.uint64(misc[SHARED_CELL_LINES + popcount(a - ONE)])
        others = rest
        while others != ZERO and n < SHARED_WIDTH:
            b = others & (ZERO - others)
            others ^= b
            pair = a | b
            score = int(popcount(lines_a & np.uint64(misc[SHARED_CELL_LINES
                                                           + popcount(b - ONE)])))
            j = n  # insertion by score, the highest first
            while j > 0 and misc[base + 32 * SHARED_WIDTH + j - 1] < score:
                misc[base + j] = misc[base + j - 1]
                misc[base + 32 * SHARED_WIDTH + j] = misc[base + 32 * SHARED_WIDTH + j - 1]
                j -= 1
            misc[base + j] = np.int64(pair)
            misc[base + 32 * SHARED_WIDTH + j] = score
            n += 1
    misc[SHARED_COUNT + level] = n
    misc[SHARED_NEXT + level] = 0
    misc[SHARED_USED + level] = np.int64(used)
    return 1


@njit(cache=True)
def shared_pairing(other: np.uint64, empty: np.uint64, lines: np.ndarray, buf: np.ndarray,
                   row: int, misc: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether ``other`` can answer in pairs where overlapping lines share a pair: disjoint
    pairs of empty cells such that every line open to the other side (listed open in
    ``buf[row]``) holds one. A depth-first search of at most ``misc[SHARED_BUDGET]`` steps,
    each step the most constrained unserved line taking one of its free pairs; False when
    the budget runs out.

    On boards whose lines overlap in more than one cell (k-windows of longer rows), a pair
    inside the overlap serves every window holding it, where `pairing` needs a pair per
    line.
    """
    count = 0
    for q in range(buf[row, LIVE_COUNT]):
        line = lines[buf[row, LIVE + q]]
        if line & other == ZERO:
            if count == 64:
                return False
            misc[SHARED_SETS + count] = np.int64(line & empty)
            count += 1
    rest = empty
    while rest != ZERO:
        bit = rest & (ZERO - rest)
        rest ^= bit
        misc[SHARED_CELL_ALL + popcount(bit - ONE)] = 0
    for i in range(count):
        rest = np.uint64(misc[SHARED_SETS + i])
        while rest != ZERO:
            bit = rest & (ZERO - rest)
            rest ^= bit
            c = popcount(bit - ONE)
            misc[SHARED_CELL_ALL + c] = np.int64(np.uint64(misc[SHARED_CELL_ALL + c])
                                                 | ONE << np.uint64(i))
    misc[SHARED_FOUND] = 0
    state = _open_level(0, count, ZERO, misc)
    if state != 1:
        return state < 0
    steps = misc[SHARED_BUDGET]
    level = 0
    while True:
        nxt = misc[SHARED_NEXT + level]
        if nxt < misc[SHARED_COUNT + level]:
            steps -= 1
            if steps < 0:
                return False
            misc[SHARED_NEXT + level] = nxt + 1
            pair = np.uint64(misc[SHARED_OPTIONS + level * SHARED_WIDTH + nxt])
            misc[SHARED_PAIRS + level] = np.int64(pair)
            used = np.uint64(misc[SHARED_USED + level]) | pair
            state = _open_level(level + 1, count, used, misc)
            if state < 0:
                misc[SHARED_FOUND] = level + 1
                return True
            if state > 0:
                level += 1
        elif level == 0:
            return False
        else:
            level -= 1


@njit(cache=True)
def paired(side: np.uint64, other: np.uint64, open_lines: int, empty: np.uint64, nempty: int,
           lines: np.ndarray, buf: np.ndarray, misc: np.ndarray) -> bool:  # pragma: no cover
    """Whether ``other`` has a pairing strategy against ``side`` (whose ``open_lines`` are
    listed open in ``buf[nempty]``): a pair of its own for every line (`pairing`), else
    pairs shared by overlapping lines (`shared_pairing`, on boards where lines overlap in
    two cells or more). Tried only with at least twice as many empty cells as open lines
    (the rare successes beyond that cost more than they save: measured on 4x8k4 and
    9x4k4)."""
    if 2 * open_lines > nempty:
        return False
    if pairing(side, other, empty, lines, buf, nempty, misc):
        return True
    return misc[SHARED_BUDGET] > 0 and shared_pairing(other, empty, lines, buf, nempty, misc)


@njit(cache=True)
def order_moves(me: np.uint64, opp: np.uint64, empty: np.uint64, nempty: int,
                my_two: np.uint64, opp_two: np.uint64, lines: np.ndarray,
                line_cells: np.ndarray, buf: np.ndarray,
                misc: np.ndarray) -> int:  # pragma: no cover - compiled
    """List the moves of ``empty`` in ``buf[nempty]`` with their ordering keys (cells, then
    keys from column 64) and return how many: cells of lines one mark short of a threat
    (own, then the opponent's), then the open lines through each cell weighted by their
    marks (no threats are left), with the history counts and the static order as
    tie-breaks."""
    n = misc[CELLS]
    for j in range(n):
        buf[nempty, 128 + j] = 0
    k = line_cells.shape[1]
    for q in range(buf[nempty, LIVE_COUNT]):
        i = buf[nempty, LIVE + q]
        line = lines[i]
        if line & opp == ZERO:
            weight = _OWN_WEIGHT << (2 * (k - popcount(line & ~me)))
        elif line & me == ZERO:
            weight = _OPP_WEIGHT << (2 * (k - popcount(line & ~opp)))
        else:
            continue
        for t in range(k):
            buf[nempty, 128 + line_cells[i, t]] += weight
    count = 0
    for j in range(n):
        cell = misc[ORDER + j]
        bit = ONE << np.uint64(cell)
        if empty & bit == ZERO:
            continue
        key = misc[HISTORY + cell] + (buf[nempty, 128 + cell] << 31)
        if bit & my_two != ZERO:
            key += 1 << 59
        if bit & opp_two != ZERO:
            key += 1 << 58
        buf[nempty, count] = cell
        buf[nempty, 64 + count] = key
        count += 1
    return count


_SEARCH = ("int64(uint64, uint64, int64, int64, int64, uint64[::1], int64[:, ::1], "
           "int64[:, ::1], int64[:, ::1], int64[::1], uint64, uint64[:, :, ::1], "
           "int64[:, ::1])")
_FF = np.uint64(0xFF)


@njit(cache=True)
def transform(mask: np.uint64, sym: np.ndarray, h: int) -> np.uint64:  # pragma: no cover
    """Symmetry ``h``'s image of a mask: one byte-table lookup per byte, OR-ed together."""
    image = ZERO
    for c in range(sym.shape[1]):
        image |= sym[h, c, np.int64((mask >> np.uint64(8 * c)) & _FF)]
    return image


@njit(cache=True)
def canonical(me: np.uint64, opp: np.uint64,
              sym: np.ndarray) -> tuple[np.uint64, np.uint64, int]:  # pragma: no cover
    """The least image of (me, opp) under the symmetries' byte tables, and its symmetry."""
    key_me = me
    key_opp = opp
    best = 0
    for h in range(1, sym.shape[0]):
        image_me = transform(me, sym, h)
        image_opp = transform(opp, sym, h)
        if image_me < key_me or (image_me == key_me and image_opp < key_opp):
            key_me = image_me
            key_opp = image_opp
            best = h
    return key_me, key_opp, best


FORK_PAIRS = 16
"""`search` bounds a side's fastest win by `fork_moves` only with at most this many short
lines (the pairs cost their square; at most 64, the room in ``buf``)."""


@njit(cache=True, inline="always")
def fork_moves(buf: np.ndarray, row: int, start: int, count: int,
               enough: int) -> tuple[int, np.uint64]:  # pragma: no cover - compiled
    """The fewest moves a side needs to win through the open lines whose empty cells are
    ``buf[row, start:start + count]`` (99 if it cannot), by the rule that every win ends
    with a fork and its completion; and the empty cells of the pairs of lines that need no
    more. The first pair that needs at most ``enough`` moves ends the search: (-1, all
    cells), the fewest then unknown.

    The opponent blocks every single threat, so the move before the winning one makes two
    threats at once, on lines L1 and L2 through its cell b. Then each line has one more
    empty cell (x1 in L1 only, x2 in L2 only), and the side has filled every other empty
    cell of L1 and L2 itself. So it needs |empty(L1 | L2)| - 1 moves, and L1 and L2 must
    share an empty cell while each has one the other lacks.
    """
    best = 99
    cells = ZERO
    for a in range(count):
        ea = np.uint64(buf[row, start + a])
        for b in range(a + 1, count):
            eb = np.uint64(buf[row, start + b])
            if ea & eb == ZERO or ea & ~eb == ZERO or eb & ~ea == ZERO:
                continue
            m = int(popcount(ea | eb)) - 1
            if m <= enough:
                return -1, ALL
            if m < best:
                best = m
                cells = ea | eb
            elif m == best:
                cells |= ea | eb
    return best, cells


@njit(_SEARCH, cache=True)
def search(me: np.uint64, opp: np.uint64, alpha: int, beta: int, nempty: int,
           lines: np.ndarray, line_cells: np.ndarray, tt: np.ndarray, buf: np.ndarray,
           misc: np.ndarray, full: np.uint64, sym: np.ndarray,
           perm: np.ndarray) -> int:  # pragma: no cover - compiled
    """Fail-soft alpha-beta: the exact score if inside (alpha, beta), else a bound past it.

    The position must not be over: ``opp``'s last move made no line.
    """
    misc[NODES] += 1
    if misc[NODES] > misc[LIMIT] or misc[NODES] > misc[BUDGET]:
        misc[ABORTED] = 1
        misc[STOPPED_AT] = nempty
        return 0
    if nempty == 0:
        return 0
    symmetric = nempty >= misc[SYMMETRIC]
    row = np.int64(0)
    if not symmetric:  # start loading the table's row: the scan below hides the wait
        row = table_index(me, opp, np.uint64(tt.shape[0] - 1))
        prefetch_row(tt, int(row))
    my_threat = ZERO
    opp_threat = ZERO
    my_two = ZERO
    opp_two = ZERO
    my_twice = ZERO
    opp_twice = ZERO
    my_need = 99
    my_fastest = ZERO  # the empty cells of the open lines that need the fewest marks
    opp_need = 99
    my_open = 0
    opp_open = 0
    # Lines short enough to matter to the window's bounds (see `fork_moves`) go to the
    # move-list columns of this row, free until the moves are listed: the mover's from 0,
    # the opponent's from 64.
    my_room = BIG - alpha if alpha > 0 else 0
    opp_room = BIG + beta if beta < 0 else 0
    my_short = 0
    opp_short = 64
    n = misc[CELLS]
    # Only the lines the parent found open can still be: scan those, and keep the open ones.
    parent = nempty + 1
    live = 0
    lists = misc[LIVE_LISTS] != 0  # off on small boards: the rows then list every line
    for q in range(buf[parent, LIVE_COUNT]):
        i = buf[parent, LIVE + q]
        line = lines[i]
        if line & opp == ZERO:
            if lists:
                buf[nempty, LIVE + live] = i
                live += 1
            e = line & ~me
            my_open += 1
            if e == line:  # empty: open to the opponent too
                opp_open += 1
                c = popcount(e)
                if c < opp_need:
                    opp_need = int(c)
                if 2 * c < opp_room:
                    if opp_short < 64 + FORK_PAIRS:
                        buf[nempty, opp_short] = np.int64(e)
                    opp_short += 1
            if e & (e - ONE) == ZERO:
                my_threat |= e
            else:
                c = popcount(e)
                if 2 * c <= my_room:
                    if my_short < FORK_PAIRS:
                        buf[nempty, my_short] = np.int64(e)
                    my_short += 1
                if c < my_need:
                    my_need = int(c)
                    my_fastest = e
                elif c == my_need:
                    my_fastest |= e
                if c == 2:
                    my_twice |= my_two & e
                    my_two |= e
        elif line & me == ZERO:
            if lists:
                buf[nempty, LIVE + live] = i
                live += 1
            e = line & ~opp
            opp_open += 1
            if e & (e - ONE) == ZERO:
                opp_threat |= e
            else:
                c = popcount(e)
                if 2 * c < opp_room:
                    if opp_short < 64 + FORK_PAIRS:
                        buf[nempty, opp_short] = np.int64(e)
                    opp_short += 1
                if c < opp_need:
                    opp_need = int(c)
                if c == 2:
                    opp_twice |= opp_two & e
                    opp_two |= e
    buf[nempty, LIVE_COUNT] = live if lists else buf[parent, LIVE_COUNT]
    if my_threat != ZERO:
        return BIG - 1
    if opp_threat != ZERO:
        if opp_threat & (opp_threat - ONE) != ZERO:
            return -(BIG - 2)  # a double threat: block one, lose to the other
        child = search(opp, me | opp_threat, lower(beta), lower(alpha), nempty - 1,
                       lines, line_cells, tt, buf, misc, full, sym, perm)
        return lift(child)

    # A fork (one move, two threats) wins in 3; the opponent's fork, unless defused, in 4.
    if my_twice != ZERO and nempty >= 3:
        forks, _ = fork_cells(me, opp, my_twice, lines, buf, nempty)
        if forks != ZERO:
            return BIG - 3
    pruned = ZERO
    opp_fork = False
    if opp_twice != ZERO and nempty >= 4:
        forks, relevant = fork_cells(opp, me, opp_twice, lines, buf, nempty)
        if forks != ZERO:
            opp_fork = True
            pruned = full & ~(me | opp | relevant | my_two)

    # Bounds: the fastest win each side could still make, or none without an open line.
    # Two marks short and no fork, a side needs a threat, a block and a fork first.
    upper = 0
    if my_need == 2:
        if nempty >= 5:
            upper = BIG - 5
    elif my_need < 99 and 2 * my_need - 1 <= nempty:
        upper = BIG - (2 * my_need - 1)
    floor = 0
    if opp_need == 2 and not opp_fork:
        if nempty >= 6:
            floor = -(BIG - 6)
    elif opp_need < 99 and 2 * opp_need <= nempty:
        floor = -(BIG - 2 * opp_need)
    # Where only the fastest win conceivable would beat alpha, the mover's moves must go to
    # these cells: any other leaves it as far from a win as before.
    fast = my_fastest if my_need >= 3 else ALL
    # A win needs a fork first: two lines whose empty cells must nearly all be filled. Only
    # bounds near the window matter: the first pair that would leave the mover 4 plies to
    # spare ends the search.
    if upper > alpha and my_room > 0 and my_short <= FORK_PAIRS:
        m, cells = fork_moves(buf, nempty, 0, my_short, (my_room - 3) // 2)
        if m < 0:
            pass  # a pair leaves time to spare
        elif 2 * m - 1 >= my_room:
            upper = min(upper, BIG - (my_room // 2 * 2 + 1))
        elif BIG - (2 * m - 1) < upper:
            upper = BIG - (2 * m - 1)
            fast = cells
        elif BIG - (2 * m - 1) == upper:
            fast &= cells
    if floor < beta and opp_room > 0 and opp_short - 64 <= FORK_PAIRS:
        m, _ = fork_moves(buf, nempty, 64, opp_short - 64, (opp_room - 1) // 2)
        if m >= 0:  # no pair in time
            floor = max(floor, -(BIG - (opp_room - 1) // 2 * 2 - 2))
    # Pairing strategies: a side whose every open line the other can pair off cannot win.
    if misc[PAIRING] != 0:
        empty_cells = full & ~(me | opp)
        if upper > 0 and (alpha >= 0 or floor == 0) \
                and paired(me, opp, my_open, empty_cells, nempty, lines, buf, misc):
            upper = 0
        if floor < 0 and (beta <= 0 or upper == 0) \
                and paired(opp, me, opp_open, empty_cells, nempty, lines, buf, misc):
            floor = 0
    if upper <= alpha:
        return upper
    if floor >= beta:
        return floor
    if floor == upper:
        return floor

    generation = np.int64(misc[GENERATION])
    image = 0
    if symmetric:  # near the root: one entry for all symmetric positions
        canon_me, canon_opp, image = canonical(me, opp, sym)
        row = table_index(canon_me, canon_opp, np.uint64(tt.shape[0] - 1))
    else:
        canon_me = me
        canon_opp = opp
    key_me = np.int64(canon_me)
    key_opp = np.int64(canon_opp)
    hint = -1
    e, data = probe(tt, row, key_me, key_opp, generation)
    if e >= 0:
        lo = int((data & 0xFFFF) - _OFF)
        hi = int(((data >> 16) & 0xFFFF) - _OFF)
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        if lo > alpha:
            alpha = lo
        if hi < beta:
            beta = hi
        hint = int(((data >> 32) & 0xFF) - 1)
        if image != 0 and hint >= 0:
            hint = perm[sym.shape[0] + image, hint]

    start_alpha = alpha
    best = -INF
    best_move = -1
    if pruned != ZERO:
        # Every move off the opponent's fork lines that makes no threat loses in exactly 4.
        best = -(BIG - 4)
        if best >= beta:
            return best
        if best > alpha:
            alpha = best

    if fast != ALL and upper > 0 and upper > alpha >= upper - 2:
        # Only the fastest win conceivable beats alpha: every move must go where it brings
        # that win nearer (on a line that needs the fewest marks, or a fork pair that needs
        # the fewest moves); any other move scores at most the next slower win.
        pruned |= full & ~(me | opp | fast)
        if best < upper - 2:
            best = upper - 2
    # The table's move first, alone: when it cuts (as it mostly does), no other move is
    # weighed or listed. The others are picked best first, lazily.
    empty = full & ~(me | opp | pruned)
    if hint >= 0 and empty & ONE << np.uint64(hint) != ZERO:
        j = -1
        empty &= ~(ONE << np.uint64(hint))
    else:
        j = 0
    count = -1
    first_index = j
    while True:
        if j < 0:
            cell = hint
        else:
            if count < 0:
                count = order_moves(me, opp, empty, nempty, my_two, opp_two, lines,
                                    line_cells, buf, misc)
            if j >= count:
                break
            top = j
            top_key = buf[nempty, 64 + j]
            for t in range(j + 1, count):
                if buf[nempty, 64 + t] > top_key:
                    top_key = buf[nempty, 64 + t]
                    top = t
            cell = buf[nempty, top]
            if top != j:
                buf[nempty, top] = buf[nempty, j]
                buf[nempty, 64 + top] = buf[nempty, 64 + j]
        buf[nempty, CURRENT] = cell
        buf[nempty, TRIED] = j - first_index
        value = lift(search(opp, me | ONE << np.uint64(cell), lower(beta), lower(alpha),
                            nempty - 1, lines, line_cells, tt, buf, misc, full, sym, perm))
        if misc[ABORTED]:
            return 0
        if value > best:
            best = value
            best_move = cell
            if value > alpha:
                alpha = value
                if value >= beta:
                    misc[HISTORY + cell] += nempty * nempty
                    if misc[HISTORY + cell] > _HISTORY_CAP:
                        for h in range(n):
                            misc[HISTORY + h] >>= 1
                    break
        j += 1

    lo = -INF
    hi = INF
    e, data = probe(tt, row, key_me, key_opp, generation)
    if e >= 0:
        lo = int((data & 0xFFFF) - _OFF)
        hi = int(((data >> 16) & 0xFFFF) - _OFF)
    else:  # replace: the first entry keeps the bigger subtree, the second takes the rest
        first = tt[row, 2]
        if first >> 48 != generation or (first >> 40) & 0xFF <= nempty:
            if first >> 48 == generation:
                tt[row, ENTRY] = tt[row, 0]
                tt[row, ENTRY + 1] = tt[row, 1]
                tt[row, ENTRY + 2] = first
                tt[row, ENTRY + 3] = tt[row, 3]
            e = 0
        else:
            e = ENTRY
    if best <= start_alpha:
        if best < hi:
            hi = best
    elif best >= beta:
        if best > lo:
            lo = best
    else:
        lo = best
        hi = best
    if image != 0 and best_move >= 0:
        best_move = perm[image, best_move]
    data = np.int64(pack(lo, hi, best_move, nempty, generation))
    tt[row, e] = key_me
    tt[row, e + 1] = key_opp
    tt[row, e + 2] = data
    tt[row, e + 3] = check_word(key_me, key_opp, data)
    return best


RACE_FROM = 16
"""`exact` races its two ways to the value only with more empty cells than this; smaller
searches go to `exact_plain`."""


@njit(cache=True)
def exact_plain(me: np.uint64, opp: np.uint64, nempty: int, lines: np.ndarray,
          line_cells: np.ndarray, tt: np.ndarray, buf: np.ndarray, misc: np.ndarray,
          full: np.uint64, sym: np.ndarray, perm: np.ndarray) -> int:  # pragma: no cover
    """The exact score of a position that is not over (0 if the node limit stopped it), by
    plain null-window questions: "is this a win?" and "a loss?", then "a win within d
    plies?" for d = 1, 3, 5, ... (or "a loss within d?" for d = 2, 4, ...). Best on small
    boards (see `exact`)."""
    for i in range(lines.shape[0]):  # every line counts as open to the searches' root
        buf[nempty + 1, LIVE + i] = i
    buf[nempty + 1, LIVE_COUNT] = lines.shape[0]
    r = search(me, opp, 0, 1, nempty, lines, line_cells, tt, buf, misc, full, sym, perm)
    if misc[ABORTED]:
        return 0
    if r >= 1:  # a win: the fastest, by asking "a win within d?" for d = 1, 3, 5, ...
        slowest = BIG - r
        d = 1
        while d < slowest:
            t = BIG - d
            r = search(me, opp, t - 1, t, nempty, lines, line_cells, tt, buf, misc, full, sym, perm)
            if misc[ABORTED]:
                return 0
            if r >= t:
                return t
            d += 2
        return BIG - slowest
    r = search(me, opp, -1, 0, nempty, lines, line_cells, tt, buf, misc, full, sym, perm)
    if misc[ABORTED]:
        return 0
    if r >= 0:
        return 0
    # a loss: the slowest, by asking "still alive after d plies?" for d = 2, 4, 6, ...
    fastest = BIG + r
    d = 2
    while d < fastest:
        t = -(BIG - d)
        r = search(me, opp, t, t + 1, nempty, lines, line_cells, tt, buf, misc, full, sym, perm)
        if misc[ABORTED]:
            return 0
        if r <= t:
            return t
        d += 2
    return -(BIG - fastest)


@njit(cache=True, inline="always")
def ask(me: np.uint64, opp: np.uint64, alpha: int, beta: int, nempty: int, budget: int,
        lines: np.ndarray, line_cells: np.ndarray, tt: np.ndarray, buf: np.ndarray,
        misc: np.ndarray, full: np.uint64, sym: np.ndarray,
        perm: np.ndarray) -> int:  # pragma: no cover - compiled
    """One question to `search` from the root, within ``budget`` more nodes (0: no budget).

    Returns the answer and whether it finished; stopped by the budget, ``ABORTED`` is
    cleared again (only the node limit stops the caller). The caller lists every line as
    open in ``buf[nempty + 1]``.
    """
    misc[BUDGET] = misc[NODES] + budget if budget > 0 else np.int64(1) << 62
    r = search(me, opp, alpha, beta, nempty, lines, line_cells, tt, buf, misc, full, sym, perm)
    misc[BUDGET] = np.int64(1) << 62
    if misc[ABORTED] and misc[NODES] <= misc[LIMIT]:
        misc[ABORTED] = 0
        misc[UNFINISHED] = 1
    else:
        misc[UNFINISHED] = 0
    return r


@njit(cache=True)
def exact(me: np.uint64, opp: np.uint64, nempty: int, lines: np.ndarray,
          line_cells: np.ndarray, tt: np.ndarray, buf: np.ndarray, misc: np.ndarray,
          full: np.uint64, sym: np.ndarray, perm: np.ndarray) -> int:  # pragma: no cover
    """The exact score of a position that is not over (0 if the node limit stopped it).

    Two ways to the value race in rounds, each question within the round's node budget
    (doubled every round; what a stopped question proved stays in the table):

    * iterative deepening on distance, "a win within d plies?" for d = 1, 3, 5, ...: the
      first yes is the fastest win, and small proofs come first (a long first-found win
      can take far more nodes to prove than the fastest one);
    * the plain null-window question "is this a win?", cheap when there is none (the
      pairing and dead-line cuts need no distance).

    Without a win, "is this a loss?" and "a loss within d plies?" (d = 2, 4, ...) race the
    same way: the first yes is the slowest loss. ``misc[PLAN]`` can ask for one way only
    (two threads then race them, sharing one table).
    """
    if nempty <= RACE_FROM or misc[PLAN] == PLAN_PLAIN:
        return exact_plain(me, opp, nempty, lines, line_cells, tt, buf, misc, full, sym, perm)
    first = misc[FIRST_BUDGET] if misc[PLAN] == PLAN_RACE else 0  # 0: no budget
    for i in range(lines.shape[0]):  # every line counts as open to the searches' root
        buf[nempty + 1, LIVE + i] = i
    buf[nempty + 1, LIVE_COUNT] = lines.shape[0]
    # the wins
    budget = first
    d = 1
    known = False  # whether a win is known to exist (then only the distance is left)
    slowest = nempty
    while True:
        while d <= nempty:
            if known and d >= slowest:
                return BIG - slowest
            t = BIG - d
            r = ask(me, opp, t - 1, t, nempty, 0 if known else budget, lines, line_cells, tt,
                    buf, misc, full, sym, perm)
            if misc[ABORTED]:
                return 0
            if misc[UNFINISHED]:
                break
            if r >= t:
                return t
            d += 2
        if d > nempty:
            break  # no win
        r = ask(me, opp, 0, 1, nempty, budget, lines, line_cells, tt, buf, misc, full, sym,
                perm)
        if misc[ABORTED]:
            return 0
        if misc[UNFINISHED] == 0:
            if r < 1:
                break  # no win
            known = True
            slowest = BIG - r  # the win found: no need to ask about it
        budget *= 2
    # no win: a draw or the slowest loss
    budget = first
    d = 2
    known = False
    fastest = nempty
    while True:
        while d <= nempty:
            if known and d >= fastest:
                return -(BIG - fastest)
            t = -(BIG - d)
            r = ask(me, opp, t, t + 1, nempty, 0 if known else budget, lines, line_cells, tt,
                    buf, misc, full, sym, perm)
            if misc[ABORTED]:
                return 0
            if misc[UNFINISHED]:
                break
            if r <= t:
                return t
            d += 2
        if d > nempty:
            return 0  # no loss either
        r = ask(me, opp, -1, 0, nempty, budget, lines, line_cells, tt, buf, misc, full, sym,
                perm)
        if misc[ABORTED]:
            return 0
        if misc[UNFINISHED] == 0:
            if r >= 0:
                return 0
            known = True
            fastest = BIG + r  # the loss found: no need to ask about it
        budget *= 2


@njit(cache=True, nogil=True)
def question(me: np.uint64, opp: np.uint64, alpha: int, beta: int, nempty: int,
             lines: np.ndarray, line_cells: np.ndarray, tt: np.ndarray, buf: np.ndarray,
             misc: np.ndarray, full: np.uint64, sym: np.ndarray,
             perm: np.ndarray) -> int:  # pragma: no cover - compiled
    """One window question to `search` from a position not over, without the interpreter
    lock (for worker threads): every line counts as open to its root."""
    for i in range(lines.shape[0]):
        buf[nempty + 1, LIVE + i] = i
    buf[nempty + 1, LIVE_COUNT] = lines.shape[0]
    return search(me, opp, alpha, beta, nempty, lines, line_cells, tt, buf, misc, full, sym,
                  perm)


@njit(cache=True)
def completes_line(mine: np.uint64, lines: np.ndarray) -> bool:  # pragma: no cover
    """Whether the marks ``mine`` fill a line."""
    for i in range(lines.shape[0]):  # noqa: SIM110 - a generator would not compile
        if lines[i] & mine == lines[i]:
            return True
    return False


@njit(cache=True, nogil=True)
def solve_moves(me: np.uint64, opp: np.uint64, nempty: int, cells: np.ndarray,
                out: np.ndarray, start: int, lines: np.ndarray, line_cells: np.ndarray,
                tt: np.ndarray,
                buf: np.ndarray, misc: np.ndarray, full: np.uint64, sym: np.ndarray,
                perm: np.ndarray) -> int:  # pragma: no cover
    """The exact score of each move in ``cells[start:]`` for the mover, into ``out``.

    Returns how many moves are done: fewer than all if the node limit stopped it.
    """
    for i in range(start, cells.shape[0]):
        mine = me | ONE << np.uint64(cells[i])
        if completes_line(mine, lines):
            out[i] = BIG - 1
        elif nempty == 1:
            out[i] = 0
        else:
            child = exact(opp, mine, nempty - 1, lines, line_cells, tt, buf, misc, full, sym, perm)
            if misc[ABORTED]:
                return i
            out[i] = lift(child)
    return int(cells.shape[0])


@njit(cache=True)
def table_move(me: np.uint64, opp: np.uint64, nempty: int, tt: np.ndarray, misc: np.ndarray,
               sym: np.ndarray, perm: np.ndarray) -> int:  # pragma: no cover - compiled
    """The best move the table holds for a position, or -1."""
    image = 0
    if nempty >= misc[SYMMETRIC]:
        key_me, key_opp, image = canonical(me, opp, sym)
    else:
        key_me = me
        key_opp = opp
    row = table_index(key_me, key_opp, np.uint64(tt.shape[0] - 1))
    e, data = probe(tt, row, np.int64(key_me), np.int64(key_opp), np.int64(misc[GENERATION]))
    if e < 0:
        return -1
    move = int(((data >> 32) & 0xFF) - 1)
    if image != 0 and move >= 0:
        move = int(perm[sym.shape[0] + image, move])
    return move


@njit(cache=True, nogil=True)
def solve_value(me: np.uint64, opp: np.uint64, nempty: int, cells: np.ndarray,
                out: np.ndarray, lines: np.ndarray, line_cells: np.ndarray, tt: np.ndarray,
                buf: np.ndarray, misc: np.ndarray, full: np.uint64, sym: np.ndarray,
                perm: np.ndarray) -> bool:  # pragma: no cover - compiled
    """The exact score of a position not over into ``out[0]``, and into ``out[1]`` one move
    of ``cells`` that keeps it (the table's move first, then the others in turn, each asked
    one null-window question). Returns False if the node limit stopped it."""
    score = exact(me, opp, nempty, lines, line_cells, tt, buf, misc, full, sym, perm)
    if misc[ABORTED]:
        return False
    out[0] = score
    hint = table_move(me, opp, nempty, tt, misc, sym, perm)
    for i in range(-1, cells.shape[0]):
        if i < 0:
            cell = hint
            if cell < 0 or (me | opp) & ONE << np.uint64(cell) != ZERO:
                continue
        else:
            cell = cells[i]
            if cell == hint:
                continue
        mine = me | ONE << np.uint64(cell)
        if completes_line(mine, lines):
            value = BIG - 1
        elif nempty == 1:
            value = 0
        else:
            for q in range(lines.shape[0]):  # every line counts as open to the child's parent
                buf[nempty, LIVE + q] = q
            buf[nempty, LIVE_COUNT] = lines.shape[0]
            value = lift(search(opp, mine, lower(score), lower(score - 1), nempty - 1, lines,
                                line_cells, tt, buf, misc, full, sym, perm))
            if misc[ABORTED]:
                return False
        if value >= score:
            out[1] = cell
            return True
    out[1] = -1  # unreachable: some move keeps the score
    return True


@njit(cache=True)
def orbit_representatives(perms: np.ndarray, x: np.uint64, o: np.uint64,
                          empty: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Each empty cell's least equivalent cell under the symmetries that fix (x, o)."""
    n = perms.shape[1]
    rep = np.arange(n)
    for g in range(1, perms.shape[0]):
        image_x = ZERO
        image_o = ZERO
        for c in range(n):
            bit = ONE << np.uint64(c)
            target = ONE << np.uint64(perms[g, c])
            if x & bit != ZERO:
                image_x |= target
            if o & bit != ZERO:
                image_o |= target
        if image_x != x or image_o != o:
            continue
        for i in range(empty.shape[0]):
            c = empty[i]
            a = c
            while rep[a] != a:
                a = rep[a]
            b = perms[g, c]
            while rep[b] != b:
                b = rep[b]
            if a < b:
                rep[b] = a
            elif b < a:
                rep[a] = b
    for i in range(empty.shape[0]):
        c = empty[i]
        a = c
        while rep[a] != a:
            a = rep[a]
        rep[c] = a
    return rep


@njit(cache=True)
def strong(full: np.uint64, nempty: int, lines: np.ndarray, line_cells: np.ndarray,
           tt: np.ndarray, buf: np.ndarray,
           misc: np.ndarray, seen: np.ndarray, out_me: np.ndarray, out_opp: np.ndarray,
           out_score: np.ndarray, sym: np.ndarray,
           perm: np.ndarray) -> int:  # pragma: no cover - compiled
    """Every position reachable from the empty board and not over, with its exact score.

    ``seen`` is an open-addressing set of (me, opp) pairs of at least twice as many rows as
    positions (filled with ones: no position has every cell both sides'). Returns the count,
    or -1 if the outputs are too small.
    """
    capacity = out_me.shape[0]
    mask = np.uint64(seen.shape[0] - 1)
    stack_me = np.empty(nempty * nempty + 1, dtype=np.uint64)
    stack_opp = np.empty(nempty * nempty + 1, dtype=np.uint64)
    stack_me[0] = ZERO
    stack_opp[0] = ZERO
    top = 1
    count = 0
    while top > 0:
        top -= 1
        me = stack_me[top]
        opp = stack_opp[top]
        slot = table_index(me, opp, mask)
        while seen[slot, 0] != ALL and (seen[slot, 0] != me or seen[slot, 1] != opp):
            slot = (slot + 1) & np.int64(mask)
        if seen[slot, 0] == me and seen[slot, 1] == opp:
            continue
        if count >= capacity:
            return -1
        seen[slot, 0] = me
        seen[slot, 1] = opp
        left = nempty - popcount(me | opp)
        out_me[count] = me
        out_opp[count] = opp
        out_score[count] = exact_plain(me, opp, int(left), lines, line_cells, tt, buf, misc,
                                       full, sym, perm)
        count += 1
        empty = full & ~(me | opp)
        for c in range(misc[CELLS]):
            bit = ONE << np.uint64(c)
            if empty & bit == ZERO:
                continue
            mine = me | bit
            if left == 1 or completes_line(mine, lines):
                continue
            stack_me[top] = opp
            stack_opp[top] = mine
            top += 1
    return count
