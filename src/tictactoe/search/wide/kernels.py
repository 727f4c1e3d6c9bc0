"""Compiled kernels for boards of any size: per-line counts instead of 64-bit masks.

A position is an ``int8`` state per cell (0 empty, 1 the prover or X, 2 the other side)
and, for each line, how many marks each side has on it (``int32[lines, 2]``), updated move
by move through the lines through the played cell (``through_ptr`` / ``through``, a
compressed list). A 64-bit Zobrist key follows the moves for the transposition table.

`vcf` decides the threat-sequence question of `tictactoe.proof.threats` (victory by
continuous fours in gomoku's terms): the prover, to move, wins if it has a threat (a line
with k-1 of its marks and no other mark), or if the opponent has threats on at most one
cell b and the prover has a move (b itself if there is one) after which it has threats on
two or more cells, or on one cell t, and after the opponent's forced reply t it wins so
again. The sequences found are replayed by the caller before they are believed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tictactoe.search import jit_cache

jit_cache.configure()  # before any kernel is compiled or loaded

NODES = 0
"""``misc`` slot: positions visited (all calls)."""
LIMIT = 1
"""``misc`` slot: the search stops (answering `UNKNOWN`) once `NODES` passes this."""
STAMP = 2
"""``misc`` slot: the last stamp used to mark cells as seen (no clearing between uses)."""
HASH = 3
"""``misc`` slot: the Zobrist key of the current position (as int64 bits)."""
MISC = 4

FAIL = -1
UNKNOWN = -2


@njit(cache=True, nogil=True)
def load(state: np.ndarray, counts: np.ndarray, line_cells: np.ndarray, zobrist: np.ndarray,
         misc: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fill the line counts and the key from ``state``."""
    counts[:, :] = 0
    for i in range(line_cells.shape[0]):
        for j in range(line_cells.shape[1]):
            s = state[line_cells[i, j]]
            if s != 0:
                counts[i, s - 1] += 1
    key = np.uint64(0)
    for c in range(state.shape[0]):
        if state[c] != 0:
            key ^= zobrist[c, state[c] - 1]
    misc[HASH] = np.int64(key)


@njit(cache=True, nogil=True, inline="always")
def play(c: int, side: int, state: np.ndarray, counts: np.ndarray, through_ptr: np.ndarray,
         through: np.ndarray, zobrist: np.ndarray, misc: np.ndarray) -> None:  # pragma: no cover
    """Put ``side``'s (1 or 2) mark on the empty cell ``c``."""
    state[c] = side
    for j in range(through_ptr[c], through_ptr[c + 1]):
        counts[through[j], side - 1] += 1
    misc[HASH] = np.int64(np.uint64(misc[HASH]) ^ zobrist[c, side - 1])


@njit(cache=True, nogil=True, inline="always")
def take_back(c: int, side: int, state: np.ndarray, counts: np.ndarray,
              through_ptr: np.ndarray, through: np.ndarray, zobrist: np.ndarray,
              misc: np.ndarray) -> None:  # pragma: no cover - compiled
    """Undo `play`."""
    state[c] = 0
    for j in range(through_ptr[c], through_ptr[c + 1]):
        counts[through[j], side - 1] -= 1
    misc[HASH] = np.int64(np.uint64(misc[HASH]) ^ zobrist[c, side - 1])


@njit(cache=True, nogil=True, inline="always")
def empty_cell(line: int, state: np.ndarray, line_cells: np.ndarray) -> int:  # pragma: no cover
    """The first empty cell of a line, or -1."""
    for j in range(line_cells.shape[1]):
        c: int = line_cells[line, j]
        if state[c] == 0:
            return c
    return -1


@njit(cache=True, nogil=True, inline="always")
def _made(c: int, state: np.ndarray, counts: np.ndarray, line_cells: np.ndarray,
          through_ptr: np.ndarray, through: np.ndarray) -> tuple[int, int]:  # pragma: no cover
    """After the prover's move ``c``: how many distinct cells it threatens through ``c``
    (0, 1 or 2 meaning two or more) and the first of them."""
    k = line_cells.shape[1]
    first = -1
    for j in range(through_ptr[c], through_ptr[c + 1]):
        line = through[j]
        if counts[line, 0] == k - 1 and counts[line, 1] == 0:
            e = empty_cell(line, state, line_cells)
            if first < 0:
                first = e
            elif e != first:
                return 2, first
    return (1 if first >= 0 else 0), first


_SIG = ("int64(int64, int64, int8[::1], int32[:, ::1], int64[:, ::1], int64[::1], int64[::1], "
        "uint64[:, ::1], uint64[::1], int64[::1], int64[::1], int64[::1], int64[::1])")
