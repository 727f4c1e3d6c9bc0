"""The perfect player: a proven best move where one can be proven, and says so where not.

It tries, in order:

1. **A shipped strategy** (`tictactoe.players.strategy`): on 4x4x4 as X, the move of the
   proof that X wins, at once. The move is a proven win of unknown length (`ForcedWin`).
2. **The solver** (α-β with distances, `tictactoe.search.solve`) within the limit: a random
   one of the best moves if it proves the position.
3. **Proof-number search** (`tictactoe.search.pn`), where the solver stopped short on a
   board the compiled core takes: a move proven to win, else a move proven not to lose
   (a draw if the win was disproven too), else the slowest proven loss (by the solver's
   distances where it has them), else the solver's estimate. Only the last is unproven,
   and its score is a `Heuristic`, which every interface labels as an estimate.

>>> from tictactoe.core import Position
>>> choice = PerfectPlayer(seed=7).choose(Position("xx1/oo1/x2 o"))
>>> Position("3x3").move_name(choice.move), str(choice.score)
('c2', 'win in 1')
"""

from __future__ import annotations

import random
import threading
import time
from typing import TYPE_CHECKING

from tictactoe.core import Position, Side, Variant
from tictactoe.extras import available
from tictactoe.players.base import Choice, Limit
from tictactoe.players.strategy import SHIPPED, shipped
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Loss, Score
from tictactoe.search.solution import Solution
from tictactoe.search.solver import quickest_engine, solve

if TYPE_CHECKING:
    from tictactoe.search.pn import PnResult, PnSearch

SOLVER_SHARE = 0.4
"""The share of the time limit the solver gets before proof-number search takes over."""

PN_TABLE_MB = 64
"""Megabytes of each of the two proof-number tables (one per attacker)."""


class PerfectPlayer:
    """Plays a proven best move; see the module's docstring for the order of its methods.

    With no limit the solver runs to the end, so every move is proven (on a big board that
    can take very long); with a limit, a move it could not prove carries a `Heuristic`
    score.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.name = "perfect"
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        known = self.from_strategy(position)
        if known is not None:
            return known
        started = time.perf_counter()
        bounded = limit.seconds is not None or limit.nodes is not None
        searching = bounded and proof_numbers_apply(position.variant)
        seconds = limit.seconds
        if searching and seconds is not None:
            seconds *= SOLVER_SHARE
        solution = solve(position, nodes=limit.nodes, seconds=seconds,
                         engine=quickest_engine(position))
        if solution.proven or not searching:
            return self.from_solution(solution)
        left = None if limit.seconds is None else max(
            0.05, limit.seconds - (time.perf_counter() - started))
        return self.by_proof_numbers(position, Limit(nodes=limit.nodes, seconds=left),
                                     solution)

    def from_strategy(self, position: Position) -> Choice | None:
        """The shipped strategy's move, a proven win, if it covers the position."""
        if position.variant.name not in SHIPPED:
            return None
        strategy = shipped(position.variant)
        move = None if strategy is None else strategy.move(position)
        return None if move is None else Choice(move, ForcedWin())

    def from_solution(self, solution: Solution) -> Choice:
        """A random one of the solution's best moves, with its score."""
        move = self.rng.choice(solution.best)
        return Choice(move, solution.moves[move])

    def by_proof_numbers(self, position: Position, limit: Limit,
                         estimate: Solution) -> Choice:
        """Proof-number search within `limit`, after the solver gave only `estimate` (its
        scores order the moves and label the move if nothing is proven). The limit bounds
        all the searches together; a node limit counts `PN_NODE_COST` solver nodes for
        each proof-number node."""
        budget = _Budget(limit)
        mover = position.turn
        searches = _searches(position.variant)
        losses: dict[int, int] = {}  # proven losing moves, by the nodes their proof took
        unknown: int | None = None
        ordered = _by_estimate(position, estimate)
        with searches.lock:
            root = budget.prove(searches.of(mover), position, mover, 0.4)
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
                reply = budget.prove(searches.of(mover.other), position.play(move),
                                     mover.other, 0.5)
                if reply.outcome == "no-win":
                    score: Score = (Draw() if root.outcome == "no-win"
                                    else _estimate_of(estimate, move))
                    return Choice(move, score)
                if reply.outcome == "win":
                    losses[move] = reply.nodes
                elif unknown is None:
                    unknown = move
        if unknown is not None:
            return Choice(unknown, _estimate_of(estimate, unknown))
        if losses and len(losses) == len(ordered):
            return Choice(*_slowest_loss(losses, estimate))
        # the limit ran out before every move was asked: the solver's estimate
        rest = [m for m in ordered if m not in losses]
        move = rest[0] if rest else ordered[0]
        return Choice(move, _estimate_of(estimate, move))


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


def _by_estimate(position: Position, estimate: Solution) -> list[int]:
    """The legal moves, best first by the solver's scores (unscored moves last)."""
    floor = Heuristic(float("-inf"))
    return sorted(position.legal_moves(), key=lambda m: estimate.moves.get(m, floor),
                  reverse=True)


def _estimate_of(estimate: Solution, move: int) -> Score:
    """The solver's score of a move, as an unproven estimate if it did not prove it."""
    score = estimate.moves.get(move)
    if score is None:
        return Heuristic(0.0)
    return score


def _slowest_loss(losses: dict[int, int], estimate: Solution) -> tuple[int, Score]:
    """Every move loses: the slowest loss the solver proved, else the loss whose proof took
    the most nodes (likely the longest; its length is not known)."""
    timed = {m: s for m, s in estimate.moves.items() if m in losses and isinstance(s, Loss)}
    if timed:
        move = max(timed, key=lambda m: timed[m])
        return move, timed[move]
    move = max(losses, key=lambda m: losses[m])
    return move, ForcedLoss()


class _Searches:
    """Two proof-number searches on one variant, one per attacker (a search clears its
    table when the attacker changes), made on first use and kept."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.lock = threading.Lock()
        self._by_side: dict[Side, PnSearch] = {}

    def of(self, attacker: Side) -> PnSearch:
        from tictactoe.search.pn import PnSearch

        search = self._by_side.get(attacker)
        if search is None:
            search = self._by_side[attacker] = PnSearch(self.variant, table_mb=PN_TABLE_MB)
        return search


_all_searches: dict[Variant, _Searches] = {}
_searches_lock = threading.Lock()


def _searches(variant: Variant) -> _Searches:
    with _searches_lock:
        found = _all_searches.get(variant)
        if found is None:
            found = _all_searches[variant] = _Searches(variant)
        return found


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
    searches = _searches(variant)
    with searches.lock:
        for side in (Side.X, Side.O):
            searches.of(side).prove(Position(variant), attacker=side, nodes=1,
                                    interruptible=False)
