"""What the levels and the hints know about a position past 64 cells (gomoku): proven facts
first, then estimates.

`WideAnalyst.analyse` asks, in this order, within one set of bounds (`WideBounds`):

1. a line to complete now (``Win(1)``); two threat cells of the opponent (every move loses:
   ``Loss(2)``), or one (every other move loses: ``Loss(2)``);
2. a win by fours, then a win by threats with threes (`tictactoe.search.wide.WideThreats`):
   the first move is a proven win (``Win`` where its length is exact, else ``ForcedWin``
   within the sequence's plies);
3. whether the opponent would win by threats if the mover passed. If not, no quiet move
   loses to a threat sequence (a mark of the mover's does not help the opponent), but a four
   does (it forces the opponent's reply, which may be a threat of its own): each four is
   asked. If so, each candidate in turn, best first by what it builds and blocks, is asked
   whether the opponent then wins by threats. A move after which it does is a proven loss
   (``ForcedLoss`` within the sequence's plies); the others stay candidates. The candidates
   are the moves near the marks (at most two steps away along every axis);
4. the α-β search (`tictactoe.search.wide.engine`) over the candidates not proven to lose:
   estimates (`Heuristic`, in `unit` s: lines a mark short of a threat). A lone candidate
   (the empty board's centre, a forced block) is played whatever the search says; it is
   searched `LONE_DEPTH` plies for its estimate, an even number, so that the side to move
   at the horizon is the mover, as at the root, and the bonus for having the move counts
   for the same side at both ends.

A win or loss the α-β search sees is not proven (it looks at the best moves only) and stays
an estimate near ±100.

>>> from tictactoe.core import Position
>>> p = Position("15x15k5")
>>> for name in ("h8", "a1", "i8", "a3", "j8", "a5"):
...     p.push_name(name)
>>> report = WideAnalyst(p.variant).analyse(p, WideBounds(nodes=20_000))
>>> sorted(p.move_name(c) for c in report.best), str(report.score)  # an open four
(['g8'], 'win in 3')

On the empty board the lone candidate is the centre, and the first player's estimate of it
is in its favour:

>>> empty = Position("15x15k5")
>>> report = WideAnalyst(empty.variant).analyse(empty, WideBounds(nodes=20_000))
>>> empty.move_name(report.best[0]), report.depth, report.score.value > 0
('h8', 2, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from tictactoe.core import Position, Variant
from tictactoe.proof.threats import board_of, cells_of, threat_cells
from tictactoe.search.score import ForcedLoss, ForcedWin, Heuristic, Loss, Score, Win
from tictactoe.search.solution import Solution, best_moves
from tictactoe.search.wide import ThreatWin, WideThreats, replays
from tictactoe.search.wide import alphabeta as ab
from tictactoe.search.wide.engine import ShapeSearch, _box
from tictactoe.search.wide_settings import ShapeSettings, WideBounds

OPENING = 3
"""While fewer marks than this are on the board, the candidates are the cells next to one."""

LONE_DEPTH = 2
"""Plies of the α-β search that estimates a lone candidate (the empty board's centre, a
forced block): the move is not in question, only its estimate. Even, so that the horizon
has the mover to move, as the root has: the evaluation gives the side to move the bonus for
having the move (`ShapeSettings.tempo`, about two units), and one ply handed it to the
opponent, so that the empty 15x15 board's centre read ``-1.7`` for X."""

CHECK_SHARE = 0.5
"""The share of the time that asking candidates whether they lose to the opponent's threats
may take; the α-β search gets the rest (the move it chooses is asked in any case)."""


@dataclass
class WideReport:
    """What `WideAnalyst.analyse` found: each considered move's score for the side to move
    (proven facts and estimates), the best moves, and what was searched."""

    scores: dict[int, Score]
    best: list[int]
    score: Score
    nodes: int = 0
    depth: int = 0
    threat_positions: int = 0
    reason: str = ""
    """Which step decided: ``win``, ``block``, ``threat-win``, ``lost``, ``search``."""
    safe: list[int] = field(default_factory=list)
    """The candidates not proven to lose, best first by the search."""


def unit(k: int, settings: ShapeSettings = ShapeSettings()) -> int:
    """Evaluation points in one estimate unit: the weight of a line a mark short of a threat.

    >>> unit(5)
    36
    """
    return max(1, round(settings.base ** max(0, k - 3)))


