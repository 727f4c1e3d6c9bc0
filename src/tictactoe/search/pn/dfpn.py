"""Depth-first proof-number search (df-pn) with threat-space search, compiled with numba.

The question is "does the attacker win?": an AND/OR tree whose OR nodes have the attacker
to move and whose AND nodes have the defender to move. A draw or a loss disproves it.
A position is two ``uint64`` masks, ``p`` (the attacker's marks) and ``d`` (the
defender's), and whose turn it is.

* **Threat-space search.** An OR node is proven when the attacker wins by a threat
  sequence (`tss`). At an AND node, the attacker's threat search after a defender "pass"
  restricts the defender: a reply after which the same sequence still wins (replayed, in
  time linear in its length) or another threat sequence wins is proven at once, and only
  the other replies become children. If the pass loses the threat search, no reply can
  win it back (an extra defender mark never helps the attacker), so the children skip it.
* **Initial numbers.** A new AND node gets the threat search after a pass at once: its
  proof number is the count of the defender's replies that can matter (the sequence's
  cells, its final threats and the defender's threat-making moves), or the number of
  empty cells without a sequence; its disproof number is 1. A new OR node gets a proof
  number of ``OR_PN`` and a disproof number of its move count.
* **Disproof cuts.** A side to move with two threats wins; an attacker with no open line,
  or whose open lines the defender can pair off (two empty cells per line, none used
  twice: a bipartite matching), cannot win. A new OR node with few open lines for its
  empty cells also tries pairs shared by overlapping lines (`shared_pairs`).
* **Relevance zones** (after Hsu et al., TCS 815, 2020). A disproven node keeps a zone:
  empty cells such that the attacker, given extra marks on any cells outside it, still
  does not win. When a child of an OR node is disproven, every sibling move outside its
  zone is disproven too (that position has fewer attacker marks than the child with the
  extra marks), without a search; see `mid` for how zones are built.
* **Transpositions and symmetry.** A transposition table of proof and disproof numbers,
  keyed by a hash that is the same for every symmetric image of a position (the least of
  the hashes of its images, kept incrementally per symmetry) within ``SYM_PLIES`` marks,
  and by the plain hash beyond. At nodes within ``SYM_PLIES``, moves equivalent under
  the position's own symmetries are searched once.
* **Thresholds.** Nagai's df-pn with Pawlewicz and Lew's 1+epsilon trick: a child's
  threshold is the second-best number times (1 + epsilon), not plus one.

Table entries are five ``int64`` words (hash, pn, dn, mask, info) in buckets of three, a row
of 128 bytes (two cache lines, `ROW`); a new entry replaces the one with the smallest
subtree. The tables are on huge pages where the system offers them
(`tictactoe.search.memory`). ``mask`` holds an expanded AND node's
children (the defender replies not proven by a threat sequence), ``info`` the best move,
flags and the subtree size.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tictactoe.search.bits import ONE, ZERO, lowest, popcount, prefetch_row
from tictactoe.search.compiled import kernels as _sk
from tictactoe.search.pn.tss import (
    FAIL,
    NO_REFCOUNTS,
    TSS_MISC,
    WORK_ROWS,
    WORK_WIDTH,
    _slot,
    replay,
    scan,
    survey,
    tss_in,
)

INF = 1 << 60
"""Proof number of a disproven node (and disproof number of a proven one)."""

# misc (int64) slots after the threat search's
NODES = TSS_MISC
"""Calls of `mid` so far."""
LIMIT = TSS_MISC + 1
"""The search stops when ``NODES`` passes this (the main thread zeroes it to stop)."""
ABORTED = TSS_MISC + 2
ROOT_PN = TSS_MISC + 3
ROOT_DN = TSS_MISC + 4
EPSILON = TSS_MISC + 5
"""1 + epsilon, in 1/1024 units: a child's threshold is ``(second * EPSILON >> 10) + 1``."""
SYM_PLIES = TSS_MISC + 6
"""Positions with at most this many marks are keyed by their symmetry class."""
EAGER = TSS_MISC + 7
"""Whether a new AND node gets its threat search at once (1) or when expanded (0)."""
EVAL_BUDGET = TSS_MISC + 8
"""Positions each threat search may visit when a node is created."""
EXPAND_BUDGET = TSS_MISC + 9
"""Positions each threat search may visit when an AND node is expanded."""
PAIRING = TSS_MISC + 10
OR_PN = TSS_MISC + 11
"""Initial proof number of an OR node."""
SUM_MODE = TSS_MISC + 12
"""How an OR node adds its children's disproof numbers (and an AND node their proof
numbers): 0 the sum, 1 the largest plus the count of the others."""
EXPANDED = TSS_MISC + 13
"""Nodes expanded (children generated)."""
REPLAYED = TSS_MISC + 14
"""Defender replies proven by replaying the sequence after a pass."""
RESEARCHED = TSS_MISC + 15
"""Defender replies proven by a new threat search."""
KEPT = TSS_MISC + 16
"""Defender replies kept as children of expanded AND nodes."""
TT_STORES = TSS_MISC + 17
TT_REPLACED = TSS_MISC + 18
"""Entries of searched nodes (subtree size above 0) overwritten by others."""
PAIR_CUTS = TSS_MISC + 19
TSS_EVALS = TSS_MISC + 20
MAX_DEPTH = TSS_MISC + 21
"""Deepest node reached."""
AND_PN = TSS_MISC + 22
"""Initial proof number of an AND node without a threat sequence after a pass, in units of
one empty cell / 4."""
ZONES = TSS_MISC + 23
"""Whether disproven nodes keep relevance zones and an OR node's disproven child covers the
attacker's moves outside its zone (1) or not (0)."""
ZONE_CUTS = TSS_MISC + 24
"""Attacker moves disproven by a sibling's zone without a search."""
SHARED = TSS_MISC + 25
"""Steps of the shared-pair search (`shared_pairs`) where the matching finds no pairing;
0: not tried."""
SHARED_CUTS = TSS_MISC + 26
"""Nodes disproven by pairs shared by overlapping lines."""
SHARED_AT = TSS_MISC + 27
"""Where the shared-pair search is tried: 1 new AND nodes, 2 new OR nodes, 3 both."""
SHARED_OPEN = TSS_MISC + 28
"""The shared-pair search is tried only with at most this many open lines per 16 empty
cells."""
DEAD = TSS_MISC + 29
"""Whether moves on dead cells (every line through them holds marks of both sides) are left
out while another move is open (1) or not (0): such a move changes no line, a pass, and a
pass never beats a move in these games."""
DEAD_CUTS = TSS_MISC + 30
"""Moves on dead cells left out."""
MISC_SIZE = TSS_MISC + 32

