"""The perfect player: a proven best move where one can be proven, and says so where not.

It tries, in order:

1. **A shipped strategy** (`tictactoe.proof.strategy`): on 4x4x4 as X, the move of the
   proof that X wins, at once. The move is a proven win of unknown length (`ForcedWin`).
2. **The solver** (α-β with distances, `tictactoe.search.solve`) within the limit: if it
   proves the position, one of the best moves, chosen at random among those the tactical
   search rates best (on a drawn board, the draw that leaves the opponent most room to go
   wrong).
   The solver's answer carries the tactical floor (`tictactoe.search.tactics`): a win it
   proves (a threat sequence, say) is played at once, and a move proven to lose is never
   played while another is open.
3. **Proof-number search** (`tictactoe.search.pn`), where the solver stopped short on a
   board the compiled core takes: the open moves ranked by the tactical search; a quiet
   move that wins by force one move deeper (`quiet_win`) at once; else each move checked
   against the opponent's quiet attacks (`quiet_refutation`) and asked whether the
   opponent then wins; a move proven to win, else the first move proven not to lose
   (a draw if the win was disproven too), else the best ranked move not proven to lose,
   else the slowest proven loss. Only the open moves are unproven, and their score is a
   `Heuristic`, which every interface labels as an estimate.

On boards past 64 cells (gomoku) it plays `PerfectPlayer.on_large_board` instead: the
``perfect`` level of `tictactoe.players.wide` (proven wins by threats with threes, never a
move proven to lose to the opponent's while another is open, otherwise the α-β search's
move, labelled an estimate), the same knowledge as ``hard`` with a deeper and wider search.

>>> from tictactoe.core import Position
>>> choice = PerfectPlayer(seed=7).choose(Position("xx1/oo1/x2 o"))
>>> Position("3x3").move_name(choice.move), str(choice.score)
('c2', 'win in 1')
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from tictactoe.core import Position, Side, Variant
from tictactoe.extras import available
from tictactoe.players.base import Choice, Limit
from tictactoe.players.tactical import (
    DEFENCE_POSITIONS,
    DEFENCE_QUESTIONS,
    TacticalPlayer,
    preferred,
    quiet_wins,
)
from tictactoe.proof.strategy import strategy_move
from tictactoe.search.knowledge import WIDE_CELLS
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Score
from tictactoe.search.solution import Solution
from tictactoe.search.solver import quickest_engine, solve
from tictactoe.search.tactics import ThreatSearcher, quiet_refutation

if TYPE_CHECKING:
    from tictactoe.players.wide import WidePlayer
    from tictactoe.search.pn import PnResult, PnSearch

SOLVER_SHARE = 0.4
"""The share of the time limit the solver gets before proof-number search takes over."""

LARGE_BOARD_DEPTH = 4
"""The depth of the tactical search behind `PerfectPlayer.on_large_board` without the
``fast`` extra (one ply deeper than ``hard``, no solver; beam 10, defence 8)."""

RANK_DEPTH = 2
"""Plies of the tactical search that ranks the moves the solver left open."""


class PerfectPlayer:
    """Plays a proven best move; see the module's docstring for the order of its methods.

    With no limit the solver runs to the end, so every move is proven (on a big board that
    can take very long); with a limit, a move it could not prove carries a `Heuristic`
    score.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.name = "perfect"
        self.rng = random.Random(seed)
        self._large: TacticalPlayer | None = None
        self._wide: WidePlayer | None = None

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        started = time.perf_counter()
        known = self.from_strategy(position)
        if known is not None:
            return known
        if position.variant.cells > WIDE_CELLS:
            return self.on_large_board(position, limit, started)
        bounded = limit.seconds is not None or limit.nodes is not None
        searching = bounded and proof_numbers_apply(position.variant)
        seconds = limit.seconds
        if searching and seconds is not None:
            seconds *= SOLVER_SHARE
        solution = solve(position, nodes=limit.nodes, seconds=seconds,
                         engine=quickest_engine(position))
        if solution.proven or not searching or solution.score.winner(position.turn) is \
                position.turn:  # proven, or a win the tactical floor proved
            return self.from_solution(position, solution)
        left = None if limit.seconds is None else max(
            0.05, limit.seconds - (time.perf_counter() - started))
        return self.by_proof_numbers(position, Limit(nodes=limit.nodes, seconds=left),
                                     solution)

    def on_large_board(self, position: Position, limit: Limit = Limit(),
                       started: float | None = None) -> Choice:
        """Past 64 cells (gomoku) no solver finishes: a win by threats (proven) is played at
        once, a move after which the opponent wins so is never played while another is
        open, and otherwise the move of the α-β search, labelled an estimate (`Heuristic`):
        `tictactoe.players.wide`'s ``perfect`` level (without the ``fast`` extra, a deeper
        tactical search than ``hard``'s).

        >>> p = Position("15x15k5")
        >>> for name in ("h8", "a1", "i8", "a3", "j8", "a5"):
        ...     p.push_name(name)
        >>> str(PerfectPlayer(seed=1).on_large_board(p).score)   # an open four: proven
        'win in 3'
        """
        started = time.perf_counter() if started is None else started
        if available("fast"):
            from tictactoe.players.wide import WIDE_LEVELS, WidePlayer

            if self._wide is None:
                self._wide = WidePlayer(WIDE_LEVELS["perfect"], seed=self.rng.randrange(2**32),
                                        name=self.name)
            return self._wide.play(position, limit, started)
        if self._large is None:
            self._large = TacticalPlayer(depth=LARGE_BOARD_DEPTH, beam=10, defence=8,
                                         seed=self.rng.randrange(2**32), name=self.name)
        return self._large.choose(position, limit)

    def from_strategy(self, position: Position) -> Choice | None:
        """The shipped strategy's move, a proven win, if it covers the position."""
        move = strategy_move(position)
        return None if move is None else Choice(move, ForcedWin())

    def from_solution(self, position: Position, solution: Solution) -> Choice:
        """One of the solution's best moves, with its score: a random one of those the
        tactical search prefers (`tictactoe.players.tactical.preferred`)."""
        move = self.rng.choice(preferred(position, solution.best))
        return Choice(move, solution.moves[move])

    def by_proof_numbers(self, position: Position, limit: Limit,
                         estimate: Solution) -> Choice:
        """Proof-number search within `limit`, after the solver gave only `estimate` (with
        the tactical floor under it). The open moves are ranked by the tactical search
        (`tictactoe.players.tactical`); each in turn is checked against the opponent's quiet
        attacks and then asked whether the opponent wins after it. The limit bounds all the
        searches together; a node limit counts `PN_NODE_COST` solver nodes for each
        proof-number node."""
        mover = position.turn
        if estimate.score.winner(mover) is mover:  # a win the tactical floor proved
            return self.from_solution(position, estimate)
        budget = _Budget(limit)
        from tictactoe.search.pn.shared import shared_searches

        searches = shared_searches(position.variant)
        if limit.seconds is None:  # a node limit alone: the same answer every time
            with searches.lock:
                for side in (mover, mover.other):
                    searches.of(side).clear()
        losses: dict[int, tuple[Score, int]] = {}  # proven losing moves: score, proof nodes
        for move, known in estimate.moves.items():
            if known.winner(mover) is mover.other:
                losses[move] = (known, 0)
        ordered = _by_estimate(position, estimate, losses, budget)
        won = quiet_wins(position, ordered, budget.deadline)
        if won:  # a quiet move that wins by force one move deeper
            best = max(won.values())
            return Choice(self.rng.choice([m for m in won if won[m] == best]), best)
        unknown: int | None = None
        refuter = ThreatSearcher(position.variant, positions=DEFENCE_POSITIONS)
        with searches.lock:
            root = budget.prove(searches.of(mover), position, mover, 0.3)
            if root.outcome == "win":
                for move in ordered:
                    if budget.spent():
                        break
                    child = budget.prove(searches.of(mover), position.play(move), mover, 0.2)
                    if child.outcome == "win":
                        return Choice(move, ForcedWin())
            for move in ordered:
                if budget.spent():
                    break
                refuted = quiet_refutation(position, move, refuter,
                                           questions=DEFENCE_QUESTIONS,
                                           deadline=budget.deadline)
                if refuted is not None:
                    losses[move] = (refuted, 0)
                    continue
                reply = budget.prove(searches.of(mover.other), position.play(move),
                                     mover.other, 0.5)
                if reply.outcome == "no-win":
                    score: Score = (Draw() if root.outcome == "no-win"
                                    else _estimate_of(estimate, move))
                    return Choice(move, score)
                if reply.outcome == "win":
                    losses[move] = (ForcedLoss(), reply.nodes)
                elif unknown is None:
                    unknown = move
        if unknown is not None:
            return Choice(unknown, _estimate_of(estimate, unknown))
        rest = [m for m in ordered if m not in losses]
        if rest:  # the limit ran out before every move was asked: the best estimate
            return Choice(rest[0], _estimate_of(estimate, rest[0]))
        return Choice(*_slowest_loss(losses))


