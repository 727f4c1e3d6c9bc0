"""Compiled kernels for boards of any size: per-line counts instead of 64-bit masks.

A position is an ``int8`` state per cell (0 empty, 1 X, 2 O) and, for each line, how many
marks each side has on it (``int32[lines, 2]``, column 0 for X and 1 for O), updated move by
move through the lines through the played cell (``through_ptr`` / ``through``, a compressed
list). A 64-bit Zobrist key follows the moves for the transposition tables. A side is 0 (X)
or 1 (O) in every kernel; its mark in ``state`` is the side plus one.

`vcf` decides the threat-sequence question of `tictactoe.proof.threats` (victory by
continuous fours in gomoku's terms) for either side: the attacker, to move, wins if it has
a threat (a line with k-1 of its marks and no other mark), or if the defender has threats on
at most one cell b and the attacker has a move (b itself if there is one) after which it has
threats on two or more cells, or on one cell t, and after the defender's forced reply t it
wins so again. The sequences found are replayed by the caller before they are believed.
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

O_KEY = np.uint64(0x9E3779B97F4A7C15)
"""Xor-ed into a key when O is the attacker, so that each side's answers have their own
entries in a table."""


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
    """Put ``side``'s (0 or 1) mark on the empty cell ``c``."""
    state[c] = side + 1
    for j in range(through_ptr[c], through_ptr[c + 1]):
        counts[through[j], side] += 1
    misc[HASH] = np.int64(np.uint64(misc[HASH]) ^ zobrist[c, side])


@njit(cache=True, nogil=True, inline="always")
def take_back(c: int, side: int, state: np.ndarray, counts: np.ndarray,
              through_ptr: np.ndarray, through: np.ndarray, zobrist: np.ndarray,
              misc: np.ndarray) -> None:  # pragma: no cover - compiled
    """Undo `play`."""
    state[c] = 0
    for j in range(through_ptr[c], through_ptr[c + 1]):
        counts[through[j], side] -= 1
    misc[HASH] = np.int64(np.uint64(misc[HASH]) ^ zobrist[c, side])


@njit(cache=True, nogil=True, inline="always")
def empty_cell(line: int, state: np.ndarray, line_cells: np.ndarray) -> int:  # pragma: no cover
    """The first empty cell of a line, or -1."""
    for j in range(line_cells.shape[1]):
        c: int = line_cells[line, j]
        if state[c] == 0:
            return c
    return -1


@njit(cache=True, nogil=True, inline="always")
def made_at(c: int, side: int, state: np.ndarray, counts: np.ndarray, line_cells: np.ndarray,
            through_ptr: np.ndarray, through: np.ndarray) -> tuple[int, int, int]:
    """``side``'s threat cells on the lines through ``c``: how many distinct ones (0, 1, or
    2 meaning two or more), the first and the second (-1 where there is none)."""
    k = line_cells.shape[1]
    first = -1
    for j in range(through_ptr[c], through_ptr[c + 1]):
        line = through[j]
        if counts[line, side] == k - 1 and counts[line, 1 - side] == 0:
            e = empty_cell(line, state, line_cells)
            if first < 0:
                first = e
            elif e != first:
                return 2, first, e
    return (1 if first >= 0 else 0), first, -1  # pragma: no cover - compiled


@njit(cache=True, nogil=True)
def threats_of(side: int, state: np.ndarray, counts: np.ndarray,
               line_cells: np.ndarray) -> tuple[int, int, int]:  # pragma: no cover - compiled
    """``side``'s threat cells anywhere on the board, as `made_at` counts them."""
    k = line_cells.shape[1]
    first = -1
    for i in range(counts.shape[0]):
        if counts[i, side] == k - 1 and counts[i, 1 - side] == 0:
            e = empty_cell(i, state, line_cells)
            if first < 0:
                first = e
            elif e != first:
                return 2, first, e
    return (1 if first >= 0 else 0), first, -1


FRAME = 6
"""The last ``FRAME`` slots of each row of `_vcf`'s ``buf`` hold that level's frame: its
table slot and key, its depth left, its number of single threats, the next one to try, and
the number of candidates before them."""