# the table
ENTRY = 5
BUCKET = 3
ROW = 16
"""A row's words: a bucket of three entries and one unused word, 128 bytes, two cache lines
(the table starts on a cache line's boundary)."""
HASH = 0
PN = 1
DN = 2
MASK = 3
INFO = 4
MASK_VALID = 1 << 8
ZONE_VALID = 1 << 9
"""The entry is disproven and ``MASK`` holds its relevance zone."""
_WORK_SHIFT = 16
_OR_SALT = np.uint64(0x6A09E667F3BCC909)

# per-depth buffers (int64): the children's cells, hashes, symmetries, pn and dn
B_CELL = 0
B_KEY = 64
B_SYM = 128
B_PN = 192
B_DN = 256
B_ZONE = 320
BUF_WIDTH = 384
MAX_PLY = 66


# --------------------------------------------------------------------------- table
@njit(cache=True, inline="always")
def _row(key: np.uint64, rows: int) -> int:  # pragma: no cover - compiled
    return int((key ^ (key >> np.uint64(31))) & np.uint64(rows - 1))


@njit(cache=True)
def tt_find(tt: np.ndarray, key: np.uint64) -> int:  # pragma: no cover - compiled
    """The column of a position's entry in its row (the row is `_row`), or -1."""
    r = _row(key, tt.shape[0])
    k = np.int64(key)
    for e in range(0, ENTRY * BUCKET, ENTRY):
        if tt[r, e + HASH] == k and tt[r, e + PN] | tt[r, e + DN] != 0:
            return e
    return -1


@njit(cache=True)
def tt_put(tt: np.ndarray, key: np.uint64, pn: int, dn: int, mask: int, info: int,
           misc: np.ndarray) -> None:  # pragma: no cover - compiled
    """Store an entry, over the same position's or else the smallest subtree's."""
    r = _row(key, tt.shape[0])
    k = np.int64(key)
    target = -1
    smallest = np.int64(1) << 62
    for e in range(0, ENTRY * BUCKET, ENTRY):
        if tt[r, e + HASH] == k or tt[r, e + PN] | tt[r, e + DN] == 0:
            target = e
            break
        w = tt[r, e + INFO] >> _WORK_SHIFT
        if tt[r, e + PN] == 0 or tt[r, e + DN] == 0:
            w += 1 << 20  # keep solved nodes over unsolved ones of a similar size
        if w < smallest:
            smallest = w
            target = e
    misc[TT_STORES] += 1
    if tt[r, target + HASH] != k and tt[r, target + INFO] >> _WORK_SHIFT > 0 \
            and tt[r, target + PN] | tt[r, target + DN] != 0:
        misc[TT_REPLACED] += 1
    tt[r, target + HASH] = k
    tt[r, target + PN] = pn
    tt[r, target + DN] = dn
    tt[r, target + MASK] = mask
    tt[r, target + INFO] = info


@njit(cache=True, nogil=True)
def zero_table(tt: np.ndarray) -> None:  # pragma: no cover - compiled
    """Write zeros over a table (every page, outside the interpreter lock)."""
    for r in range(tt.shape[0]):
        for c in range(tt.shape[1]):
            tt[r, c] = 0


# --------------------------------------------------------------------------- symmetry
@njit(cache=True)
def hashes(p: np.uint64, d: np.uint64, zob: np.ndarray,
           out: np.ndarray) -> None:  # pragma: no cover - compiled
    """The hash of every symmetric image of (p, d) into ``out``."""
    for g in range(zob.shape[2]):
        h = ZERO
        rest = p
        while rest != ZERO:
            c = lowest(rest)
            rest &= rest - ONE
            h ^= zob[c, 0, g]
        rest = d
        while rest != ZERO:
            c = lowest(rest)
            rest &= rest - ONE
            h ^= zob[c, 1, g]
        out[g] = h


@njit(cache=True, inline="always")
def child_key(hv: np.ndarray, depth: int, zob: np.ndarray, c: int, side: int,
              nsym: int) -> tuple[np.uint64, int]:  # pragma: no cover - compiled
    """The least hash over the first ``nsym`` symmetries after a mark on ``c``, and the
    symmetry that gives it."""
    best = hv[depth, 0] ^ zob[c, side, 0]
    g_best = 0
    for g in range(1, nsym):
        h = hv[depth, g] ^ zob[c, side, g]
        if h < best:
            best = h
            g_best = g
    return best, g_best


@njit(cache=True, inline="always")
def map_mask(mask: np.uint64, perm: np.ndarray, g: int) -> np.uint64:  # pragma: no cover
    """The image of a mask of cells under the permutation ``perm[g]``."""
    if g == 0:
        return mask
    out = ZERO
    while mask != ZERO:
        c = lowest(mask)
        mask &= mask - ONE
        out |= ONE << np.uint64(perm[g, c])
    return out


@njit(cache=True)
def transform(mask: np.uint64, sym: np.ndarray, g: int) -> np.uint64:  # pragma: no cover
    """Symmetry ``g``'s image of a mask, by byte tables."""
    out = ZERO
    for chunk in range(sym.shape[1]):
        out |= sym[g, chunk, np.int64((mask >> np.uint64(8 * chunk)) & np.uint64(0xFF))]
    return out