PN_NODE_COST = 20
"""Solver nodes counted for one proof-number node against a node limit: a df-pn node runs a
threat search and costs tens to hundreds of α-β nodes' time."""


class _Budget:
    """What is left of a limit across several proof-number searches."""

    def __init__(self, limit: Limit) -> None:
        self.deadline = (None if limit.seconds is None
                         else time.perf_counter() + limit.seconds)
        self.nodes = None if limit.nodes is None else max(1, limit.nodes // PN_NODE_COST)

    def spent(self) -> bool:
        return ((self.deadline is not None and time.perf_counter() >= self.deadline)
                or (self.nodes is not None and self.nodes <= 0))

    def prove(self, search: PnSearch, position: Position, attacker: Side,
              fraction: float) -> PnResult:
        """Ask one question with `fraction` of what is left (at least one node)."""
        nodes = None if self.nodes is None else max(1, int(self.nodes * fraction))
        result = search.prove(position, attacker=attacker, nodes=nodes,
                              seconds=_share(self.deadline, fraction))
        if self.nodes is not None:
            self.nodes -= result.nodes
        return result


def proof_numbers_apply(variant: Variant) -> bool:
    """Whether proof-number search takes this board (the ``fast`` extra, up to 64 cells)
    and is worth asking (boards the solver does not finish at once: over 16 cells)."""
    return 16 < variant.cells <= 64 and available("fast")


def _share(deadline: float | None, fraction: float) -> float | None:
    if deadline is None:
        return None
    return max(0.01, (deadline - time.perf_counter()) * fraction)


def _by_estimate(position: Position, estimate: Solution,
                 losses: dict[int, tuple[Score, int]], budget: _Budget) -> list[int]:
    """The moves not proven to lose, best first: proven wins, fastest first, then the rest
    by the tactical search's ranking (a tenth of what is left of the time at most), proven
    draws among them."""
    open_moves = [m for m in position.legal_moves() if m not in losses]
    if len(open_moves) <= 1:
        return open_moves
    seconds = None if budget.deadline is None else \
        max(0.01, 0.1 * (budget.deadline - time.perf_counter()))
    ranker = TacticalPlayer(depth=RANK_DEPTH, beam=8)
    ranks = ranker.root_scores(position, open_moves, RANK_DEPTH, seconds)

    def key(move: int) -> tuple[Score, Score]:
        score = estimate.moves[move]
        won = score.winner(position.turn) is position.turn
        return (score if won else Draw(), ranks.get(move, Heuristic(0.0)))

    return sorted(open_moves, key=key, reverse=True)


def _estimate_of(estimate: Solution, move: int) -> Score:
    """The solver's score of a move, as an unproven estimate if it did not prove it."""
    score = estimate.moves.get(move)
    if score is None:
        return Heuristic(0.0)
    return score


def _slowest_loss(losses: dict[int, tuple[Score, int]]) -> tuple[int, Score]:
    """Every move loses: the slowest loss (`tictactoe.search.score` ranks a loss of unknown
    length above every loss of known length, and a bound just below its length), and among
    equal scores the one whose proof took the most nodes (likely the longest)."""
    move = max(losses, key=lambda m: losses[m])
    return move, losses[move][0]


def warm_proof_numbers(variant: Variant | str) -> None:
    """Make the perfect player's two proof-number searches on `variant` and load their
    compiled kernels, a few seconds the first time in a process, so that its first move
    off the strategy does not pay for it. Does nothing where the search does not apply.

    >>> warm_proof_numbers("3x3")  # α-β solves 3x3: nothing to warm
    """
    if isinstance(variant, str):
        variant = Variant.parse(variant)
    if not proof_numbers_apply(variant):
        return
    from tictactoe.search.pn.shared import shared_searches

    shared_searches(variant).warm()
