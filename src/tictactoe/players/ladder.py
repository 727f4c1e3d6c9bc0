"""A rating ladder: a round robin between computer players, and Bradley-Terry ratings on the
Elo scale with 95% intervals.

>>> ladder = play_ladder("3x3", ["random", "perfect"], games=4, seed=1)
>>> top = ladder.ratings[0]
>>> top.name, top.losses, top.rating > 0
('perfect', 0, True)

**The model.** The expected score of a player rated ``a`` against one rated ``b`` is
``1 / (1 + 10 ** ((b - a) / 400))`` (`expected_score`), a draw counting as half a win and
half a loss. The ratings maximise the likelihood of the scores plus `PRIOR_DRAWS` virtual
draws between every pair of players, a weak prior that keeps the rating of a player who
wins (or loses) every game finite. The scale is anchored by the **mean rating, 0**.

**The intervals** are 95% intervals from the observed information: the inverse of the
negative Hessian of the (regularised) log-likelihood at its maximum, taken under the
constraint that the ratings sum to 0, so each interval is that of a rating relative to the
mean of the ladder.
"""

from __future__ import annotations

import math
import queue
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from statistics import NormalDist

from tictactoe.core import Position, TicTacToeError, Variant
from tictactoe.executors import WAIT_SLICE
from tictactoe.players.arena import balanced_opening, check_balanceable, play_game, random_opening
from tictactoe.players.base import Limit, check_playable
from tictactoe.players.levels import make_player
from tictactoe.pools import interrupts_deferred, process_pool

DEFAULT_PLAYERS = ("random", "greedy", "easy", "medium", "hard", "perfect")
"""The players of a ladder unless told otherwise, weakest first."""

DEFAULT_SECONDS = 1.0
"""Seconds a move for a searching player unless told otherwise."""

PRIOR_DRAWS = 1.0
"""Virtual draws added between every pair of players (see the module's docstring)."""

Z95 = NormalDist().inv_cdf(0.975)
"""Half-width of a 95% interval in standard errors (1.96)."""

ELO = 400.0 / math.log(10.0)
"""Elo points per natural unit of the logistic model."""


def expected_score(gap: float) -> float:
    """The expected score of a player rated `gap` Elo above the opponent.

    >>> expected_score(0.0), round(expected_score(400.0), 3)
    (0.5, 0.909)
    """
    return 1.0 / (1.0 + math.pow(10.0, -gap / 400.0))


def rating_gap(score: float) -> float:
    """The rating gap in Elo whose expected score is `score` (between 0 and 1).

    >>> round(rating_gap(0.75)), round(rating_gap(0.5))
    (191, 0)
    """
    if not 0.0 < score < 1.0:
        raise TicTacToeError(f"a score rate must be strictly between 0 and 1, not {score}")
    return 400.0 * math.log10(score / (1.0 - score))


# ------------------------------------------------------------------------ ratings


@dataclass(frozen=True)
class Rating:
    """One player's record and rating; `interval` is the half-width of the 95% interval."""

    name: str
    wins: int
    draws: int
    losses: int
    rating: float
    interval: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score_rate(self) -> float:
        """(wins + draws / 2) / games; 0.5 with no games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5


Result = tuple[str, str, float]
"""One game: the two players and the first one's score (1 a win, 0.5 a draw, 0 a loss)."""


