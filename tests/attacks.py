"""Attacks on a running ``ttt serve`` from one client with no credentials, each beside a
*probe*: a light 3×3 request sent every 20 ms, whose latency says whether the attack holds
everyone else up. A support module of the tests (`tests/test_web_load.py`, short forms with
the probe's latency as the assertion) and of ``scripts/bench_web.py --attacks`` (the full
figures).

Each attack is a coroutine ``attack(url, stop, report)`` that keeps sending its requests
until ``stop`` is set, recording each one's latency and status in ``report``.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from reliability import DISCONNECTED, RawClient, percentile, request

from tictactoe.core import Position

PROBE = ("POST", "/api/position", {"position": "x2/1o1/3 x"})
"""The probe's request: a light 3×3 position (an answer cached after the first)."""


@dataclass
class AttackReport:
    probe: list[float] = field(default_factory=list)
    """The probe's latencies, seconds."""
    probe_errors: int = 0
    attack: list[float] = field(default_factory=list)
    """The attack's own requests' latencies, seconds."""
    statuses: dict[int, int] = field(default_factory=dict)
    """The attack's answers by status."""

    def note(self, status: int, seconds: float) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.attack.append(seconds)

    def summary(self) -> str:
        def ms(samples: list[float], q: float) -> str:
            return f"{1000 * percentile(samples, q):7.1f}" if samples else "      -"
        return (f"probe p50 {ms(self.probe, 0.5)} ms p99 {ms(self.probe, 0.99)} ms "
                f"({len(self.probe)} requests, {self.probe_errors} errors); attack p50 "
                f"{ms(self.attack, 0.5)} ms p99 {ms(self.attack, 0.99)} ms, statuses "
                f"{dict(sorted(self.statuses.items()))}")


Attack = Callable[[str, asyncio.Event, AttackReport], Coroutine[Any, Any, None]]


async def _probe(url: str, stop: asyncio.Event, report: AttackReport) -> None:
    client = await RawClient.connect(url)
    method, path, body = PROBE
    try:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                status, _ = await asyncio.wait_for(client.call(method, path, body), 30)
            except (*DISCONNECTED, TimeoutError):
                report.probe_errors += 1
                await client.close()
                client = await RawClient.connect(url)
                continue
            report.probe.append(time.perf_counter() - started)
            if status != 200:
                report.probe_errors += 1
            await asyncio.sleep(0.02)
    finally:
        await client.close()


def run_attack(url: str, attack: Attack | None, *, clients: int = 1, seconds: float = 5.0,
               enough: int | None = None) -> AttackReport:
    """Run `clients` copies of `attack` (none: the baseline) and the probe for `seconds`, or
    only until the attack has `enough` answers (a busy machine gets there later)."""
    report = AttackReport()

    async def run() -> None:
        stop = asyncio.Event()
        tasks: list[asyncio.Task[None]] = [
            asyncio.create_task(attack(url, stop, report)) for _ in range(clients)] \
            if attack is not None else []
        await asyncio.sleep(0.3 if tasks else 0)  # the attack is under way first
        probe = asyncio.create_task(_probe(url, stop, report))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and (enough is None or len(report.attack) < enough):
            await asyncio.sleep(min(0.1, seconds))
        stop.set()
        await probe
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(run())
    return report


def long_move_list(variant: str = "32x32k32", moves: int = 1000, seed: int = 0) -> list[str]:
    """`moves` random moves on `variant` (k = 32: nobody wins), as names."""
    rng = random.Random(seed)
    board = Position(variant)
    cells = list(range(board.variant.cells))
    rng.shuffle(cells)
    return [board.variant.cell_name(c) for c in cells[:moves]]


async def _timed(client: RawClient, report: AttackReport, method: str, path: str,
                 body: object = None) -> int:
    started = time.perf_counter()
    status, _ = await client.call(method, path, body)
    report.note(status, time.perf_counter() - started)
    return status


async def post_long_positions(url: str, stop: asyncio.Event, report: AttackReport) -> None:
    """``POST /api/position`` of 32×32 boards after 1,000 moves, a new list each time."""
    client = await RawClient.connect(url)
    seed = random.randrange(2**31)
    try:
        while not stop.is_set():
            seed += 1
            await _timed(client, report, "POST", "/api/position",
                         {"position": "32x32k32", "moves": long_move_list(seed=seed)})
    finally:
        await client.close()