@njit(cache=True, nogil=True, inline="always")
def _enter(a: int, rem: int, lvl: int, block: int, state: np.ndarray, counts: np.ndarray,
           line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
           zobrist: np.ndarray, tt_keys: np.ndarray, tt_depth: np.ndarray, seen: np.ndarray,
           misc: np.ndarray, buf: np.ndarray) -> int:  # pragma: no cover - compiled
    """Open `_vcf`'s node at level ``lvl``: a cell that makes two threats at once (a win),
    -1 once the node's single threats are listed in its row (to try in turn), `FAIL` - 1 if
    the node fails at once, `UNKNOWN` - 1 past the node limit."""
    misc[NODES] += 1
    if misc[NODES] > misc[LIMIT]:
        return UNKNOWN - 1
    key = np.uint64(misc[HASH])
    if a == 1:
        key ^= O_KEY
    slot = int(key & np.uint64(tt_keys.shape[0] - 1))
    if tt_keys[slot] == key and tt_depth[slot] >= rem:
        return FAIL - 1
    if rem <= 0 or lvl >= buf.shape[0]:
        return FAIL - 1
    d = 1 - a
    k = line_cells.shape[1]
    row = buf[lvl]
    n = 0
    if block >= 0:
        row[0] = block
        n = 1
    else:  # the empty cells of the attacker's lines two short (only they make threats)
        misc[STAMP] += 1
        stamp = misc[STAMP]
        for i in range(counts.shape[0]):
            if counts[i, a] == k - 2 and counts[i, d] == 0:
                for j in range(k):
                    c = line_cells[i, j]
                    if state[c] == 0 and seen[c] != stamp:
                        seen[c] = stamp
                        row[n] = c
                        n += 1
    m = 0  # the single threats, as (move, forced reply) pairs after the candidates
    for q in range(n):  # two threats at once wins at once; keep the single threats
        c = row[q]
        play(c, a, state, counts, through_ptr, through, zobrist, misc)
        made, first, _ = made_at(c, a, state, counts, line_cells, through_ptr, through)
        take_back(c, a, state, counts, through_ptr, through, zobrist, misc)
        if made == 2:
            return int(c)
        if made == 1:
            row[n + 2 * m] = c
            row[n + 2 * m + 1] = first
            m += 1
    w = row.shape[0]
    row[w - 6] = slot
    row[w - 5] = np.int64(key)
    row[w - 4] = rem
    row[w - 3] = m
    row[w - 2] = 0
    row[w - 1] = n
    return -1


@njit(cache=True, nogil=True)
def _vcf(a: int, rem: int, block: int, state: np.ndarray, counts: np.ndarray,
         line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
         zobrist: np.ndarray, tt_keys: np.ndarray, tt_depth: np.ndarray, seen: np.ndarray,
         misc: np.ndarray, seq: np.ndarray, buf: np.ndarray) -> int:  # pragma: no cover
    """Side ``a``, to move, has no threat; the defender's only threat cell is ``block`` (-1:
    none). The length of a winning sequence of at most ``rem`` moves (written to ``seq``),
    `FAIL`, or `UNKNOWN` when the node limit stopped the search. Depth first with an
    explicit stack: ``buf`` row i holds level i's candidates, its single threats and its
    frame (`FRAME`), ``seq[i]`` the move tried there. The position is left as it was."""
    d = 1 - a
    w = buf.shape[1]
    opened = _enter(a, rem, 0, block, state, counts, line_cells, through_ptr, through,
                    zobrist, tt_keys, tt_depth, seen, misc, buf)
    if opened >= 0:
        seq[0] = opened
        return 1
    if opened < -1:
        return opened + 1
    lvl = 0
    result = FAIL
    while lvl >= 0:
        row = buf[lvl]
        i = row[w - 2]
        if i < row[w - 3]:  # the next single threat of this level
            row[w - 2] = i + 1
            n = row[w - 1]
            c = row[n + 2 * i]
            t = row[n + 2 * i + 1]
            play(c, a, state, counts, through_ptr, through, zobrist, misc)
            play(t, d, state, counts, through_ptr, through, zobrist, misc)
            seq[lvl] = c
            answers, answer, _ = made_at(t, d, state, counts, line_cells, through_ptr,
                                         through)
            opened = FAIL - 1  # two cells to block: this line fails
            if answers < 2:
                opened = _enter(a, row[w - 4] - 1, lvl + 1, answer, state, counts,
                                line_cells, through_ptr, through, zobrist, tt_keys,
                                tt_depth, seen, misc, buf)
            if opened == -1:
                lvl += 1
                continue
            if opened >= 0:  # a win: the moves down to here, then this one
                seq[lvl + 1] = opened
                result = lvl + 2
            elif opened == UNKNOWN - 1:
                result = UNKNOWN
            else:
                take_back(t, d, state, counts, through_ptr, through, zobrist, misc)
                take_back(c, a, state, counts, through_ptr, through, zobrist, misc)
                continue
            # done: take every level's move back
            for j in range(lvl, -1, -1):
                up = buf[j]
                q = up[w - 2] - 1
                n = up[w - 1]
                take_back(up[n + 2 * q + 1], d, state, counts, through_ptr, through, zobrist,
                          misc)
                take_back(up[n + 2 * q], a, state, counts, through_ptr, through, zobrist,
                          misc)
            return result
        # every single threat failed: remember it, and go back up
        tt_keys[row[w - 6]] = np.uint64(row[w - 5])
        tt_depth[row[w - 6]] = row[w - 4]
        lvl -= 1
        if lvl >= 0:
            up = buf[lvl]
            q = up[w - 2] - 1
            n = up[w - 1]
            take_back(up[n + 2 * q + 1], d, state, counts, through_ptr, through, zobrist,
                      misc)
            take_back(up[n + 2 * q], a, state, counts, through_ptr, through, zobrist, misc)
    return FAIL


