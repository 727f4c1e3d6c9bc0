"""The players behind the levels `easy`, `medium` and `hard`, and the reference player
`greedy`.

`TacticalPlayer` stands on the tactical floor (`tictactoe.search.tactics`): it takes a proven
win, never plays a move proven to lose while another is open, and otherwise searches α-β to a
fixed depth over the open moves. Its evaluation weighs every line still open for one side
by the marks on it (``4 ** (marks - 1)``), so three in a row counts far more than three
scattered marks. Inside the search a side that can complete a line wins at once, a side
facing two threats loses, and a single threat must be blocked (such forced moves do not
use up depth), so the search sees every fork within its horizon.

`GreedyPlayer` is the one-ply reference: win at once, else block, else the cell on the most
open lines.

>>> from tictactoe.core import Position
>>> p = Position("xxx1/4/4/4:4/1o2/4/4:4/2o1/4/4:4/4/4/4 o")  # X threatens 1:d1
>>> p.move_name(TacticalPlayer(depth=2, seed=1).choose(p).move)
'1:d1'
>>> p.move_name(GreedyPlayer(seed=1).choose(p).move)
'1:d1'
"""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

from tictactoe.core import Position, Side, TicTacToeError, Variant
from tictactoe.extras import available
from tictactoe.players.base import Choice, Limit, check_playable
from tictactoe.search.knowledge import WIDE_CELLS
from tictactoe.search.score import ForcedLoss, Heuristic, Loss, Score, Win
from tictactoe.search.solver import quickest_engine, solve
from tictactoe.search.tactics import (
    ThreatSearcher,
    quiet_refutation,
    quiet_win,
    tactical_scores,
)

if TYPE_CHECKING:
    from tictactoe.players.wide_levels import WideLevel

_MATE = 1_000_000
"""A win at ply p from the root scores ``_MATE - p``."""


LARGE_BOARD_SECONDS = 0.6
"""The time a move may take on a large board when the caller gives no limit."""

NEAR = 2
"""How near (in steps along every axis) a considered move is to a mark on a large board."""


DEFENCE_POSITIONS = 2_000
"""Positions each threat search of the defence check may visit."""

DEFENCE_QUESTIONS = 400
"""Threat searches the defence check may ask about one move."""

FORKS_AGAINST = 1_000
"""What two or more fork cells of the opponent (each makes two threats at once) cost the side
to move at the search's horizon."""


@cache
def _around(variant: Variant) -> tuple[int, ...]:
    """For each cell, the mask of the cells at most `NEAR` steps from it along every axis."""
    steps = list(itertools.product(range(-NEAR, NEAR + 1), repeat=len(variant.shape)))
    out = []
    for cell in range(variant.cells):
        here = variant.coordinates(cell)
        mask = 0
        for step in steps:
            there = tuple(a + b for a, b in zip(here, step, strict=True))
            if all(0 <= t < d for t, d in zip(there, variant.shape, strict=True)):
                mask |= 1 << variant.index(there)
        out.append(mask)
    return tuple(out)


def near_moves(position: Position, moves: list[int]) -> list[int]:
    """On a large board (`WIDE_CELLS`), those of `moves` near a mark (`NEAR`), or the centre
    on an empty board, if any is; elsewhere all of them.

    >>> p = Position("15x15k5"); p.push_name("a1")
    >>> [p.move_name(c) for c in near_moves(p, p.legal_moves())][:4]
    ['b1', 'c1', 'a2', 'b2']
    """
    if position.variant.cells <= WIDE_CELLS:
        return moves
    taken = position.x | position.o
    around = _around(position.variant)
    near = 1 << _centre(position.variant) if not taken else 0
    for cell in range(position.variant.cells):
        if taken >> cell & 1:
            near |= around[cell]
    return [c for c in moves if near >> c & 1] or moves


