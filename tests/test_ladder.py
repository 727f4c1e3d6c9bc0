"""The rating ladder: the rating math, a real round robin, and ``ttt ladder``."""

from __future__ import annotations

import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from subprocesses import take_ctrl_c
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core import Position, TicTacToeError, Variant
from tictactoe.extras import MissingExtraError
from tictactoe.players.arena import (
    BALANCED_WITHIN,
    balanced_opening,
    opening_estimate,
    play_game,
    random_opening,
)
from tictactoe.players.base import UnknownPlayerError
from tictactoe.players.ladder import (
    Ladder,
    LadderGame,
    Result,
    expected_score,
    play_ladder,
    rate,
    rating_gap,
)
from tictactoe.players.levels import make_player

runner = CliRunner()


def games(a: str, b: str, wins: int, draws: int, losses: int) -> list[Result]:
    return [(a, b, 1.0)] * wins + [(a, b, 0.5)] * draws + [(a, b, 0.0)] * losses


def by_name(results: list[Result], players: list[str] | None = None,
            prior_draws: float = 1.0) -> dict[str, tuple[float, float]]:
    return {r.name: (r.rating, r.interval)
            for r in rate(results, players, prior_draws=prior_draws)}


# ------------------------------------------------------------------ the rating math


def test_a_known_score_gives_its_elo_gap() -> None:
    assert rating_gap(0.75) == pytest.approx(400 * math.log10(3))
    assert expected_score(rating_gap(0.9)) == pytest.approx(0.9)
    exact = by_name(games("a", "b", 300, 0, 100), prior_draws=0)
    assert exact["a"][0] - exact["b"][0] == pytest.approx(rating_gap(0.75), abs=1e-6)
    assert exact["a"][0] + exact["b"][0] == pytest.approx(0.0, abs=1e-9)  # mean 0
    # a draw is half a win: 100 wins and 200 draws of 400 is a 75% score too
    halves = by_name(games("a", "b", 100, 200, 100), prior_draws=0)
    assert halves["a"][0] == pytest.approx(0.0, abs=1e-6)
    halves = by_name(games("a", "b", 200, 200, 0), prior_draws=0)
    assert halves["a"][0] - halves["b"][0] == pytest.approx(rating_gap(0.75), abs=1e-6)
    # the one virtual draw hardly moves a well-measured gap
    weak = by_name(games("a", "b", 300, 0, 100))
    assert weak["a"][0] - weak["b"][0] == pytest.approx(rating_gap(0.75), abs=1.0)


def test_symmetric_results_give_equal_ratings() -> None:
    cycle = games("a", "b", 6, 2, 2) + games("b", "c", 6, 2, 2) + games("c", "a", 6, 2, 2)
    ratings = by_name(cycle)
    for rating, interval in ratings.values():
        assert rating == pytest.approx(0.0, abs=1e-9)
        assert interval == pytest.approx(ratings["a"][1])
    assert by_name(games("a", "b", 3, 4, 3))["a"][0] == pytest.approx(0.0, abs=1e-9)


def test_the_virtual_draws_keep_a_perfect_score_finite() -> None:
    ratings = by_name(games("a", "b", 20, 0, 0) + games("b", "c", 5, 0, 5))
    assert all(math.isfinite(r) and math.isfinite(i) for r, i in ratings.values())
    assert ratings["a"][0] > max(ratings["b"][0], ratings["c"][0])
    # 20.5 of 21 against b, with the virtual draws (and a's draw with c)
    assert ratings["a"][0] - ratings["b"][0] < rating_gap(20.5 / 21) + 1
    with pytest.raises(TicTacToeError, match="diverge"):
        rate(games("a", "b", 20, 0, 0), prior_draws=0)


def test_intervals_shrink_with_more_games() -> None:
    few = by_name(games("a", "b", 7, 0, 3))
    many = by_name(games("a", "b", 70, 0, 30))
    assert many["a"][1] < few["a"][1] / 2
    assert many["a"][1] == pytest.approx(few["a"][1] / math.sqrt(10), rel=0.2)