@njit(cache=True, nogil=True)
def vcf_below(a: int, rem: int, block: int, state: np.ndarray, counts: np.ndarray,
              line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
              zobrist: np.ndarray, tt_keys: np.ndarray, tt_depth: np.ndarray,
              seen: np.ndarray, misc: np.ndarray, seq: np.ndarray,
              buf: np.ndarray) -> int:  # pragma: no cover - compiled
    """`_vcf`, for other modules' kernels."""
    return _vcf(a, rem, block, state, counts, line_cells, through_ptr, through, zobrist,
                tt_keys, tt_depth, seen, misc, seq, buf)


@njit(cache=True, nogil=True)
def vcf(a: int, rem: int, budget: int, state: np.ndarray, counts: np.ndarray,
        line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
        zobrist: np.ndarray, tt_keys: np.ndarray, tt_depth: np.ndarray, seen: np.ndarray,
        misc: np.ndarray, seq: np.ndarray, buf: np.ndarray) -> int:  # pragma: no cover
    """Whether side ``a``, to move, wins by a threat sequence of at most ``rem`` of its
    moves: the length (moves in ``seq``; 0 if it has a threat now), `FAIL` or `UNKNOWN`
    (more than ``budget`` positions). ``state`` and ``counts`` are as `load` leaves them,
    and are left so."""
    misc[LIMIT] = misc[NODES] + max(1, budget)
    made, _, _ = threats_of(a, state, counts, line_cells)
    if made > 0:
        return 0
    blocks, block, _ = threats_of(1 - a, state, counts, line_cells)
    if blocks == 2:
        return FAIL
    return _vcf(a, rem, block, state, counts, line_cells, through_ptr, through, zobrist,
                tt_keys, tt_depth, seen, misc, seq, buf)