"""`_search`'s signature: a recursive kernel is compiled eagerly, so that numba's cache can
load it again (a lazily typed recursive kernel crashes when loaded from the cache)."""


@njit(_SIG, cache=True, nogil=True)
def _search(rem: int, pos: int, state: np.ndarray, counts: np.ndarray, line_cells: np.ndarray,
            through_ptr: np.ndarray, through: np.ndarray, zobrist: np.ndarray,
            tt_keys: np.ndarray, tt_depth: np.ndarray, seen: np.ndarray, misc: np.ndarray,
            seq: np.ndarray) -> int:  # pragma: no cover - compiled
    """The prover (side 1), to move, has no threat. The length of a winning sequence (moves
    from ``seq[pos]``), `FAIL`, or `UNKNOWN` when the node limit stopped the search."""
    misc[NODES] += 1
    if misc[NODES] > misc[LIMIT]:
        return UNKNOWN
    key = np.uint64(misc[HASH])
    slot = int(key & np.uint64(tt_keys.shape[0] - 1))
    if tt_keys[slot] == key and tt_depth[slot] >= rem:
        return FAIL
    k = line_cells.shape[1]
    lines = counts.shape[0]
    block = -1
    for i in range(lines):  # the opponent's threats: at most one cell to block
        if counts[i, 1] == k - 1 and counts[i, 0] == 0:
            e = empty_cell(i, state, line_cells)
            if block < 0:
                block = e
            elif e != block:
                return FAIL
    if rem <= 0:
        return FAIL
    # candidates: the empty cells of the prover's lines two short (only they make threats)
    misc[STAMP] += 1
    stamp = misc[STAMP]
    cand = np.empty(64, dtype=np.int64)
    n = 0
    for i in range(lines):
        if counts[i, 0] == k - 2 and counts[i, 1] == 0:
            for j in range(k):
                c = line_cells[i, j]
                if state[c] == 0 and seen[c] != stamp and (block < 0 or c == block):
                    seen[c] = stamp
                    if n == cand.shape[0]:
                        bigger = np.empty(2 * n, dtype=np.int64)
                        bigger[:n] = cand
                        cand = bigger
                    cand[n] = c
                    n += 1
    if n == 0:
        return FAIL
    replies = np.empty(n, dtype=np.int64)
    for q in range(n):  # two threats at once wins at once; keep the single threats
        c = cand[q]
        play(c, 1, state, counts, through_ptr, through, zobrist, misc)
        made, first = _made(c, state, counts, line_cells, through_ptr, through)
        take_back(c, 1, state, counts, through_ptr, through, zobrist, misc)
        if made == 2:
            seq[pos] = c
            return 1
        replies[q] = first if made == 1 else -1
    for q in range(n):
        t = replies[q]
        if t < 0:
            continue
        c = cand[q]
        play(c, 1, state, counts, through_ptr, through, zobrist, misc)
        play(t, 2, state, counts, through_ptr, through, zobrist, misc)
        r = _search(rem - 1, pos + 1, state, counts, line_cells, through_ptr, through, zobrist,
                    tt_keys, tt_depth, seen, misc, seq)
        take_back(t, 2, state, counts, through_ptr, through, zobrist, misc)
        take_back(c, 1, state, counts, through_ptr, through, zobrist, misc)
        if r >= 0:
            seq[pos] = c
            return r + 1
        if r == UNKNOWN:
            return UNKNOWN
    tt_keys[slot] = key
    tt_depth[slot] = rem
    return FAIL


@njit(cache=True, nogil=True)
def vcf(rem: int, budget: int, state: np.ndarray, counts: np.ndarray, line_cells: np.ndarray,
        through_ptr: np.ndarray, through: np.ndarray, zobrist: np.ndarray,
        tt_keys: np.ndarray, tt_depth: np.ndarray, seen: np.ndarray, misc: np.ndarray,
        seq: np.ndarray) -> int:  # pragma: no cover - compiled
    """Whether side 1, to move, wins by a threat sequence of at most ``rem`` of its moves:
    the length (moves in ``seq``; 0 if it has a threat now), `FAIL` or `UNKNOWN` (more than
    ``budget`` positions). ``state`` and ``counts`` are as `load` leaves them, and are
    left so."""
    misc[LIMIT] = misc[NODES] + max(1, budget)
    k = line_cells.shape[1]
    for i in range(counts.shape[0]):
        if counts[i, 0] == k - 1 and counts[i, 1] == 0:
            return 0
    return _search(rem, 0, state, counts, line_cells, through_ptr, through, zobrist, tt_keys,
                   tt_depth, seen, misc, seq)