@njit(cache=True)
def orbit_representatives(cells: np.uint64, p: np.uint64, d: np.uint64, hv: np.ndarray,
                          depth: int, nsym: int, perm: np.ndarray,
                          sym: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """The cells of ``cells`` that are the least of their orbit under the symmetries that
    map (p, d) onto itself (found by equal hashes, then checked exactly)."""
    for g in range(1, nsym):
        if hv[depth, g] != hv[depth, 0]:
            continue
        if transform(p, sym, g) != p or transform(d, sym, g) != d:
            continue
        rest = cells
        while rest != ZERO:
            c = lowest(rest)
            rest &= rest - ONE
            if perm[g, c] < c:
                cells &= ~(ONE << np.uint64(c))
    return cells


# --------------------------------------------------------------------------- pairing
@njit(cache=True)
def pairing(p: np.uint64, d: np.uint64, full: np.uint64, lines: np.ndarray,
            work: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether the defender can pair off the attacker's open lines: two empty cells for
    each line without a defender mark, no cell used twice (a bipartite matching, each line
    two single slots, grown by augmenting paths). Then the attacker never completes a line:
    the defender answers a move on one cell of a pair with the other.

    ``work`` is scratch space of at least ``4 * 2 * lines + 64`` words."""
    empty = full & ~(p | d)
    nl = 0
    for i in range(lines.shape[0]):
        line = lines[i]
        if line & d == ZERO:
            e = line & empty
            if e & (e - ONE) == ZERO:  # a threat (or a full line): no pair to answer it
                return False
            work[nl] = i
            nl += 1
    if 2 * nl > popcount(empty):
        return False
    slots = 2 * nl
    owner = work[slots:slots + 64]  # cell -> slot
    held = work[slots + 64:2 * slots + 64]  # slot -> cell
    parent = work[2 * slots + 64:3 * slots + 64]
    queue = work[3 * slots + 64:4 * slots + 64]
    # slot s is one of the two of line work[s // 2]
    for c in range(64):
        owner[c] = -1
    for s in range(slots):
        held[s] = -1
    for start in range(slots):
        queue[0] = start
        parent[start] = -1
        head = 0
        tail = 1
        visited = ZERO
        found = False
        while head < tail and not found:
            u = queue[head]
            head += 1
            cells = lines[work[u // 2]] & empty & ~visited
            while cells != ZERO:
                c = lowest(cells)
                cells &= cells - ONE
                visited |= ONE << np.uint64(c)
                w = owner[c]
                if w < 0:  # free: u takes c, and each slot on the path passes its cell on
                    slot = u
                    cell = c
                    while slot >= 0:
                        previous = held[slot]
                        held[slot] = cell
                        owner[cell] = slot
                        cell = previous
                        slot = parent[slot]
                    found = True
                    break
                parent[w] = u
                queue[tail] = w
                tail += 1
        if not found:
            return False
    return True


# --------------------------------------------------------------------------- evaluation
@njit(cache=True)
def live_cells(p: np.uint64, d: np.uint64, full: np.uint64,
               lines: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """The empty cells on some line that a side can still complete (no mark of the other);
    the other empty cells are dead."""
    empty = full & ~(p | d)
    live = ZERO
    for i in range(lines.shape[0]):
        line = lines[i]
        if line & d == ZERO or line & p == ZERO:
            live |= line
    return live & empty


@njit(cache=True, inline="always")
def _walk(p: np.uint64, d: np.uint64, seq: np.ndarray, n: int, full: np.uint64,
          lines: np.ndarray) -> tuple[np.uint64, np.uint64]:  # pragma: no cover - compiled
    """The threat sequence ``seq[:n]`` played out: the cells it uses (the attacker's moves,
    the forced replies and the final threats) and the defender's marks after it."""
    out = ZERO
    for i in range(n):
        b = ONE << np.uint64(seq[i])
        out |= b
        p |= b
        empty = full & ~(p | d)
        t = ZERO
        for j in range(lines.shape[0]):
            line = lines[j]
            if line & d == ZERO:
                e = line & empty
                if e != ZERO and e & (e - ONE) == ZERO:
                    t |= e
        out |= t
        if t & (t - ONE) != ZERO:
            break
        d |= t
    return out, d


@njit(cache=True)
def sequence_cells(p: np.uint64, d: np.uint64, seq: np.ndarray, n: int, full: np.uint64,
                   lines: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """The cells a threat sequence uses: the attacker's moves, the forced replies and the
    final threats."""
    return _walk(p, d, seq, n, full, lines)[0]


@njit(cache=True)
def breaking_cells(p: np.uint64, d: np.uint64, seq: np.ndarray, n: int, full: np.uint64,
                   lines: np.ndarray, k: int) -> np.uint64:  # pragma: no cover - compiled
    """The empty cells where a defender's mark may stop the threat sequence ``seq[:n]``
    (which wins here): the cells it uses (`sequence_cells`) and every empty cell of a line
    with no attacker mark that the defender's forced replies bring to ``k - 2`` marks or
    more (a mark there could make a threat the attacker must answer). A mark anywhere
    else leaves every step of the sequence as it was, so `replay` wins after it."""
    out, after = _walk(p, d, seq, n, full, lines)
    for j in range(lines.shape[0]):
        line = lines[j]
        if line & p == ZERO and popcount(line & after) >= k - 2:
            out |= line
    return out & full & ~(p | d)


@njit(cache=True)
def paired_cells(p: np.uint64, d: np.uint64, full: np.uint64, lines: np.ndarray,
                 work: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """The cells of the pairs that `pairing` just found (call it first, with the same
    arguments)."""
    nl = 0
    for i in range(lines.shape[0]):
        if lines[i] & d == ZERO:
            nl += 1
    slots = 2 * nl
    out = ZERO
    for s in range(slots):
        out |= ONE << np.uint64(work[slots + 64 + s])
    return out


@njit(cache=True)
def shared_pairs(p: np.uint64, d: np.uint64, full: np.uint64, lines: np.ndarray,
                 sp: np.ndarray, misc: np.ndarray) -> np.uint64:  # pragma: no cover
    """The cells of disjoint pairs of empty cells, one pair inside every line without a
    defender mark, where overlapping lines may share a pair (the α-β solver's
    `shared_pairing`, within ``misc[SHARED]`` steps), or ``full`` if none is found. The
    defender answers each attacker move on a pair's cell with the other, so the attacker
    never completes a line. ``sp`` is the scratch: row 0 the line list, row 1 its ``misc``."""
    sp[0, _sk.LIVE_COUNT] = lines.shape[0]
    smisc = sp[1]
    smisc[_sk.SHARED_BUDGET] = misc[SHARED]
    empty = full & ~(p | d)
    if not _sk.shared_pairing(d, empty, lines, sp, 0, smisc):
        return full
    out = ZERO
    for i in range(smisc[_sk.SHARED_FOUND]):
        out |= np.uint64(smisc[_sk.SHARED_PAIRS + i])
    misc[SHARED_CUTS] += 1
    return out


@njit(cache=True)
def hitting(p: np.uint64, d: np.uint64, full: np.uint64, lines: np.ndarray,
            times: int) -> np.uint64:  # pragma: no cover - compiled
    """Empty cells such that every line without a defender mark holds ``times`` of them
    (or all its empty cells if fewer), the lowest ones first: a zone with them leaves the
    attacker's extra marks outside it no line completed (``times`` 1) and, the attacker to
    move, none to complete at once (``times`` 2)."""
    empty = full & ~(p | d)
    out = ZERO
    for i in range(lines.shape[0]):
        line = lines[i]
        if line & d == ZERO:
            e = line & empty
            for _ in range(times):
                rest = e & ~out
                if popcount(e & out) >= times or rest == ZERO:
                    break
                out |= ONE << np.uint64(lowest(rest))
    return out


@njit(cache=True)
def eval_and(p: np.uint64, d: np.uint64, full: np.uint64, lines: np.ndarray,
             through: np.ndarray, count: np.ndarray, k: int, ttss: np.ndarray,
             misc: np.ndarray, seqs: np.ndarray, row: int, work: np.ndarray,
             sp: np.ndarray) -> tuple[int, int, np.uint64]:  # pragma: no cover - compiled
    """Initial (pn, dn) of a new AND node: the defender to move, with no threat; and when
    disproven, its relevance zone (see `mid`). A threat sequence goes to ``seqs[row]``."""
    empty = full & ~(p | d)
    if empty == ZERO:
        return INF, 0, ZERO
    p_threat, d_threat, cand, _, n_open, d_make, _ = survey(p, d, full, lines)
    if d_threat != ZERO:
        # the defender completes its line
        return INF, 0, (ONE << np.uint64(lowest(d_threat))) | hitting(p, d, full, lines, 1)
    if p_threat != ZERO:
        if p_threat & (p_threat - ONE) != ZERO:
            return 0, INF, full
        if empty & (empty - ONE) == ZERO:
            return INF, 0, empty  # the defender blocks on the last empty cell: a draw
        return misc[OR_PN], popcount(empty) - 1, full  # one reply, then an OR node
    if n_open == 0:
        return INF, 0, ZERO
    if misc[PAIRING] != 0 and 2 * n_open <= popcount(empty) and pairing(p, d, full, lines, work):
        misc[PAIR_CUTS] += 1
        return INF, 0, paired_cells(p, d, full, lines, work)
    if misc[SHARED] > 0 and misc[SHARED_AT] & 1 != 0 \
            and 16 * n_open <= misc[SHARED_OPEN] * popcount(empty):
        z = shared_pairs(p, d, full, lines, sp, misc)
        if z != full:
            return INF, 0, z
    if misc[EAGER] != 0:
        misc[TSS_EVALS] += 1
        # no line two marks short: no sequence, and no need to look the position up
        r = tss_in(p, d, 64, misc[EVAL_BUDGET], full, lines, through, count, k, ttss, misc,
                   seqs[row], _tss_work(work, lines.shape[0])) if cand != ZERO else FAIL
        if r >= 0:
            cells = sequence_cells(p, d, seqs[row], r, full, lines) | d_make
            return max(1, popcount(cells & empty)), 1, full
    return max(1, popcount(empty) * misc[AND_PN] >> 2), 1, full


@njit(cache=True)
def eval_or(p: np.uint64, d: np.uint64, full: np.uint64, lines: np.ndarray, k: int,
            misc: np.ndarray, work: np.ndarray,
            sp: np.ndarray) -> tuple[int, int, np.uint64]:  # pragma: no cover - compiled
    """Initial (pn, dn) of a new OR node: the attacker to move, with no threat and no
    threat sequence (its AND parent checked); and when disproven, its relevance zone."""
    empty = full & ~(p | d)
    if empty == ZERO:
        return INF, 0, ZERO
    p_threat, d_threat, _, _, n_open, _, _ = survey(p, d, full, lines)
    if p_threat != ZERO:
        return 0, INF, full
    if d_threat != ZERO:
        if d_threat & (d_threat - ONE) != ZERO:
            return INF, 0, d_threat | hitting(p, d, full, lines, 2)
        return misc[OR_PN], 1, full
    if n_open == 0:
        return INF, 0, ZERO
    if misc[PAIRING] != 0 and 2 * n_open <= popcount(empty) and pairing(p, d, full, lines, work):
        misc[PAIR_CUTS] += 1
        return INF, 0, paired_cells(p, d, full, lines, work)
    if misc[SHARED] > 0 and misc[SHARED_AT] & 2 != 0 \
            and 16 * n_open <= misc[SHARED_OPEN] * popcount(empty):
        z = shared_pairs(p, d, full, lines, sp, misc)
        if z != full:
            return INF, 0, z
    return misc[OR_PN], popcount(empty), full


# --------------------------------------------------------------------------- expansion
FOUND = 4
"""How many of the threat sequences found after earlier replies `and_children` replays after
each new reply before searching it."""


def work_words(lines: int) -> int:
    """The length of the kernels' scratch array ``work`` for a variant of `lines` lines:
    `pairing`'s part, then the threat search's (`tss_in`), then `and_children`'s.

    >>> work_words(76)
    17828
    """
    return _found_start(lines) + FOUND * 64 + FOUND


@njit(cache=True, inline="always")
def _tss_start(lines: int) -> int:  # pragma: no cover - compiled
    """Where the threat search's part of ``work`` starts: after `pairing`'s."""
    return 8 * lines + 64


@njit(cache=True, inline="always")
def _found_start(lines: int) -> int:  # pragma: no cover - compiled
    """Where `and_children`'s part of ``work`` starts: after the threat search's."""
    return _tss_start(lines) + WORK_ROWS * WORK_WIDTH


@njit(cache=True, inline="always")
def _tss_work(work: np.ndarray, lines: int) -> np.ndarray:  # pragma: no cover - compiled
    """The threat search's part of ``work``, as its 2-D scratch."""
    start = _tss_start(lines)
    return work[start:start + WORK_ROWS * WORK_WIDTH].reshape((WORK_ROWS, WORK_WIDTH))


@njit(cache=True, inline="always")
def _found(work: np.ndarray, lines: int) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """`and_children`'s part of ``work``: the sequences found, and their lengths."""
    start = _found_start(lines)
    found = work[start:start + FOUND * 64].reshape((FOUND, 64))
    return found, work[start + FOUND * 64:start + FOUND * 64 + FOUND]


@njit(cache=True, inline="always")
def _any_replays(p: np.uint64, d: np.uint64, found: np.ndarray, lengths: np.ndarray, n: int,
                 full: np.uint64, lines: np.ndarray, through: np.ndarray,
                 count: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether one of the first ``n`` sequences in ``found`` still wins here (`replay`)."""
    for f in range(n):  # a loop: numba compiles no generator expressions
        if replay(p, d, found[f], lengths[f], full, lines, through, count) >= 0:
            return True
    return False


@njit(cache=True)
def and_children(p: np.uint64, d: np.uint64, depth: int, full: np.uint64, lines: np.ndarray,
                 through: np.ndarray, count: np.ndarray, k: int, ttss: np.ndarray,
                 misc: np.ndarray, seqs: np.ndarray, candidates: np.uint64,
                 work: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """The defender's replies at an AND node that no threat sequence refutes at once:
    after a pass, the attacker's threat search; every reply after which its sequence
    still wins (replayed) or another one does is left out. ``work``: `work_words`."""
    p_threat, _, cand, _ = scan(p, d, full, lines)
    if p_threat != ZERO:
        return p_threat & candidates  # the only reply that does not lose at once
    if cand == ZERO:
        return candidates  # no line two marks short: no sequence now or after a reply
    seq = seqs[depth]
    scratch = _tss_work(work, lines.shape[0])
    r = tss_in(p, d, 64, misc[EXPAND_BUDGET], full, lines, through, count, k, ttss, misc, seq,
               scratch)
    if r < 0:
        return candidates  # no reply can give the attacker a sequence it lacks now
    kept = ZERO
    rest = candidates
    inner = seqs[depth + 1]
    # the sequences the threat search found after earlier replies: replayed after each
    # reply before it is searched (FOUND of them, the newest kept)
    found, lengths = _found(work, lines.shape[0])
    n_found = 0
    # a reply outside these cells leaves the sequence winning: no need to replay it
    breaking = breaking_cells(p, d, seq, r, full, lines, k)
    while rest != ZERO:
        m = lowest(rest)
        rest &= rest - ONE
        b = ONE << np.uint64(m)
        if b & breaking == ZERO:
            misc[REPLAYED] += 1
            continue
        # the threat search's row for the reply starts loading while the replays run
        prefetch_row(ttss, _slot(p, d | b, ttss.shape[0]))
        if replay(p, d | b, seq, r, full, lines, through, count) >= 0:
            misc[REPLAYED] += 1
            continue
        if _any_replays(p, d | b, found, lengths, min(n_found, FOUND), full, lines, through,
                        count):
            misc[REPLAYED] += 1
            continue
        r2 = tss_in(p, d | b, 64, misc[EXPAND_BUDGET], full, lines, through, count, k, ttss,
                    misc, inner, scratch)
        if r2 >= 0:
            misc[RESEARCHED] += 1
            slot = n_found % FOUND
            for j in range(r2):
                found[slot, j] = inner[j]
            lengths[slot] = r2
            n_found += 1
            continue
        kept |= b
    misc[KEPT] += popcount(kept)
    return kept


@njit(cache=True)
def _cover(buf: np.ndarray, depth: int, n: int, j: int, covered: np.uint64,
           misc: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """Disprove, at an OR node, every unsolved child whose move is outside disproven child
    ``j``'s zone and move: with the attacker's extra mark outside that zone the defender
    still holds, and the position after such a move has fewer attacker marks than that."""
    zone = np.uint64(buf[depth, B_ZONE + j]) | (ONE << np.uint64(buf[depth, B_CELL + j]))
    for i in range(n):
        if buf[depth, B_PN + i] != 0 and buf[depth, B_DN + i] != 0:
            c = buf[depth, B_CELL + i]
            if zone >> np.uint64(c) & ONE == ZERO:
                buf[depth, B_PN + i] = INF
                buf[depth, B_DN + i] = 0
                covered |= ONE << np.uint64(c)
                misc[ZONE_CUTS] += 1
    return covered


@njit(cache=True, inline="always")
def _drop_dead(p: np.uint64, d: np.uint64, full: np.uint64, lines: np.ndarray, cells: np.uint64,
               misc: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """`cells` without the dead ones (`live_cells`), unless none would be left."""
    live = cells & live_cells(p, d, full, lines)
    if live == ZERO or live == cells:  # noqa: SIM109 (numba: no tuple membership here)
        return cells
    misc[DEAD_CUTS] += popcount(cells & ~live)
    return live


_MID = ("UniTuple(int64, 2)(uint64, uint64, int64, int64, boolean, int64, int64, uint64, "
        "int64, uint64, uint64[::1], int64[:, ::1], int64[::1], int64, uint64[:, :, ::1], "
        "int64[:, ::1], int64[:, ::1], uint64[:, :, ::1], int64[:, ::1], uint64[:, ::1], "
        "int64[:, ::1], uint64[:, ::1], int64[:, ::1], int64[::1], int64[::1], int64[:, ::1])")


@njit(cache=True, inline="always")
def _grow(total: int, x: int, mode: int, largest: int) -> int:  # pragma: no cover
    """Add a child's number to a sum (mode 0) or count it past the largest (mode 1)."""
    if x >= INF or total >= INF:
        return INF
    s = total + x if mode == 0 else total + 1
    return min(s, INF - 1)


@njit(_MID, cache=True, nogil=True, **NO_REFCOUNTS)
def mid(p: np.uint64, d: np.uint64, ply: int, depth: int, is_or: bool, thpn: int, thdn: int,
        key: np.uint64, g_node: int, full: np.uint64, lines: np.ndarray, through: np.ndarray,
        count: np.ndarray, k: int, zob: np.ndarray, perm: np.ndarray, inv: np.ndarray,
        sym: np.ndarray, tt: np.ndarray, ttss: np.ndarray, buf: np.ndarray, hv: np.ndarray,
        seqs: np.ndarray, misc: np.ndarray, work: np.ndarray,
        sp: np.ndarray) -> tuple[int, int]:  # pragma: no cover - compiled
    """Df-pn below one node until its pn reaches ``thpn`` or its dn ``thdn`` (or it is
    solved, or the node limit stops it); returns (pn, dn) and keeps them in the table.

    ``hv[depth]`` holds the hash of every symmetric image of the node (only the identity's
    beyond ``SYM_PLIES``); ``key`` is its table key and ``g_node`` the symmetry that maps
    it onto the image the key stands for.

    Zones (with ``misc[ZONES]``): a leaf's comes from `eval_and` / `eval_or` (a pairing's
    cells; a defender's line completed with a cell of each open line, `hitting`); an AND
    node's is its disproven child's plus the defender's answer; an OR node's is the union
    of its moves searched and their children's zones (moves disproven by a sibling's zone
    add nothing), plus `hitting` twice over when a forced block left the other moves out,
    and every cell when moves were left out as symmetric images."""
    misc[NODES] += 1
    if depth > misc[MAX_DEPTH]:
        misc[MAX_DEPTH] = depth
    start = misc[NODES]
    nsym = zob.shape[2] if ply + 1 <= misc[SYM_PLIES] else 1
    node_nsym = zob.shape[2] if ply <= misc[SYM_PLIES] else 1
    r = _row(key, tt.shape[0])
    e = tt_find(tt, key)
    pn = misc[OR_PN]
    dn = 1
    info = np.int64(0)
    mask = ZERO
    has_mask = False
    if e >= 0:
        pn = tt[r, e + PN]
        dn = tt[r, e + DN]
        info = tt[r, e + INFO]
        if pn >= thpn or dn >= thdn:
            return pn, dn
        if info & MASK_VALID != 0:
            mask = map_mask(np.uint64(tt[r, e + MASK]), inv, g_node)
            has_mask = True
    if misc[NODES] > misc[LIMIT]:
        misc[ABORTED] = 1
        return pn, dn
    empty = full & ~(p | d)
    zones = misc[ZONES] != 0
    reduced = False  # moves left out as symmetric images of others: no zone then
    covered = ZERO  # attacker moves disproven by a sibling's zone
    # ---- the children
    d_threat = ZERO
    if is_or:
        _, d_threat, _, _ = scan(p, d, full, lines)
        cells = d_threat if d_threat != ZERO else empty
        if misc[DEAD] != 0 and d_threat == ZERO:
            cells = _drop_dead(p, d, full, lines, cells, misc)
        if node_nsym > 1 and d_threat == ZERO:
            cells = orbit_representatives(cells, p, d, hv, depth, node_nsym, perm, sym)
            reduced = cells != empty
    elif has_mask:
        cells = mask
    else:
        cells = empty
        if misc[DEAD] != 0:
            cells = _drop_dead(p, d, full, lines, cells, misc)
        if node_nsym > 1:
            cells = orbit_representatives(cells, p, d, hv, depth, node_nsym, perm, sym)
        cells = and_children(p, d, depth, full, lines, through, count, k, ttss, misc, seqs,
                             cells, work)
        misc[EXPANDED] += 1
    mask = cells
    side = 0 if is_or else 1
    # every child's key first (kept in the buffer in cell order), and its table row starts
    # loading: the misses overlap
    i = 0
    rest = cells
    while rest != ZERO:
        ck, cg = child_key(hv, depth, zob, lowest(rest), side, nsym)
        if not is_or:
            ck ^= _OR_SALT  # the child is an OR node
        prefetch_row(tt, _row(ck, tt.shape[0]))
        if is_or:  # and the row of the threat search a new child starts with (`eval_and`)
            prefetch_row(ttss, _slot(p | ONE << np.uint64(lowest(rest)), d, ttss.shape[0]))
        buf[depth, B_KEY + i] = np.int64(ck)
        buf[depth, B_SYM + i] = cg
        rest &= rest - ONE
        i += 1
    n = 0
    i = 0
    rest = cells
    mode = misc[SUM_MODE]
    while rest != ZERO:
        c = lowest(rest)
        rest &= rest - ONE
        b = ONE << np.uint64(c)
        i += 1  # the child's key is at i - 1; the kept children's go to n <= i - 1
        if covered & b != ZERO:
            continue  # outside a disproven sibling's zone: not even evaluated
        ck = np.uint64(buf[depth, B_KEY + i - 1])
        cg = buf[depth, B_SYM + i - 1]
        buf[depth, B_CELL + n] = c
        buf[depth, B_KEY + n] = np.int64(ck)
        buf[depth, B_SYM + n] = cg
        ce = tt_find(tt, ck)
        zone = full
        if ce >= 0:
            cr = _row(ck, tt.shape[0])
            cpn = tt[cr, ce + PN]
            cdn = tt[cr, ce + DN]
            if cpn >= INF and tt[cr, ce + INFO] & ZONE_VALID != 0:
                zone = map_mask(np.uint64(tt[cr, ce + MASK]), inv, cg)
        else:
            if is_or:
                cpn, cdn, zone = eval_and(p | b, d, full, lines, through, count, k, ttss,
                                          misc, seqs, depth + 1, work, sp)
            else:
                cpn, cdn, zone = eval_or(p, d | b, full, lines, k, misc, work, sp)
            if cpn >= INF and zones:
                tt_put(tt, ck, cpn, cdn, int(np.int64(map_mask(zone, perm, cg))), ZONE_VALID,
                       misc)
            else:
                tt_put(tt, ck, cpn, cdn, 0, 0, misc)
        buf[depth, B_PN + n] = cpn
        buf[depth, B_DN + n] = cdn
        buf[depth, B_ZONE + n] = np.int64(zone)
        n += 1
        if zones and is_or and cpn >= INF:
            out = rest & ~zone
            misc[ZONE_CUTS] += popcount(out & ~covered)
            covered |= out
        if is_or and cpn == 0:
            break  # proven: no need to look further
        if not is_or and cdn == 0:
            break
    if zones and is_or:
        for j in range(n):
            if buf[depth, B_PN + j] >= INF:
                covered = _cover(buf, depth, n, j, covered, misc)
    # ---- the search
    best = -1
    while True:
        # the node's numbers from its children's, and the two best children
        best = -1
        second = INF
        if is_or:
            pn = INF
            dn = 0
            largest = 0
            for j in range(n):
                cpn = buf[depth, B_PN + j]
                cdn = buf[depth, B_DN + j]
                if best < 0 or cpn < pn or (cpn == pn and cdn < buf[depth, B_DN + best]):
                    if best >= 0:
                        second = min(second, pn)
                    pn = cpn
                    best = j
                elif cpn < second:
                    second = cpn
                if mode == 0:
                    dn = _grow(dn, cdn, 0, 0)
                elif cdn > 0:  # mode 1 counts the children not disproven
                    largest = max(largest, cdn)
                    dn = _grow(dn, cdn, 1, 0)
            if mode == 1 and dn < INF and n > 0:
                dn = min(largest + dn - 1, INF - 1) if dn > 0 else 0
            if n == 0:
                pn = INF
                dn = 0
        else:
            dn = INF
            pn = 0
            largest = 0
            for j in range(n):
                cpn = buf[depth, B_PN + j]
                cdn = buf[depth, B_DN + j]
                if best < 0 or cdn < dn or (cdn == dn and cpn < buf[depth, B_PN + best]):
                    if best >= 0:
                        second = min(second, dn)
                    dn = cdn
                    best = j
                elif cdn < second:
                    second = cdn
                if mode == 0:
                    pn = _grow(pn, cpn, 0, 0)
                elif cpn > 0:  # mode 1 counts the children not proven
                    largest = max(largest, cpn)
                    pn = _grow(pn, cpn, 1, 0)
            if mode == 1 and pn < INF and n > 0:
                pn = min(largest + pn - 1, INF - 1) if pn > 0 else 0
            if n == 0:
                pn = 0
                dn = INF
        if depth == 0:
            misc[ROOT_PN] = pn
            misc[ROOT_DN] = dn
        if pn >= thpn or dn >= thdn or pn == 0 or dn == 0 or misc[ABORTED] != 0:
            break
        # thresholds of the best child
        cpn = buf[depth, B_PN + best]
        cdn = buf[depth, B_DN + best]
        if is_or:
            t = second if second < INF else thpn
            grown = (t * misc[EPSILON] >> 10) + 1 if t < (INF >> 11) else t
            c_thpn = min(thpn, max(grown, t + 1) if t < INF else INF)
            if mode == 0:
                c_thdn = thdn - dn + cdn if dn < INF else thdn
            else:
                c_thdn = thdn - (dn - cdn) if dn < INF else thdn
            c_thdn = min(max(c_thdn, cdn + 1), INF)
        else:
            t = second if second < INF else thdn
            grown = (t * misc[EPSILON] >> 10) + 1 if t < (INF >> 11) else t
            c_thdn = min(thdn, max(grown, t + 1) if t < INF else INF)
            if mode == 0:
                c_thpn = thpn - pn + cpn if pn < INF else thpn
            else:
                c_thpn = thpn - (pn - cpn) if pn < INF else thpn
            c_thpn = min(max(c_thpn, cpn + 1), INF)
        c = buf[depth, B_CELL + best]
        b = ONE << np.uint64(c)
        side = 0 if is_or else 1
        for g in range(nsym):
            hv[depth + 1, g] = hv[depth, g] ^ zob[c, side, g]
        child_or = not is_or
        cp = p | b if is_or else p
        cd = d if is_or else d | b
        cpn, cdn = mid(cp, cd, ply + 1, depth + 1, child_or, c_thpn, c_thdn,
                       np.uint64(buf[depth, B_KEY + best]), buf[depth, B_SYM + best], full,
                       lines, through, count, k, zob, perm, inv, sym, tt, ttss, buf, hv, seqs,
                       misc, work, sp)
        buf[depth, B_PN + best] = cpn
        buf[depth, B_DN + best] = cdn
        if zones and cpn >= INF:
            zone = full
            ck = np.uint64(buf[depth, B_KEY + best])
            ce = tt_find(tt, ck)
            if ce >= 0:
                cr = _row(ck, tt.shape[0])
                if tt[cr, ce + INFO] & ZONE_VALID != 0:
                    zone = map_mask(np.uint64(tt[cr, ce + MASK]), inv, buf[depth, B_SYM + best])
            buf[depth, B_ZONE + best] = np.int64(zone)
            if is_or:
                covered = _cover(buf, depth, n, best, covered, misc)
    # ---- keep the node
    done = misc[NODES] - start + (info >> _WORK_SHIFT)
    best_move = 0
    if is_or and pn == 0 and best >= 0:
        best_move = perm[g_node, buf[depth, B_CELL + best]] + 1
    flags = 0
    stored_mask = 0
    if zones and pn >= INF:
        # the relevance zone: the defender's answer and its child's zone, or every
        # attacker move searched and its child's zone (the covered ones need neither)
        zone = ZERO
        if is_or:
            if reduced or n == 0:
                zone = full
            else:
                for j in range(n):
                    c = buf[depth, B_CELL + j]
                    if covered >> np.uint64(c) & ONE == ZERO:
                        zone |= np.uint64(buf[depth, B_ZONE + j]) | (ONE << np.uint64(c))
                if d_threat != ZERO:
                    # the attacker's other moves lose to the defender's line unless, with
                    # extra marks, one completes a line first: keep two zone cells in each
                    # line open to the attacker
                    zone |= hitting(p, d, full, lines, 2)
        elif best >= 0:
            zone = np.uint64(buf[depth, B_ZONE + best]) | (
                ONE << np.uint64(buf[depth, B_CELL + best]))
        else:
            zone = full
        flags = ZONE_VALID
        stored_mask = int(np.int64(map_mask(zone & full, perm, g_node)))
    elif not is_or:
        flags = MASK_VALID
        stored_mask = int(np.int64(map_mask(mask, perm, g_node)))
    tt_put(tt, key, pn, dn, stored_mask, done << _WORK_SHIFT | flags | best_move, misc)
    return pn, dn


@njit(cache=True)
def root_key(p: np.uint64, d: np.uint64, is_or: bool, zob: np.ndarray, hv: np.ndarray,
             misc: np.ndarray) -> tuple[np.uint64, int]:  # pragma: no cover - compiled
    """Fill ``hv[0]`` for a root position; its table key and symmetry."""
    hashes(p, d, zob, hv[0])
    nsym = zob.shape[2] if popcount(p | d) <= misc[SYM_PLIES] else 1
    key = hv[0, 0]
    g = 0
    for h in range(1, nsym):
        if hv[0, h] < key:
            key = hv[0, h]
            g = h
    if is_or:
        key ^= _OR_SALT
    return key, g


@njit(cache=True)
def entry_zone(p: np.uint64, d: np.uint64, is_or: bool, zob: np.ndarray, hv: np.ndarray,
               misc: np.ndarray, tt: np.ndarray,
               inv: np.ndarray) -> tuple[bool, np.uint64]:  # pragma: no cover - compiled
    """Whether the table holds a position as disproven with a relevance zone, and the zone."""
    key, g = root_key(p, d, is_or, zob, hv, misc)
    e = tt_find(tt, key)
    if e < 0:
        return False, ZERO
    r = _row(key, tt.shape[0])
    if tt[r, e + PN] < INF or tt[r, e + INFO] & ZONE_VALID == 0:
        return False, ZERO
    return True, map_mask(np.uint64(tt[r, e + MASK]), inv, g)


@njit(cache=True, nogil=True)
def search(p: np.uint64, d: np.uint64, is_or: bool, full: np.uint64, lines: np.ndarray,
           through: np.ndarray, count: np.ndarray, k: int, zob: np.ndarray, perm: np.ndarray,
           inv: np.ndarray, sym: np.ndarray, tt: np.ndarray, ttss: np.ndarray, buf: np.ndarray,
           hv: np.ndarray, seqs: np.ndarray, misc: np.ndarray, work: np.ndarray,
           sp: np.ndarray) -> tuple[int, int]:  # pragma: no cover - compiled
    """Df-pn from a root that is not over (the attacker to move if ``is_or``): its (pn, dn)
    when solved or stopped by the node limit. The caller settles roots that a threat, a
    threat sequence or a disproof cut decides (`root_value`)."""
    key, g = root_key(p, d, is_or, zob, hv, misc)
    misc[ABORTED] = 0
    return mid(p, d, popcount(p | d), 0, is_or, INF, INF, key, g, full, lines, through, count,
               k, zob, perm, inv, sym, tt, ttss, buf, hv, seqs, misc, work, sp)


@njit(cache=True, nogil=True)
def root_value(p: np.uint64, d: np.uint64, is_or: bool, full: np.uint64, lines: np.ndarray,
               through: np.ndarray, count: np.ndarray, k: int, ttss: np.ndarray,
               misc: np.ndarray, seqs: np.ndarray, work: np.ndarray,
               sp: np.ndarray) -> tuple[int, int]:  # pragma: no cover - compiled
    """(pn, dn) of a root position by the checks done when a node is created, and for an
    OR root the threat search too (its sequence in ``seqs[0]``): solved, or unsolved
    numbers for `search`."""
    if is_or:
        p_threat, _, _, _ = scan(p, d, full, lines)
        if p_threat != ZERO:
            return 0, INF
        r = tss_in(p, d, 64, 0, full, lines, through, count, k, ttss, misc, seqs[0],
                   _tss_work(work, lines.shape[0]))
        if r >= 0:
            return 0, INF
        pn, dn, _ = eval_or(p, d, full, lines, k, misc, work, sp)
        return pn, dn
    saved = misc[EAGER]
    misc[EAGER] = 0
    pn, dn, _ = eval_and(p, d, full, lines, through, count, k, ttss, misc, seqs, 0, work, sp)
    misc[EAGER] = saved
    return pn, dn
