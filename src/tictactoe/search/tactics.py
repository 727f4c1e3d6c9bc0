"""The tactical floor: proven facts about each move from one-move checks and threat sequences.

A search stopped at its bound gives estimates. Before they are used, `tactical_scores` settles
every move it can with facts that need no deep search, on any board:

- a move that completes a line: ``Win(1)``;
- a move that leaves the opponent a line to complete: ``Loss(2)`` (the opponent had a threat
  elsewhere, or two);
- a move that makes threats on two cells while the opponent has none: ``Win(3)``;
- a move after which the opponent wins by a threat sequence (`tictactoe.proof.threats`, the
  checker's own definition): a loss within ``2n + 2`` plies for a sequence of n moves
  (``Loss(4)`` exactly for n = 1);
- a move that starts a threat sequence of the mover: a win within ``2n + 1`` plies
  (``Win(5)`` exactly for two moves);
- a move after which no line can be completed by either side: a ``Draw``.

Each is proven: the threat search's sequences are forced (every reply is the only move that
does not lose at once). The searches are bounded in positions visited, not in time, so the
answer is the same on every machine and for any thread count. Where the bound stops a search,
that move simply gets no fact.

`with_tactics` puts the facts under a solution: the moves a search left unproven take them,
so no estimate outranks a proven loss (`tictactoe.search.score` ranks proven wins first,
fastest first; then estimates and draws; then losses, slowest first).

>>> from tictactoe.core import Position
>>> facts = tactical_scores(Position("xx1/oo1/x2 o"))  # O wins at c2; X threatens c1
>>> {Position("3x3").move_name(c): str(s) for c, s in facts.items()}
{'c2': 'win in 1', 'b3': 'loss in 2', 'c3': 'loss in 2'}
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from tictactoe.core import Position, Variant
from tictactoe.extras import available
from tictactoe.proof.threats import Board, ThreatSearch, board_of, cells_of, threat_cells
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Loss, Score, Win
from tictactoe.search.solution import Solution, best_moves, check_solvable

if TYPE_CHECKING:
    from tictactoe.search.wide import WideThreats

TACTICS_POSITIONS = 40_000
"""Threat-search positions one classification may visit in all (about half a second of plain
Python at most; a typical position on the cube needs a few hundred)."""

SEARCH_POSITIONS = 4_000
"""Threat-search positions one question (one move, one side) may visit."""


def is_exact(score: Score) -> bool:
    """Whether a score is exact: a win or loss of known length, or a draw.

    >>> is_exact(Win(3)), is_exact(ForcedWin(within=7)), is_exact(Draw())
    (True, False, True)
    """
    return isinstance(score, Win | Loss | Draw)


def tactical_scores(position: Position, *, positions: int = TACTICS_POSITIONS,
                    sequence_moves: int | None = None) -> dict[int, Score]:
    """The moves settled by one-move checks and threat sequences, with their proven scores
    for the side to move (see the module's docstring). Moves left open are absent.

    `positions` bounds the threat searches in all, and `sequence_moves` (if given) the
    moves of a threat sequence (the levels below ``hard`` see short ones only). Raises like
    `tictactoe.search.solve` on an impossible or finished position.

    >>> from tictactoe.core import Position
    >>> p = Position("x2/1o1/2x o")  # a corner lets X fork: a threat sequence of one move
    >>> {p.move_name(c): str(s) for c, s in tactical_scores(p).items()}
    {'c1': 'loss in 4', 'a3': 'loss in 4'}
    """
    check_solvable(position)
    board = board_of(position.variant)
    mover = position.turn
    me, opp = position.marks(mover), position.marks(mover.other)
    empty = board.full & ~(me | opp)
    wins_now = threat_cells(board, me, opp)
    losses_now = threat_cells(board, opp, me)
    facts: dict[int, Score] = {}
    open_moves: list[tuple[int, int]] = []  # (move, the mover's threat cells after it)
    for cell in cells_of(empty):
        bit = 1 << cell
        if wins_now & bit:
            facts[cell] = Win(1)
        elif losses_now & ~bit:
            facts[cell] = Loss(2)  # a threat of the opponent's that this move leaves open
        else:
            threats = wins_now | _made(board, me | bit, opp, cell)
            if threats & (threats - 1):
                facts[cell] = Win(3)  # two cells to block and none of the opponent's
            elif not _any_open(board, me | bit, opp):
                facts[cell] = Draw()
            else:
                open_moves.append((cell, threats))
    if open_moves:
        _threat_sequences(board, me, opp, open_moves, facts, positions, sequence_moves)
    return dict(sorted(facts.items()))


def _made(board: Board, mine: int, theirs: int, cell: int) -> int:
    """The cells where `mine` completes a line through `cell`."""
    out = 0
    for m in board.through[cell]:
        if not m & theirs:
            rest = m & ~mine
            if rest and not rest & (rest - 1):
                out |= rest
    return out


def _any_open(board: Board, a: int, b: int) -> bool:
    """Whether some line is still open for one side (free of the other's marks)."""
    return any(not m & a or not m & b for m in board.masks)


def _threat_sequences(board: Board, me: int, opp: int, open_moves: list[tuple[int, int]],
                      facts: dict[int, Score], positions: int,
                      sequence_moves: int | None) -> None:
    """Settle the open moves by threat sequences, within `positions` in all."""
    search = ThreatSearch(board.variant) if sequence_moves is None else \
        ThreatSearch(board.variant, max_moves=sequence_moves)
    budget = [positions]

    def run(prover: int, opponent: int) -> list[int] | None:
        if budget[0] <= 0:
            return None
        search.max_positions = min(SEARCH_POSITIONS, budget[0])
        found = search.run(prover, opponent)
        budget[0] -= max(1, search.positions)
        return found

    # Adding a defender's mark never turns a failed threat search into a win (its threats
    # only constrain the attacker more), so if the opponent has no sequence with the mover
    # passing, it has none after any move; the same from the mover's side at the root.
    theirs_at_root = run(opp, me)
    opponent_may_win = theirs_at_root is not None or search.exhausted
    mine_at_root = run(me, opp)
    mover_may_win = mine_at_root is not None or search.exhausted
    if mine_at_root:
        first = mine_at_root[0]
        if first not in facts:
            facts[first] = _win_within(2 * len(mine_at_root) + 1)
    for cell, threats in open_moves:
        if cell in facts:
            continue
        bit = 1 << cell
        if opponent_may_win:
            sequence = run(opp, me | bit)
            if sequence:
                facts[cell] = _loss_within(2 * len(sequence) + 2)
                continue
        if mover_may_win and threats:  # one threat: the opponent's reply is forced
            sequence = run(me | bit, opp | threats)
            if sequence is not None:
                facts[cell] = _win_within(2 * len(sequence) + 3)


def _win_within(plies: int) -> Score:
    """A win by a threat sequence ending by ply `plies`: exact up to 5 plies (no move that
    is not an immediate win or a double threat can win sooner)."""
    return Win(plies) if plies <= 5 else ForcedWin(within=plies)


def _loss_within(plies: int) -> Score:
    """A loss by the opponent's threat sequence by ply `plies`: exact at 4 (the opponent had
    no immediate win)."""
    return Loss(plies) if plies <= 4 else ForcedLoss(within=plies)


def with_tactics(position: Position, solution: Solution, *,
                 positions: int = TACTICS_POSITIONS) -> Solution:
    """`solution` with the tactical floor under it: every move the search left unproven
    takes the proven score of `tactical_scores` where there is one. `best` and `score` are
    recomputed, and `proven` is true once every move has an exact score.

    >>> from tictactoe.core import Position
    >>> from tictactoe.search.score import Heuristic
    >>> p = Position("xx1/oo1/x2 o")
    >>> guess = Solution(score=Heuristic(8.0), moves={c: Heuristic(float(c)) for c in
    ...                  p.legal_moves()}, best=[8], proven=False, nodes=1, seconds=0.0,
    ...                  mover=p.turn)
    >>> fixed = with_tactics(p, guess)   # c3 was the best guess; it loses at once
    >>> str(fixed.score), fixed.best, str(fixed.moves[8]), str(fixed.moves[2])
    ('win in 1', [5], 'loss in 2', 'estimate +2')
    """
    if solution.proven or not solution.moves:
        return solution
    facts = tactical_scores(position, positions=positions)
    moves = dict(solution.moves)
    for cell, fact in facts.items():
        if cell in moves and not moves[cell].is_proven:
            moves[cell] = fact
    score = max(moves.values())
    best = best_moves(position.variant, moves)
    proven = solution.every_move and all(is_exact(s) for s in moves.values())
    return replace(solution, score=score, moves=moves, best=best, proven=proven)


def value_from_tactics(position: Position, solution: Solution, *,
                       positions: int = TACTICS_POSITIONS) -> Solution:
    """A value-only solution (`tictactoe.search.solve_value`) that a limit left unproven,
    proven by the tactical floor where it settles the value: a move proven to win (the
    floor labels every win in 1, 3 and 5 plies of the position, so its fastest is exact),
    or every move settled. Otherwise `solution` unchanged.

    >>> from tictactoe.core import Position
    >>> from tictactoe.search.score import Heuristic
    >>> p = Position("xx1/oo1/x2 o")
    >>> unproven = Solution(score=Heuristic(0.0), moves={}, best=[], proven=False, nodes=9,
    ...                     seconds=0.0, mover=p.turn, every_move=False)
    >>> s = value_from_tactics(p, unproven)
    >>> str(s.score), s.best, s.proven
    ('win in 1', [5], True)
    """
    if solution.proven:
        return solution
    facts = tactical_scores(position, positions=positions)
    if not facts:
        return solution
    best = max(facts, key=lambda cell: facts[cell])
    score = facts[best]
    if score.winner(position.turn) is not position.turn and len(facts) < len(
            position.legal_moves()):
        return solution  # no win, and some move is open: the value is not settled
    return replace(solution, score=score, moves={best: score}, best=[best], proven=True)


def quiet_refutation(position: Position, move: int, searcher: ThreatSearcher, *,
                     questions: int = 2_000, deadline: float | None = None) -> Score | None:
    """Whether the opponent refutes `move` with a quiet move: a reply after which every
    answer of the mover leaves the opponent a threat sequence (or a line to complete). The
    proven loss if so (``ForcedLoss``, within the longest of those sequences), else None:
    no such reply, or `questions` threat searches (or the time until `deadline`, a
    `time.perf_counter` reading) were not enough to tell.

    `move` should be open by `tactical_scores` (no sequence for the opponent right after
    it). This looks one quiet move deeper, at the attacks that threaten a threat sequence:
    the replies that may start one are the cells of lines the opponent is three marks short
    of (or closer), and an answer that holds is looked for first among the cells of the
    sequence the reply threatens.

    >>> from tictactoe.core import Position
    >>> p = Position("2xo/3x/4/4 o 3")   # 4x4, three in a row: O c2 has no sequence
    >>> tactical_scores(p).get(p.parse_move("c2")) is None   # against it at once, but
    True
    >>> quiet_refutation(p, p.parse_move("c2"), ThreatSearcher(p.variant, engine="python"))
    ForcedLoss(within=8)
    """
    board = board_of(position.variant)
    mover = position.turn
    me = position.marks(mover) | 1 << move
    opp = position.marks(mover.other)
    k = board.k
    asked = [0]

    def run(prover: int, opponent: int) -> list[int] | None:
        asked[0] += 1
        if deadline is not None and asked[0] & 15 == 0 and time.perf_counter() > deadline:
            asked[0] = questions
        return searcher.run(prover, opponent)

    empty = board.full & ~(me | opp)
    attacks = 0  # the opponent's replies that may threaten a sequence
    for m in board.masks:
        if not m & me and (m & opp).bit_count() >= k - 3:
            attacks |= m & empty
    for reply in cells_of(attacks):
        if asked[0] >= questions:
            return None
        theirs = opp | 1 << reply
        if threat_cells(board, me, theirs):
            continue  # the mover completes a line at once
        threat = run(theirs, me)  # the opponent's sequence if the mover passed
        if threat is None:
            continue  # none (or not found in time): every answer holds, or it is unknown
        blocks = threat_cells(board, theirs, me)
        if blocks & (blocks - 1):
            longest = 0  # two threats: lost next move
        elif blocks:
            answers = [blocks.bit_length() - 1]
        else:
            first = list(dict.fromkeys(threat))
            answers = first + [c for c in cells_of(board.full & ~(me | theirs))
                               if c not in first]
        if not blocks & (blocks - 1):
            longest = -1
            for answer in answers:
                if asked[0] >= questions:
                    return None
                sequence = run(theirs, me | 1 << answer)
                if sequence is None:
                    longest = -1
                    break  # this answer holds (or the search could not tell)
                longest = max(longest, len(sequence))
            if longest < 0:
                continue
        return ForcedLoss(within=2 * longest + 4)
    return None


def quiet_win(position: Position, move: int, searcher: ThreatSearcher, *,
              questions: int = 2_000, deadline: float | None = None) -> Score | None:
    """Whether `move` wins by force one quiet move deep: it threatens a threat sequence,
    and after every reply of the opponent the mover wins by a threat sequence (or completes
    a line). The proven win if so (``ForcedWin``, within the longest of those sequences),
    else None: some reply holds, or `questions` threat searches (or the time until
    `deadline`) were not enough to tell.

    `move` should be open by `tactical_scores` (the opponent has no sequence after it).

    >>> from tictactoe.core import Position
    >>> p = Position("4x4k3")   # on an empty 4x4 board with three in a row, X b2 wins
    >>> quiet_win(p, p.parse_move("b2"), ThreatSearcher(p.variant, engine="python"))
    Win(plies=5)
    """
    board = board_of(position.variant)
    mover = position.turn
    me = position.marks(mover) | 1 << move
    opp = position.marks(mover.other)
    if threat_cells(board, opp, me):
        return None  # the opponent completes a line at once
    if searcher.run(me, opp) is None:
        return None  # no sequence even if the opponent passed: no reply is forced
    asked = 1
    longest = 0
    for reply in cells_of(board.full & ~(me | opp)):
        asked += 1
        if asked > questions or (deadline is not None and asked & 15 == 0
                                 and time.perf_counter() > deadline):
            return None
        theirs = opp | 1 << reply  # no reply completes a line: checked above
        sequence = searcher.run(me, theirs)
        if sequence is None:
            return None  # this reply holds (or the search could not tell)
        longest = max(longest, len(sequence))
    return _win_within(2 * longest + 3)


class ThreatSearcher:
    """Threat-sequence questions on one variant, each bounded by `positions` positions: the
    compiled search of the proof-number engine (`tictactoe.search.pn.tss`, about ten times
    quicker) where the ``fast`` extra is installed and the board fits 64 cells, the compiled
    search for large boards (`tictactoe.search.wide`) past 64 cells, else the checker's
    readable one. Both decide the same definition; a search stopped by its bound
    answers None with `exhausted` set. One searcher serves one classification: the compiled
    one keeps what it learns in a table of its own, so the answers depend only on the
    questions asked.

    >>> from tictactoe.core import Variant
    >>> searcher = ThreatSearcher(Variant.parse("3x3"), engine="python")
    >>> searcher.run(1 << 0 | 1 << 8, 1 << 4)   # X a1 c3, O b2: X c1 makes two threats
    [2]
    """

    def __init__(self, variant: Variant, *, positions: int = SEARCH_POSITIONS,
                 engine: str = "auto") -> None:
        if engine not in ("auto", "compiled", "python"):
            raise ValueError(f"unknown engine {engine!r}: expected auto, compiled or python")
        self.variant = variant
        self.positions = positions
        self.visited = 0
        """Positions visited by every question so far."""
        self.exhausted = False
        """Whether the last question stopped at the bound."""
        fast = engine == "compiled" or (engine == "auto" and available("fast"))
        compiled = fast and variant.cells <= 64
        wide = fast and not compiled
        self._readable = (None if compiled or wide
                          else ThreatSearch(variant, max_positions=positions))
        self._compiled = _CompiledThreats(variant) if compiled else None
        self._wide: WideThreats | None = None
        if wide:
            from tictactoe.search.wide import WideThreats

            self._wide = WideThreats(variant)

    def run(self, prover: int, opponent: int) -> list[int] | None:
        """The prover's moves of a winning threat sequence, the prover to move (empty if it
        has a threat already), or None."""
        if self._compiled is not None:
            found, visited = self._compiled.run(prover, opponent, self.positions)
            self.exhausted = visited > self.positions
        elif self._wide is not None:
            found, visited = self._wide.search(prover, opponent, self.positions)
            self.exhausted = self._wide.exhausted
        else:
            assert self._readable is not None
            self._readable.max_positions = self.positions
            found = self._readable.run(prover, opponent)
            visited = self._readable.positions
            self.exhausted = self._readable.exhausted
        self.visited += visited
        return found


class _CompiledThreats:
    """The compiled threat search's tables for one variant."""

    def __init__(self, variant: Variant) -> None:
        import numpy as np

        from tictactoe.search.pn import tss
        from tictactoe.search.pn.tables import tables

        self._np = np
        self._tss = tss
        self.tables = tables(variant)
        self.tt = np.zeros((1 << 12, tss.TSS_ROW), dtype=np.uint64)
        self.misc = np.zeros(tss.TSS_MISC, dtype=np.int64)
        self.misc[tss.TSS_ORDER] = 1
        self.seq = np.zeros(variant.cells + 2, dtype=np.int64)
        self.most = max(1, variant.cells // 2)

    def run(self, prover: int, opponent: int, positions: int) -> tuple[list[int] | None, int]:
        t, u = self.tables, self._np.uint64
        before = int(self.misc[self._tss.TSS_NODES])
        found = self._tss.tss(u(prover), u(opponent), self.most, max(1, positions), t.full,
                              t.lines, t.through, t.line_count, t.k, self.tt, self.misc,
                              self.seq)
        visited = int(self.misc[self._tss.TSS_NODES]) - before
        if found == self._tss.UNKNOWN:
            return None, max(visited, positions + 1)
        return (None if found < 0 else [int(c) for c in self.seq[:found]]), visited


__all__ = ["SEARCH_POSITIONS", "TACTICS_POSITIONS", "ThreatSearcher", "is_exact",
           "quiet_refutation", "quiet_win", "tactical_scores", "value_from_tactics",
           "with_tactics"]