@njit(cache=True, nogil=True, inline="always")
def _follow(a: int, seq: np.ndarray, j: int, state: np.ndarray, counts: np.ndarray,
            line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
            zobrist: np.ndarray, misc: np.ndarray,
            played: np.ndarray) -> tuple[bool, int, int, int]:  # pragma: no cover
    """`replay`'s walk: whether it wins, how many cells it played (in ``played``: the moves
    at even places, the defender's forced replies at odd ones), and the two threat cells of
    a last move that won with threats on two cells (-1, -1 if it won by a threat of ``a``
    at its turn, or failed). The position is left as it was."""
    d = 1 - a
    n = 0
    won = False
    first = second = -1
    for i in range(j + 1):
        made, _, _ = threats_of(a, state, counts, line_cells)
        if made > 0:
            won = True
            break
        if i == j:
            break
        blocks, block, _ = threats_of(d, state, counts, line_cells)
        c = seq[i]
        if blocks == 2 or (blocks == 1 and block != c) or state[c] != 0:
            break
        play(c, a, state, counts, through_ptr, through, zobrist, misc)
        played[n] = c
        n += 1
        made, t, u = made_at(c, a, state, counts, line_cells, through_ptr, through)
        if made == 2:
            won = True
            first, second = t, u
            break
        if made == 0:
            break
        play(t, d, state, counts, through_ptr, through, zobrist, misc)
        played[n] = t
        n += 1
    for q in range(n - 1, -1, -1):  # take back, the defender's replies at odd places
        take_back(played[q], a if q % 2 == 0 else d, state, counts, through_ptr, through,
                  zobrist, misc)
    return won, n, first, second


@njit(cache=True, nogil=True)
def replay(a: int, seq: np.ndarray, j: int, state: np.ndarray, counts: np.ndarray,
           line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
           zobrist: np.ndarray, misc: np.ndarray, played: np.ndarray) -> bool:  # pragma: no cover
    """Whether side ``a``, to move, wins by the threat sequence whose moves are exactly
    ``seq[:j]``, followed strictly (the proof format's ``V`` rule): each move answers the
    defender's only threat cell if it has one and makes threats, the defender's reply is
    forced, and a move that leaves threats on two cells (or a threat of ``a`` at its turn)
    wins. The position is left as it was; ``played`` is scratch (``2 * j`` cells)."""
    won, _, _, _ = _follow(a, seq, j, state, counts, line_cells, through_ptr, through,
                           zobrist, misc, played)
    return won


@njit(cache=True, nogil=True)
def _replay_after(a: int, r: int, seq: np.ndarray, j: int, state: np.ndarray,
                  counts: np.ndarray, line_cells: np.ndarray, through_ptr: np.ndarray,
                  through: np.ndarray, zobrist: np.ndarray, misc: np.ndarray,
                  played: np.ndarray) -> bool:  # pragma: no cover - compiled
    """`replay` after the defender's reply ``r`` (played), where neither side had a threat
    before it: the defender's threats can then only be on lines through ``r`` and its
    forced replies, and the attacker's only through its last move, so only those lines
    are read."""
    d = 1 - a
    n = 0
    won = False
    for i in range(j):
        block = -1
        blocks = 0
        for q in range(-1, n):  # r, then the defender's forced replies (odd places)
            if q >= 0 and q % 2 == 0:
                continue
            w = r if q < 0 else played[q]
            m, f, _ = made_at(w, d, state, counts, line_cells, through_ptr, through)
            if m == 0:
                continue
            if m == 2 or (block >= 0 and f != block):
                blocks = 2
                break
            block = f
            blocks = 1
        c = seq[i]
        if blocks == 2 or (blocks == 1 and block != c) or state[c] != 0:
            break
        play(c, a, state, counts, through_ptr, through, zobrist, misc)
        played[n] = c
        n += 1
        made, first, _ = made_at(c, a, state, counts, line_cells, through_ptr, through)
        if made == 2:
            won = True
            break
        if made == 0:
            break
        play(first, d, state, counts, through_ptr, through, zobrist, misc)
        played[n] = first
        n += 1
    for q in range(n - 1, -1, -1):
        take_back(played[q], a if q % 2 == 0 else d, state, counts, through_ptr, through,
                  zobrist, misc)
    return won


@njit(cache=True, nogil=True)
def play_near(c: int, side: int, state: np.ndarray, counts: np.ndarray,
              through_ptr: np.ndarray, through: np.ndarray, zobrist: np.ndarray,
              misc: np.ndarray, near_count: np.ndarray, near_ptr: np.ndarray,
              near_cells: np.ndarray) -> None:  # pragma: no cover - compiled
    """`play`, and count the mark in ``near_count`` of each cell near ``c`` (the cells
    ``near_cells[near_ptr[c]:near_ptr[c + 1]]``)."""
    play(c, side, state, counts, through_ptr, through, zobrist, misc)
    for j in range(near_ptr[c], near_ptr[c + 1]):
        near_count[near_cells[j]] += 1


