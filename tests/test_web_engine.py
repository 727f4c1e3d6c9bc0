"""The web app's solver cache and warm-up: the same answers as a fresh solve, never stale."""

from __future__ import annotations

import asyncio
import random
import threading
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

from tictactoe.core import Position, symmetries
from tictactoe.search.solution import Solution
from tictactoe.search.solver import solve
from tictactoe.web.app import create_app, early_positions
from tictactoe.web.convert import position_info
from tictactoe.web.engine import LruCache, WebSolver
from tictactoe.web.models import AnalysisResponse, MoveResponse, OptionsResponse, PositionInfo
from tictactoe.web.service import CACHES, Engine

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

NODES, SECONDS = 400_000, 5.0


def random_position(variant: str, rng: random.Random) -> Position:
    """A position of random play that is not over."""
    while True:
        board = Position(variant)
        for _ in range(rng.randrange(board.variant.cells)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            return board


def image(board: Position, perm: tuple[int, ...]) -> Position:
    """The position with every mark moved from cell c to cell perm[c]."""
    xs = [perm[c] for c in range(board.variant.cells) if board.x >> c & 1]
    os_ = [perm[c] for c in range(board.variant.cells) if board.o >> c & 1]
    moved = Position(board.variant)
    for i in range(len(xs) + len(os_)):
        moved.push(xs[i // 2] if i % 2 == 0 else os_[i // 2])
    assert (moved.turn, bin(moved.x).count("1")) == (board.turn, len(xs))
    return moved


def same(a: Solution, b: Solution) -> bool:
    return (a.score, a.moves, a.best, a.proven, a.mover) == \
        (b.score, b.moves, b.best, b.proven, b.mover)


@pytest.mark.parametrize("variant", ["3x3", "4x4", "3x4k3"])
def test_cached_answers_equal_a_fresh_solve_on_symmetric_images(variant: str) -> None:
    rng = random.Random(variant)
    solver = WebSolver(cache_size=1000)
    perms = symmetries(Position(variant).variant)
    for _ in range(25):
        board = random_position(variant, rng)
        first = solver.solve(board, nodes=NODES, seconds=SECONDS)
        assert first.proven and same(first, solve(board.copy(stack=False)))
        twin = image(board, rng.choice(perms))
        hits = solver.hits
        from_cache = solver.solve(twin, nodes=NODES, seconds=SECONDS)
        assert solver.hits == hits + 1, "an image of a solved position comes from the cache"
        assert same(from_cache, solve(twin.copy(stack=False))), twin


def test_quick_search_and_kept_table_give_fresh_answers() -> None:
    rng = random.Random(4)
    solver = WebSolver(cache_size=10)  # tiny: most answers come from searches, not the cache
    assert solver.solve_quickly(Position("4x4"), 10_000) is None, "declines until loaded"
    solver.load()
    quick = 0
    for _ in range(60):
        board = random_position("4x4", rng)
        answer = solver.solve_quickly(board, 10_000)
        if answer is None:
            answer = solver.search(board, nodes=NODES, seconds=SECONDS)
        else:
            quick += 1
        assert same(answer, solve(board.copy(stack=False))), board
    assert quick > 0


def test_unproven_answers_are_marked_and_never_cached() -> None:
    solver = WebSolver(cache_size=10)
    rough = solver.solve(Position("5x5k4"), nodes=50, seconds=SECONDS)
    assert not rough.proven and len(solver.cache) == 0
    assert any(not score.is_proven for score in rough.moves.values())
    assert solver.solve(Position("5x5k4"), nodes=5 * NODES, seconds=SECONDS).proven
    assert len(solver.cache) == 1


def test_early_positions_are_one_per_class_and_not_over() -> None:
    boards = early_positions("4x4", 3)
    keys = {board.canonical_key() for board in boards}
    assert len(keys) == len(boards) and not any(b.is_game_over() for b in boards)
    # every position after three moves has its class listed
    board = Position("4x4")
    for cell in (5, 0, 15):
        board.push(cell)
    assert board.canonical_key() in keys


def test_move_and_position_answers_match_their_schemas(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, warm=False)) as client:
        start = "x3/4/1o2/4 x"
        body = {"position": start, "player": "perfect", "seed": 3}
        first = client.post("/api/move", json=body)
        again = client.post("/api/move", json=body)
        assert first.status_code == 200 and first.content == again.content
        move = MoveResponse.model_validate_json(first.content)
        expected = solve(Position(start))
        assert move.cell in expected.best and move.score is not None
        assert move.score.text == str(expected.moves[move.cell])
        assert move.position == PositionInfo.model_validate_json(client.post(
            "/api/position", json={"position": start, "moves": [move.move]}).content)
        # X on the empty cube: the shipped proof's move, a proven win of unknown length
        cube = client.post("/api/move", json={"position": "qubic", "player": "perfect"})
        assert cube.status_code == 200, cube.text
        proven = MoveResponse.model_validate_json(cube.content)
        assert proven.score is not None and proven.score.kind == "win"
        assert proven.score.plies is None and proven.score.text == "forced win"
        # O's first reply on the cube is out of reach: an estimate, marked as such
        cube = client.post("/api/move", json={"position": "x3/4/4/4:4/4/4/4:4/4/4/4:4/4/4/4 o",
                                              "player": "perfect"})
        assert cube.status_code == 200, cube.text
        estimate = MoveResponse.model_validate_json(cube.content)
        assert estimate.score is not None and estimate.score.kind == "heuristic"
        analysis = AnalysisResponse.model_validate_json(client.post(
            "/api/analysis", json={"position": "qubic", "nodes": 1000}).content)
        assert not analysis.proven


def test_warm_up_runs_in_the_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real_load = WebSolver.load

    def slow_load(self: WebSolver) -> None:
        release.wait(10)
        real_load(self)

    monkeypatch.setattr(WebSolver, "load", slow_load)
    app = create_app(tmp_path)
    with TestClient(app) as client:
        options = OptionsResponse.model_validate_json(client.get("/api/options").content)
        assert not options.ready, "the server answers while the warm-up runs"
        assert client.post("/api/position", json={"position": "4x4"}).status_code == 200
        release.set()
        deadline = time.monotonic() + 60
        while not client.get("/api/options").json()["ready"]:
            assert time.monotonic() < deadline, "the warm-up never finished"
            time.sleep(0.05)
        solver: Any = app.state.solver
        assert solver.loaded and len(solver.cache) >= len(early_positions("4x4", 3))
        hits = solver.hits
        assert client.post("/api/move", json={"position": "1x2/4/4/4 o"}).status_code == 200
        assert solver.hits == hits + 1, "an early position is answered from the warm cache"


def test_caches_stay_within_their_bounds() -> None:
    bounds = {name: (40, 12_000) for name in CACHES}
    engine = Engine(nodes=NODES, seconds=SECONDS, busy_seconds=10.0, inline_nodes=10_000,
                    warm_plies={}, processes=False, caches=bounds)
    rng = random.Random(7)
    seen: set[str] = set()

    async def run() -> None:
        while len(seen) < 300:
            board = random_position(rng.choice(["3x3", "4x4", "5x5k4"]), rng)
            text = board.to_string()
            if text in seen:
                continue
            seen.add(text)
            await engine.move_answer(text, "perfect", rng.randrange(100))
            await engine.move_answer(text, "random", 1)
            engine.position_answer(Position(board.variant).to_string(),
                                   [board.move_name(cell) for cell in board.move_stack])

    try:
        asyncio.run(run())
    finally:
        engine.close()
    for name, cache in engine.caches().items():
        entries, size = bounds[name]
        assert 0 < len(cache) <= entries and cache.bytes <= size, (name, len(cache), cache.bytes)
    assert engine.solver.cache.bytes > size // 2, "the cache fills up to its bound"


def test_the_size_estimate_is_near_the_memory_held() -> None:
    """`entry_bytes` against what Python really allocates, for the caches' typical entries:
    JSON answers, and proven solutions in their coded form."""
    rng = random.Random(3)
    boards = [random_position(rng.choice(["4x4", "5x5k4", "4x4x4"]), rng) for _ in range(300)]
    for kind in ("json", "solutions"):
        cache: LruCache[object] = LruCache(10_000)
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for n, board in enumerate(boards):
            value: object
            if kind == "json":
                value = position_info(board).model_dump_json().encode()
            else:
                value = (n - 500, {c: c * 7 - 900 for c in board.legal_moves()}, 1000 + n,
                         0.001 * n, "compiled")
            cache.put((board.to_string(),), value)
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert 0.6 < cache.bytes / held < 1.6, (kind, cache.bytes, held)
