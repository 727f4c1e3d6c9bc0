"""Compiled α-β search with a shape evaluation for boards of any size (gomoku's 15x15 and
19x19, the 5x5x5 cube), on the per-line counts of `tictactoe.search.wide.kernels`.

**Evaluation.** Every line (k cells in a row) still open for one side scores by how many of
that side's marks it holds (``weights[n]``), so a shape scores by the lines that cover it:
an open three lies on three lines with three marks and a closed one on one, a broken three
on two. On top of the lines, the threats decide, for the side to move:

- a threat of its own (a line one mark short) is a win now;
- two threat cells of the opponent are a loss; one must be taken (searched, not scored);
- a *double* of its own (a cell that makes threats on two cells at once: an open three, a
  four-three's three, two threes crossing) is a win in 3;
- a double of the opponent must be answered: only the cells of the opponent's lines two
  short, and the mover's own fours, are searched (every other move loses to the double), and
  past the search's horizon a quiescence search goes on with those answers and the fours.

**Search.** Negamax with α-β, a transposition table, iterative deepening from the caller,
and a beam: at each node the moves near the marks are ordered by what they build and block
(``attack[n]`` and ``defend[n]`` for each line through the cell with n marks), and only the
best ``beam`` are searched. A forced reply does not use up depth.

Scores are in evaluation units for the side to move; a win in p plies from the root is
``MATE - p``. The search stops when the node counter passes ``misc[LIMIT]`` (the caller
drops the limit to stop it at a deadline), answering `ABORTED`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tictactoe.search.wide.kernels import HASH, LIMIT, NODES, STAMP, empty_cell, vcf_below

MATE = 1_000_000
"""A win at ply p from the root scores ``MATE - p``."""
WON = MATE - 1000
"""Scores beyond this are wins (or, negated, losses)."""
ABORTED = -(1 << 40)
"""Returned when the node limit stopped the search."""

EVAL = 4
"""``misc`` slot: the sum over lines of their weights, from X's side."""
QUIET = 5
"""``misc`` slot: plies of quiescence search allowed past the horizon."""
BEAM = 6
"""``misc`` slot: moves searched at an inner node."""
TEMPO = 7
"""``misc`` slot: what having the move is worth at the horizon, in lines with one mark."""
ANSWERS = 8
"""``misc`` slot: answers to the opponent's double searched at an inner node."""
LEAF_FOURS = 9
"""``misc`` slot: positions a search for the mover's win by fours may visit at the horizon
(0: none)."""
FOURS_DEPTH = 10
"""``misc`` slot: the moves such a win by fours may have at most."""
MISC = 11

TT_EXACT = 1
TT_LOWER = 2
TT_UPPER = 3

MAX_PLY = 120
"""Plies below the root the search goes at most (forced replies included)."""


@njit(cache=True, nogil=True, inline="always")
def _line_value(x: int, o: int, weights: np.ndarray) -> int:  # pragma: no cover - compiled
    if o == 0:
        return int(weights[x])
    if x == 0:
        return -int(weights[o])
    return 0


@njit(cache=True, nogil=True)
def load_eval(counts: np.ndarray, weights: np.ndarray, misc: np.ndarray) -> None:
    """Set ``misc[EVAL]`` from the line counts."""  # pragma: no cover - compiled
    total = 0
    for i in range(counts.shape[0]):
        total += _line_value(counts[i, 0], counts[i, 1], weights)
    misc[EVAL] = total


@njit(cache=True, nogil=True, inline="always")
def _reclass(line: int, k: int, counts: np.ndarray, members: np.ndarray,
             where: np.ndarray) -> None:  # pragma: no cover - compiled
    """File ``line`` in the lists of lines two short (row ``2 * side``) and one short (row
    ``2 * side + 1``) of each side, with none of the other side's marks, by its counts:
    ``members[row, 0]`` is a list's length and its lines follow; ``where[line, row]`` is
    the line's place in it (0: not there)."""
    for side in range(2):
        mine = counts[line, side]
        theirs = counts[line, 1 - side]
        want = -1
        if theirs == 0:
            if mine == k - 2:
                want = 0
            elif mine == k - 1:
                want = 1
        for j in range(2):
            row = 2 * side + j
            at = where[line, row]
            if j == want and at == 0:
                size = members[row, 0] + 1
                members[row, 0] = size
                members[row, size] = line
                where[line, row] = size
            elif j != want and at != 0:
                size = members[row, 0]
                last = members[row, size]
                members[row, at] = last
                where[last, row] = at
                where[line, row] = 0
                members[row, 0] = size - 1