def test_ratings_do_not_depend_on_the_order_of_players_or_games() -> None:
    results = (games("a", "b", 4, 3, 1) + games("c", "a", 2, 2, 4) + games("b", "c", 5, 0, 3)
               + games("d", "a", 0, 1, 7) + games("b", "d", 8, 0, 0))
    first = by_name(results, ["a", "b", "c", "d"])
    second = by_name(list(reversed(results)), ["d", "c", "b", "a"])
    for name, (rating, interval) in first.items():
        assert second[name][0] == pytest.approx(rating, abs=1e-7)
        assert second[name][1] == pytest.approx(interval, abs=1e-7)
    assert sum(r for r, _ in first.values()) == pytest.approx(0.0, abs=1e-9)


def test_rate_rejects_bad_input() -> None:
    with pytest.raises(TicTacToeError, match="listed twice"):
        rate([], ["a", "a"])
    with pytest.raises(TicTacToeError, match="score"):
        rate([("a", "b", 0.3)])
    with pytest.raises(TicTacToeError, match="not both in the ladder"):
        rate([("a", "c", 1.0)], ["a", "b"])


# ------------------------------------------------------------------ the round robin


def test_a_small_ladder_on_3x3() -> None:
    seen: list[LadderGame] = []
    ladder = play_ladder("3x3", ["random", "greedy", "perfect"], games=6, seed=4,
                         on_game=seen.append)
    assert len(ladder.games) == len(seen) == 18
    assert [g.number for g in ladder.games] == list(range(18))
    perfect = next(r for r in ladder.ratings if r.name == "perfect")
    assert perfect.losses == 0 and perfect.games == 12
    assert ladder.ratings[0].name == "perfect"
    assert ladder.ratings[-1].name == "random"
    # colours: in each pair the player listed first is X in odd rounds
    for game in ladder.games:
        pair = next(p for p in ladder.pairs if {p.first, p.second} == {game.x, game.o})
        assert game.x == (pair.first if game.round % 2 else pair.second)
    for r in ladder.ratings:
        assert r.score_rate == (r.wins + r.draws / 2) / r.games
    pair = ladder.pair("perfect", "random")
    assert pair.games == 6 and pair.points + ladder.pair("random", "perfect").points == 6


def test_the_same_seed_replays_the_ladder_with_any_number_of_jobs() -> None:
    def ladder(jobs: int, seed: int = 11, on_game: Callable[[LadderGame], None] | None = None
               ) -> Ladder:
        return play_ladder("4x4k3", ["random", "greedy", "easy", "perfect"], games=4,
                           seed=seed, jobs=jobs, on_game=on_game)

    one = ladder(1)
    seen: list[LadderGame] = []
    two = ladder(2, on_game=seen.append)
    assert one.games == two.games
    assert one.ratings == two.ratings
    assert sorted(seen, key=lambda g: g.number) == list(two.games)
    other = ladder(1, seed=12)
    assert [(g.x_seed, g.o_seed) for g in other.games] != \
        [(g.x_seed, g.o_seed) for g in one.games]


def test_an_opening_gives_each_pair_of_rounds_the_same_start_with_colours_swapped() -> None:
    ladder = play_ladder("5x5k4", ["greedy", "perfect"], games=4, seed=3, opening=2,
                         seconds=None, nodes=2_000)
    assert ladder.opening == 2 and ladder.to_json()["opening"] == 2
    starts = [g.opening for g in ladder.games]
    assert all(len(s) == 2 for s in starts)
    assert starts[0] == starts[1] and starts[2] == starts[3] and starts[0] != starts[2]
    assert ladder.games[0].x == ladder.games[1].o
    for game in ladder.games:  # the opening's moves near the centre and its own
        assert all(max(abs(a - 2) for a in Variant.parse("5x5k4").coordinates(c)) <= 2
                   for c in game.opening)
    # without an opening every game starts from the empty board
    plain = play_ladder("5x5k4", ["perfect", "rules"], games=4, seed=3, seconds=None,
                        nodes=2_000)
    assert all(g.opening == () for g in plain.games)
    with pytest.raises(TicTacToeError, match="negative"):
        play_ladder("3x3", ["random", "greedy"], opening=-1)


