"""Compiled threat-space search with threes for boards of any size (victory by continuous
threats, after Allis): the attacker's moves are threats, fours and threes, and every reply of
the defender is either searched or shown to lose.

Definitions (k in a row; a *threat* is a line with k-1 of a side's marks and no other mark,
its empty cell a *threat cell*):

- a *four* is a move after which the attacker has a threat cell; the defender's only move
  is to take it (the attacker has none of the defender's threats to answer by then);
- a *three* is a move on a line that then holds k-2 of the attacker's marks and none of the
  defender's, after which the attacker, if it moved again, would win by fours (`kernels.vcf`);
- the attacker, to move, *wins by threats with at most n threes* if it wins by fours, or if
  it has a four or a three (the defender's only threat cell, if it has one, taken) such that
  after every reply it wins again, a four costing nothing and a three costing one of the n
  (nothing if it takes the defender's threat cell: a four of the defender's cannot use up
  the attacker's threes).

After a three, each reply of the defender is first tried against the threat itself: the
attacker's sequence of fours is replayed with the reply on the board (`_replays`), the
defender's forced answers and any threat it makes on the way checked move by move. A reply
that the sequence still beats loses; the others (cells on the sequence, counter-fours, moves
that turn a forced answer into a four, ...) are searched. Only the cells that can change the
replay are tried (`_zone`), which is sound: a mark elsewhere changes none of the counts the
replay reads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tictactoe.search.wide.kernels import (
    FAIL,
    HASH,
    LIMIT,
    NODES,
    O_KEY,
    STAMP,
    UNKNOWN,
    made_at,
    play,
    take_back,
    threats_of,
    vcf_below,
)

THREE_KEY = np.uint64(0xD1B54A32D192ED03)
"""Xor-ed into a key for the table of this search (the fours' table is separate anyway)."""


@njit(cache=True, nogil=True)
def _replays(a: int, moves: np.ndarray, s: int, block: int, state: np.ndarray,
             counts: np.ndarray, line_cells: np.ndarray, through_ptr: np.ndarray,
             through: np.ndarray, zobrist: np.ndarray, misc: np.ndarray,
             replies: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether the attacker ``a``, to move, wins by playing the fours ``moves[:s]``: each
    takes the defender's threat cell if it has one (``block`` at first), makes a threat,
    and the defender's forced reply goes on the board; the last makes threats on two cells.
    The position is left as it was; ``replies`` receives the defender's forced replies."""
    d = 1 - a
    played = 0
    won = False
    for i in range(s):
        c = moves[i]
        if state[c] != 0 or (block >= 0 and c != block):
            break
        play(c, a, state, counts, through_ptr, through, zobrist, misc)
        made, t, _ = made_at(c, a, state, counts, line_cells, through_ptr, through)
        if made == 2:
            take_back(c, a, state, counts, through_ptr, through, zobrist, misc)
            won = True
            break
        if made == 0:
            take_back(c, a, state, counts, through_ptr, through, zobrist, misc)
            break
        play(t, d, state, counts, through_ptr, through, zobrist, misc)
        replies[played] = t
        played += 1
        answers, block, _ = made_at(t, d, state, counts, line_cells, through_ptr, through)
        if answers == 2:
            break
    for i in range(played - 1, -1, -1):
        take_back(replies[i], d, state, counts, through_ptr, through, zobrist, misc)
        take_back(moves[i], a, state, counts, through_ptr, through, zobrist, misc)
    return won


@njit(cache=True, nogil=True)
def _zone(a: int, moves: np.ndarray, s: int, replies: np.ndarray, state: np.ndarray,
          counts: np.ndarray, line_cells: np.ndarray, through_ptr: np.ndarray,
          through: np.ndarray, zobrist: np.ndarray, seen: np.ndarray, misc: np.ndarray,
          out: np.ndarray) -> int:  # pragma: no cover - compiled
    """The empty cells where a defender's mark could change the replay of the attacker's
    winning fours ``moves[:s]`` (forced replies ``replies[:s-1]``), into ``out``; their
    number. They are the moves and replies, the cells of the last move's threats, the cells
    of lines through a reply that hold none of the attacker's marks (a reply could make a
    threat there), and the cells of the defender's lines two short (a four at once)."""
    d = 1 - a
    k = line_cells.shape[1]
    misc[STAMP] += 1
    stamp = misc[STAMP]
    n = 0
    for i in range(s):
        for c in (moves[i], replies[i] if i < s - 1 else -1):
            if c >= 0 and seen[c] != stamp:
                seen[c] = stamp
                out[n] = c
                n += 1
    for i in range(s - 1):  # lines through a reply that the attacker has no mark on
        t = replies[i]
        for j in range(through_ptr[t], through_ptr[t + 1]):
            line = through[j]
            if counts[line, a] == 0:
                for q in range(k):
                    c = line_cells[line, q]
                    if state[c] == 0 and seen[c] != stamp:
                        seen[c] = stamp
                        out[n] = c
                        n += 1
    # the last move's threat cells: play the line out once
    played = 0
    for i in range(s):
        play(moves[i], a, state, counts, through_ptr, through, zobrist, misc)
        played += 1
        if i < s - 1:
            play(replies[i], d, state, counts, through_ptr, through, zobrist, misc)
    _, first, second = made_at(moves[s - 1], a, state, counts, line_cells, through_ptr,
                               through)
    for i in range(played - 1, -1, -1):
        if i < s - 1:
            take_back(replies[i], d, state, counts, through_ptr, through, zobrist, misc)
        take_back(moves[i], a, state, counts, through_ptr, through, zobrist, misc)
    for c in (first, second):
        if c >= 0 and seen[c] != stamp:
            seen[c] = stamp
            out[n] = c
            n += 1
    for i in range(counts.shape[0]):  # the defender's fours
        if counts[i, d] == k - 2 and counts[i, a] == 0:
            for q in range(k):
                c = line_cells[i, q]
                if state[c] == 0 and seen[c] != stamp:
                    seen[c] = stamp
                    out[n] = c
                    n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _candidates(a: int, block: int, state: np.ndarray, counts: np.ndarray,
                line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
                seen: np.ndarray, misc: np.ndarray, out: np.ndarray) -> int:  # pragma: no cover
    """The attacker's fours and threes (the empty cells of its lines at most three short with
    none of the defender's marks), best first by the lines they build; ``block`` alone if
    the defender has a threat cell."""
    if block >= 0:
        out[0] = block
        return 1
    d = 1 - a
    k = line_cells.shape[1]
    misc[STAMP] += 1
    stamp = misc[STAMP]
    n = 0
    for i in range(counts.shape[0]):
        if counts[i, d] == 0 and counts[i, a] >= k - 3 and counts[i, a] >= 1:
            for q in range(k):
                c = line_cells[i, q]
                if state[c] == 0 and seen[c] != stamp:
                    seen[c] = stamp
                    out[n] = c
                    n += 1
    # order: the weight of the lines each builds (a four counts for four threes)
    scores = out[n:2 * n]
    for q in range(n):
        c = out[q]
        w = 0
        for j in range(through_ptr[c], through_ptr[c + 1]):
            line = through[j]
            if counts[line, d] == 0:
                have = counts[line, a]
                if have == k - 2:
                    w += 16
                elif have == k - 3:
                    w += 4
                elif have == k - 4:
                    w += 1
        scores[q] = w * 4096 - c
    for q in range(1, n):  # insertion sort, best first
        c = out[q]
        w = scores[q]
        r = q - 1
        while r >= 0 and scores[r] < w:
            out[r + 1] = out[r]
            scores[r + 1] = scores[r]
            r -= 1
        out[r + 1] = c
        scores[r + 1] = w
    return n


@njit(cache=True, nogil=True, inline="always")
def _won(lvl: int, move: int, length: int, rem: int, slot: int, key: np.uint64,
         tkeys: np.ndarray, tdepth: np.ndarray, moves: np.ndarray) -> int:  # pragma: no cover
    """Record a win at level ``lvl`` (its first move) and in the table (with the threes it
    was found with, ``rem``; its length and first move); return its length."""
    moves[lvl] = move
    tkeys[slot] = key
    tdepth[slot] = -(1 + min(rem, 255) + (min(length, 0xFFFF) << 8) + (move << 24))
    return length


_VCT_SIG = ("int64(int64, int64, int64, int64, int64, int8[::1], int32[:, ::1], int64[:, ::1], "
            "int64[::1], int64[::1], uint64[:, ::1], uint64[::1], int64[::1], int64[::1], "
            "int64[::1], int64[::1], int64[:, ::1], uint64[::1], int64[::1], int64[:, ::1], "
            "int64[::1])")


@njit(_VCT_SIG, cache=True, nogil=True)
def _vct(a: int, rem: int, lvl: int, block: int, fours: int, state: np.ndarray,
         counts: np.ndarray, line_cells: np.ndarray, through_ptr: np.ndarray,
         through: np.ndarray, zobrist: np.ndarray, fkeys: np.ndarray, fdepth: np.ndarray,
         seen: np.ndarray, misc: np.ndarray, seq: np.ndarray, buf: np.ndarray,
         tkeys: np.ndarray, tdepth: np.ndarray, work: np.ndarray,
         moves: np.ndarray) -> int:  # pragma: no cover - compiled
    """The attacker ``a``, to move, has no threat; the defender's only threat cell is
    ``block`` (-1: none). The number of the attacker's moves in the longest line of a win by
    threats with at most ``rem`` threes (fours at most ``fours`` moves long), the first
    written to ``moves[lvl]``; `FAIL`, or `UNKNOWN` when the node limit stopped it."""
    misc[NODES] += 1
    if misc[NODES] > misc[LIMIT]:
        return UNKNOWN
    key = np.uint64(misc[HASH]) ^ THREE_KEY
    if a == 1:
        key ^= O_KEY
    slot = int(key & np.uint64(tkeys.shape[0] - 1))
    if tkeys[slot] == key:
        stored = tdepth[slot]
        if stored >= rem:
            return FAIL
        if stored < 0:  # a win, with the threes it needed, its length and first move
            v = -stored - 1
            if v & 0xFF <= rem:
                moves[lvl] = v >> 24
                return int((v >> 8) & 0xFFFF)
    r = vcf_below(a, fours, block, state, counts, line_cells, through_ptr, through, zobrist,
                  fkeys, fdepth, seen, misc, seq, buf)
    if r >= 0:
        return _won(lvl, seq[0], r, 0, slot, key, tkeys, tdepth, moves)
    if r == UNKNOWN:
        return UNKNOWN
    if rem <= 0 or lvl + 1 >= work.shape[0]:
        return FAIL
    d = 1 - a
    row = work[lvl]
    n = _candidates(a, block, state, counts, line_cells, through_ptr, through, seen, misc,
                    row)
    cells = state.shape[0]
    line = row[n:]  # the threat's fours, their forced replies, the zone, the replies to try
    for q in range(n):
        c = row[q]
        play(c, a, state, counts, through_ptr, through, zobrist, misc)
        made, t, _ = made_at(c, a, state, counts, line_cells, through_ptr, through)
        if made == 2:
            take_back(c, a, state, counts, through_ptr, through, zobrist, misc)
            return _won(lvl, c, 1, 0, slot, key, tkeys, tdepth, moves)
        if made == 1:  # a four: the reply is forced, and costs no three
            play(t, d, state, counts, through_ptr, through, zobrist, misc)
            answers, answer, _ = made_at(t, d, state, counts, line_cells, through_ptr,
                                         through)
            r = FAIL
            if answers < 2:
                r = _vct(a, rem, lvl + 1, answer, fours, state, counts, line_cells,
                         through_ptr, through, zobrist, fkeys, fdepth, seen, misc, seq, buf,
                         tkeys, tdepth, work, moves)
            take_back(t, d, state, counts, through_ptr, through, zobrist, misc)
            take_back(c, a, state, counts, through_ptr, through, zobrist, misc)
            if r >= 0:
                return _won(lvl, c, r + 1, rem, slot, key, tkeys, tdepth, moves)
            if r == UNKNOWN:
                return UNKNOWN
            continue
        # a quiet move: a three if it threatens to win by fours
        s = vcf_below(a, fours, -1, state, counts, line_cells, through_ptr, through, zobrist,
                      fkeys, fdepth, seen, misc, seq, buf)
        if s <= 0:
            take_back(c, a, state, counts, through_ptr, through, zobrist, misc)
            if s == UNKNOWN:
                return UNKNOWN
            continue
        threat = line[:s]
        threat[:] = seq[:s]
        replies = line[s:2 * s]
        _replays(a, threat, s, -1, state, counts, line_cells, through_ptr, through, zobrist,
                 misc, replies)
        zone = line[2 * s:]
        z = _zone(a, threat, s, replies, state, counts, line_cells, through_ptr, through,
                  zobrist, seen, misc, zone)
        tried = line[2 * s + z:]
        m = 0
        for i in range(z):  # the replies the threat does not beat by itself
            x = zone[i]
            play(x, d, state, counts, through_ptr, through, zobrist, misc)
            answers, answer, _ = made_at(x, d, state, counts, line_cells, through_ptr,
                                         through)
            beaten = answers < 2 and _replays(a, threat, s, answer, state, counts,
                                              line_cells, through_ptr, through, zobrist,
                                              misc, tried[cells:])
            take_back(x, d, state, counts, through_ptr, through, zobrist, misc)
            if not beaten:
                if answers > 0:  # counter-fours first: they refute most often
                    tried[m] = tried[0] if m > 0 else x
                    tried[0] = x
                else:
                    tried[m] = x
                m += 1
        longest = s
        for i in range(m):
            x = tried[i]
            play(x, d, state, counts, through_ptr, through, zobrist, misc)
            answers, answer, _ = made_at(x, d, state, counts, line_cells, through_ptr,
                                         through)
            r = FAIL
            if answers < 2:  # a three costs one, unless it takes the defender's threat cell
                r = _vct(a, rem - 1 if block < 0 else rem, lvl + 1, answer, fours, state,
                         counts, line_cells, through_ptr, through, zobrist, fkeys, fdepth,
                         seen, misc, seq, buf, tkeys, tdepth, work, moves)
            take_back(x, d, state, counts, through_ptr, through, zobrist, misc)
            if r < 0:
                longest = r
                break
            longest = max(longest, r)
        take_back(c, a, state, counts, through_ptr, through, zobrist, misc)
        if longest >= 0:
            return _won(lvl, c, longest + 1, rem, slot, key, tkeys, tdepth, moves)
        if longest == UNKNOWN:
            return UNKNOWN
    tkeys[slot] = key
    tdepth[slot] = rem
    return FAIL


@njit(cache=True, nogil=True)
def vct(a: int, rem: int, fours: int, budget: int, state: np.ndarray, counts: np.ndarray,
        line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
        zobrist: np.ndarray, fkeys: np.ndarray, fdepth: np.ndarray, seen: np.ndarray,
        misc: np.ndarray, seq: np.ndarray, buf: np.ndarray, tkeys: np.ndarray,
        tdepth: np.ndarray, work: np.ndarray, moves: np.ndarray) -> int:  # pragma: no cover
    """Whether side ``a``, to move, wins by threats with at most ``rem`` threes: the number
    of its moves in the longest line (0 if it has a threat now; the first move in
    ``moves[0]``), `FAIL` or `UNKNOWN` (more than ``budget`` positions)."""
    misc[LIMIT] = misc[NODES] + max(1, budget)
    made, first, _ = threats_of(a, state, counts, line_cells)
    if made > 0:
        moves[0] = first
        return 0
    blocks, block, _ = threats_of(1 - a, state, counts, line_cells)
    if blocks == 2:
        return FAIL
    return _vct(a, rem, 0, block, fours, state, counts, line_cells, through_ptr, through,
                zobrist, fkeys, fdepth, seen, misc, seq, buf, tkeys, tdepth, work, moves)