def rate(results: Iterable[Result], players: Sequence[str] | None = None, *,
         prior_draws: float = PRIOR_DRAWS) -> list[Rating]:
    """The ratings of the players (in the order of `players`, by default in order of first
    appearance), fitted as the module's docstring says. With ``prior_draws=0`` the plain
    maximum likelihood, which exists only if no group of players scored 100% against the
    rest.

    >>> ratings = rate([("a", "b", 1.0)] * 3 + [("a", "b", 0.0)], prior_draws=0)
    >>> [(r.name, round(r.rating), round(r.interval)) for r in ratings]
    [('a', 95, 197), ('b', -95, 197)]
    >>> [round(r.rating) for r in rate([("a", "b", 1.0)] * 10)]  # 10.5 of 11 with the prior
    [264, -264]
    """
    games = list(results)
    names = list(players) if players is not None else \
        list(dict.fromkeys(name for a, b, _ in games for name in (a, b)))
    if len(set(names)) != len(names):
        raise TicTacToeError("a player is listed twice")
    if prior_draws < 0:
        raise TicTacToeError(f"the virtual draws must not be negative, not {prior_draws}")
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    count = [[0.0] * k for _ in range(k)]  # games between i and j, virtual ones too
    points = [[0.0] * k for _ in range(k)]  # i's points against j
    record = [[0, 0, 0] for _ in range(k)]  # wins, draws, losses
    for a, b, score in games:
        if a not in index or b not in index:
            raise TicTacToeError(f"a game of {a} and {b}, who are not both in the ladder")
        if a == b or score not in (0.0, 0.5, 1.0):
            raise TicTacToeError(f"a game needs two players and a score of 0, 0.5 or 1, not "
                                 f"{a} vs {b} scoring {score}")
        i, j = index[a], index[b]
        count[i][j] += 1
        count[j][i] += 1
        points[i][j] += score
        points[j][i] += 1.0 - score
        outcome = {1.0: 0, 0.5: 1, 0.0: 2}[score]
        record[i][outcome] += 1
        record[j][2 - outcome] += 1
    for i in range(k):
        for j in range(k):
            if i != j:
                count[i][j] += prior_draws
                points[i][j] += prior_draws / 2
    if k > 1 and not _connected(points):
        raise TicTacToeError("the ratings diverge: some players scored 100% against the "
                             "rest (keep some virtual draws)")
    theta, covariance = _fit(count, points)
    return [Rating(name, record[i][0], record[i][1], record[i][2], rating=theta[i] * ELO,
                   interval=Z95 * ELO * math.sqrt(max(covariance[i][i], 0.0)))
            for i, name in enumerate(names)]


def _connected(points: list[list[float]]) -> bool:
    """Whether every player can reach every other by "scored against" steps (Zermelo's
    condition for a finite maximum)."""
    k = len(points)
    for forward in (True, False):
        seen, stack = {0}, [0]
        while stack:
            i = stack.pop()
            for j in range(k):
                if j not in seen and (points[i][j] if forward else points[j][i]) > 0:
                    seen.add(j)
                    stack.append(j)
        if len(seen) < k:
            return False
    return True


def _log_likelihood(theta: list[float], count: list[list[float]],
                    points: list[list[float]]) -> float:
    total = 0.0
    for i, row in enumerate(count):
        for j, n in enumerate(row):
            if j > i and n:
                d = theta[i] - theta[j]  # log p = -log(1 + e^-d), log(1 - p) = -log(1 + e^d)
                total -= points[i][j] * _softplus(-d) + points[j][i] * _softplus(d)
    return total


