"""Numba kernels of the exact solver, on 64-bit boards.

A position is two ``uint64`` masks, ``me`` (the side to move) and ``opp``. The value of a
position depends only on these two masks, so the transposition table is keyed on them and
serves X and O alike.

Scores are integers for the side to move: a win in ``d`` plies is ``BIG - d``, a loss in ``d``
plies is ``-(BIG - d)`` and a draw is 0, so a faster win and a slower loss score higher.

The search is fail-soft alpha-beta over these exact scores, with

* immediate win, forced block and double threat (two cells to block: lost in 2) at every node;
* dead-line pruning and distance bounds: a side needs at least as many more marks as the
  fewest empty cells of its open lines, which bounds its fastest possible win, and a side
  with no open line cannot win at all;
* a transposition table of lower and upper bounds in preallocated arrays;
* move ordering: table move, cells of lines one mark short of a threat (own, then the
  opponent's), history counts, then cells by the number of lines through them.

The drivers ask null-window questions: "is this a win?" and "a loss?" (a win/draw/loss
search, cheap because any win cuts), then "a win within d plies?" for d = 1, 3, 5, ... until
the answer is yes (iterative deepening on distance), which gives the fastest win exactly;
the slowest loss likewise.

The ``uint64`` masks are never mixed with signed integers: numba would silently make the
result a float.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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

# Indices into the int64 ``stats`` array shared by the kernels.
NODES = 0
LIMIT = 1
ABORTED = 2


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


_SEARCH = ("int64(uint64, uint64, int64, int64, int64, uint64[::1], uint64[::1], int64[::1], "
           "uint64, uint64[::1], uint64[::1], int16[::1], int16[::1], int8[::1], int64[::1], "
           "int64[:, ::1], int64[:, ::1], int64[::1])")


@njit(_SEARCH, cache=True)
def search(me: np.uint64, opp: np.uint64, alpha: int, beta: int, nempty: int,
           lines: np.ndarray, bits: np.ndarray, order: np.ndarray, full: np.uint64,
           tt_me: np.ndarray, tt_opp: np.ndarray, tt_lo: np.ndarray, tt_hi: np.ndarray,
           tt_move: np.ndarray, history: np.ndarray, moves: np.ndarray, keys: np.ndarray,
           stats: np.ndarray) -> int:  # pragma: no cover - compiled
    """Fail-soft alpha-beta: the exact score if inside (alpha, beta), else a bound past it.

    The position must not be over: ``opp``'s last move made no line.
    """
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT]:
        stats[ABORTED] = 1
        return 0
    if nempty == 0:
        return 0
    my_threat = ZERO
    opp_threat = ZERO
    my_two = ZERO
    opp_two = ZERO
    my_need = 99
    opp_need = 99
    for i in range(lines.shape[0]):
        line = lines[i]
        if line & opp == ZERO:
            e = line & ~me
            if e & (e - ONE) == ZERO:
                my_threat |= e
            else:
                c = popcount(e)
                if c < my_need:
                    my_need = int(c)
                if c == 2:
                    my_two |= e
        elif line & me == ZERO:
            e = line & ~opp
            if e & (e - ONE) == ZERO:
                opp_threat |= e
            else:
                c = popcount(e)
                if c < opp_need:
                    opp_need = int(c)
                if c == 2:
                    opp_two |= e
    if my_threat != ZERO:
        return BIG - 1
    if opp_threat != ZERO:
        if opp_threat & (opp_threat - ONE) != ZERO:
            return -(BIG - 2)  # a double threat: block one, lose to the other
        child = search(opp, me | opp_threat, lower(beta), lower(alpha), nempty - 1,
                       lines, bits, order, full, tt_me, tt_opp, tt_lo, tt_hi, tt_move,
                       history, moves, keys, stats)
        return lift(child)

    # Bounds: the fastest win each side could still make, or none without an open line.
    upper = 0
    if my_need < 99 and 2 * my_need - 1 <= nempty:
        upper = BIG - (2 * my_need - 1)
    floor = 0
    if opp_need < 99 and 2 * opp_need <= nempty:
        floor = -(BIG - 2 * opp_need)
    if upper <= alpha:
        return upper
    if floor >= beta:
        return floor
    if floor == upper:
        return floor

    mask = np.uint64(tt_me.shape[0] - 1)
    slot = table_index(me, opp, mask)
    hint = -1
    if tt_me[slot] == me and tt_opp[slot] == opp:
        lo = int(tt_lo[slot])
        hi = int(tt_hi[slot])
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
        hint = int(tt_move[slot])

    # Order the moves.
    empty = full & ~(me | opp)
    count = 0
    for j in range(order.shape[0]):
        cell = order[j]
        bit = bits[cell]
        if empty & bit == ZERO:
            continue
        key = history[cell]
        if bit & my_two != ZERO:
            key += 1 << 40
        if bit & opp_two != ZERO:
            key += 1 << 38
        if cell == hint:
            key += 1 << 50
        # insertion sort, stable: equal keys keep the static order
        pos = count
        while pos > 0 and keys[nempty, pos - 1] < key:
            keys[nempty, pos] = keys[nempty, pos - 1]
            moves[nempty, pos] = moves[nempty, pos - 1]
            pos -= 1
        keys[nempty, pos] = key
        moves[nempty, pos] = cell
        count += 1

    start_alpha = alpha
    best = -INF
    best_move = -1
    for j in range(count):
        cell = moves[nempty, j]
        value = lift(search(opp, me | bits[cell], lower(beta), lower(alpha), nempty - 1,
                            lines, bits, order, full, tt_me, tt_opp, tt_lo, tt_hi, tt_move,
                            history, moves, keys, stats))
        if stats[ABORTED]:
            return 0
        if value > best:
            best = value
            best_move = cell
            if value > alpha:
                alpha = value
                if value >= beta:
                    history[cell] += nempty * nempty
                    break

    if tt_me[slot] != me or tt_opp[slot] != opp:
        tt_me[slot] = me
        tt_opp[slot] = opp
        tt_lo[slot] = -INF
        tt_hi[slot] = INF
    if best <= start_alpha:
        if best < tt_hi[slot]:
            tt_hi[slot] = best
    elif best >= beta:
        if best > tt_lo[slot]:
            tt_lo[slot] = best
    else:
        tt_lo[slot] = best
        tt_hi[slot] = best
    tt_move[slot] = best_move
    return best


@njit(cache=True)
def exact(me: np.uint64, opp: np.uint64, nempty: int,
          lines: np.ndarray, bits: np.ndarray, order: np.ndarray, full: np.uint64,
          tt_me: np.ndarray, tt_opp: np.ndarray, tt_lo: np.ndarray, tt_hi: np.ndarray,
          tt_move: np.ndarray, history: np.ndarray, moves: np.ndarray, keys: np.ndarray,
          stats: np.ndarray) -> int:  # pragma: no cover - compiled
    """The exact score of a position that is not over (0 if the node limit stopped it)."""
    r = search(me, opp, 0, 1, nempty, lines, bits, order, full, tt_me, tt_opp, tt_lo, tt_hi,
               tt_move, history, moves, keys, stats)
    if stats[ABORTED]:
        return 0
    if r >= 1:  # a win: the fastest, by asking "a win within d?" for d = 1, 3, 5, ...
        slowest = BIG - r
        d = 1
        while d < slowest:
            t = BIG - d
            r = search(me, opp, t - 1, t, nempty, lines, bits, order, full, tt_me, tt_opp,
                       tt_lo, tt_hi, tt_move, history, moves, keys, stats)
            if stats[ABORTED]:
                return 0
            if r >= t:
                return t
            d += 2
        return BIG - slowest
    r = search(me, opp, -1, 0, nempty, lines, bits, order, full, tt_me, tt_opp, tt_lo, tt_hi,
               tt_move, history, moves, keys, stats)
    if stats[ABORTED]:
        return 0
    if r >= 0:
        return 0
    # a loss: the slowest, by asking "still alive after d plies?" for d = 2, 4, 6, ...
    fastest = BIG + r
    d = 2
    while d < fastest:
        t = -(BIG - d)
        r = search(me, opp, t, t + 1, nempty, lines, bits, order, full, tt_me, tt_opp,
                   tt_lo, tt_hi, tt_move, history, moves, keys, stats)
        if stats[ABORTED]:
            return 0
        if r <= t:
            return t
        d += 2
    return -(BIG - fastest)


@njit(cache=True)
def exact_all(mes: np.ndarray, opps: np.ndarray, nempties: np.ndarray, out: np.ndarray,
              lines: np.ndarray, bits: np.ndarray, order: np.ndarray, full: np.uint64,
              tt_me: np.ndarray, tt_opp: np.ndarray, tt_lo: np.ndarray, tt_hi: np.ndarray,
              tt_move: np.ndarray, history: np.ndarray, moves: np.ndarray, keys: np.ndarray,
              stats: np.ndarray) -> None:  # pragma: no cover - compiled
    """The exact score of many positions (none over), sharing one table: a strong solution."""
    for i in range(mes.shape[0]):
        out[i] = exact(mes[i], opps[i], nempties[i], lines, bits, order, full, tt_me, tt_opp,
                       tt_lo, tt_hi, tt_move, history, moves, keys, stats)