def _centre(variant: Variant) -> int:
    """The cell at the middle of the board (rounded down on even sides)."""
    return variant.index(tuple((d - 1) // 2 for d in variant.shape))


class _SearchStopped(Exception):
    """The deadline passed inside the search."""


class LineBoard:
    """A position as counts of each side's marks on every line, updated move by move, with
    the evaluation kept up to date (the sum over lines, from X's side).

    >>> board = LineBoard(Variant.parse("3x3"))
    >>> board.push(4, 0); board.evaluation   # X in the centre: 4 lines
    4
    >>> board.push(0, 1); board.evaluation   # O in a corner takes one of them, opens 2
    1
    >>> board.pop(0, 1); board.pop(4, 0); board.evaluation
    0
    """

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.k = variant.k
        self.cells = variant.cells
        self.masks = variant.line_masks
        self.through = variant.lines_through
        self.weight: list[int] = [0] + [int(4 ** (n - 1)) for n in range(1, self.k + 1)]
        self.counts = ([0] * len(self.masks), [0] * len(self.masks))
        self.marks = [0, 0]
        self.evaluation = 0
        """Σ over lines open for X of weight[X's marks] minus the same for O."""
        self.near = 0
        """On a large board (`WIDE_CELLS`), the empty and taken cells within `NEAR` steps of a
        mark (the centre on an empty board): where the search looks for moves."""
        self._near_stack: list[int] = []
        self._around = _around(variant) if variant.cells > WIDE_CELLS else None
        if self._around is not None:
            self.near = 1 << _centre(variant)
        self.threats: tuple[set[int], set[int]] = (set(), set())
        """Each side's lines with k-1 of its marks and none of the other's."""
        self.twos: tuple[set[int], set[int]] = (set(), set())
        """Each side's lines with k-2 of its marks and none of the other's."""
        if self.k == 2:
            for line in range(len(self.masks)):
                self._classify(line)

    def load(self, x: int, o: int) -> None:
        for side, mask in ((0, x), (1, o)):
            cell = 0
            while mask:
                if mask & 1:
                    self.push(cell, side)
                mask >>= 1
                cell += 1

    def _value(self, line: int) -> int:
        cx, co = self.counts[0][line], self.counts[1][line]
        if co == 0:
            return self.weight[cx]
        if cx == 0:
            return -self.weight[co]
        return 0

    def push(self, cell: int, side: int) -> None:
        mine = self.counts[side]
        for line in self.through[cell]:
            self.evaluation -= self._value(line)
            mine[line] += 1
            self.evaluation += self._value(line)
            self._classify(line)
        if self._around is not None:
            self._near_stack.append(self.near)
            self.near = (self.near if self.marks[0] | self.marks[1] else 0) | self._around[cell]
        self.marks[side] |= 1 << cell

    def pop(self, cell: int, side: int) -> None:
        mine = self.counts[side]
        for line in self.through[cell]:
            self.evaluation -= self._value(line)
            mine[line] -= 1
            self.evaluation += self._value(line)
            self._classify(line)
        if self._around is not None:
            self.near = self._near_stack.pop()
        self.marks[side] &= ~(1 << cell)

    def candidates(self) -> int:
        """The empty cells worth a look: every one, or on a large board those near a mark.

        >>> board = LineBoard(Variant.parse("15x15k5"))
        >>> bin(board.candidates()).count("1"), board.variant.cell_name(
        ...     board.candidates().bit_length() - 1)   # the empty board: the centre
        (1, 'h8')
        >>> board.push(112, 0); bin(board.candidates()).count("1")   # 5x5 around h8, less it
        24
        """
        empty = self.variant.full_mask & ~(self.marks[0] | self.marks[1])
        return empty & self.near if self._around is not None else empty

    def _classify(self, line: int) -> None:
        """File a line under each side's threats (k-1 of its marks, none of the other's)
        and twos (k-2 of its marks, none of the other's)."""
        k = self.k
        for side in (0, 1):
            mine, theirs = self.counts[side][line], self.counts[1 - side][line]
            if theirs == 0 and mine == k - 1:
                self.threats[side].add(line)
            else:
                self.threats[side].discard(line)
            if theirs == 0 and mine == k - 2:
                self.twos[side].add(line)
            else:
                self.twos[side].discard(line)

    def threat_cells(self, side: int) -> int:
        """The empty cells where `side` completes a line."""
        taken = self.marks[0] | self.marks[1]
        out = 0
        for line in self.threats[side]:
            out |= self.masks[line] & ~taken
        return out

    def fork_cells(self, side: int) -> int:
        """The empty cells where `side` makes threats on two cells at once."""
        taken = self.marks[0] | self.marks[1]
        partners: dict[int, int] = {}
        for line in self.twos[side]:
            rest = self.masks[line] & ~taken
            a = rest & -rest
            b = rest ^ a
            partners[a] = partners.get(a, 0) | b
            partners[b] = partners.get(b, 0) | a
        out = 0
        for bit, others in partners.items():
            if others & (others - 1):
                out |= bit
        return out

    def won(self, side: int) -> bool:
        counts = self.counts[side]
        return any(counts[line] == self.k for line in range(len(self.masks)))

    def move_value(self, cell: int, side: int) -> int:
        """How much a cell is worth to play, for ordering: the weight it adds to the mover's
        open lines plus the weight it takes from the opponent's."""
        mine, theirs = self.counts[side], self.counts[1 - side]
        weight = self.weight
        value = 0
        for line in self.through[cell]:
            if theirs[line] == 0:
                value += weight[mine[line] + 1]
            if mine[line] == 0:
                value += weight[theirs[line] + 1]
        return value


class TacticalPlayer:
    """The tactical floor, then α-β to `depth` plies over the open moves (see the module's
    docstring); `beam` moves at most are searched at each inner node, the best by
    `LineBoard.move_value`.

    - `mistakes`: the chance of a random move instead, among those not proven to lose
      within `careful` plies (2: not at once; 4: nor to a fork);
    - `floor_positions`, `sequence_moves`: the floor's bounds (0 positions keeps only the
      one-move facts, wins and blocks; `sequence_moves` caps the threat sequences seen);
    - `solve_nodes`: ask the solver first, within that many nodes;
    - `defence`: look for a quiet win first, then check that many of the best moves against
      the opponent's quiet attacks (`tictactoe.search.tactics.quiet_refutation`), and
      with `verify_nodes` by proof-number search too (does the opponent win after it?), and
      of those that hold play the one that leaves the most room (`room_left`);
    - `wide`: the level's search past 64 cells (`tictactoe.players.wide`), used there
      instead of all the above when the ``fast`` extra is installed.
    """

    def __init__(self, *, depth: int = 2, beam: int = 10, mistakes: float = 0.0,
                 careful: int = 2, floor_positions: int | None = None,
                 sequence_moves: int | None = None, solve_nodes: int = 0, defence: int = 0,
                 verify_nodes: int = 0, seed: int | None = None,
                 name: str = "tactical", wide: WideLevel | None = None) -> None:
        if depth < 1:
            raise TicTacToeError(f"depth must be at least 1, not {depth}")
        if not 0.0 <= mistakes <= 1.0:
            raise TicTacToeError(f"the chance of a mistake must be 0-1, not {mistakes}")
        self.name = name
        self.depth = depth
        self.beam = beam
        self.mistakes = mistakes
        self.careful = careful
        self.floor_positions = floor_positions
        self.sequence_moves = sequence_moves
        self.solve_nodes = solve_nodes
        self.defence = defence
        self.verify_nodes = verify_nodes
        self.rng = random.Random(seed)
        self.nodes = 0
        self._deadline: float | None = None
        self.wide = wide
        self._wide: object = None

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        started = time.perf_counter()
        legal = check_playable(position)
        if self.wide is not None and position.variant.cells > WIDE_CELLS \
                and available("fast"):
            from tictactoe.players.wide import WidePlayer

            if not isinstance(self._wide, WidePlayer):
                self._wide = WidePlayer(self.wide, seed=self.rng.randrange(2**32),
                                        name=self.name)
            return self._wide.play(position, limit, started)
        if limit.seconds is None and position.variant.cells > WIDE_CELLS:
            limit = replace(limit, seconds=LARGE_BOARD_SECONDS)
        if self.solve_nodes and position.variant.cells <= WIDE_CELLS:
            solution = solve(position, nodes=self.solve_nodes,
                             seconds=None if limit.seconds is None else limit.seconds / 2,
                             engine=quickest_engine(position))
            if solution.proven:
                move = self.rng.choice(preferred(position, solution.best))
                return Choice(move, solution.moves[move])
        facts = tactical_scores(position, sequence_moves=self.sequence_moves,
                                **({} if self.floor_positions is None
                                   else {"positions": self.floor_positions}))
        mover = position.turn
        wins = [c for c, s in facts.items() if s.winner(mover) is mover]
        if wins:
            best = max(facts[c] for c in wins)
            return Choice(self.rng.choice([c for c in wins if facts[c] == best]), best)
        open_moves = [c for c in legal if c not in facts or facts[c].winner(mover) is None]
        if not open_moves:  # every move loses: the slowest loss
            worst = max(facts.values())
            return Choice(self.rng.choice([c for c in legal if facts[c] == worst]), worst)
        if self.mistakes and self.rng.random() < self.mistakes:
            pool = [c for c in legal if not _loses_within(facts.get(c), self.careful)]
            move = self.rng.choice(pool or open_moves)
            return Choice(move, facts.get(move))
        if len(open_moves) == 1:
            return Choice(open_moves[0], facts.get(open_moves[0], Heuristic(0.0)))
        open_moves = near_moves(position, open_moves)
        deadline = None if limit.seconds is None else started + 0.9 * limit.seconds
        if self.defence:  # a quiet move that wins by force, first
            won = quiet_wins(position, open_moves, deadline)
            if won:
                best = max(won.values())
                return Choice(self.rng.choice([c for c in won if won[c] == best]), best)
        depth = limit.depth if limit.depth is not None else self.depth
        scores = self.root_scores(position, open_moves, depth,
                                  None if deadline is None else _left(deadline, 0.5))
        ranked = sorted(scores, key=lambda c: (scores[c], self.rng.random()), reverse=True)
        if self.defence:
            held = self._defend(position, ranked, facts, deadline)
            if held is not None:
                return Choice(held, facts.get(held, scores[held]))
            ranked = [c for c in ranked if c not in facts] or ranked
        return Choice(ranked[0], facts.get(ranked[0], scores[ranked[0]]))

    def _defend(self, position: Position, ranked: list[int], facts: dict[int, Score],
                deadline: float | None) -> int | None:
        """The best of the first `defence` moves of `ranked` that hold against the
        opponent's quiet attacks (and proof-number search), by the room they leave; the
        moves refuted go into `facts`. None if none holds (or time ran out first)."""
        searcher = ThreatSearcher(position.variant, positions=DEFENCE_POSITIONS)
        room: dict[int, int] = {}
        fresh = deadline is None  # no time limit: the same answer every time (a fresh table)
        for move in ranked[:self.defence]:
            if deadline is not None and time.perf_counter() > deadline:
                break
            refuted = quiet_refutation(position, move, searcher, questions=DEFENCE_QUESTIONS,
                                       deadline=deadline)
            if refuted is None and self.verify_nodes:
                refuted = _proven_loss(position, move, self.verify_nodes, deadline, fresh)
                fresh = False
            if refuted is not None:
                facts[move] = refuted
                continue
            room[move] = room_left(position, move)
            if room[move] >= ROOM or len(room) >= ROOM_CANDIDATES:
                break
        if not room:
            return None
        return max(room, key=lambda c: (min(room[c], ROOM), -ranked.index(c)))

    def root_scores(self, position: Position, moves: list[int], depth: int,
                    seconds: float | None = None) -> dict[int, Score]:
        """Each move's score for the mover: α-β to `depth` plies (iteratively deepened from
        one ply; a deadline keeps the deepest finished pass)."""
        board = LineBoard(position.variant)
        board.load(position.x, position.o)
        side = 0 if position.turn is Side.X else 1
        self.nodes = 0
        self._deadline = None if seconds is None else time.perf_counter() + 0.8 * seconds
        moves = sorted(moves, key=lambda c: -board.move_value(c, side))
        scores: dict[int, Score] = {}
        for plies in range(1, depth + 1):
            try:
                found = self._root_pass(board, side, moves, plies)
            except _SearchStopped:
                break
            scores = found
            moves = sorted(moves, key=lambda c: found[c], reverse=True)
        if not scores:  # not even one ply in time: the static order
            scores = {c: Heuristic(float(-i)) for i, c in enumerate(moves)}
        return scores

    def _root_pass(self, board: LineBoard, side: int, moves: list[int],
                   depth: int) -> dict[int, Score]:
        out: dict[int, Score] = {}
        alpha = -_MATE - 1  # one below the best so far, so that moves as good stay exact
        for cell in moves:
            board.push(cell, side)
            value = -self._negamax(board, 1 - side, depth - 1, 1, -_MATE - 1, -alpha)
            board.pop(cell, side)
            out[cell] = _as_estimate(value, board.weight[board.k - 1])
            alpha = max(alpha, value - 1)
        return out

    def _negamax(self, board: LineBoard, side: int, depth: int, ply: int, alpha: int,
                 beta: int) -> int:
        self.nodes += 1
        if self._deadline is not None and self.nodes & 127 == 0 \
                and time.perf_counter() > self._deadline:
            raise _SearchStopped
        if board.threats[side]:
            return _MATE - (ply + 1)  # completes a line now
        taken = board.marks[0] | board.marks[1]
        if taken == board.variant.full_mask:
            return 0
        blocks = board.threat_cells(1 - side)
        if blocks & (blocks - 1):
            return -(_MATE - (ply + 2))  # two threats: one is completed next
        if blocks:
            moves = [blocks.bit_length() - 1]  # forced: does not use up depth
        elif depth <= 0:
            if board.fork_cells(side):
                return _MATE - (ply + 3)  # two threats at once, and none to answer
            value = board.evaluation if side == 0 else -board.evaluation
            forks = board.fork_cells(1 - side)
            if forks & (forks - 1):
                value -= FORKS_AGAINST  # two forks to stop: at most one is blocked
            return value
        else:
            empty = board.candidates()
            cells = []
            while empty:
                low = empty & -empty
                cells.append(low.bit_length() - 1)
                empty ^= low
            cells.sort(key=lambda c: -board.move_value(c, side))
            moves = cells[:self.beam]
            depth -= 1
        best = -_MATE - 1
        for cell in moves:
            board.push(cell, side)
            value = -self._negamax(board, 1 - side, depth, ply + 1, -beta, -alpha)
            board.pop(cell, side)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best


ROOM = 6
"""A move after which every strong reply of the opponent still leaves this many moves not
proven to lose is played at once; below it, the defence compares a few candidates."""

ROOM_CANDIDATES = 3
"""Candidates that hold whose room the defence compares at most."""

ROOM_REPLIES = 4
"""The opponent's replies (its best by `LineBoard.move_value`) the room is measured after."""

ROOM_POSITIONS = 2_000
"""Threat-search positions of each classification that measures the room."""


def room_left(position: Position, move: int) -> int:
    """The fewest moves not proven to lose (by one-move checks and threat sequences) that
    the mover has after `move` and one of the opponent's strongest replies: how much room
    the move leaves. A move that keeps the room wide is harder to attack.

    >>> p = Position("5x5k4")
    >>> room_left(p, p.parse_move("c3")) > 10
    True
    """
    after = position.play(move)
    board = LineBoard(after.variant)
    board.load(after.x, after.o)
    side = 0 if after.turn is Side.X else 1
    replies = sorted(after.legal_moves(), key=lambda c: -board.move_value(c, side))
    room = len(after.legal_moves())
    for reply in replies[:ROOM_REPLIES]:
        then = after.play(reply)
        if then.is_game_over():
            return 0
        facts = tactical_scores(then, positions=ROOM_POSITIONS)
        mover = then.turn
        held = sum(1 for c in then.legal_moves()
                   if c not in facts or facts[c].winner(mover) is not mover.other)
        room = min(room, held)
    return room


def _loses_within(score: Score | None, plies: int) -> bool:
    """Whether `score` is a loss in at most `plies` plies."""
    return isinstance(score, Loss) and score.plies <= plies


def _left(deadline: float, fraction: float) -> float:
    """`fraction` of the seconds left until `deadline`, at least a hundredth."""
    return max(0.01, fraction * (deadline - time.perf_counter()))


def _proven_loss(position: Position, move: int, nodes: int, deadline: float | None,
                 fresh: bool = False) -> Score | None:
    """``ForcedLoss()`` if proof-number search proves, within `nodes` nodes and half the
    time left, that the opponent wins after `move`; None otherwise, or where proof-number
    search does not apply (the ``fast`` extra, 17 to 64 cells). `fresh` empties the
    search's table first."""
    from tictactoe.search.knowledge import proof_numbers_apply

    if not proof_numbers_apply(position):
        return None
    from tictactoe.search.pn.shared import shared_searches

    searches = shared_searches(position.variant)
    opponent = position.turn.other
    with searches.lock:
        if fresh:
            searches.of(opponent).clear()
        found = searches.of(opponent).prove(
            position.play(move), attacker=opponent, nodes=nodes,
            seconds=None if deadline is None else _left(deadline, 0.5))
    return ForcedLoss() if found.outcome == "win" else None


def quiet_wins(position: Position, moves: list[int],
               deadline: float | None = None) -> dict[int, Score]:
    """The moves among `moves` (open by the tactical floor) that win by force one quiet
    move deep (`tictactoe.search.tactics.quiet_win`), with their proven scores; the search
    stops at `deadline` (a `time.perf_counter` reading)."""
    searcher = ThreatSearcher(position.variant, positions=DEFENCE_POSITIONS)
    won: dict[int, Score] = {}
    for move in moves:
        if deadline is not None and time.perf_counter() > deadline:
            break
        found = quiet_win(position, move, searcher, questions=DEFENCE_QUESTIONS,
                          deadline=deadline)
        if found is not None:
            won[move] = found
    return won


PREFER_DEPTH = 2
"""Plies of the tactical search that breaks ties between equally good proven moves."""


def preferred(position: Position, moves: list[int]) -> list[int]:
    """Among moves of equal proven value (every draw on a drawn board, say), those the
    tactical search rates best: the ones that leave the opponent most room to go wrong.
    One move, or none, is returned as it is.

    >>> p = Position("3x3")
    >>> [p.move_name(c) for c in preferred(p, p.legal_moves())]   # the centre
    ['b2']
    """
    if len(moves) <= 1:
        return list(moves)
    scores = TacticalPlayer(depth=PREFER_DEPTH, beam=8).root_scores(position, list(moves),
                                                                     PREFER_DEPTH)
    top = max(scores.values())
    return [c for c in moves if scores[c] == top]


def _as_estimate(value: int, unit: int) -> Score:
    """A root value as an estimate, in units of one line a mark short of a threat (`unit`
    evaluation points), within ±90. The search does not look at every move (the beam), so
    even the wins and losses it sees are not proven: they become estimates near ±100, the
    faster the larger."""
    if value > _MATE - 1000:
        return Heuristic(100.0 - (_MATE - value) / 100)
    if value < -_MATE + 1000:
        return Heuristic(-100.0 + (_MATE + value) / 100)
    return Heuristic(max(-90.0, min(90.0, value / unit)))


class GreedyPlayer:
    """The one-ply reference player: win at once, else block, else the cell on the most open
    lines (a line counts once for each side it is still open for); ties at random."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "greedy"
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        legal = check_playable(position)
        variant = position.variant
        mover = position.turn
        me, opp = position.marks(mover), position.marks(mover.other)
        wins = _completing(variant, me, legal)
        if wins:
            return Choice(self.rng.choice(wins), Win(1))
        blocks = _completing(variant, opp, legal)
        if blocks:
            return Choice(self.rng.choice(blocks), Loss(2) if len(blocks) > 1 else None)
        counts = {c: sum((not variant.line_masks[i] & opp) + (not variant.line_masks[i] & me)
                         for i in variant.lines_through[c]) for c in legal}
        top = max(counts.values())
        return Choice(self.rng.choice([c for c in legal if counts[c] == top]), None)


class NewcomerPlayer:
    """How a newcomer plays: win at once, else block, else the centre (a cell nearest it)
    if free, else any cell at random. The beginner level is measured against it.

    >>> NewcomerPlayer(seed=1).choose(Position("xx1/o2/3 o")).move  # blocks
    2
    >>> NewcomerPlayer(seed=1).choose(Position("x2/3/3 o")).move  # the centre
    4
    """

    def __init__(self, seed: int | None = None) -> None:
        self.name = "newcomer"
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        legal = check_playable(position)
        variant = position.variant
        for side in (position.turn, position.turn.other):  # a win, else a block
            found = _completing(variant, position.marks(side), legal)
            if found:
                return Choice(self.rng.choice(found), None)
        middle = [(size - 1) / 2 for size in variant.shape]
        centre = [c for c in legal if max(abs(a - m) for a, m in zip(
            variant.coordinates(c), middle, strict=True)) < 1]
        return Choice(self.rng.choice(centre or legal), None)


def _completing(variant: Variant, marks: int, cells: list[int]) -> list[int]:
    """The cells of `cells` that complete a line of `marks`."""
    return [c for c in cells if _completes(variant, marks | 1 << c, c)]


def _completes(variant: Variant, marks: int, cell: int) -> bool:
    masks = variant.line_masks
    return any(marks & masks[i] == masks[i] for i in variant.lines_through[cell])


__all__ = ["GreedyPlayer", "LineBoard", "NewcomerPlayer", "TacticalPlayer", "preferred",
           "quiet_wins", "room_left"]
