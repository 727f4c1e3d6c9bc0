"""Threat-space search: does the side to move win by a threat sequence?

The definition is the one proof files use (``docs/proof-format.md``). A *threat* of a side
is a line with k-1 of its marks, one empty cell and no mark of the other side. The
*prover*, to move, wins by a threat sequence if

1. it has a threat (it completes the line at once); or
2. the opponent has no threat, or threats on one empty cell ``b`` only, and the prover has
   a move ``c`` (``b`` itself if the opponent has a threat) after which it has threats on
   two or more empty cells (the opponent blocks one and the prover completes another), or
   on exactly one, ``t``: the opponent must play ``t``, and then the prover wins by a
   threat sequence again.

The search is depth-first over the prover's moves, which are only the cells of lines with
k-2 of its marks and no opponent mark (no other move makes a threat). The opponent's
replies are forced, so the tree has no branching for the opponent. A transposition table
keeps failed positions (with the number of prover moves they were searched for) and won
ones (with their first move), shared by every call.

A position is two ``uint64`` masks: ``P`` (the prover, to move) and ``D`` (the opponent).
Adding an opponent mark never turns a failure into a win, so a failed search also rules
out the position with any opponent mark added (the proof-number search relies on it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tictactoe.search.bits import ALL, ONE, ZERO, lowest, popcount, prefetch_row

# ``misc`` (int64) slots that the threat search uses; the proof-number search adds its own.
TSS_NODES = 0
"""Positions the threat search has visited (all calls)."""
TSS_LIMIT = 1
"""The threat search stops (answering "unknown") once ``TSS_NODES`` passes this."""
TSS_CALLS = 2
TSS_WINS = 3
TSS_ABORTS = 4
TSS_ORDER = 5
"""Whether candidate moves are ordered (1) or taken lowest cell first (0)."""
TSS_MISC = 8

FAIL = -1
UNKNOWN = -2

# A table row holds two entries of three words: P, D, data (and two unused words, so that a
# row is one cache line of 64 bytes). Data: status in bits 0-1 (1 failed, 2 won), the move
# (won) in bits 2-9, the moves searched (failed) or the sequence length (won) in bits 10-17,
# and the subtree size in bits 18 and up.
TSS_ROW = 8
_FAILED = 1
_WON = 2


@njit(cache=True, inline="always")
def _slot(p: np.uint64, d: np.uint64, rows: int) -> int:  # pragma: no cover - compiled
    h = p * np.uint64(0x9E3779B97F4A7C15) ^ d * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(32)
    return int(h & np.uint64(rows - 1))


@njit(cache=True, inline="always")
def tt_probe(tt: np.ndarray, p: np.uint64, d: np.uint64) -> np.uint64:  # pragma: no cover
    """The data word of a position's entry, or 0."""
    r = _slot(p, d, tt.shape[0])
    if tt[r, 0] == p and tt[r, 1] == d and tt[r, 2] != ZERO:
        return np.uint64(tt[r, 2])
    if tt[r, 3] == p and tt[r, 4] == d and tt[r, 5] != ZERO:
        return np.uint64(tt[r, 5])
    return ZERO


@njit(cache=True, inline="always")
def tt_store(tt: np.ndarray, p: np.uint64, d: np.uint64,
             data: np.uint64) -> None:  # pragma: no cover - compiled
    """Keep an entry: the first slot holds the bigger subtree, the second the newest."""
    r = _slot(p, d, tt.shape[0])
    if tt[r, 0] == p and tt[r, 1] == d:
        tt[r, 2] = data
        return
    if tt[r, 3] == p and tt[r, 4] == d:
        tt[r, 5] = data
        return
    if (data >> np.uint64(18)) >= (tt[r, 2] >> np.uint64(18)):
        tt[r, 3] = tt[r, 0]
        tt[r, 4] = tt[r, 1]
        tt[r, 5] = tt[r, 2]
        tt[r, 0] = p
        tt[r, 1] = d
        tt[r, 2] = data
    else:
        tt[r, 3] = p
        tt[r, 4] = d
        tt[r, 5] = data