@njit(cache=True, nogil=True)
def load_classes(counts: np.ndarray, k: int, members: np.ndarray,
                 where: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fill the lists of `_reclass` from the counts."""
    members[:, 0] = 0
    where[:, :] = 0
    for line in range(counts.shape[0]):
        _reclass(line, k, counts, members, where)


@njit(cache=True, nogil=True, inline="always")
def _play(c: int, side: int, state: np.ndarray, counts: np.ndarray, through_ptr: np.ndarray,
          through: np.ndarray, zobrist: np.ndarray, misc: np.ndarray, weights: np.ndarray,
          near: np.ndarray, box_ptr: np.ndarray, box: np.ndarray, members: np.ndarray,
          where: np.ndarray) -> None:  # pragma: no cover - compiled
    """Put ``side``'s mark on ``c``, keeping the evaluation, the near counts and the lists
    of lines short of a threat."""
    state[c] = side + 1
    ev = misc[EVAL]
    k = weights.shape[0] - 1
    for j in range(through_ptr[c], through_ptr[c + 1]):
        line = through[j]
        ev -= _line_value(counts[line, 0], counts[line, 1], weights)
        counts[line, side] += 1
        ev += _line_value(counts[line, 0], counts[line, 1], weights)
        _reclass(line, k, counts, members, where)
    misc[EVAL] = ev
    misc[HASH] = np.int64(np.uint64(misc[HASH]) ^ zobrist[c, side])
    for j in range(box_ptr[c], box_ptr[c + 1]):
        near[box[j]] += 1


@njit(cache=True, nogil=True, inline="always")
def _take_back(c: int, side: int, state: np.ndarray, counts: np.ndarray,
               through_ptr: np.ndarray, through: np.ndarray, zobrist: np.ndarray,
               misc: np.ndarray, weights: np.ndarray, near: np.ndarray, box_ptr: np.ndarray,
               box: np.ndarray, members: np.ndarray,
               where: np.ndarray) -> None:  # pragma: no cover - compiled
    """Undo `_play`."""
    state[c] = 0
    ev = misc[EVAL]
    k = weights.shape[0] - 1
    for j in range(through_ptr[c], through_ptr[c + 1]):
        line = through[j]
        ev -= _line_value(counts[line, 0], counts[line, 1], weights)
        counts[line, side] -= 1
        ev += _line_value(counts[line, 0], counts[line, 1], weights)
        _reclass(line, k, counts, members, where)
    misc[EVAL] = ev
    misc[HASH] = np.int64(np.uint64(misc[HASH]) ^ zobrist[c, side])
    for j in range(box_ptr[c], box_ptr[c + 1]):
        near[box[j]] -= 1


@njit(cache=True, nogil=True)
def doubles(side: int, state: np.ndarray, line_cells: np.ndarray, members: np.ndarray,
            partner: np.ndarray, seen: np.ndarray, misc: np.ndarray,
            out: np.ndarray) -> int:  # pragma: no cover - compiled
    """``side``'s doubles (cells after which it has threats on two cells or more) into
    ``out``; their number. ``partner`` and ``seen`` are scratch (one entry per cell)."""
    k = line_cells.shape[1]
    row = 2 * side
    if members[row, 0] < 2:
        return 0
    misc[STAMP] += 1
    stamp = misc[STAMP]
    n = 0
    for q in range(1, members[row, 0] + 1):
        i = members[row, q]
        a = -1
        b = -1
        for j in range(k):
            c = line_cells[i, j]
            if state[c] == 0:
                if a < 0:
                    a = c
                else:
                    b = c
        for c, other in ((a, b), (b, a)):
            if seen[c] != stamp:
                seen[c] = stamp
                partner[c] = other
            elif partner[c] != other and partner[c] >= 0:
                partner[c] = -1  # two partners: a double
                out[n] = c
                n += 1
    return n


@njit(cache=True, nogil=True)
def two_short_cells(side: int, state: np.ndarray, line_cells: np.ndarray, members: np.ndarray,
                    seen: np.ndarray, misc: np.ndarray, out: np.ndarray,
                    n: int) -> int:  # pragma: no cover - compiled
    """Append to ``out[n:]`` the empty cells of ``side``'s lines two short (with none of the
    other side's marks) not yet marked seen in this stamp; the new count. The caller bumps
    the stamp."""
    k = line_cells.shape[1]
    stamp = misc[STAMP]
    row = 2 * side
    for q in range(1, members[row, 0] + 1):
        i = members[row, q]
        for j in range(k):
            c = line_cells[i, j]
            if state[c] == 0 and seen[c] != stamp:
                seen[c] = stamp
                out[n] = c
                n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def move_score(c: int, side: int, counts: np.ndarray, through_ptr: np.ndarray,
               through: np.ndarray, attack: np.ndarray,
               defend: np.ndarray) -> int:  # pragma: no cover - compiled
    """What a move builds and blocks: ``attack[n]`` for each line through it open for the
    mover with n of its marks, ``defend[n]`` for each with n of the opponent's and none of
    the mover's."""
    s = 0
    for j in range(through_ptr[c], through_ptr[c + 1]):
        line = through[j]
        mine = counts[line, side]
        theirs = counts[line, 1 - side]
        if theirs == 0:
            s += attack[mine]
        if mine == 0:
            s += defend[theirs]
    return s


@njit(cache=True, nogil=True, inline="always")
def _sort(cells: np.ndarray, scores: np.ndarray, n: int) -> None:  # pragma: no cover
    """Sort ``cells[:n]`` by ``scores[:n]``, best first (insertion sort)."""
    for q in range(1, n):
        c = cells[q]
        w = scores[q]
        r = q - 1
        while r >= 0 and scores[r] < w:
            cells[r + 1] = cells[r]
            scores[r + 1] = scores[r]
            r -= 1
        cells[r + 1] = c
        scores[r + 1] = w


@njit(cache=True, nogil=True, inline="always")
def _tt_pack(score: int, depth: int, flag: int, move: int) -> np.int64:  # pragma: no cover
    return np.int64((score + (1 << 31)) | ((depth + 128) << 32) | (flag << 40)
                    | ((move + 1) << 42))


_SEARCH_SIG = ("int64(int64, int64, int64, int64, int64, int8[::1], int32[:, ::1], "
               "int64[:, ::1], int64[::1], int64[::1], uint64[:, ::1], int64[::1], "
               "int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], "
               "int64[::1], uint64[::1], int64[::1], int64[:, ::1], int64[:, ::1], "
               "int64[::1], int64[:, ::1], int64[:, ::1], uint64[::1], int64[::1], int64[::1], "
               "int64[:, ::1])")


@njit(_SEARCH_SIG, cache=True, nogil=True)
def _negamax(side: int, depth: int, ply: int, alpha: int, beta: int, state: np.ndarray,
             counts: np.ndarray, line_cells: np.ndarray, through_ptr: np.ndarray,
             through: np.ndarray, zobrist: np.ndarray, misc: np.ndarray, weights: np.ndarray,
             attack: np.ndarray, defend: np.ndarray, near: np.ndarray, box_ptr: np.ndarray,
             box: np.ndarray, seen: np.ndarray, tt_keys: np.ndarray, tt_data: np.ndarray,
             moves: np.ndarray, scores: np.ndarray, partner: np.ndarray,
             members: np.ndarray, where: np.ndarray, fkeys: np.ndarray, fdepth: np.ndarray,
             seq: np.ndarray, buf: np.ndarray) -> int:  # pragma: no cover - compiled
    """The value of the position for ``side`` (to move), within (alpha, beta)."""
    misc[NODES] += 1
    if misc[NODES] > misc[LIMIT]:
        return ABORTED
    me = side
    op = 1 - side
    k = line_cells.shape[1]
    # threats: mine complete a line now; two of the opponent's cannot both be taken
    block = -1
    blocks = 0
    if members[2 * me + 1, 0] > 0:
        return MATE - ply - 1
    for q in range(1, members[2 * op + 1, 0] + 1):
        e = empty_cell(members[2 * op + 1, q], state, line_cells)
        if blocks == 0:
            block = e
            blocks = 1
        elif e != block:
            return -(MATE - ply - 2)
    if ply >= MAX_PLY or ply + 1 >= moves.shape[0]:
        v = misc[EVAL]
        return int(v if me == 0 else -v)
    row = moves[ply]
    srow = scores[ply]
    n = 0
    key = np.uint64(misc[HASH]) ^ (np.uint64(0x9E3779B97F4A7C15) if me == 1 else np.uint64(0))
    slot = int(key & np.uint64(tt_keys.shape[0] - 1))
    best_move = -1
    if tt_keys[slot] == key:
        data = tt_data[slot]
        t_score = int(data & 0xFFFFFFFF) - (1 << 31)
        t_depth = int((data >> 32) & 0xFF) - 128
        t_flag = int((data >> 40) & 0x3)
        best_move = int(data >> 42) - 1
        if t_depth >= depth and blocks == 0:
            if t_score > WON:
                t_score -= ply
            elif t_score < -WON:
                t_score += ply
            if t_flag == TT_EXACT:
                return t_score
            if t_flag == TT_LOWER and t_score >= beta:
                return t_score
            if t_flag == TT_UPPER and t_score <= alpha:
                return t_score
    stand = -MATE
    quiet = depth <= 0
    draft = depth
    answering = 0
    if blocks == 1:  # forced: no depth used
        row[0] = block
        n = 1
        depth += 1
    else:
        dn = doubles(me, state, line_cells, members, partner, seen, misc, row)
        if dn > 0:
            return MATE - ply - 3
        on = doubles(op, state, line_cells, members, partner, seen, misc, row)
        if quiet:  # past the horizon: a win by fours, the static value, the mover's fours
            if misc[LEAF_FOURS] > 0 and members[2 * me, 0] > 0:
                limit = misc[LIMIT]
                cap = misc[NODES] + misc[LEAF_FOURS]
                if cap < limit:
                    misc[LIMIT] = cap
                r = vcf_below(me, misc[FOURS_DEPTH], -1, state, counts, line_cells,
                              through_ptr, through, zobrist, fkeys, fdepth, seen, misc, seq,
                              buf)
                if misc[LIMIT] == 0:  # stopped from outside meanwhile
                    return ABORTED
                misc[LIMIT] = limit
                if r > 0:
                    return MATE - ply - (2 * r + 1)
            v = misc[EVAL]
            stand = (v if me == 0 else -v) + weights[1] * misc[TEMPO]
            if on > 0:  # the mover must spend a move on the opponent's double, or more
                stand -= weights[k - 2] * 2 if on <= 2 else weights[k - 1] * 2
            if stand >= beta:
                return int(stand)
            if stand > alpha:
                alpha = stand
            if depth <= -misc[QUIET]:
                return int(stand)
            misc[STAMP] += 1
            n = two_short_cells(me, state, line_cells, members, seen, misc, row, 0)
        elif on > 0:  # answer the opponent's double: its lines two short, or a four
            answering = 1
            misc[STAMP] += 1
            n = two_short_cells(op, state, line_cells, members, seen, misc, row, 0)
            n = two_short_cells(me, state, line_cells, members, seen, misc, row, n)
        else:
            for c in range(state.shape[0]):
                if state[c] == 0 and near[c] > 0:
                    row[n] = c
                    n += 1
            if n == 0:
                for c in range(state.shape[0]):
                    if state[c] == 0:
                        row[n] = c
                        n += 1
                        break
            if n == 0:
                return 0
    for q in range(n):
        c = row[q]
        s = move_score(c, me, counts, through_ptr, through, attack, defend)
        if c == best_move:
            s += 1 << 40
        srow[q] = s
    _sort(row, srow, n)
    if not quiet and blocks == 0:
        width = misc[BEAM] if answering == 0 else misc[ANSWERS]
        if n > width:
            n = width
    if n == 0:
        return stand if stand > -MATE else 0
    best = stand
    chosen = -1
    original = alpha
    for q in range(n):
        c = row[q]
        _play(c, me, state, counts, through_ptr, through, zobrist, misc, weights, near,
              box_ptr, box, members, where)
        if q == 0 or quiet:
            v = -_negamax(op, depth - 1, ply + 1, -beta, -alpha, state, counts, line_cells,
                          through_ptr, through, zobrist, misc, weights, attack, defend, near,
                          box_ptr, box, seen, tt_keys, tt_data, moves, scores, partner,
                          members, where, fkeys, fdepth, seq, buf)
        else:  # a null window first (principal variation search)
            v = -_negamax(op, depth - 1, ply + 1, -alpha - 1, -alpha, state, counts,
                          line_cells, through_ptr, through, zobrist, misc, weights, attack,
                          defend, near, box_ptr, box, seen, tt_keys, tt_data, moves, scores,
                          partner, members, where, fkeys, fdepth, seq, buf)
            if alpha < v < beta and v != -ABORTED:
                v = -_negamax(op, depth - 1, ply + 1, -beta, -alpha, state, counts,
                              line_cells, through_ptr, through, zobrist, misc, weights,
                              attack, defend, near, box_ptr, box, seen, tt_keys, tt_data,
                              moves, scores, partner, members, where, fkeys, fdepth,
                              seq, buf)
        _take_back(c, me, state, counts, through_ptr, through, zobrist, misc, weights, near,
                   box_ptr, box, members, where)
        if v == -ABORTED:
            return ABORTED
        if v > best:
            best = v
            chosen = c
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    if best == -MATE:
        best = -(MATE - ply - 2)
    if not quiet:
        flag = TT_EXACT
        if best <= original:
            flag = TT_UPPER
        elif best >= beta:
            flag = TT_LOWER
        stored = best
        if stored > WON:
            stored += ply
        elif stored < -WON:
            stored -= ply
        tt_keys[slot] = key
        tt_data[slot] = _tt_pack(stored, draft, flag, chosen)
    return best


@njit(cache=True, nogil=True)
def root(side: int, depth: int, cells: np.ndarray, values: np.ndarray, state: np.ndarray,
         counts: np.ndarray, line_cells: np.ndarray, through_ptr: np.ndarray,
         through: np.ndarray, zobrist: np.ndarray, misc: np.ndarray, weights: np.ndarray,
         attack: np.ndarray, defend: np.ndarray, near: np.ndarray, box_ptr: np.ndarray,
         box: np.ndarray, seen: np.ndarray, tt_keys: np.ndarray, tt_data: np.ndarray,
         moves: np.ndarray, scores: np.ndarray, partner: np.ndarray, members: np.ndarray,
         where: np.ndarray, fkeys: np.ndarray, fdepth: np.ndarray, seq: np.ndarray,
         buf: np.ndarray, exact: int) -> int:  # pragma: no cover - compiled
    """Search each of ``cells`` (in that order) to ``depth`` plies for ``side``, to move:
    ``values`` receives each move's value (exact if ``exact``; else exact for the best and
    an upper bound for the others). Returns the index of the best, or -1 if the node limit
    stopped the search."""
    alpha = -MATE - 1
    best = -1
    for q in range(cells.shape[0]):
        c = cells[q]
        _play(c, side, state, counts, through_ptr, through, zobrist, misc, weights, near,
              box_ptr, box, members, where)
        lo = -MATE - 1 if exact else alpha
        if q == 0 or exact:
            v = -_negamax(1 - side, depth - 1, 1, -MATE - 1, -lo, state, counts, line_cells,
                          through_ptr, through, zobrist, misc, weights, attack, defend, near,
                          box_ptr, box, seen, tt_keys, tt_data, moves, scores, partner,
                          members, where, fkeys, fdepth, seq, buf)
        else:
            v = -_negamax(1 - side, depth - 1, 1, -alpha - 1, -alpha, state, counts,
                          line_cells, through_ptr, through, zobrist, misc, weights, attack,
                          defend, near, box_ptr, box, seen, tt_keys, tt_data, moves, scores,
                          partner, members, where, fkeys, fdepth, seq, buf)
            if v > alpha and v != -ABORTED:
                v = -_negamax(1 - side, depth - 1, 1, -MATE - 1, -alpha, state, counts,
                              line_cells, through_ptr, through, zobrist, misc, weights,
                              attack, defend, near, box_ptr, box, seen, tt_keys, tt_data,
                              moves, scores, partner, members, where, fkeys, fdepth,
                              seq, buf)
        _take_back(c, side, state, counts, through_ptr, through, zobrist, misc, weights, near,
                   box_ptr, box, members, where)
        if v == -ABORTED:
            return -1
        values[q] = v
        if best < 0 or v > alpha:
            best = q
            alpha = max(alpha, v)
    return best


@njit(cache=True, nogil=True)
def prepare(state: np.ndarray, counts: np.ndarray, weights: np.ndarray, misc: np.ndarray,
            near: np.ndarray, box_ptr: np.ndarray, box: np.ndarray, members: np.ndarray,
            where: np.ndarray) -> None:  # pragma: no cover - compiled
    """Set the evaluation, the near counts and the lists of lines short of a threat from
    the position (counts already loaded)."""
    load_eval(counts, weights, misc)
    load_classes(counts, weights.shape[0] - 1, members, where)
    near[:] = 0
    for c in range(state.shape[0]):
        if state[c] != 0:
            for j in range(box_ptr[c], box_ptr[c + 1]):
                near[box[j]] += 1


@njit(cache=True, nogil=True)
def order(side: int, cells: np.ndarray, counts: np.ndarray, through_ptr: np.ndarray,
          through: np.ndarray, attack: np.ndarray, defend: np.ndarray,
          out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Each of ``cells``' `move_score` for ``side`` into ``out``."""
    for q in range(cells.shape[0]):
        out[q] = move_score(cells[q], side, counts, through_ptr, through, attack, defend)
