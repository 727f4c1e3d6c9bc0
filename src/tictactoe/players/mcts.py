"""Monte Carlo tree search: UCT with random playouts, and MCTS-Solver proofs.

Each iteration walks down the tree by the UCT rule, adds one child, plays random moves to the
end, and credits the result back up (a win 1, a draw 0.5, a loss 0, for the player who made
each move). Proofs are backed up as in MCTS-Solver: a node whose side to move has a proven
winning child is a proven win; a node whose children are all proven is proven with the best
of them. A new node whose side to move can complete a line is proven at once (a win in 1),
so every root move that allows an immediate win is seen as lost, and every winning move as won.
All randomness comes from the `random.Random` passed in.

>>> import random
>>> from tictactoe.core import Position
>>> result = mcts_search(Position("xx1/oo1/x2 o"), random.Random(1), iterations=50)
>>> result.move, str(result.score)
(5, 'win in 1')
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from tictactoe.core import Position, Side, TicTacToeError, Variant
from tictactoe.players.base import Choice, Limit, check_playable
from tictactoe.search.score import Draw, Heuristic, Loss, Score, Win

DEFAULT_ITERATIONS = 2000
"""MCTS iterations per move unless told otherwise."""

EXPLORATION = math.sqrt(2)
"""The UCT exploration constant."""


class _Node:
    __slots__ = (
        "children",
        "move",
        "o",
        "parent",
        "proven",
        "turn",
        "untried",
        "visits",
        "wins",
        "x",
    )

    def __init__(self, parent: _Node | None, move: int, x: int, o: int, turn: Side) -> None:
        self.parent = parent
        self.move = move
        self.x, self.o, self.turn = x, o, turn
        self.children: list[_Node] = []
        self.untried: list[int] = []
        self.visits = 0
        self.wins = 0.0
        """Reward for the player who moved into this node."""
        self.proven: Score | None = None
        """The proven score for the side to move here, if known."""


@dataclass(frozen=True)
class MctsResult:
    """The chosen move, its score for the mover, and statistics per root move."""

    move: int
    score: Score
    visits: dict[int, int]
    iterations: int


class _Tree:
    def __init__(self, variant: Variant, rng: random.Random) -> None:
        self.variant = variant
        self.rng = rng
        self.full = variant.full_mask
        self.line_masks = variant.line_masks
        self.through = tuple(tuple(variant.line_masks[i] for i in t)
                             for t in variant.lines_through)

    def completed(self, marks: int, cell: int) -> bool:
        return any(m & marks == m for m in self.through[cell])

    def make_node(self, parent: _Node | None, move: int, x: int, o: int, turn: Side) -> _Node:
        node = _Node(parent, move, x, o, turn)
        mover_marks = o if turn is Side.X else x  # the side that just moved
        if move >= 0 and self.completed(mover_marks, move):
            node.proven = Loss(0)
            return node
        empty = self.full & ~(x | o)
        if not empty:
            node.proven = Draw()
            return node
        mine, theirs = (x, o) if turn is Side.X else (o, x)
        for m in self.line_masks:
            if not m & theirs:
                rest = m & ~mine
                if rest & (rest - 1) == 0:
                    node.proven = Win(1)
                    return node
        node.untried = [c for c in range(self.variant.cells) if empty >> c & 1]
        return node

    def expand(self, node: _Node) -> _Node:
        index = self.rng.randrange(len(node.untried))
        cell = node.untried[index]
        node.untried[index] = node.untried[-1]
        node.untried.pop()
        bit = 1 << cell
        if node.turn is Side.X:
            child = self.make_node(node, cell, node.x | bit, node.o, Side.O)
        else:
            child = self.make_node(node, cell, node.x, node.o | bit, Side.X)
        node.children.append(child)
        return child

    def select(self, node: _Node) -> _Node:
        log_n = math.log(max(node.visits, 1))
        best, best_value = None, -math.inf
        for child in node.children:
            if child.proven is not None and child.proven.after_move() < Draw():
                continue  # a proven loss for the player choosing here
            if child.visits == 0:
                return child
            value = (child.wins / child.visits
                     + EXPLORATION * math.sqrt(log_n / child.visits))
            if value > best_value:
                best, best_value = child, value
        assert best is not None
        return best

    def playout(self, node: _Node) -> Side | None:
        """Play random moves to the end; the winner, or None for a draw."""
        if node.proven is not None:
            winner = node.proven.winner(node.turn)
            return winner
        x, o, turn = node.x, node.o, node.turn
        empty = [c for c in range(self.variant.cells) if not (x | o) >> c & 1]
        rng = self.rng
        while empty:
            index = rng.randrange(len(empty))
            cell = empty[index]
            empty[index] = empty[-1]
            empty.pop()
            if turn is Side.X:
                x |= 1 << cell
                if self.completed(x, cell):
                    return Side.X
                turn = Side.O
            else:
                o |= 1 << cell
                if self.completed(o, cell):
                    return Side.O
                turn = Side.X
        return None

    def prove(self, node: _Node | None) -> None:
        """Back a new proof up the tree as far as it settles nodes."""
        while node is not None and node.proven is None:
            views = [c.proven.after_move() for c in node.children if c.proven is not None]
            wins = [v for v in views if isinstance(v, Win)]
            if wins:
                node.proven = max(wins)
            elif not node.untried and len(views) == len(node.children):
                node.proven = max(views)
            else:
                return
            node = node.parent


def mcts_search(position: Position, rng: random.Random, *, iterations: int = 2000,
                seconds: float | None = None) -> MctsResult:
    """Search `iterations` times (or until `seconds` pass) and pick a move."""
    if position.is_game_over():
        raise ValueError("the game is over")
    tree = _Tree(position.variant, rng)
    root = tree.make_node(None, -1, position.x, position.o, position.turn)
    if root.proven is not None:  # a win in 1: expand anyway, so that the winning move is found
        root.proven = None
        root.untried = [c for c in range(position.variant.cells)
                        if not position.occupied >> c & 1]
    deadline = None if seconds is None else time.perf_counter() + seconds
    while root.untried:
        tree.expand(root)
        # each child checks every line for a win in one: on 32x32 the root's thousand take
        # most of a second, so the clock is read here too
        if deadline is not None and time.perf_counter() > deadline and any(
                c.proven is None or c.proven.after_move() >= Draw() for c in root.children):
            break
    tree.prove(root)
    done = 0
    while done < iterations and root.proven is None:
        # a look at the clock each iteration: a playout on 32x32 takes milliseconds
        if deadline is not None and time.perf_counter() > deadline:
            break
        node = root
        while node.proven is None and not node.untried and node.children:
            node = tree.select(node)
        if node.proven is None and node.untried:
            node = tree.expand(node)
            if node.proven is not None:
                tree.prove(node.parent)
        winner = tree.playout(node)
        step: _Node | None = node
        while step is not None:
            step.visits += 1
            mover = step.turn.other
            step.wins += 1.0 if winner is mover else 0.5 if winner is None else 0.0
            step = step.parent
        done += 1

    visits = {c.move: c.visits for c in root.children}
    if root.proven is not None:
        views = {c.move: c.proven.after_move() for c in root.children if c.proven is not None}
        top = max(views.values())
        ties = sorted(m for m, v in views.items() if v == top)
        move = ties[0] if len(ties) == 1 else max(ties, key=lambda m: (visits[m], -m))
        return MctsResult(move, top, visits, done)
    candidates = [c for c in root.children
                  if c.proven is None or c.proven.after_move() >= Draw()]
    best = max(candidates, key=lambda c: (c.visits, c.wins, -c.move))
    if best.proven is not None:
        score = best.proven.after_move()
    else:
        score = Heuristic(round(100 * (2 * best.wins / max(best.visits, 1) - 1), 1))
    return MctsResult(best.move, score, visits, done)


class MctsPlayer:
    """Monte Carlo tree search (UCT + MCTS-Solver) with a fixed number of iterations."""

    def __init__(self, iterations: int = DEFAULT_ITERATIONS, seed: int | None = None) -> None:
        if iterations < 1:
            raise TicTacToeError(f"iterations must be at least 1, not {iterations}")
        self.name = "mcts"
        self.iterations = iterations
        self.rng = random.Random(seed)

    def choose(self, position: Position, limit: Limit = Limit()) -> Choice:
        check_playable(position)
        iterations = limit.nodes if limit.nodes is not None else self.iterations
        result = mcts_search(position, self.rng, iterations=iterations, seconds=limit.seconds)
        return Choice(result.move, result.score)