@njit(cache=True, inline="always")
def _pack(status: int, move: int, depth: int, size: int) -> np.uint64:  # pragma: no cover
    if size > (1 << 40):
        size = 1 << 40
    return np.uint64(status | move << 2 | depth << 10 | size << 18)


@njit(cache=True, inline="always")
def survey(p: np.uint64, d: np.uint64, full: np.uint64,
           lines: np.ndarray) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, int,
                                       np.uint64, int]:  # pragma: no cover - compiled
    """One pass over the lines: `scan`'s four masks, then the prover's open lines (no
    opponent mark), the opponent's threat-making cells (on its lines two marks short
    with no prover mark), which the proof-number search's evaluations use, and the
    prover's lines two marks short (the threat search's).

    The pass has no branches, only masks of all ones or zeros: alone, on random positions,
    2.2-2.6 times as fast as tests and jumps."""
    empty = full & ~(p | d)
    p_threat = ZERO
    d_threat = ZERO
    cand = ZERO
    twice = ZERO
    n_open = 0
    n_two = 0
    d_make = ZERO
    for i in range(lines.shape[0]):
        line = lines[i]
        e = line & empty
        open_line = (line & d) == ZERO
        one = ZERO - np.uint64(popcount(e) == 1)
        two = ZERO - np.uint64(popcount(e) == 2)
        mine = ZERO - np.uint64(open_line)
        theirs = (ZERO - np.uint64((line & p) == ZERO)) & ~mine
        p_threat |= e & mine & one
        t = e & mine & two
        n_two += t != ZERO
        twice |= cand & t
        cand |= t
        d_threat |= e & theirs & one
        d_make |= e & theirs & two
        n_open += open_line
    return p_threat, d_threat, cand, twice, n_open, d_make, n_two


@njit(cache=True, inline="always")
def scan(p: np.uint64, d: np.uint64, full: np.uint64,
         lines: np.ndarray) -> tuple[np.uint64, np.uint64, np.uint64,
                                     np.uint64]:  # pragma: no cover - compiled
    """One pass over the lines (`survey`'s): the prover's threat cells, the opponent's
    threat cells, the cells of the prover's lines two marks short (its threat-making moves)
    and those of them on two or more such lines (each makes two threats at once, unless
    the lines overlap and share their other empty cell)."""
    p_threat, d_threat, cand, twice, _, _, _ = survey(p, d, full, lines)
    return p_threat, d_threat, cand, twice


