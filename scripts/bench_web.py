#!/usr/bin/env python3
"""Load benchmark of the web API (not a test): many clients play random games against `perfect`.

    python scripts/bench_web.py                      # starts `ttt serve` on a free local port
    python scripts/bench_web.py --url http://127.0.0.1:8000 --clients 50 --games 400

Each client plays as the page does: its own random move (POST /api/position), then the
computer's answer (POST /api/move, player perfect). Variants alternate between 3x3 and 4x4.
The run stops after --games games or --seconds seconds, whichever comes first, and prints
requests per second and the p50 / p99 latency, overall and per variant.

Each client holds one keep-alive HTTP/1.1 connection and speaks the protocol directly on
asyncio streams: on a small machine that runs the server too, a full HTTP client library
costs as much CPU per request as the server and its queueing would be measured as server
latency (``--client httpx`` uses httpx instead, to compare). ``--variants 4x4`` plays one
board only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

import httpx

ROOT = Path(__file__).resolve().parent.parent


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Run:
    def __init__(self, games: int, seconds: float) -> None:
        self.games_left = games
        self.deadline = time.perf_counter() + seconds
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors = 0
        self.games_played = 0

    def take_game(self) -> bool:
        if self.games_left <= 0 or time.perf_counter() > self.deadline:
            return False
        self.games_left -= 1
        return True


class Client(Protocol):
    async def post(self, path: str, body: dict[str, object]) -> tuple[int, bytes]: ...

    async def close(self) -> None: ...


class RawClient:
    """One keep-alive HTTP/1.1 connection: POST a JSON body, read status and body."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @staticmethod
    async def connect(url: str) -> RawClient:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        reader, writer = await asyncio.open_connection(host, port)
        return RawClient(reader, writer, f"{host}:{port}")

    async def post(self, path: str, body: dict[str, object]) -> tuple[int, bytes]:
        data = json.dumps(body).encode()
        self.writer.write(f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\n"
                          f"Content-Type: application/json\r\nContent-Length: {len(data)}"
                          f"\r\n\r\n".encode() + data)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


class HttpxClient:
    def __init__(self, url: str) -> None:
        self.client = httpx.AsyncClient(base_url=url, timeout=30)

    async def post(self, path: str, body: dict[str, object]) -> tuple[int, bytes]:
        response = await self.client.post(path, json=body)
        return response.status_code, response.content

    async def close(self) -> None:
        await self.client.aclose()


async def timed(client: Client, run: Run, variant: str, path: str,
                body: dict[str, object]) -> dict[str, object] | None:
    started = time.perf_counter()
    status, content = await client.post(path, body)
    run.latency[variant].append(time.perf_counter() - started)
    if status != 200:
        run.errors += 1
        return None
    data: dict[str, object] = json.loads(content)
    return data


async def client_loop(number: int, args: argparse.Namespace, url: str, run: Run) -> None:
    rng = random.Random(number)
    client: Client = HttpxClient(url) if args.client == "httpx" else \
        await RawClient.connect(url)
    try:
        game = 0
        variants = args.variants.split(",")
        while run.take_game():
            variant = variants[(number + game) % len(variants)]
            game += 1
            info = await timed(client, run, variant, "/api/position", {"position": variant})
            while info and not info["outcome"]:
                legal = info["legal_moves"]
                assert isinstance(legal, list)
                info = await timed(client, run, variant, "/api/position", {
                    "position": info["position"], "moves": [rng.choice(legal)]})
                if not info or info["outcome"]:
                    break
                answer = await timed(client, run, variant, "/api/move", {
                    "position": info["position"], "player": "perfect",
                    "seed": rng.randrange(2**31)})
                info = answer["position"] if answer else None  # type: ignore[assignment]
            run.games_played += 1
    finally:
        await client.close()


def start_server() -> tuple[subprocess.Popen[str], str, tempfile.TemporaryDirectory[str]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data = tempfile.TemporaryDirectory(prefix="ttt-bench-")
    ttt = shutil.which("ttt", path=str(Path(sys.executable).parent)) or "ttt"
    process = subprocess.Popen([ttt, "serve", "--port", str(port), "--data", data.name],
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            httpx.get(f"{url}/api/options", timeout=1)
            return process, url, data
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


def wait_until_ready(url: str, seconds: float = 120.0) -> float:
    """Wait for the server's startup warm-up (``ready`` in /api/options); the seconds it took."""
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        if httpx.get(f"{url}/api/options", timeout=10).json().get("ready", True):
            break
        time.sleep(0.1)
    return time.perf_counter() - started


async def main_async(args: argparse.Namespace, url: str) -> Run:
    run = Run(args.games, args.seconds)
    async with httpx.AsyncClient(base_url=url, timeout=60) as warm:  # first solves fill the table
        for variant in args.variants.split(","):
            await warm.post("/api/move", json={"position": variant, "player": "perfect"})
    started = time.perf_counter()
    await asyncio.gather(*(client_loop(n, args, url, run) for n in range(args.clients)))
    run.deadline = time.perf_counter() - started  # reuse: elapsed seconds
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="a running server; default: start one")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--games", type=int, default=400, help="stop after this many games")
    parser.add_argument("--seconds", type=float, default=60.0, help="stop after this long")
    parser.add_argument("--variants", default="3x3,4x4",
                        help="boards the clients take turns with (comma-separated)")
    parser.add_argument("--cold", action="store_true",
                        help="start at once, without waiting for the server's warm-up")
    parser.add_argument("--client", choices=("raw", "httpx"), default="raw",
                        help="HTTP client: plain asyncio streams (default) or httpx")
    args = parser.parse_args()
    server = None
    url = args.url
    if url is None:
        server, url, _data = start_server()
    if not args.cold:
        print(f"server warm-up: waited {wait_until_ready(url):.1f} s")
    try:
        run = asyncio.run(main_async(args, url))
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    elapsed = run.deadline
    every = [s for samples in run.latency.values() for s in samples]
    print(f"{args.clients} clients, {run.games_played} games, {len(every)} requests in "
          f"{elapsed:.1f} s, {run.errors} errors")
    print(f"{'':6} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    rows = [("all", every), *sorted(run.latency.items())]
    for name, samples in rows:
        if samples:
            print(f"{name:6} {len(samples):9d} {len(samples) / elapsed:8.0f} "
                  f"{statistics.median(samples) * 1000:8.1f} "
                  f"{percentile(samples, 0.99) * 1000:8.1f} {max(samples) * 1000:8.1f}")
    return 1 if run.errors else 0


if __name__ == "__main__":
    sys.exit(main())
