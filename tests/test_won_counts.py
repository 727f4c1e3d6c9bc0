"""Won positions counted: inclusion–exclusion against the census and against brute force over
every filling, the sampled estimate against both (its 95% intervals cover the exact figures
in most of many independent runs), the same figures for a seed on any executor, and
``ttt count --won``."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tictactoe.analysis.census import census
from tictactoe.analysis.won import (
    MAX_LINES,
    SAMPLED_CELLS,
    exact_won,
    fillings,
    lines_reach,
    marks_of,
)
from tictactoe.analysis.won_count import count_won, route
from tictactoe.analysis.won_sampling import (
    PILOT,
    allocate,
    draw,
    estimate_won,
    sampled_plies,
)
from tictactoe.cli import app
from tictactoe.core import BoardTooLargeError, Position, Variant
from tictactoe.executors import DaskCluster, LocalPool
from tictactoe.extras import available

runner = CliRunner()

FIGURES = ("won_x", "won_o", "positions")


def brute_force(name: str) -> list[tuple[int, int, int]]:
    """(won by X, won by O, reachable positions) by marks, over every filling of the board,
    each judged by the rules core (`Position.status`)."""
    v = Variant.parse(name)
    rows = [[0, 0, 0] for _ in range(v.cells + 1)]
    for cells in itertools.product((0, 1, 2), repeat=v.cells):
        xs, os_ = cells.count(1), cells.count(2)
        if xs - os_ not in (0, 1):
            continue
        text = "".join(".xo"[c] for c in cells)
        p = Position.from_string(f"{_rows(v, text)} {'o' if xs > os_ else 'x'} {v.k}")
        if not p.is_valid():
            continue
        winner = p.winner()
        ply = xs + os_
        if winner is not None:
            rows[ply][0 if winner.symbol == "x" else 1] += 1
        rows[ply][2] += 1
    return [(a, b, c) for a, b, c in rows]


def _rows(v: Variant, text: str) -> str:
    width = v.columns
    out = []
    for r in range(v.rows):
        row = text[r * width:(r + 1) * width]
        out.append(_compress(row))
    return "/".join(out)


def _compress(row: str) -> str:
    out, run = "", 0
    for c in row:
        if c == ".":
            run += 1
            continue
        out += (str(run) if run else "") + c
        run = 0
    return out + (str(run) if run else "")


@pytest.mark.parametrize("name", ["2x2", "3x3", "2x4k4", "3x4k4"])
def test_inclusion_exclusion_agrees_with_brute_force_by_marks(name: str) -> None:
    assert exact_won(name).by_marks == brute_force(name)


@pytest.mark.parametrize("name", ["3x3", "4x4", "3x4k4", "2x5k5", "3x5k5"])
def test_inclusion_exclusion_agrees_with_the_census(name: str) -> None:
    exact = exact_won(name)
    c = census(name)
    assert (exact.won_x, exact.won_o, exact.positions) == (c.terminal["x"], c.terminal["o"],
                                                           c.positions)
    assert exact.by_marks is not None
    assert [p for _, _, p in exact.by_marks][:len(c.by_ply)] == c.by_ply


@given(st.integers(1, 4), st.integers(2, 4))
@settings(max_examples=15, deadline=None)
def test_inclusion_exclusion_agrees_with_the_census_on_any_small_board(rows: int,
                                                                       columns: int) -> None:
    """Boards whose lines share at most one cell: k the longer side (rows or columns only)
    or a square with k its side."""
    k = max(rows, columns)
    v = Variant.parse(f"{rows}x{columns}k{k}")
    if v.cells > 16 or not v.line_masks or lines_reach(v) is not None:
        return
    exact, c = exact_won(v), census(v)
    assert (exact.won_x, exact.won_o, exact.positions) == (c.terminal["x"], c.terminal["o"],
                                                           c.positions)


def test_seven_by_seven_is_counted_exactly_and_its_figures_add_up() -> None:
    w = exact_won("7x7")
    assert w.method == "lines" and w.exact and w.extra["lines"] == 16
    assert w.by_marks is not None and len(w.by_marks) == 50
    # the fillings with turn counts bound the positions of every ply; no win before 13 marks
    for ply, (x, o, p) in enumerate(w.by_marks):
        assert p <= fillings(49, *marks_of(ply))
        assert x + o <= p
        assert (x, o) == (0, 0) or ply >= 13
        assert o == 0 or ply % 2 == 0
    assert w.won_x == sum(r[0] for r in w.by_marks) > w.won_o > 0


def test_boards_inclusion_exclusion_cannot_take_are_refused_with_the_reason() -> None:
    assert "60 lines" in str(lines_reach(Variant.parse("7x7k5")))
    assert "share more than one cell" in str(lines_reach(Variant.parse("3x4k3")))
    with pytest.raises(BoardTooLargeError, match="estimates it instead"):
        exact_won("7x7k5")
    with pytest.raises(BoardTooLargeError, match="no exact count reaches 7x7k5"):
        count_won("7x7k5", method="exact")
    with pytest.raises(ValueError, match="unknown method"):
        count_won("3x3", method="guess")


def test_the_route_is_the_first_that_reaches() -> None:
    """Inclusion-exclusion where the lines allow it (any size), the census on small boards
    (up to 32 cells when exact is asked), else the estimate up to its 64 cells."""
    lines = [Variant.parse(n) for n in ("3x3", "7x7", "10x10", "2x9k9")]
    assert all(len(v.line_masks) <= MAX_LINES and route(v) == "lines" for v in lines)
    assert (route("4x4k3"), route("4x5k4"), route("4x5k4", "exact")) == \
        ("census", "sampled", "census")
    assert route("7x7k5") == route("4x4x4") == route("7x7", "estimate") == "sampled"
    too_big = Variant.parse("9x9k5")
    assert too_big.cells > SAMPLED_CELLS
    with pytest.raises(BoardTooLargeError, match="no exact count reaches it"):
        route(too_big)


def test_auto_takes_the_census_where_lines_cannot_and_the_board_is_small() -> None:
    w = count_won("3x4k3")
    c = census("3x4k3")
    assert w.method == "census" and w.exact and w.by_marks is None
    assert (w.won_x, w.won_o, w.positions) == (c.terminal["x"], c.terminal["o"], c.positions)


# ----------------------------------------------------------------------------- the estimate
def test_the_kernels_judge_fillings_as_the_rules_core_does() -> None:
    """Each stratum's mean scores after many draws sit within 5 standard errors of the exact
    counts by marks on 3x4k4 and 3x3: the uniform draws' share of fillings with no line, and
    the line-first draws' estimate of the won fillings."""
    for name in ("3x4k4", "3x3"):
        exact = exact_won(name)
        assert exact.by_marks is not None
        v = Variant.parse(name)
        for ply in sampled_plies(v):
            x, o, p = exact.by_marks[ply]
            weight = fillings(v.cells, *marks_of(ply))
            _, _, drawn, plain, _ = draw(v.name, ply, "plain", 100_000, ply)
            share = (p - x - o) / weight
            se = max(float(np.sqrt(share * (1 - share) / drawn)), 1e-9)
            assert abs(plain / drawn - share) <= 5 * se, (name, ply, plain, p - x - o)
            a, b = marks_of(ply)
            movers, others = (a, b) if a > b else (b, a)
            if movers < v.k:
                continue
            _, _, drawn, score, squares = draw(v.name, ply, "won", 100_000, ply)
            scale = len(v.line_masks) * fillings(v.cells - v.k, movers - v.k, others)
            spread = np.sqrt(max(squares / drawn - (score / drawn) ** 2, 0) / drawn)
            assert abs(scale * score / drawn - (x + o)) <= 5 * scale * spread + 1e-6, \
                (name, ply, scale * score / drawn, x + o)