def _softplus(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _information(theta: list[float], count: list[list[float]],
                 points: list[list[float]]) -> tuple[list[float], list[list[float]]]:
    """The gradient of the log-likelihood and the observed information (minus its Hessian)."""
    k = len(theta)
    gradient = [0.0] * k
    info = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if i != j and count[i][j]:
                p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
                gradient[i] += points[i][j] - count[i][j] * p
                w = count[i][j] * p * (1.0 - p)
                info[i][i] += w
                info[i][j] -= w
    return gradient, info


def _fit(count: list[list[float]], points: list[list[float]]
         ) -> tuple[list[float], list[list[float]]]:
    """Newton's method with step halving from all ratings equal; the ratings (natural
    units, mean 0) and their covariance, the pseudo-inverse of the information."""
    k = len(count)
    theta = [0.0] * k
    if k < 2:
        return theta, [[0.0] * k for _ in range(k)]
    current = _log_likelihood(theta, count, points)
    for _ in range(200):
        gradient, info = _information(theta, count, points)
        inverse = _pseudo_inverse(info)
        step = [sum(inverse[i][j] * gradient[j] for j in range(k)) for i in range(k)]
        size = 1.0
        while True:
            trial = [t + size * s for t, s in zip(theta, step, strict=True)]
            value = _log_likelihood(trial, count, points)
            if value >= current - 1e-12 or size < 1e-6:
                break
            size /= 2
        theta, current = trial, value
        if max(abs(s) for s in step) * size < 1e-10:
            break
    mean = sum(theta) / k
    theta = [t - mean for t in theta]
    return theta, _pseudo_inverse(_information(theta, count, points)[1])


def _pseudo_inverse(info: list[list[float]]) -> list[list[float]]:
    """The pseudo-inverse of an information matrix whose null space is the all-ones vector
    (a connected comparison graph): the inverse of ``info + J/k``, minus ``J/k``."""
    k = len(info)
    matrix = [[info[i][j] + 1.0 / k for j in range(k)] + [float(i == j) for j in range(k)]
              for i in range(k)]
    for col in range(k):  # Gauss-Jordan with partial pivoting
        pivot = max(range(col, k), key=lambda r: abs(matrix[r][col]))
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        lead = matrix[col][col]
        matrix[col] = [x / lead for x in matrix[col]]
        for r in range(k):
            if r != col and matrix[r][col]:
                factor = matrix[r][col]
                matrix[r] = [x - factor * y for x, y in zip(matrix[r], matrix[col], strict=True)]
    return [[row[k + j] - 1.0 / k for j in range(k)] for row in matrix]


# ------------------------------------------------------------------------ the round robin


@dataclass(frozen=True)
class LadderGame:
    """One game of the ladder. `round` counts the games of a pair from 1."""

    number: int
    round: int
    x: str
    o: str
    x_seed: int
    o_seed: int
    result: str
    """``x``, ``o`` or ``draw``."""
    plies: int
    opening: tuple[int, ...] = ()
    """The random moves the game started from (`play_ladder`'s ``opening``)."""
    balanced: bool = False
    """Whether that opening was chosen balanced (`play_ladder`'s ``balanced``)."""

    @property
    def x_score(self) -> float:
        """X's score: 1, 0.5 or 0."""
        return {"x": 1.0, "draw": 0.5, "o": 0.0}[self.result]


@dataclass(frozen=True)
class Pair:
    """The record of `first` against `second`."""

    first: str
    second: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """`first`'s score: wins + draws / 2."""
        return self.wins + self.draws / 2


@dataclass(frozen=True)
class Ladder:
    """A finished round robin: its games, the ratings (best first) and each pair's record."""

    variant: str
    players: tuple[str, ...]
    games_per_pair: int
    seed: int
    limit: Limit
    games: tuple[LadderGame, ...]
    ratings: tuple[Rating, ...]
    pairs: tuple[Pair, ...]
    prior_draws: float = PRIOR_DRAWS
    opening: int = 0
    balanced: bool = False

    def pair(self, first: str, second: str) -> Pair:
        """`first`'s record against `second`."""
        for p in self.pairs:
            if (p.first, p.second) == (first, second):
                return p
            if (p.first, p.second) == (second, first):
                return Pair(first, second, p.losses, p.draws, p.wins)
        raise TicTacToeError(f"no games between {first} and {second} in the ladder")

    def to_json(self) -> dict[str, object]:
        """The ladder as plain JSON data (what ``ttt ladder --json`` prints)."""
        return {
            "variant": self.variant, "games_per_pair": self.games_per_pair, "seed": self.seed,
            "seconds": self.limit.seconds, "nodes": self.limit.nodes,
            "opening": self.opening, "balanced": self.balanced, "anchor": "mean rating 0",
            "prior_draws": self.prior_draws,
            "interval": 0.95,
            "players": [{"rank": rank, "name": r.name, "rating": round(r.rating, 1),
                         "interval": round(r.interval, 1), "score_rate": round(r.score_rate, 4),
                         "games": r.games, "wins": r.wins, "draws": r.draws,
                         "losses": r.losses}
                        for rank, r in enumerate(self.ratings, start=1)],
            "pairs": [{"first": p.first, "second": p.second, "games": p.games,
                       "wins": p.wins, "draws": p.draws, "losses": p.losses,
                       "points": p.points} for p in self.pairs],
        }


@dataclass(frozen=True)
class _Task:
    variant: str
    number: int
    round: int
    x: str
    o: str
    x_seed: int
    o_seed: int
    limit: Limit
    opening: int = 0
    opening_seed: str = ""
    balanced: bool = False


def _schedule(variant: str, players: Sequence[str], games: int, seed: int,
              limit: Limit, opening: int = 0, balanced: bool = False) -> list[_Task]:
    """Pairs in list order; in each the earlier-listed player is X in odd rounds, and rounds
    1 and 2, 3 and 4, ... start from the same random opening."""
    tasks: list[_Task] = []
    for i, first in enumerate(players):
        for second in players[i + 1:]:
            for number in range(1, games + 1):
                x, o = (first, second) if number % 2 else (second, first)
                rng = random.Random(f"ladder {seed} {first} {second} {number}")
                tasks.append(_Task(variant, len(tasks), number, x, o, rng.getrandbits(32),
                                   rng.getrandbits(32), limit, opening,
                                   f"opening {seed} {first} {second} {(number + 1) // 2}",
                                   balanced))
    return tasks


def _start(task: _Task) -> tuple[int, ...]:
    """The task's opening: the same for both games of a round, in whichever process."""
    if not task.opening:
        return ()
    rng = random.Random(task.opening_seed)
    if task.balanced:
        return balanced_opening(task.variant, task.opening, rng)
    return random_opening(task.variant, task.opening, rng)


def _play(task: _Task) -> LadderGame:
    """Build both players from their names and seeds and play one game (in any process)."""
    start = _start(task)
    game = play_game(make_player(task.x, seed=task.x_seed),
                     make_player(task.o, seed=task.o_seed), task.variant, task.limit, start)
    return LadderGame(task.number, task.round, task.x, task.o, task.x_seed, task.o_seed,
                      game.result, game.length, start, task.balanced)


def _run_parallel(tasks: list[_Task], jobs: int,
                  on_game: Callable[[LadderGame], None] | None) -> list[LadderGame]:
    pool = process_pool(jobs, ["tictactoe.players.ladder"])
    done_games: list[LadderGame] = []
    finished: queue.SimpleQueue[Future[LadderGame]] = queue.SimpleQueue()
    try:
        # as `tictactoe.executors.LocalPool.run_all`: a Ctrl-C is taken between steps, never
        # inside a method of concurrent.futures holding a future's lock (the pool's manager
        # thread would wait for that lock for ever at shutdown)
        for task in tasks:
            with interrupts_deferred():
                pool.submit(_play, task).add_done_callback(finished.put)
        while len(done_games) < len(tasks):
            with interrupts_deferred():
                try:
                    game = finished.get(timeout=WAIT_SLICE).result()
                except queue.Empty:
                    continue
            done_games.append(game)
            if on_game is not None:
                on_game(game)
    except BaseException:
        pool.kill()  # a game in progress leaves nothing behind
        raise
    finally:
        # wait even after an error: the workers are dead, so this is quick, and it leaves no
        # manager thread to write to a closed pipe at exit
        pool.shutdown(wait=True, cancel_futures=True)
    return sorted(done_games, key=lambda g: g.number)


def play_ladder(variant: Variant | str, players: Sequence[str] = DEFAULT_PLAYERS, *,
                games: int = 10, seconds: float | None = DEFAULT_SECONDS,
                nodes: int | None = None, seed: int = 0, jobs: int = 1,
                on_game: Callable[[LadderGame], None] | None = None,
                prior_draws: float = PRIOR_DRAWS, opening: int = 0,
                balanced: bool = False) -> Ladder:
    """Play a round robin and rate it.

    Every pair plays `games` games; pairs go in list order, and in each the player listed
    earlier is X in the pair's games 1, 3, 5, ... and O in games 2, 4, ... Every move is
    bounded by ``Limit(seconds=seconds, nodes=nodes)``. Each game builds its two players
    afresh, seeded from `seed`, the pair and the game's number, so a seed replays the same
    ladder whatever `jobs` is (as long as no move is cut short by `seconds`, which depends on
    the machine). With `opening`, each pair's games 1 and 2, 3 and 4, ... start from the same
    `opening` random moves near the centre (`tictactoe.players.arena.random_opening`), once
    with each colour: players that always answer alike (the levels past 64 cells) then play
    different games. With `balanced` as well (past 64 cells), each opening is one that
    neither side is ahead after (`tictactoe.players.arena.balanced_opening`), so that the
    colours do not decide the games. `jobs` > 1 plays games in that many worker processes.
    `on_game` is called after every game, in the order they finish. Ctrl-C stops the workers
    and raises `LadderInterrupted` (a `KeyboardInterrupt`) rating the games finished so far,
    or a plain `KeyboardInterrupt` before the first.
    """
    if isinstance(variant, str):
        variant = Variant.parse(variant)
    names = [name.strip().lower() for name in players]
    if len(names) < 2:
        raise TicTacToeError("a ladder needs at least two players")
    if len(set(names)) != len(names):
        raise TicTacToeError(f"a player is listed twice: {', '.join(names)}")
    for name in names:
        make_player(name)  # an unknown name fails before any game
    if games < 1 or jobs < 1:
        raise TicTacToeError(f"games and jobs must be at least 1, not {games} and {jobs}")
    if opening < 0:
        raise TicTacToeError(f"the opening cannot have a negative number of moves: {opening}")
    if opening >= variant.cells:
        raise TicTacToeError(f"an opening of {opening} moves leaves no move on {variant.name} "
                             f"({variant.cells} cells): at most {variant.cells - 1}")
    check_playable(Position(variant))
    if balanced and not opening:
        raise TicTacToeError("balanced openings need a number of opening moves (opening > 0)")
    if balanced:
        check_balanceable(variant)
    limit = Limit(nodes=nodes, seconds=seconds)
    tasks = _schedule(variant.name, names, games, seed, limit, opening, balanced)
    played: list[LadderGame] = []

    def record(game: LadderGame) -> None:
        played.append(game)
        if on_game is not None:
            on_game(game)

    try:
        if jobs == 1:
            for task in tasks:
                record(_play(task))
        else:
            _run_parallel(tasks, min(jobs, len(tasks)), record)
    except KeyboardInterrupt:
        if not played:
            raise
        played.sort(key=lambda g: g.number)
        raise LadderInterrupted(_rated(variant, names, games, seed, limit, played,
                                       prior_draws, opening, balanced), len(tasks)) from None
    played.sort(key=lambda g: g.number)
    return _rated(variant, names, games, seed, limit, played, prior_draws, opening, balanced)


class LadderInterrupted(KeyboardInterrupt):
    """Ctrl-C during `play_ladder`: ``ladder`` rates the games finished before it, of
    ``scheduled``."""

    def __init__(self, ladder: Ladder, scheduled: int) -> None:
        super().__init__(f"interrupted after {len(ladder.games)} of {scheduled} games")
        self.ladder = ladder
        self.scheduled = scheduled


def _rated(variant: Variant, names: list[str], games: int, seed: int, limit: Limit,
           played: list[LadderGame], prior_draws: float, opening: int,
           balanced: bool) -> Ladder:
    """The ladder of the games played: ratings and each pair's results."""
    results = [(g.x, g.o, g.x_score) for g in played]
    ratings = rate(results, names, prior_draws=prior_draws)
    pairs = []
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            scores = [s if x == first else 1.0 - s for x, o, s in results
                      if {x, o} == {first, second}]
            pairs.append(Pair(first, second, scores.count(1.0), scores.count(0.5),
                              scores.count(0.0)))
    return Ladder(variant.name, tuple(names), games, seed, limit, tuple(played),
                  tuple(sorted(ratings, key=lambda r: -r.rating)), tuple(pairs), prior_draws,
                  opening, balanced)


__all__ = ["DEFAULT_PLAYERS", "DEFAULT_SECONDS", "PRIOR_DRAWS", "Ladder", "LadderGame",
           "LadderInterrupted", "Pair",
           "Rating", "Result", "expected_score", "play_ladder", "rate", "rating_gap"]
