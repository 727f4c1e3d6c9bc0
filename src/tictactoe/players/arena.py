"""Games between players, matches that alternate colours, and game transcripts.

>>> match = play_match("rules", "perfect", variant="3x3", games=4, seed=1)
>>> [(s.name, s.wins, s.draws, s.losses) for s in match.standings]
[('rules', 0, 4, 0), ('perfect', 0, 4, 0)]
>>> match.average_length
9.0
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from tictactoe.core import Position, Side, TicTacToeError, Variant
from tictactoe.extras import require
from tictactoe.players.base import Limit, Player, play_move
from tictactoe.players.levels import limit_for, make_player
from tictactoe.search.score import Heuristic, Score


@dataclass(frozen=True)
class Game:
    """One finished game: the moves, each mover's score for its move, and the result."""

    variant: Variant
    x_name: str
    o_name: str
    moves: tuple[int, ...]
    scores: tuple[Score | None, ...]
    result: str
    """``x``, ``o`` or ``draw``."""

    @property
    def length(self) -> int:
        return len(self.moves)


def random_opening(variant: Variant | str, plies: int, rng: random.Random) -> tuple[int, ...]:
    """`plies` random moves within two steps of the centre that do not finish the game (fewer
    where no such move is left): a start that players who always answer alike cannot
    repeat.

    >>> v = Variant.parse("15x15k5")
    >>> [v.cell_name(c) for c in random_opening(v, 2, random.Random(1))]
    ['f8', 'h6']
    """
    if isinstance(variant, str):
        variant = Variant.parse(variant)
    middle = [(d - 1) // 2 for d in variant.shape]
    near = [c for c in range(variant.cells) if all(
        abs(a - m) <= 2 for a, m in zip(variant.coordinates(c), middle, strict=True))]
    position = Position(variant)
    for _ in range(plies):
        free = [c for c in near if not position.occupied >> c & 1]
        rng.shuffle(free)
        for cell in free:
            position.push(cell)
            if not position.is_game_over():
                break
            position.pop()
        else:
            break
    return tuple(position.move_stack)


BALANCED_WITHIN = 1.0
"""An opening is balanced when `opening_estimate` is within this many units of even (a unit:
one line a mark short of a threat)."""

BALANCED_TRIES = 40
"""Random openings `balanced_opening` draws at most before it settles for the most even."""


def check_balanceable(variant: Variant) -> None:
    """Raise `TicTacToeError` unless `opening_estimate` can judge openings on `variant` (and
    `tictactoe.extras.MissingExtraError` without the ``fast`` extra).

    >>> check_balanceable(Variant.parse("7x7k5"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tictactoe.core.errors.TicTacToeError: balanced openings are judged by ... past 64 cells; ...
    """
    if variant.cells <= 64:
        raise TicTacToeError(
            f"balanced openings are judged by the shape evaluation of boards past 64 cells; "
            f"{variant.name} has {variant.cells}: start from random openings instead")
    require("fast", "judging openings balanced (the compiled analysis past 64 cells)")


def opening_estimate(position: Position) -> float | None:
    """The mover's estimate of `position` by the ``hard`` level's analysis past 64 cells,
    with its node bounds and no clock (the same on every machine); None when the position
    is decided (a proven win or loss, or a move that must be made).

    >>> p = Position("15x15k5")
    >>> for name in ("h8", "h9"):
    ...     p.push_name(name)
    >>> opening_estimate(p) > 0     # X, to move, is ahead by the move
    True
    """
    from dataclasses import replace

    from tictactoe.players.wide_levels import WIDE_LEVELS
    from tictactoe.search.wide.analysis import WideAnalyst

    variant = position.variant
    check_balanceable(variant)
    analyst = WideAnalyst(variant)  # fresh tables: the answer depends on nothing before
    report = analyst.analyse(position, replace(WIDE_LEVELS["hard"].bounds, seconds=None))
    score = report.score
    return score.value if report.reason == "search" and isinstance(score, Heuristic) else None


def balanced_opening(variant: Variant | str, plies: int,
                     rng: random.Random) -> tuple[int, ...]:
    """A `random_opening` that neither side is ahead after: the first of up to `BALANCED_TRIES`
    whose `opening_estimate` is within `BALANCED_WITHIN` of even, else the most even of them
    (past 64 cells only). Where the first player wins from the empty board, as in gomoku, a
    game between two levels from a random opening is mostly decided by the colours; from a
    balanced one, by the play (tournaments between gomoku programs use balanced openings).

    >>> v = Variant.parse("15x15k5")
    >>> start = balanced_opening(v, 3, random.Random(1))
    >>> p = Position(v)
    >>> for cell in start:
    ...     p.push(cell)
    >>> len(start), abs(opening_estimate(p)) <= BALANCED_WITHIN
    (3, True)
    """
    if isinstance(variant, str):
        variant = Variant.parse(variant)
    best: tuple[float, tuple[int, ...]] | None = None
    for _ in range(BALANCED_TRIES):
        start = random_opening(variant, plies, rng)
        position = Position(variant)
        for cell in start:
            position.push(cell)
        estimate = opening_estimate(position)
        if estimate is None:
            continue
        if abs(estimate) <= BALANCED_WITHIN:
            return start
        if best is None or abs(estimate) < best[0]:
            best = abs(estimate), start
    return best[1] if best is not None else random_opening(variant, plies, rng)


def play_game(x_player: Player, o_player: Player, variant: Variant | str = "3x3",
              limit: Limit | None = None, opening: tuple[int, ...] = ()) -> Game:
    """Play one game from the empty board, or after the moves of `opening` (which count as
    the game's first moves, without scores). A level that bounds its own search on this
    board (past 64 cells) keeps its own bounds (`tictactoe.players.levels.limit_for`)."""
    limit = limit or Limit()
    if isinstance(variant, str):
        variant = Variant.parse(variant)
    limits = {side: limit_for(player.name, variant, limit)
              for side, player in ((Side.X, x_player), (Side.O, o_player))}
    position = Position(variant)
    moves: list[int] = []
    scores: list[Score | None] = []
    for cell in opening:
        position.push(cell)
        moves.append(cell)
        scores.append(None)
    while not position.is_game_over():
        player = x_player if position.turn is Side.X else o_player
        choice = play_move(position, player, limits[position.turn])
        moves.append(choice.move)
        scores.append(choice.score)
        position.push(choice.move)
    outcome = position.outcome()
    assert outcome is not None
    return Game(variant, x_player.name, o_player.name, tuple(moves), tuple(scores),
                outcome.result())


@dataclass
class Standing:
    """One player's record in a match."""

    name: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    wins_as_x: int = 0
    wins_as_o: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass
class Match:
    """A match between two players who take X in turn (the first player starts as X)."""

    variant: Variant
    standings: tuple[Standing, Standing]
    games: list[Game] = field(default_factory=list)

    @property
    def average_length(self) -> float:
        """Mean number of plies per game."""
        return sum(g.length for g in self.games) / len(self.games) if self.games else 0.0

    def add(self, game: Game, first_is_x: bool) -> None:
        self.games.append(game)
        first, second = self.standings
        x, o = (first, second) if first_is_x else (second, first)
        if game.result == "draw":
            x.draws += 1
            o.draws += 1
        elif game.result == "x":
            x.wins += 1
            x.wins_as_x += 1
            o.losses += 1
        else:
            o.wins += 1
            o.wins_as_o += 1
            x.losses += 1


def play_match(first: str, second: str, *, variant: Variant | str = "3x3", games: int = 10,
               seed: int | None = 0, depth: int | None = None, limit: Limit | None = None,
               on_game: Callable[[Game], None] | None = None, alternate: bool = True) -> Match:
    """Play `games` games; the first player is X in games 1, 3, 5, ... and O in the others
    (X in every game if not `alternate`). `limit` bounds every move of both players. Ctrl-C
    raises `MatchInterrupted` (a `KeyboardInterrupt`) with the games finished so far.

    Each player is built once with its own seed (`seed` and `seed + 1`), so a seed
    reproduces the whole match.
    """
    if isinstance(variant, str):
        variant = Variant.parse(variant)
    a = make_player(first, seed=seed, depth=depth)
    b = make_player(second, seed=None if seed is None else seed + 1, depth=depth)
    names = (first, second) if first != second else (f"{first} (1)", f"{second} (2)")
    match = Match(variant, (Standing(names[0]), Standing(names[1])))
    try:
        for number in range(games):
            first_is_x = number % 2 == 0 or not alternate
            x_player, o_player = (a, b) if first_is_x else (b, a)
            game = play_game(x_player, o_player, variant, limit)
            match.add(game, first_is_x)
            if on_game is not None:
                on_game(game)
    except KeyboardInterrupt:
        raise MatchInterrupted(match) from None
    return match


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during `play_match`: ``match`` holds the games finished before it."""

    def __init__(self, match: Match) -> None:
        super().__init__(f"interrupted after {len(match.games)} games")
        self.match = match


# ------------------------------------------------------------------ transcripts


def transcript(game: Game, x_seed: int | None, o_seed: int | None) -> str:
    """A game as text: a header, one line per ply (move and the mover's score), the result.

    >>> from tictactoe.players.levels import make_player
    >>> game = play_game(make_player("rules", seed=1), make_player("random", seed=2))
    >>> print(transcript(game, 1, 2))  # doctest: +ELLIPSIS
    variant 3x3
    x rules 1
    o random 2
    1 b2 -
    ...
    result x
    """
    lines = [f"variant {game.variant.name}", f"x {game.x_name} {x_seed}",
             f"o {game.o_name} {o_seed}"]
    for ply, (move, score) in enumerate(zip(game.moves, game.scores, strict=True), start=1):
        lines.append(f"{ply} {game.variant.cell_name(move)} {score if score else '-'}")
    lines.append(f"result {game.result}")
    return "\n".join(lines)


def record_game(variant: str, x_name: str, x_seed: int, o_name: str, o_seed: int) -> str:
    """Play a seeded game and return its transcript."""
    game = play_game(make_player(x_name, seed=x_seed), make_player(o_name, seed=o_seed),
                     variant)
    return transcript(game, x_seed, o_seed)