def test_a_seed_gives_the_same_figures_again_and_another_seed_others() -> None:
    a = estimate_won("4x4", samples=300_000, seed=7)
    b = estimate_won("4x4", samples=300_000, seed=7)
    c = estimate_won("4x4", samples=300_000, seed=8)
    assert a.by_marks == b.by_marks and a.errors == b.errors
    assert a.by_marks != c.by_marks
    pilot = PILOT * len(sampled_plies(Variant.parse("4x4")))
    assert not a.exact and a.samples >= 300_000 + pilot


def test_the_same_seed_gives_the_same_figures_on_a_process_pool() -> None:
    alone = estimate_won("3x3", samples=40_000, seed=3)
    with LocalPool(2, preload=("tictactoe.analysis.won_sampling",)) as pool:
        pooled = estimate_won("3x3", samples=40_000, seed=3, executor=pool)
    assert pooled.by_marks == alone.by_marks


def test_the_same_seed_gives_the_same_figures_on_a_dask_local_cluster() -> None:
    alone = estimate_won("3x3", samples=40_000, seed=4)
    with DaskCluster(2) as cluster:
        clustered = estimate_won("3x3", samples=40_000, seed=4, executor=cluster)
    assert clustered.by_marks == alone.by_marks


def test_strata_with_no_possible_line_are_exact() -> None:
    w = estimate_won("4x4", samples=100_000, seed=1)
    assert w.by_marks is not None
    for ply in range(7):  # at most 3 marks each: no line of 4
        assert w.by_marks[ply] == (0.0, 0.0, float(fillings(16, *marks_of(ply))))