def test_a_game_from_an_opening_keeps_its_moves() -> None:
    start = random_opening("15x15k5", 3, random.Random(5))
    assert len(set(start)) == 3
    assert random_opening("15x15k5", 3, random.Random(5)) == start
    game = play_game(make_player("random", seed=1), make_player("random", seed=2),
                     "15x15k5", opening=start)
    assert game.moves[:3] == start and game.scores[:3] == (None, None, None)
    # a 3x3 opening never finishes the game, and stops where every move would
    for seed in range(30):
        moves = random_opening("3x3", 9, random.Random(seed))
        p = Position("3x3")
        for c in moves:
            p.push(c)
        assert not p.is_game_over() and len(moves) <= 8


def test_balanced_openings_leave_neither_side_ahead() -> None:
    ladder = play_ladder("9x9k5", ["random", "greedy"], games=4, seed=2, opening=3,
                         balanced=True, seconds=None)
    assert ladder.balanced and ladder.to_json()["balanced"] is True
    starts = [g.opening for g in ladder.games]
    assert starts[0] == starts[1] and starts[2] == starts[3] and starts[0] != starts[2]
    assert all(g.balanced and len(g.opening) == 3 for g in ladder.games)
    for start in starts[::2]:
        p = Position("9x9k5")
        for c in start:
            p.push(c)
        estimate = opening_estimate(p)
        assert estimate is not None and abs(estimate) <= BALANCED_WITHIN
    # the same seed, the same opening; most random openings are not balanced, and some of
    # those the search is asked about are rejected
    assert balanced_opening("15x15k5", 3, random.Random(9)) == \
        balanced_opening("15x15k5", 3, random.Random(9))
    rejected = 0
    for seed in range(12):
        p = Position("15x15k5")
        for c in random_opening("15x15k5", 3, random.Random(seed)):
            p.push(c)
        estimate = opening_estimate(p)
        rejected += estimate is None or abs(estimate) > BALANCED_WITHIN
    assert rejected > 0