def as_estimate(value: int, k: int, settings: ShapeSettings = ShapeSettings()) -> Heuristic:
    """An α-β value as an estimate: units of `unit`, within ±90; a win or loss the search
    sees (not proven) near ±100, the nearer the sooner.

    >>> as_estimate(72, 5), as_estimate(ab.MATE - 5, 5)
    (Heuristic(value=2.0), Heuristic(value=99.95))
    """
    if value > ab.WON:
        return Heuristic(round(100.0 - (ab.MATE - value) / 100, 2))
    if value < -ab.WON:
        return Heuristic(round(-100.0 + (ab.MATE + value) / 100, 2))
    return Heuristic(round(max(-90.0, min(90.0, value / unit(k, settings))), 2))


def threat_score(win: ThreatWin | list[int], loss: bool = False) -> Score:
    """A threat-sequence win (or, with `loss`, the opponent's after the move) as a proven
    score. Exact where nothing faster is possible: a double threat is a win in 3; a loss to
    a threat of the opponent's that is open at once, in 4 (the mover had no better move
    there)."""
    moves = len(win) if isinstance(win, list) else win.moves
    if loss:
        plies = 2 * moves + 2
        return Loss(4) if moves == 1 and isinstance(win, list) else ForcedLoss(within=plies)
    plies = 2 * moves + 1
    return Win(plies) if plies <= 3 else ForcedWin(within=plies)