def test_allocation_gives_every_stratum_the_pilot_at_least_and_shares_out_the_rest() -> None:
    v = Variant.parse("4x4")
    pilot = {(ply, kind): [float(PILOT), PILOT / 3, PILOT / 5]
             for ply in sampled_plies(v) for kind in ("plain", "won")}
    sizes = allocate(v, pilot, 1_000_000)
    assert set(sizes) == set(pilot)
    assert min(sizes.values()) >= PILOT
    assert 1_000_000 - len(sizes) <= sum(sizes.values()) <= 1_000_000 + PILOT * len(sizes)


def test_a_rare_win_is_estimated_closely_from_few_draws() -> None:
    """On 7x7 with 13 marks a random filling is won by X about once in 10 million; the
    line-first draws estimate it within 1% from 100,000 draws."""
    exact = exact_won("7x7")
    assert exact.by_marks is not None
    _, _, drawn, score, _ = draw("7x7", 13, "won", 100_000, 5)
    estimate = 16 * fillings(42, 0, 6) * score / drawn
    assert abs(estimate - exact.by_marks[13][0]) <= 0.01 * exact.by_marks[13][0]
    assert exact.by_marks[13][0] / fillings(49, 7, 6) < 1e-6


@pytest.mark.parametrize("name", ["3x3", "4x4", "3x4k4", "3x4k3"])
def test_the_95_percent_intervals_cover_the_exact_figures_in_most_runs(name: str) -> None:
    """300 independent runs (seeds 0-299) on boards the census counts, small ones (a pilot of
    2,000 draws, 20,000 after it): each figure's interval covers the exact one in at least
    270 (90%; a calibrated 95% interval fails that about once in 3,000 boards), and the
    errors measured in standard errors have a mean near 0 and a spread near 1.
    `scripts/bench_won.py coverage` runs 100 larger runs on nine boards."""
    exact = count_won(name, method="exact")
    errors: dict[str, list[float]] = {figure: [] for figure in FIGURES}
    for seed in range(300):
        w = estimate_won(name, samples=20_000, seed=seed, pilot=2_000)
        for figure in FIGURES:
            errors[figure].append((getattr(w, figure) - getattr(exact, figure))
                                  / max(w.errors[figure], 1e-12))
    for figure, z in errors.items():
        covered = sum(abs(e) <= 1.959964 for e in z)
        assert covered >= 270, (figure, covered)
        assert abs(float(np.mean(z))) < 0.25 and 0.8 < float(np.std(z)) < 1.2, \
            (figure, np.mean(z), np.std(z))


def test_intervals_cover_past_32_cells_where_inclusion_exclusion_is_exact() -> None:
    """6x6 (36 cells, 14 lines): 10 runs, at least 8 covering."""
    exact = exact_won("6x6")
    covered = dict.fromkeys(FIGURES, 0)
    for seed in range(10):
        w = estimate_won("6x6", samples=400_000, seed=seed, pilot=5_000)
        for figure in FIGURES:
            low, high = w.interval(figure)
            covered[figure] += low <= getattr(exact, figure) <= high
    assert min(covered.values()) >= 8, covered