@njit(cache=True)
def threat_cells(p: np.uint64, d: np.uint64, full: np.uint64,
                 lines: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """The cells where ``p`` has a threat."""
    empty = full & ~(p | d)
    out = ZERO
    for i in range(lines.shape[0]):
        line = lines[i]
        if line & d == ZERO:
            e = line & empty
            if e != ZERO and e & (e - ONE) == ZERO:
                out |= e
    return out


@njit(cache=True, inline="always")
def _partners(c: int, p: np.uint64, d: np.uint64, empty: np.uint64, lines: np.ndarray,
             through: np.ndarray, count: np.ndarray) -> np.uint64:  # pragma: no cover
    """The cells where the move ``c`` makes threats: the other empty cells of the prover's
    lines two short through ``c`` (several lines may share one, where lines overlap)."""
    b = ONE << np.uint64(c)
    out = ZERO
    for j in range(count[c]):
        line = lines[through[c, j]]
        if line & d == ZERO:
            e = line & empty
            if popcount(e) == 2:
                out |= e & ~b
    return out


@njit(cache=True, inline="always")
def threat_move(c: int, p: np.uint64, d: np.uint64, empty: np.uint64, n_two: int,
                lines: np.ndarray, through: np.ndarray, count: np.ndarray,
                k: int) -> tuple[np.uint64, int, bool]:  # pragma: no cover - compiled
    """The prover's threat move ``c`` (it makes one threat), in one pass over the lines
    through it and one over those through the opponent's forced reply ``t``:

    - ``t``, the cell where ``c`` makes its threat;
    - the move's ordering key: the prover's lines through ``c`` three short (future threat
      moves, 4 each), minus the opponent's lines through ``t`` that its reply makes a
      threat (16 each: the prover must answer it) or brings one short of one (1 each);
    - whether the search fails at once after ``c`` and ``t``: the reply makes threats on two
      cells, or on one where the prover makes no threat, or the prover is left with no line
      two marks short. Of the ``n_two`` such lines now, those through ``c`` all pass
      through ``t`` (their other empty cell), which blocks every line through it; lines
      through ``c`` three short and not through ``t`` become two short."""
    b = ONE << np.uint64(c)
    t = ZERO
    n3 = 0
    shared = ALL  # the cells every line through c three short has
    for j in range(count[c]):
        line = lines[through[c, j]]
        if line & d == ZERO:
            e = line & empty
            n_empty = popcount(e)
            if n_empty == 2:
                t |= e & ~b
            elif n_empty == 3:
                n3 += 1
                shared &= line
    tc = lowest(t)
    key = 4 * n3
    m = 0
    threats = ZERO
    for j in range(count[tc]):
        line = lines[through[tc, j]]
        theirs = line & d
        if theirs == ZERO:
            m += popcount(line & empty) == 2
        if line & p == ZERO:
            n = popcount(theirs)
            if n == k - 2:
                key -= 16
                if theirs != ZERO and line & b == ZERO:
                    threats |= line & empty & ~t
            elif n == k - 3:
                key -= 1
    if threats != ZERO:
        if threats & (threats - ONE) != ZERO:
            return t, key, True
        # the prover must play there: is it a threat move?
        left = empty & ~(b | t)
        tb = lowest(threats)
        for j in range(count[tb]):
            line = lines[through[tb, j]]
            if line & (d | t) == ZERO and popcount(line & left) == 2:
                return t, key, False
        return t, key, True
    if m != n_two:
        return t, key, False
    # a line through c three short and not through t becomes two short
    return t, key, n3 == 0 or shared & t != ZERO


_SIG = ("int64(uint64, uint64, int64, int64, uint64, uint64[::1], int64[:, ::1], int64[::1], "
        "int64, uint64[:, ::1], int64[::1], int64[::1], int64[:, ::1])")

NO_REFCOUNTS: dict[str, Any] = {"_nrt": False}
"""numba's option for a kernel that allocates nothing: no reference counting of its arrays
(an option numba's type stubs do not list)."""

WORK_ROWS = 66
"""Rows of the threat search's scratch array: one per level of a sequence (at most 64 prover
moves, and the position after them)."""
WORK_WIDTH = 256
"""Its columns: a level's candidate cells, their ordering keys, the opponent's forced
replies and whether the search fails at once after them, at most 64 of each."""


# Without numba's reference counting (``_nrt``): the search allocates nothing (its scratch is
# ``work``, made by `tss`), and counting the references of its seven arrays at each of its
# recursive calls took a tenth of the cube's search.
@njit(_SIG, cache=True, nogil=True, **NO_REFCOUNTS)
def _search(p: np.uint64, d: np.uint64, rem: int, pos: int, full: np.uint64,
            lines: np.ndarray, through: np.ndarray, count: np.ndarray, k: int,
            tt: np.ndarray, misc: np.ndarray, seq: np.ndarray,
            work: np.ndarray) -> int:  # pragma: no cover
    """The threat search below one position: the length of a winning sequence (its moves
    written from ``seq[pos]``), `FAIL`, or `UNKNOWN` if the node limit stopped it.

    ``rem`` is how many more prover moves a sequence may have."""
    misc[TSS_NODES] += 1
    if misc[TSS_NODES] > misc[TSS_LIMIT]:
        return UNKNOWN
    data = tt_probe(tt, p, d)
    if data != ZERO:
        status = int(data & np.uint64(3))
        depth = int((data >> np.uint64(10)) & np.uint64(0xFF))
        if status == _FAILED and depth >= rem:
            return FAIL
        if status == _WON and depth <= rem:
            c = int((data >> np.uint64(2)) & np.uint64(0xFF))
            seq[pos] = c
            if depth == 1:
                return 1
            b = ONE << np.uint64(c)
            empty = full & ~(p | d)
            t = _partners(c, p, d, empty, lines, through, count)
            r = _search(p | b, d | t, rem - 1, pos + 1, full, lines, through, count, k, tt,
                        misc, seq, work)
            if r >= 0:
                return r + 1
            if r == UNKNOWN:
                return UNKNOWN
            # the stored win was lost to replaced entries below it: search again
    p_threat, d_threat, cand, twice, _, _, n_two = survey(p, d, full, lines)
    if p_threat != ZERO:
        return 0
    if d_threat != ZERO:
        if d_threat & (d_threat - ONE) != ZERO:
            return FAIL
        cand &= d_threat
    if rem <= 0 or cand == ZERO:
        return FAIL
    empty = full & ~(p | d)
    now = cand & twice  # on two lines: two threats at once, unless the lines overlap
    while now != ZERO:
        c = lowest(now)
        now &= now - ONE
        if popcount(_partners(c, p, d, empty, lines, through, count)) >= 2:
            seq[pos] = c
            tt_store(tt, p, d, _pack(_WON, c, 1, 1))
            return 1
    start = misc[TSS_NODES]
    # candidates with their replies, ordering keys and whether the search below fails at
    # once (at most 64), in this level's row of ``work``: cells from 0, keys from n, the
    # opponent's forced replies (as int64) from 2n, the failures from 3n
    n = popcount(cand)
    i = 0
    rest = cand
    ordered = misc[TSS_ORDER] != 0 and n > 1  # one candidate needs no key
    rows = tt.shape[0]
    while rest != ZERO:
        c = lowest(rest)
        rest &= rest - ONE
        t, key, fails = threat_move(c, p, d, empty, n_two, lines, through, count, k)
        if not fails:
            # start loading the child's table row now: the work until it is searched
            # hides the wait (the probe's cache miss was a quarter of the time on the cube)
            prefetch_row(tt, _slot(p | ONE << np.uint64(c), d | t, rows))
        work[pos, i] = c
        work[pos, n + i] = key if ordered else 0
        work[pos, 2 * n + i] = np.int64(t)
        work[pos, 3 * n + i] = fails
        i += 1
    for j in range(n):
        top = j
        for q in range(j + 1, n):
            if work[pos, n + q] > work[pos, n + top]:
                top = q
        if top != j:
            for o in range(0, 4 * n, n):
                work[pos, o + j], work[pos, o + top] = work[pos, o + top], work[pos, o + j]
        c = work[pos, j]
        t = np.uint64(work[pos, 2 * n + j])
        if rem == 1 or work[pos, 3 * n + j] != 0:
            # the search below would fail at once: count its position as it would
            misc[TSS_NODES] += 1
            if misc[TSS_NODES] > misc[TSS_LIMIT]:
                return UNKNOWN
            continue
        r = _search(p | ONE << np.uint64(c), d | t, rem - 1, pos + 1, full, lines, through,
                    count, k, tt, misc, seq, work)
        if r >= 0:
            seq[pos] = c
            tt_store(tt, p, d, _pack(_WON, c, r + 1, misc[TSS_NODES] - start))
            return r + 1
        if r == UNKNOWN:
            return UNKNOWN
    tt_store(tt, p, d, _pack(_FAILED, 0, min(rem, 255), misc[TSS_NODES] - start))
    return FAIL


@njit(cache=True, nogil=True)
def tss(p: np.uint64, d: np.uint64, rem: int, budget: int, full: np.uint64,
        lines: np.ndarray, through: np.ndarray, count: np.ndarray, k: int, tt: np.ndarray,
        misc: np.ndarray, seq: np.ndarray) -> int:  # pragma: no cover - compiled
    """Whether ``p``, to move, wins by a threat sequence of at most ``rem`` of its moves:
    the sequence's length (its moves in ``seq``; 0 if ``p`` has a threat now), `FAIL`, or
    `UNKNOWN` if more than ``budget`` positions (0: no limit) would be needed."""
    work = np.empty((WORK_ROWS, WORK_WIDTH), dtype=np.int64)
    found: int = tss_in(p, d, rem, budget, full, lines, through, count, k, tt, misc, seq, work)
    return found


@njit(_SIG, cache=True, nogil=True, **NO_REFCOUNTS)
def tss_in(p: np.uint64, d: np.uint64, rem: int, budget: int, full: np.uint64,
           lines: np.ndarray, through: np.ndarray, count: np.ndarray, k: int, tt: np.ndarray,
           misc: np.ndarray, seq: np.ndarray,
           work: np.ndarray) -> int:  # pragma: no cover - compiled
    """`tss` with its scratch given: ``work``, ``WORK_ROWS`` by ``WORK_WIDTH`` (the
    proof-number search's kernels allocate nothing per call)."""
    misc[TSS_CALLS] += 1
    if budget > 0:
        misc[TSS_LIMIT] = misc[TSS_NODES] + budget
    else:
        misc[TSS_LIMIT] = np.int64(1) << 62
    r = _search(p, d, min(rem, WORK_ROWS - 2), 0, full, lines, through, count, k, tt, misc,
                seq, work)
    if r >= 0:
        misc[TSS_WINS] += 1
    elif r == UNKNOWN:
        misc[TSS_ABORTS] += 1
    return r


@njit(cache=True, inline="always")
def _threats_through(cell: int, other: np.uint64, empty: np.uint64, lines: np.ndarray,
                     through: np.ndarray, count: np.ndarray) -> np.uint64:  # pragma: no cover
    """The threat cells on the lines through ``cell`` of the side with no mark of ``other``
    there: each such line's one empty cell, where it has exactly one (`threat_cells` on
    those lines alone)."""
    out = ZERO
    for j in range(count[cell]):
        line = lines[through[cell, j]]
        if line & other == ZERO:
            e = line & empty
            if e != ZERO and e & (e - ONE) == ZERO:
                out |= e
    return out


@njit(cache=True, nogil=True)
def replay(p: np.uint64, d: np.uint64, seq: np.ndarray, n: int, full: np.uint64,
           lines: np.ndarray, through: np.ndarray,
           count: np.ndarray) -> int:  # pragma: no cover - compiled
    """Whether the prover's moves ``seq[:n]`` win by a threat sequence here: the number of
    them used (0 if the prover has a threat now), or `FAIL`.

    One pass over the lines, then only the lines through each move and its forced reply: a
    move makes threats on its own lines only, and the reply on its own (the prover has no
    threat left once its single one is blocked, and the defender's one it had, if any, the
    move blocked)."""
    p_threat, d_threat, _, _ = scan(p, d, full, lines)
    if p_threat != ZERO:
        return 0
    for i in range(n):
        if d_threat & (d_threat - ONE) != ZERO:
            return FAIL
        c = seq[i]
        b = ONE << np.uint64(c)
        if (p | d) & b != ZERO or (d_threat != ZERO and d_threat != b):
            return FAIL
        p |= b
        empty = full & ~(p | d)
        t = _threats_through(c, d, empty, lines, through, count)
        if t == ZERO:
            return FAIL
        if t & (t - ONE) != ZERO:
            return i + 1
        d |= t
        d_threat = _threats_through(lowest(t), p, empty & ~t, lines, through, count)
    return FAIL