@njit(cache=True, nogil=True)
def take_back_near(c: int, side: int, state: np.ndarray, counts: np.ndarray,
                   through_ptr: np.ndarray, through: np.ndarray, zobrist: np.ndarray,
                   misc: np.ndarray, near_count: np.ndarray, near_ptr: np.ndarray,
                   near_cells: np.ndarray) -> None:  # pragma: no cover - compiled
    """Undo `play_near`."""
    take_back(c, side, state, counts, through_ptr, through, zobrist, misc)
    for j in range(near_ptr[c], near_ptr[c + 1]):
        near_count[near_cells[j]] -= 1


ATTACKER_THREAT = 0
"""`attacker_child`: the attacker has a threat (the value is its first threat cell)."""
ATTACKER_LOST = 1
"""`attacker_child`: the defender has threats on two cells, or the board is full."""
ATTACKER_FOURS = 2
"""`attacker_child`: the attacker wins by fours (the value is the length, moves in
``seq``)."""
ATTACKER_QUIET = 3
"""`attacker_child`: none of those (the value is the number of empty cells near a mark, the
extra the defender's threat cells as `threats_of` counts them)."""


@njit(cache=True, nogil=True)
def attacker_child(c: int, side: int, a: int, rem: int, budget: int, state: np.ndarray,
                   counts: np.ndarray, line_cells: np.ndarray, through_ptr: np.ndarray,
                   through: np.ndarray, zobrist: np.ndarray, tt_keys: np.ndarray,
                   tt_depth: np.ndarray, seen: np.ndarray, misc: np.ndarray, seq: np.ndarray,
                   buf: np.ndarray, near_count: np.ndarray, near_ptr: np.ndarray,
                   near_cells: np.ndarray) -> tuple[int, int, int]:  # pragma: no cover
    """What the position after ``side`` plays ``c`` is for the attacker ``a``, to move
    there: (kind, value, extra), the kind one of `ATTACKER_THREAT`, `ATTACKER_LOST`,
    `ATTACKER_FOURS` (asking `vcf` with ``rem`` and ``budget``) and `ATTACKER_QUIET`. The
    position is left as it was. One call instead of a move, two threat counts, a threat
    search, a count of the cells near a mark and the move taken back, each from Python."""
    play_near(c, side, state, counts, through_ptr, through, zobrist, misc, near_count,
              near_ptr, near_cells)
    kind = ATTACKER_QUIET
    value = 0
    extra = 0
    made, first, _ = threats_of(a, state, counts, line_cells)
    if made > 0:
        kind = ATTACKER_THREAT
        value = first
    else:
        blocks, _, _ = threats_of(1 - a, state, counts, line_cells)
        empty = 0
        near = 0
        for x in range(state.shape[0]):
            if state[x] == 0:
                empty += 1
                if near_count[x] > 0:
                    near += 1
        if blocks == 2 or empty == 0:
            kind = ATTACKER_LOST
        else:
            found = vcf(a, rem, budget, state, counts, line_cells, through_ptr, through,
                        zobrist, tt_keys, tt_depth, seen, misc, seq, buf)
            if found >= 0:
                kind = ATTACKER_FOURS
                value = found
            else:
                value = near
                extra = blocks
    take_back_near(c, side, state, counts, through_ptr, through, zobrist, misc, near_count,
                   near_ptr, near_cells)
    return kind, value, extra


@njit(cache=True, nogil=True)
def attacker_children(cells: np.ndarray, n: int, side: int, a: int, rem: int, budget: int,
                      state: np.ndarray, counts: np.ndarray, line_cells: np.ndarray,
                      through_ptr: np.ndarray, through: np.ndarray, zobrist: np.ndarray,
                      tt_keys: np.ndarray, tt_depth: np.ndarray, seen: np.ndarray,
                      misc: np.ndarray, seq: np.ndarray, buf: np.ndarray,
                      near_count: np.ndarray, near_ptr: np.ndarray, near_cells: np.ndarray,
                      out: np.ndarray, moves: np.ndarray) -> None:  # pragma: no cover
    """`attacker_child` for each of ``cells[:n]`` in turn: row i of ``out`` gets the kind,
    the value, the extra and, for `ATTACKER_FOURS`, where its moves start in ``moves``
    (one after the other)."""
    at = 0
    for i in range(n):
        kind, value, extra = attacker_child(cells[i], side, a, rem, budget, state, counts,
                                            line_cells, through_ptr, through, zobrist, tt_keys,
                                            tt_depth, seen, misc, seq, buf, near_count,
                                            near_ptr, near_cells)
        out[i, 0] = kind
        out[i, 1] = value
        out[i, 2] = extra
        out[i, 3] = at
        if kind == ATTACKER_FOURS:
            for j in range(value):
                moves[at + j] = seq[j]
            at += value