def test_the_estimate_refuses_boards_past_64_cells() -> None:
    with pytest.raises(BoardTooLargeError, match="at most 64 cells"):
        estimate_won("9x9k5")
    with pytest.raises(ValueError, match="at least 1"):
        estimate_won("3x3", samples=0)
    with pytest.raises(ValueError, match="pilot at least 2"):
        estimate_won("3x3", pilot=1)


# ----------------------------------------------------------------------------- the command
def test_count_won_prints_the_exact_count_of_seven_by_seven() -> None:
    result = runner.invoke(app, ["count", "7x7", "--won", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    exact = exact_won("7x7")
    assert data["method"] == "lines" and data["exact"] is True
    assert (data["won_x"], data["won_o"], data["positions"]) == (exact.won_x, exact.won_o,
                                                                 exact.positions)
    assert "won_x_interval" not in data
    text = runner.invoke(app, ["count", "7x7", "--won"]).output
    assert "exact" in text and f"{exact.won_x:,}" in text and "estimate" not in text


@pytest.mark.skipif(not available("plot"), reason="needs the plot extra")
def test_count_won_charts_counts_past_64_bits(tmp_path: Path) -> None:
    """7x7's exact counts pass 2 ** 63, which matplotlib's bars do not take as integers."""
    chart = tmp_path / "won.png"
    result = runner.invoke(app, ["count", "7x7", "--won", "--plot", str(chart)])
    assert result.exit_code == 0, result.output
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_count_won_labels_an_estimate_with_its_interval() -> None:
    result = runner.invoke(app, ["count", "7x7k5", "--won", "--samples", "200000",
                                 "--backend", "memory", "--json", "--seed", "2"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["method"] == "sampled" and data["exact"] is False
    assert data["seed"] == 2 and data["samples"] >= 200_000 and data["confidence"] == 0.95
    low, high = data["won_x_interval"]
    assert low < data["won_x"] < high
    text = runner.invoke(app, ["count", "7x7k5", "--won", "--samples", "100000",
                               "--backend", "memory"]).output
    assert "an estimate by sampling" in text and "95% interval" in text


def test_count_won_draws_a_chart(tmp_path: Path) -> None:
    chart = tmp_path / "won.png"
    result = runner.invoke(app, ["count", "5x5", "--won", "--plot", str(chart)])
    assert result.exit_code == 0, result.output
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for target in (tmp_path / "no" / "x.png", tmp_path, tmp_path / "chart"):
        for board in (["5x5", "--won"], ["3x3"]):
            bad = runner.invoke(app, ["count", *board, "--plot", str(target)])
            assert bad.exit_code == 2 and "cannot write the chart" in bad.output
            assert "Traceback" not in bad.output


@pytest.mark.parametrize(("args", "message"), [
    (["count", "3x3", "--seed", "3"], "--seed is for --won"),
    (["count", "3x3", "--method", "estimate"], "--method is for --won"),
    (["count", "9x9k5", "--won"], "at most 64 cells"),
    (["count", "7x7k5", "--won", "--method", "exact"], "no exact count reaches 7x7k5"),
    (["count", "7x7", "--won", "--samples", "10"], "counted exactly"),
    (["count", "7x7", "--won", "--spill", "x"], "--spill is for the census"),
    (["count", "7x7k5", "--won", "--backend", "gpu"], "unknown backend"),
])
def test_count_won_reports_bad_requests_in_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_enumerate_count_goes_past_the_census_by_inclusion_exclusion() -> None:
    exact = exact_won("7x7")
    assert exact.by_marks is not None
    outputs = {}
    for kind in ("--won", "--all", "--terminal"):
        result = runner.invoke(app, ["enumerate", "7x7", kind, "--count"])
        assert result.exit_code == 0, result.output
        outputs[kind] = int(result.output)
    assert outputs["--won"] == exact.won and outputs["--all"] == exact.positions
    full = exact.by_marks[49]
    assert outputs["--terminal"] == exact.won + full[2] - full[0] - full[1] > exact.won
    # 3x3 by both routes: the census gives 958 terminal positions
    small = exact_won("3x3")
    assert small.by_marks is not None
    last = small.by_marks[9]
    assert small.won + last[2] - last[0] - last[1] == 958
    refused = runner.invoke(app, ["enumerate", "7x7k5", "--won", "--count"])
    assert refused.exit_code == 2 and "ttt count 7x7k5 --won estimates" in refused.output