class WideAnalyst:
    """The threat searches and the α-β search of one variant, kept between questions."""

    def __init__(self, variant: Variant, settings: ShapeSettings = ShapeSettings()) -> None:
        self.variant = variant
        self.settings = settings
        self.threats = WideThreats(variant)
        self.search = ShapeSearch(variant, settings)
        self.board = board_of(variant)
        self._box_ptr, self._box = _box(variant)

    def near(self, position: Position) -> list[int]:
        """The empty cells at most two steps from a mark along every axis (the centre on an
        empty board; the cells next to a mark while there are fewer than `OPENING` marks:
        the second player's first answer is not left two cells away).

        >>> from tictactoe.core import Position
        >>> p = Position("15x15k5"); p.push_name("h8")
        >>> len(WideAnalyst(p.variant).near(p))
        8
        """
        variant = position.variant
        taken = position.x | position.o
        if not taken:
            return [variant.index(tuple((d - 1) // 2 for d in variant.shape))]
        if taken.bit_count() < OPENING:
            marked = 0
            for c in cells_of(taken):
                here = variant.coordinates(c)
                for d in cells_of(variant.full_mask & ~taken):
                    if max(abs(a - b) for a, b in zip(here, variant.coordinates(d),
                                                      strict=True)) == 1:
                        marked |= 1 << d
            return cells_of(marked)
        marked = 0
        for c in cells_of(taken):
            for j in range(int(self._box_ptr[c]), int(self._box_ptr[c + 1])):
                marked |= 1 << int(self._box[j])
        return cells_of(marked & ~taken)

    def analyse(self, position: Position, bounds: WideBounds = WideBounds()) -> WideReport:
        """See the module's docstring."""
        started = time.perf_counter()
        deadline = None if bounds.seconds is None else started + bounds.seconds
        board = self.board
        mover = position.turn
        me, op = position.marks(mover), position.marks(mover.other)
        legal = position.legal_moves()
        wins = threat_cells(board, me, op)
        if wins:
            cells = cells_of(wins)
            return WideReport({c: Win(1) for c in cells}, cells, Win(1), reason="win")
        blocks = cells_of(threat_cells(board, op, me))
        if len(blocks) > 1:
            scores: dict[int, Score] = {c: Loss(2) for c in legal}
            return WideReport(scores, blocks, Loss(2), reason="lost")
        facts: dict[int, Score] = {}
        if blocks:
            facts = {c: Loss(2) for c in legal if c != blocks[0]}
        visited = 0
        # the mover's wins by threats
        won: tuple[int, Score] | None = None
        fours = self.threats.run(me, op, bounds.threat_positions)
        visited += self.threats.last_visited
        if fours:
            won = fours[0], threat_score(fours)
        elif bounds.threes > 0:
            threes = self.threats.threes(me, op, bounds.threes, bounds.threat_positions)
            visited += self.threats.last_visited
            if threes is not None:
                won = threes.move, threat_score(threes)
        if won is not None:
            facts[won[0]] = won[1]
            if not bounds.every_loss:
                return WideReport(facts, [won[0]], won[1], threat_positions=visited,
                                  reason="threat-win")
        candidates = blocks or self.near(position)
        # the opponent's: if it has none with a free move, no move of the mover's loses so;
        # a win by fours first (a move it does not touch loses to it as it stands)
        their_fours = self.threats.run(op, me, bounds.threat_positions)
        threatened = their_fours is not None or self.threats.exhausted
        visited += self.threats.last_visited
        if not threatened and bounds.threes > 0:
            theirs = self.threats.threes(op, me, bounds.threes, bounds.threat_positions)
            threatened = theirs is not None or self.threats.exhausted
            visited += self.threats.last_visited
        self.search.load(position)
        everything = self.search.order(candidates)
        if their_fours:  # every candidate asked about fours, whatever the time
            for c in everything:
                if c in facts:
                    continue
                if replays(self.variant, op, me | 1 << c, their_fours):
                    facts[c] = threat_score(their_fours, loss=True)
                    continue
                run = self.threats.run(op, me | 1 << c, bounds.check_positions)
                visited += self.threats.last_visited
                if run is not None:
                    facts[c] = threat_score(run, loss=True)
        order = [c for c in everything if c not in facts]
        checks_until = None if bounds.seconds is None else \
            started + CHECK_SHARE * bounds.seconds
        # which candidates to ask: with no sequence of the opponent's at all, only the fours
        # (a four forces the reply, which may be the opponent's threat); else every one
        forcing = self._fours(me, op) if not threatened else -1
        verified: set[int] = set()
        safe = []
        held = 0  # candidates asked that hold
        for i, c in enumerate(order):
            if not forcing >> c & 1:
                safe.append(c)
                verified.add(c)
                continue
            if held >= bounds.checked or (
                    checks_until is not None and time.perf_counter() > checks_until):
                safe += [m for m in order[i:] if m not in facts]  # not asked: checked later
                break
            lost = self._loses(position, c, bounds)
            visited += self.threats.last_visited
            if lost is not None:
                facts[c] = lost
            else:
                safe.append(c)
                verified.add(c)
                held += 1
        if won is not None:  # the mover wins: the losing moves are labelled, no estimates
            if not blocks:  # and every move that makes two threats at once wins in 3
                for c in everything:
                    made = threat_cells(board, me | 1 << c, op)
                    if made & (made - 1):
                        facts[c] = Win(3)
            strongest = max(facts.values())
            best = [c for c in everything if facts.get(c) == strongest] or [won[0]]
            return WideReport(facts, best, facts[best[0]], threat_positions=visited,
                              reason="threat-win")
        if not safe:  # every candidate loses: the slowest loss, the most urgent block first
            slowest = max(facts[c] for c in everything)
            best = [c for c in everything if facts[c] == slowest][:1]
            return WideReport(facts, best, slowest, threat_positions=visited, reason="lost")
        if len(safe) == 1:  # the move is settled: the search only estimates it
            move = safe[0]
            facts.setdefault(move, Heuristic(0.0))
            self.search.load(position)
            found = self.search.deepen(safe, depth=LONE_DEPTH, nodes=bounds.nodes,
                                       deadline=deadline)
            estimate = as_estimate(found.values[move], position.variant.k, self.settings)
            scores = {**facts, move: facts[move] if facts[move].is_proven else estimate}
            return WideReport(scores, [move], scores[move], nodes=found.nodes,
                              depth=found.depth, threat_positions=visited, reason="block",
                              safe=safe)
        self.search.load(position)
        found = self.search.deepen(safe, depth=bounds.depth, nodes=bounds.nodes,
                                   deadline=deadline)
        while len(safe) > 1 and (threatened or forcing >> found.best & 1):
            # the search's choice is asked again, with the root's bound
            lost = self._loses(position, found.best, bounds, bounds.threat_positions)
            visited += self.threats.last_visited
            if lost is None:
                break
            facts[found.best] = lost
            safe.remove(found.best)
            found.values.pop(found.best, None)
            found.best = max(safe, key=lambda c: found.values.get(c, -ab.MATE))
        scores = dict(facts)
        k = position.variant.k
        for c in safe:
            scores[c] = as_estimate(found.values.get(c, 0), k, self.settings)
        if bounds.exact and found.finished:
            top = sorted(safe, key=lambda c: -found.values.get(c, 0))[:bounds.exact]
            exact = self.search.deepen(top, depth=max(1, found.depth - 1),
                                       nodes=bounds.nodes, deadline=deadline, exact=True)
            if exact.finished:
                for c in top:
                    scores[c] = as_estimate(exact.values[c], k, self.settings)
        ranked = sorted(safe, key=lambda c: (c != found.best, -found.values.get(c, 0)))
        return WideReport(scores, [found.best], scores[found.best], nodes=found.nodes,
                          depth=found.depth, threat_positions=visited, reason="search",
                          safe=ranked)

    def _fours(self, me: int, op: int) -> int:
        """The cells where the mover makes a four (the cells of its lines two short)."""
        k = self.board.k
        out = 0
        for m in self.board.masks:
            if not m & op and (m & me).bit_count() == k - 2:
                out |= m & ~me
        return out

    def _loses(self, position: Position, move: int, bounds: WideBounds,
               positions: int | None = None) -> Score | None:
        """The opponent's proven win after `move` by threats, as the mover's score, or None
        (none found within `positions`, by default the bound's ``check_positions``)."""
        budget = bounds.check_positions if positions is None else positions
        mover = position.turn
        me = position.marks(mover) | 1 << move
        op = position.marks(mover.other)
        run = self.threats.run(op, me, budget)
        if run is not None:
            return threat_score(run, loss=True)
        if bounds.threes <= 0:
            return None
        win = self.threats.threes(op, me, bounds.threes, budget)
        return None if win is None else threat_score(win, loss=True)




def warm_up(variant: Variant) -> None:
    """Load every compiled kernel the analysis uses on `variant` (about a second the first
    time in a process), so that the first move or hint spends its time searching.

    >>> warm_up(Variant.parse("9x9k5"))
    """
    p = Position(variant)
    p.push(variant.index(tuple((d - 1) // 2 for d in variant.shape)))
    WideAnalyst(variant).analyse(p, WideBounds(depth=2, nodes=100, threat_positions=100,
                                               check_positions=10, seconds=None))


HINT_MOVES = 5
"""Estimates a hint shows past 64 cells: the best few candidates, not every cell."""

HINT_BOUNDS = WideBounds(depth=8, nodes=40_000, threes=2, threat_positions=20_000,
                         check_positions=1_500, checked=1_000, seconds=0.45, exact=HINT_MOVES,
                         every_loss=True)
"""The analysis behind the hints past 64 cells: every candidate asked whether it loses to
the opponent's threats, then the best few estimated; under half a second on 15x15."""


def wide_solution(position: Position, *, seconds: float | None = None,
                  bounds: WideBounds = HINT_BOUNDS,
                  analyst: WideAnalyst | None = None) -> Solution:
    """What the analysis knows about the moves past 64 cells, as a `Solution` that does not
    score every move (``every_move`` False): the proven facts (moves that complete a line,
    win by threats, or lose to the opponent's threats), then the estimates of the best
    `HINT_MOVES` candidates, on the levels' scale (`as_estimate`).

    >>> from tictactoe.core import Position
    >>> p = Position("15x15k5")
    >>> for name in ("h8", "a1", "i8", "a3", "j8"):
    ...     p.push_name(name)
    >>> s = wide_solution(p)        # O must answer the open three at once
    >>> held = {p.move_name(c) for c, v in s.moves.items() if not v.is_proven}
    >>> held <= {"f8", "g8", "k8", "l8"} and len(held) >= 2   # an end, near or far
    True
    >>> str(s.moves[p.parse_move("a5")])    # a move elsewhere loses
    'loss in 4'
    """
    started = time.perf_counter()
    if seconds is not None:
        bounds = replace(bounds, seconds=min(seconds, bounds.seconds or seconds))
    analyst = analyst or WideAnalyst(position.variant)
    report = analyst.analyse(position, bounds)
    moves = {c: s for c, s in report.scores.items() if s.is_proven}
    for c in report.safe[:HINT_MOVES]:
        moves.setdefault(c, report.scores.get(c, Heuristic(0.0)))
    for c in report.best:
        moves.setdefault(c, report.scores[c])
    score = max(moves.values())
    best = best_moves(position.variant, moves)
    proven = all(s.is_proven for s in moves.values()) and len(moves) == len(
        position.legal_moves())
    return Solution(score=score, moves=dict(sorted(moves.items())), best=best, proven=proven,
                    nodes=report.nodes, seconds=time.perf_counter() - started,
                    mover=position.turn, engine="compiled", every_move=False)


__all__ = ["HINT_BOUNDS", "HINT_MOVES", "WideAnalyst", "WideBounds", "WideReport", "as_estimate",
           "threat_score", "unit", "warm_up", "wide_solution"]