def test_balanced_openings_need_a_big_board_and_an_opening(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:  # without the compiled analysis: say which extra
        patch.setattr("tictactoe.extras.missing", lambda extra: ["numba"])
        with pytest.raises(MissingExtraError, match=r"tictactoe\[fast\]"):
            play_ladder("9x9k5", ["random", "greedy"], opening=3, balanced=True)
    with pytest.raises(TicTacToeError, match="past 64 cells; 7x7k5 has 49"):
        play_ladder("7x7k5", ["random", "greedy"], opening=3, balanced=True)
    with pytest.raises(TicTacToeError, match="opening moves"):
        play_ladder("9x9k5", ["random", "greedy"], balanced=True)
    result = runner.invoke(app, ["ladder", "5x5k4", "--players", "random,greedy",
                                 "--opening", "2", "--balanced"])
    assert result.exit_code != 0 and "past 64 cells" in result.output
    result = runner.invoke(app, ["ladder", "9x9k5", "--players", "random,greedy", "--games",
                                 "2", "--opening", "3", "--balanced", "--seconds", "0"])
    assert result.exit_code == 0, result.output
    assert "2 games, 2 per pair, from 3 balanced random moves" in result.output


def test_bad_ladders_fail_before_any_game() -> None:
    seen: list[LadderGame] = []
    with pytest.raises(UnknownPlayerError, match="unknown player 'wizard'"):
        play_ladder("3x3", ["random", "wizard"], on_game=seen.append)
    with pytest.raises(TicTacToeError, match="at least two players"):
        play_ladder("3x3", ["random"], on_game=seen.append)
    with pytest.raises(TicTacToeError, match="listed twice"):
        play_ladder("3x3", ["random", "Random"], on_game=seen.append)
    assert seen == []


# ------------------------------------------------------------------ ttt ladder


def test_ladder_command_prints_the_tables_and_plots(tmp_path: Path) -> None:
    chart = tmp_path / "ladder.png"
    result = runner.invoke(app, ["ladder", "3x3", "--players", "random,greedy,perfect",
                                 "--games", "4", "--plot", str(chart)])
    assert result.exit_code == 0, result.output
    assert "3x3: 12 games, 4 per pair" in result.stdout
    rows = [[cell.strip() for cell in line.split("│")[1:-1]]
            for line in result.stdout.splitlines() if line.startswith("│")]
    ranking = rows[:3]
    assert [row[0] for row in ranking] == ["1", "2", "3"]
    assert {row[1] for row in ranking} == {"random", "greedy", "perfect"}
    assert all("±" in row[2] and row[3].endswith("%") and row[5] == "8" for row in ranking)
    assert "Points of each row player against each column player, of 4 games" in result.stdout
    assert len(rows) == 6  # three ranked players, then the 3 x 3 score matrix
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ladder_command_json() -> None:
    result = runner.invoke(app, ["ladder", "4x4k3", "--players", "random,greedy", "--games",
                                 "2", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["variant"] == "4x4k3" and data["games_per_pair"] == 2
    assert [p["rank"] for p in data["players"]] == [1, 2]
    assert {p["name"] for p in data["players"]} == {"random", "greedy"}
    assert set(data["players"][0]) == {"rank", "name", "rating", "interval", "score_rate",
                                       "games", "wins", "draws", "losses"}
    assert data["pairs"][0]["first"] == "random" and data["pairs"][0]["games"] == 2


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "random,wizard"], "unknown player 'wizard'"),
    (["--players", "random"], "at least two players"),
    (["--opening", "9"], "an opening of 9 moves leaves no move on 3x3"),
])
def test_ladder_command_rejects_bad_players(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["ladder", "3x3", *args])
    assert result.exit_code == 2, result.output  # bad input, as for every command
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_stops_a_parallel_ladder() -> None:
    code = "from tictactoe.cli import main; main()"
    with subprocess.Popen(
            [sys.executable, "-c", code, "ladder", "7x7k5", "--players", "hard,perfect",
             "--jobs", "2", "--seconds", "1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=take_ctrl_c) as process:
        try:
            time.sleep(2)  # past start-up: the workers are playing
            assert process.poll() is None, process.communicate()
            process.send_signal(signal.SIGINT)
            process.wait(timeout=20)  # the ladder stops at once
            # its output ends when the pool's forkserver, which shares the pipes, sees it
            # gone: on a loaded machine that server may still be importing its modules
            out, err = process.communicate(timeout=120)
        finally:
            process.kill()
    assert process.returncode == 130
    assert err.strip() == "error: interrupted" and out == ""


def test_ctrl_c_keeps_the_games_finished_before_it() -> None:
    """A ladder or a match stopped by Ctrl-C rates or counts the games finished before it
    (`LadderInterrupted`, `MatchInterrupted`: both `KeyboardInterrupt`), and the commands
    print them and exit 130."""
    from tictactoe.players.arena import MatchInterrupted, play_match
    from tictactoe.players.ladder import LadderInterrupted

    def stop_after(count: int) -> Callable[[object], None]:
        seen = []

        def on_game(game: object) -> None:
            seen.append(game)
            if len(seen) == count:
                raise KeyboardInterrupt
        return on_game

    with pytest.raises(LadderInterrupted) as ladder_stop:
        play_ladder("3x3", ["random", "rules"], games=10, seed=1, on_game=stop_after(3))
    ladder = ladder_stop.value.ladder
    assert len(ladder.games) == 3 and ladder_stop.value.scheduled == 10
    assert sum(p.wins + p.draws + p.losses for p in ladder.pairs) == 3
    with pytest.raises(MatchInterrupted) as match_stop:
        play_match("random", "rules", games=10, on_game=stop_after(4))
    match = match_stop.value.match
    assert len(match.games) == 4 and sum(s.wins + s.draws + s.losses
                                          for s in match.standings) == 8


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_on_a_long_match_prints_the_games_so_far() -> None:
    code = "from tictactoe.cli import main; main()"
    with subprocess.Popen(
            [sys.executable, "-c", code, "arena", "random", "rules", "--games", "10000000"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=take_ctrl_c) as process:
        try:
            time.sleep(4)  # past start-up: games are being played
            assert process.poll() is None, process.communicate()
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
        finally:
            process.kill()
    assert process.returncode == 130, err
    played = re.search(r"3x3: ([\d,]+) games", out)
    assert played is not None and int(played.group(1).replace(",", "")) > 0, out
    assert f"interrupted after {played.group(1).replace(',', '')} of 10000000 games" in err