@njit(cache=True, nogil=True)
def breaking(a: int, seq: np.ndarray, j: int, state: np.ndarray, counts: np.ndarray,
             line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
             zobrist: np.ndarray, misc: np.ndarray, played: np.ndarray,
             mark: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Mark in ``mark`` (all False on entry) every cell where a reply of the defender (side
    ``1 - a``, to move, neither side with a threat) may stop ``a``'s win by ``seq[:j]``
    followed strictly (`replay`); False, marking nothing, if the sequence does not win
    after a pass. A reply on an unmarked empty cell leaves the sequence winning:

    * the cells the sequence uses are marked: its moves, the defender's forced replies and
      the threat cells of its last move (a reply elsewhere changes none of its steps);
    * so are the cells of the lines with no mark of ``a`` before the sequence and k-2 or
      more marks of the defender once its forced replies are counted: only a reply there
      can give the defender a threat that changes a step."""
    d = 1 - a
    k = line_cells.shape[1]
    won, n, first, second = _follow(a, seq, j, state, counts, line_cells, through_ptr,
                                    through, zobrist, misc, played)
    if not won or first < 0:
        return False  # (a win by a standing threat cannot happen without threats now)
    mark[first] = True
    mark[second] = True
    for q in range(n):
        mark[played[q]] = True
    # the defender's marks per line with its forced replies: only the lines through them
    # gain any
    extra = np.zeros(counts.shape[0], dtype=np.int32)
    for q in range(1, n, 2):
        f = played[q]
        for t in range(through_ptr[f], through_ptr[f + 1]):
            extra[through[t]] += 1
    for line in range(counts.shape[0]):
        if counts[line, a] == 0 and counts[line, d] + extra[line] >= k - 2:
            for q in range(k):
                mark[line_cells[line, q]] = True
    return True


@njit(cache=True, nogil=True)
def refuters(a: int, seq: np.ndarray, j: int, state: np.ndarray, counts: np.ndarray,
             line_cells: np.ndarray, through_ptr: np.ndarray, through: np.ndarray,
             zobrist: np.ndarray, misc: np.ndarray, played: np.ndarray, out: np.ndarray,
             full: bool = False) -> int:  # pragma: no cover - compiled
    """The defender's (side ``1 - a``, to move) replies after which ``a`` no longer wins by
    the sequence ``seq[:j]`` followed strictly (`replay`): how many, written to ``out``.
    Neither side may have a threat (the defender's node of df-pn, once those are settled).
    Only the replies on the cells `breaking` marks are replayed, each reading the lines
    through the reply and the forced moves only; with `full`, every reply asks `replay`
    itself, which reads every line (for the tests)."""
    d = 1 - a
    n = 0
    mark = np.zeros(state.shape[0], dtype=np.bool_)
    if full or not breaking(a, seq, j, state, counts, line_cells, through_ptr, through,
                            zobrist, misc, played, mark):
        mark[:] = True
    for r in range(state.shape[0]):
        if state[r] != 0 or not mark[r]:
            continue
        play(r, d, state, counts, through_ptr, through, zobrist, misc)
        if full:
            wins = replay(a, seq, j, state, counts, line_cells, through_ptr, through, zobrist,
                          misc, played)
        else:
            wins = _replay_after(a, r, seq, j, state, counts, line_cells, through_ptr,
                                 through, zobrist, misc, played)
        if not wins:
            out[n] = r
            n += 1
        take_back(r, d, state, counts, through_ptr, through, zobrist, misc)
    return n