async def poll_long_game(url: str, stop: asyncio.Event, report: AttackReport) -> None:
    """A two-player 32×32 game of 1,000 moves, made once and then read again and again."""
    client = await RawClient.connect(url)
    try:
        status, game = await client.json("POST", "/api/games", {
            "variant": "32x32k32", "players": {"x": "human", "o": "human"},
            "moves": long_move_list()})
        report.note(status, 0.0)
        while not stop.is_set() and status == 201:
            await _timed(client, report, "GET", f"/api/games/{game['id']}")
    finally:
        await client.close()


def _player_on(variant: str, player: str) -> Attack:
    async def attack(url: str, stop: asyncio.Event, report: AttackReport) -> None:
        rng = random.Random()
        client = await RawClient.connect(url)
        try:
            while not stop.is_set():
                board = Position(variant)
                board.push(rng.randrange(board.variant.cells))
                status = await _timed(client, report, "POST", "/api/move",
                                      {"position": board.to_string(), "player": player})
                if status == 503:
                    await asyncio.sleep(1.0)
        finally:
            await client.close()
    return attack


rules_on_32x32 = _player_on("32x32k5", "rules")
"""The ``rules`` player on 32×32 boards with one mark, in a loop."""

heuristic_on_19x19 = _player_on("19x19k5", "heuristic")
"""The fixed-depth ``heuristic`` player on 19×19 boards with one mark, in a loop."""


async def distinct_board_names(url: str, stop: asyncio.Event, report: AttackReport) -> None:
    """A new big board name each time (``20x21k7``, ...), as positions."""
    names = [f"{r}x{c}k{k}" for r in range(16, 33) for c in range(16, 33) for k in range(5, 10)]
    random.shuffle(names)
    client = await RawClient.connect(url)
    try:
        for name in names:
            if stop.is_set():
                break
            await _timed(client, report, "POST", "/api/position", {"position": name})
    finally:
        await client.close()


def slow_readers(url: str, count: int = 40, requests: int = 400, path: str = "/static/app.css"
                 ) -> list[socket.socket]:
    """`count` connections that each send `requests` pipelined requests for the page's
    stylesheet and never read the answers (a small receive buffer, so the server's side
    fills at once). The sockets are returned open: close them to end the attack."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    message = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n" * requests
               ).encode()
    held = []
    for _ in range(count):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(5)
        try:
            s.connect((host, port))
            s.sendall(message)
        except OSError:
            s.close()
            continue
        held.append(s)
    return held


def fresh_requests(url: str, count: int = 10, failures: list[str] | None = None
                   ) -> list[float]:
    """The latencies of `count` fresh connections' requests (``GET /api/options``); a
    refused or reset one counts as infinity, and what went wrong is added to `failures`."""
    times = []
    for n in range(count):
        started = time.perf_counter()
        try:
            status, answer = request(url, "GET", "/api/options", timeout=10)
            problem = "" if status == 200 else f"status {status}: {answer}"
        except OSError as err:
            problem = repr(err)
        elapsed = time.perf_counter() - started
        times.append(float("inf") if problem else elapsed)
        if problem and failures is not None:
            failures.append(f"request {n} after {elapsed:.2f} s: {problem}")
        time.sleep(0.05)
    return times


def new_games_from(url: str, count: int, *, forwarded: bool = False,
                   source: str | None = None) -> list[int]:
    """The statuses of `count` new-game requests, each with a different ``X-Forwarded-For``
    (with `forwarded`) or from the loopback address `source`."""
    import http.client
    import json

    parts = urlsplit(url)
    statuses = []
    for n in range(count):
        connection = http.client.HTTPConnection(
            parts.hostname or "127.0.0.1", parts.port or 80, timeout=10,
            source_address=(source, 0) if source else None)
        headers = {"Content-Type": "application/json"}
        if forwarded:
            headers["X-Forwarded-For"] = f"198.51.100.{n + 1}"
        try:
            connection.request("POST", "/api/games", body=json.dumps({"variant": "3x3"}),
                               headers=headers)
            statuses.append(connection.getresponse().status)
        finally:
            connection.close()
    return statuses


__all__ = ["AttackReport", "distinct_board_names", "fresh_requests", "heuristic_on_19x19",
           "long_move_list", "new_games_from", "poll_long_game", "post_long_positions",
           "rules_on_32x32", "run_attack", "slow_readers"]
