"""Reliability checks of a real ``ttt serve`` process: crashes, racing writers, bad storage,
load, and light requests among heavy ones. `scripts/bench_reliability.py` runs them long and
prints the table; `tests/test_web_reliability.py` runs short rounds of each;
`scripts/bench_web.py` and `scripts/bench_levels.py` use its server and clients.

A support module of the tests, not part of the installed package: the tests import it as
``reliability`` (pytest puts this folder on the path), and the scripts put this folder on
the path themselves.

Only the standard library is used here (the clients speak HTTP/1.1 on asyncio streams), so a
client costs little next to the server it measures on the same machine.

>>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5)
3.0
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import resource
import secrets
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tictactoe.core import Position
from tictactoe.core.record import GameRecord
from tictactoe.web.limits import LIMIT_ENV
from tictactoe.web.store import DATABASE_NAME, GameStore

Json = dict[str, Any]


def percentile(samples: list[float], fraction: float) -> float:
    """The sample at ``fraction`` of the sorted list (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ----------------------------------------------------------------- the server
class Server:
    """A ``ttt serve`` process on 127.0.0.1 with its own data folder (and log file). Its
    clients here all come from 127.0.0.1 and stand for many people, so the cap on new games
    per client address is off (`tictactoe.web.limits`), unless ``env`` sets it."""

    def __init__(self, data: Path, *, port: int | None = None,
                 preexec: Callable[[], None] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.data = data
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = Path(tempfile.mkstemp(prefix="ttt-serve-", suffix=".log")[1])
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", "from tictactoe.cli import main; main()", "serve",
                 "--port", str(self.port), "--data", str(data)],
                stdout=log, stderr=subprocess.STDOUT, preexec_fn=preexec,
                env={**os.environ, LIMIT_ENV: "off", **(env or {})})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError):
                if request(self.url, "GET", "/api/options", timeout=2)[0] == 200:
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("the server did not start within 60 s")

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def wait_ready(self, seconds: float = 120.0) -> float:
        """Wait for the startup warm-up; the seconds it took."""
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            if request(self.url, "GET", "/api/options", timeout=10)[1].get("ready"):
                break
            time.sleep(0.1)
        return time.monotonic() - started

    def family(self) -> list[int]:
        """The server and every process it started (its engine workers)."""
        return [self.pid, *descendants(self.pid)]

    def memory(self) -> int:
        """Resident memory of the server and its workers, in bytes."""
        return sum(resident_bytes(pid) for pid in self.family())

    def kill(self) -> list[int]:
        """SIGKILL the server (not its workers: they must notice on their own); return the
        workers' ids."""
        workers = descendants(self.pid)
        self.process.kill()
        self.process.wait()
        with contextlib.suppress(OSError):
            self.log.unlink()
        return workers

    def stop(self) -> None:
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        with contextlib.suppress(OSError):
            self.log.unlink()


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux ``/proc``; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def resident_bytes(pid: int) -> int:
    """A process's resident memory (Linux; 0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def wait_gone(pids: list[int], seconds: float = 10.0) -> list[int]:
    """The processes still running after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        left = [pid for pid in pids if Path(f"/proc/{pid}").exists()
                and "zombie" not in _state(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("State:"):
                return line.lower()
    except OSError:
        pass
    return "zombie"


# ----------------------------------------------------------------- HTTP
def request(url: str, method: str, path: str, body: object = None,
            timeout: float = 30.0) -> tuple[int, Json]:
    """One HTTP request with a JSON body; the status and the JSON answer ({} if none)."""
    import http.client

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80,
                                            timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data,
                           headers={"Content-Type": "application/json"} if data else {})
        response = connection.getresponse()
        content = response.read()
    finally:
        connection.close()
    try:
        answer = json.loads(content) if content else {}
    except ValueError:
        answer = {"text": content.decode("utf-8", "replace")}
    return response.status, answer if isinstance(answer, dict) else {"items": answer}


class RawClient:
    """One keep-alive HTTP/1.1 connection on asyncio streams: send a JSON body, read the status
    and the body. Much cheaper per request than a full HTTP client library."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 host: str, port: int) -> None:
        self.reader, self.writer, self.host, self.port = reader, writer, host, port

    @staticmethod
    async def connect(url: str) -> RawClient:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        reader, writer = await asyncio.open_connection(host, port)
        return RawClient(reader, writer, host, port)

    async def call(self, method: str, path: str, body: object = None,
                   headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        data = b"" if body is None else json.dumps(body).encode()
        extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        message = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{extra}"
                   f"Content-Type: application/json\r\nContent-Length: {len(data)}"
                   f"\r\n\r\n".encode() + data)
        if self.reader.at_eof():
            # the server closed this connection while it was idle (keep-alive, or no first
            # request in time), as HTTP allows: nothing was sent on it, so use a new one
            await self.close()
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(message)
        line = await self.reader.readline()
        if not line:
            raise ConnectionError("the server closed the connection")
        status = int(line.split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    async def json(self, method: str, path: str, body: object = None) -> tuple[int, Json]:
        status, content = await self.call(method, path, body)
        answer = json.loads(content) if content else {}
        return status, answer if isinstance(answer, dict) else {}

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError, ConnectionError):
            await self.writer.wait_closed()


DISCONNECTED = (ConnectionError, OSError, asyncio.IncompleteReadError)

GAME_SETUPS = (("3x3", {"x": "human", "o": "perfect"}), ("4x4", {"x": "human", "o": "perfect"}),
               ("3x3", {"x": "human", "o": "human"}), ("4x4", {"x": "easy", "o": "human"}))
"""The games the clients play: against the computer on both small boards, and two people."""


# ----------------------------------------------------------------- crash durability
@dataclass
class CrashRound:
    """One crash: what the clients were told before the SIGKILL, and what the restarted
    server has."""

    acknowledged: int = 0
    """Moves answered 2xx before the kill."""
    games: int = 0
    """Games created (answered 201) before the kill."""
    lost: int = 0
    """Games whose stored state is older than the last one acknowledged."""
    landed: int = 0
    """Requests in flight at the kill that were stored (allowed: the answer was lost)."""
    torn: int = 0
    """Records that do not replay (bad moves, wrong result) or disagree with their counter."""
    integrity: str = ""
    """SQLite's own ``PRAGMA integrity_check`` of the file."""
    orphans: int = 0
    """Engine workers still running 10 s after their server was killed."""
    problems: list[str] = field(default_factory=list)


async def _crash_client(url: str, rng: random.Random, acked: dict[str, Json],
                        sent: dict[str, tuple[int, str]], counts: CrashRound) -> None:
    try:
        client = await RawClient.connect(url)
    except DISCONNECTED:
        return
    try:
        while True:
            variant, players = rng.choice(GAME_SETUPS)
            status, state = await client.json("POST", "/api/games",
                                              {"variant": variant, "players": players})
            if status != 201:
                await asyncio.sleep(0.01)
                continue
            acked[state["id"]] = state
            counts.games += 1
            while not state["game"]["result"]:
                move = rng.choice(state["position"]["legal_moves"])
                sent[state["id"]] = (state["ply"], move)
                status, answer = await client.json(
                    "POST", f"/api/games/{state['id']}/moves", {"move": move, "ply": state["ply"]})
                if status != 200:
                    break
                del sent[state["id"]]
                state = acked[state["id"]] = answer
                counts.acknowledged += 1
    except DISCONNECTED:
        return
    finally:
        await client.close()


def crash_round(server: Server, rng: random.Random, *, clients: int = 50,
                before_kill: tuple[float, float] = (0.5, 2.0)) -> tuple[CrashRound, Server]:
    """Play with ``clients`` clients, SIGKILL the server after a random time, restart it on
    the same folder and compare; return the round and the restarted server."""
    report = CrashRound()
    server.wait_ready()
    acked: dict[str, Json] = {}
    sent: dict[str, tuple[int, str]] = {}

    async def play() -> list[int]:
        tasks = [asyncio.create_task(_crash_client(server.url, random.Random(rng.random()),
                                                   acked, sent, report))
                 for _ in range(clients)]
        await asyncio.sleep(rng.uniform(*before_kill))
        workers = server.kill()
        await asyncio.gather(*tasks)
        return workers

    workers = asyncio.run(play())
    left = wait_gone(workers)
    report.orphans = len(left)
    for pid in left:  # processes this check started, through the server it killed
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    restarted = Server(server.data, port=server.port)
    for game_id, before in acked.items():
        status, now = request(restarted.url, "GET", f"/api/games/{game_id}")
        if status != 200:
            report.lost += 1
            report.problems.append(f"game {game_id[:6]}…: {status} after the restart")
            continue
        moves, old_moves = now["game"]["moves"], before["game"]["moves"]
        if now["ply"] == before["ply"] and moves == old_moves:
            continue
        pending = sent.get(game_id)
        if pending is not None and now["ply"] == before["ply"] + 1 and \
                moves[:len(old_moves) + 1] == [*old_moves, pending[1]]:
            report.landed += 1
            continue
        report.lost += 1
        report.problems.append(f"game {game_id[:6]}…: acknowledged ply {before['ply']} "
                               f"{old_moves}, stored ply {now['ply']} {moves}")
    report.integrity, torn = check_file(server.data / DATABASE_NAME)
    report.torn = len(torn)
    report.problems += torn
    return report, restarted


def check_file(path: Path) -> tuple[str, list[str]]:
    """SQLite's integrity check of a games file, and every record in it that does not hold
    together (moves that do not replay, a result that does not match them, a bad counter)."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        integrity = str(db.execute("PRAGMA integrity_check").fetchone()[0])
        rows = db.execute("SELECT number, variant, start, players, moves, result, started,"
                          " finished, ply, undone FROM games").fetchall()
    finally:
        db.close()
    torn = []
    for number, variant, start, players, moves, result, started, finished, ply, undone in rows:
        try:
            GameRecord.from_dict({"variant": variant, "start": start,
                                  "players": json.loads(players), "moves": json.loads(moves),
                                  "result": result, "started": started, "finished": finished})
            if not isinstance(ply, int) or ply < 0 or not isinstance(json.loads(undone), list):
                raise ValueError(f"bad counter {ply!r} or undone moves {undone!r}")
            if (result is None) != (finished is None):
                raise ValueError("result and finish time disagree")
        except (ValueError, TypeError) as err:
            torn.append(f"record {number}: {err}")
    return integrity, torn


# ----------------------------------------------------------------- racing writers
@dataclass
class RaceReport:
    """Two clients sending a change from the same state, many times over."""

    races: int = 0
    won: int = 0
    """Changes answered 200 (exactly one per race)."""
    refused: int = 0
    """Changes answered 409 (the loser of each race)."""
    lost: int = 0
    """Changes answered 200 that the final record does not hold."""
    other: int = 0
    """Any other answer."""
    others: list[tuple[int, str]] = field(default_factory=list)
    """Those other answers: status and detail."""


async def _race_games(url: str, games: int, rng: random.Random) -> RaceReport:
    report = RaceReport()
    first, second = await RawClient.connect(url), await RawClient.connect(url)
    try:
        for number in range(games):
            variant, players = GAME_SETUPS[number % 3]  # against perfect, or two people
            _, state = await first.json("POST", "/api/games",
                                        {"variant": variant, "players": players})
            game = f"/api/games/{state['id']}"
            accepted: list[list[str]] = []
            while not state["game"]["result"]:
                legal = state["position"]["legal_moves"]
                moves = rng.sample(legal, 2) if len(legal) > 1 else legal * 2
                undo = state["can_undo"] and rng.random() < 0.15
                bodies = [{"ply": state["ply"]} if undo else {"move": move, "ply": state["ply"]}
                          for move in moves]
                path = f"{game}/undo" if undo else f"{game}/moves"
                answers = await asyncio.gather(*(client.json("POST", path, body) for client, body
                                                 in zip((first, second), bodies, strict=True)))
                report.races += 1
                winners = [answer for status, answer in answers if status == 200]
                report.won += len(winners)
                report.refused += sum(1 for status, _ in answers if status == 409)
                report.other += sum(1 for status, _ in answers if status not in (200, 409))
                report.others += [(status, str(answer.get("detail"))) for status, answer
                                  in answers if status not in (200, 409)]
                if len(winners) != 1:
                    break
                state = winners[0]
                accepted.append(state["game"]["moves"])
            _, final = await first.json("GET", game)
            if accepted and final["game"]["moves"] != accepted[-1]:
                report.lost += 1
    finally:
        await first.close()
        await second.close()
    return report


def race(url: str, games: int, seed: int = 0) -> RaceReport:
    """Two clients race on ``games`` games: at each step both send a move (or both an undo)
    from the same state. Exactly one may win; the other gets 409; nothing is lost."""
    return asyncio.run(_race_games(url, games, random.Random(seed)))


# ----------------------------------------------------------------- bad storage
@dataclass
class StorageReport:
    """What a server on bad storage answered."""

    kind: str
    how: str = ""
    """How the fault was made (a mount, permissions, a file limit)."""
    game_status: int = 0
    message: str = ""
    clean: bool = False
    """The message names the cause and carries no traceback."""
    analysis_status: int = 0
    alive: bool = False
    recovered: bool | None = None
    """Whether games work again once the fault is gone (where the check can undo it)."""


def can_mount() -> bool:
    """Whether this process may mount a small tmpfs (root with the capability)."""
    if os.geteuid() != 0 or not Path("/proc/mounts").exists():
        return False
    with tempfile.TemporaryDirectory() as probe:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe],
                              capture_output=True, check=False)
        if done.returncode != 0:
            return False
        subprocess.run(["umount", probe], check=False)
    return True


@contextlib.contextmanager
def _tmpfs(folder: Path, size: str) -> Iterator[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                   check=True, capture_output=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, capture_output=True)


def _limit_file_size(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def _probe(server: Server, report: StorageReport, game: str | None = None) -> None:
    if game is None:
        status, answer = request(server.url, "POST", "/api/games",
                                 {"variant": "3x3", "players": {"x": "human", "o": "human"}})
    else:
        status, answer = request(server.url, "POST", f"{game}/moves", {"move": "b2", "ply": 0})
    report.game_status = status
    report.message = str(answer.get("detail", answer))
    report.clean = "storage is unavailable" in report.message and \
        "Traceback" not in report.message and "File \"" not in report.message
    report.analysis_status = request(server.url, "POST", "/api/analysis",
                                     {"position": "x1x/1o1/o2 x"})[0]
    report.alive = server.alive()


def bad_storage(kind: str, work: Path) -> StorageReport | None:
    """Serve from a ``corrupt``, ``read-only`` or ``full`` data folder; None if this machine
    cannot make the fault (a read-only folder needs a mount or a user that is not root)."""
    report = StorageReport(kind)
    folder = work / kind
    if kind == "corrupt":
        folder.mkdir(parents=True)
        (folder / DATABASE_NAME).write_bytes(b"this is not a SQLite database\n" * 200)
        report.how = "random bytes in the games file"
        server = Server(folder)
        try:
            _probe(server, report)
            (folder / DATABASE_NAME).unlink()  # the operator moves the bad file away
            report.recovered = request(server.url, "POST", "/api/games",
                                       {"variant": "3x3"})[0] == 201
        finally:
            server.stop()
        return report
    if kind == "read-only":
        if os.geteuid() != 0:
            folder.mkdir(parents=True)
            folder.chmod(0o555)
            report.how = "a folder without write permission"
            try:
                server = Server(folder)
                try:
                    _probe(server, report)
                finally:
                    server.stop()
            finally:
                folder.chmod(0o755)
            return report
        if not can_mount():
            return None
        with _tmpfs(folder, "1m"):
            subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True,
                           capture_output=True)
            report.how = "a tmpfs mounted read-only"
            server = Server(folder)
            try:
                _probe(server, report)
                subprocess.run(["mount", "-o", "remount,rw", str(folder)], check=True,
                               capture_output=True)
                report.recovered = request(server.url, "POST", "/api/games",
                                           {"variant": "3x3"})[0] == 201
            finally:
                server.stop()
        return report
    if kind == "full":
        if can_mount():
            with _tmpfs(folder, "512k"):
                report.how = "a 512 KB tmpfs filled up"
                server = Server(folder)
                try:
                    _, state = request(server.url, "POST", "/api/games", {"variant": "3x3"})
                    game = f"/api/games/{state.get('id', 'x' * 32)}"
                    filler = folder / "filler"
                    with contextlib.suppress(OSError), filler.open("wb") as out:
                        while True:
                            out.write(b"\0" * 4096)
                            out.flush()
                    _probe(server, report, game)
                    if report.game_status != 503:  # the move fit in a page already there
                        _probe(server, report)
                    filler.unlink()
                    report.recovered = request(server.url, "POST", "/api/games",
                                               {"variant": "3x3"})[0] == 201
                finally:
                    server.stop()
            return report
        folder.mkdir(parents=True)
        report.how = "a file-size limit on the server (writes fail)"
        server = Server(folder, preexec=_limit_file_size(40_000))
        try:
            for _ in range(400):  # fill the file up to the limit
                _probe(server, report)
                if report.game_status != 201:
                    break
        finally:
            server.stop()
        return report
    raise ValueError(f"unknown storage fault {kind!r}: expected corrupt, read-only or full")


# ----------------------------------------------------------------- load
@dataclass
class LoadReport:
    """Latencies by kind of request, errors and elapsed time of a load run."""

    latency: dict[str, list[float]] = field(default_factory=dict)
    errors: int = 0
    games: int = 0
    seconds: float = 0.0
    client_cpu: float = 0.0
    """Processor seconds the clients themselves used (they share the machine with the
    server)."""

    def all(self) -> list[float]:
        return [s for samples in self.latency.values() for s in samples]

    def summary(self, name: str | None = None) -> tuple[int, float, float, float, float]:
        """(requests, requests per second, p50 ms, p99 ms, max ms)."""
        samples = self.all() if name is None else self.latency.get(name, [])
        if not samples:
            return 0, 0.0, 0.0, 0.0, 0.0
        return (len(samples), len(samples) / max(self.seconds, 1e-9),
                statistics.median(samples) * 1000, percentile(samples, 0.99) * 1000,
                max(samples) * 1000)


async def _game_client(url: str, number: int, variants: list[str], report: LoadReport,
                       stop_at: float, games_left: list[int], perfect: str = "o") -> None:
    rng = random.Random(number)
    client = await RawClient.connect(url)
    game = 0

    async def timed(kind: str, method: str, path: str, body: object) -> tuple[int, Json]:
        started = time.perf_counter()
        status, answer = await client.json(method, path, body)
        report.latency.setdefault(kind, []).append(time.perf_counter() - started)
        if status >= 300:
            report.errors += 1
        return status, answer

    try:
        while games_left[0] > 0 and time.perf_counter() < stop_at:
            games_left[0] -= 1
            variant = variants[(number + game) % len(variants)]
            game += 1
            human = "x" if perfect == "o" else "o"
            status, state = await timed(variant, "POST", "/api/games", {
                "variant": variant, "players": {human: "human", perfect: "perfect"},
                "seed": rng.randrange(2**31)})
            while status < 300 and not state["game"]["result"]:
                status, state = await timed(variant, "POST",
                                            f"/api/games/{state['id']}/moves",
                                            {"move": rng.choice(state["position"]["legal_moves"]),
                                             "ply": state["ply"]})
            report.games += 1
    finally:
        await client.close()


def game_load(url: str, *, clients: int = 50, games: int = 400, seconds: float = 60.0,
              variants: tuple[str, ...] = ("3x3", "4x4"), perfect: str = "o") -> LoadReport:
    """``clients`` clients each play whole games against ``perfect`` (playing ``perfect``,
    ``x`` or ``o``) through the game endpoints (create, then a random legal move at a time,
    the server replying), until ``games`` games or ``seconds``. Latencies are per board."""
    report = LoadReport()

    async def run() -> None:
        started, cpu = time.perf_counter(), time.process_time()
        left = [games]
        await asyncio.gather(*(_game_client(url, n, list(variants), report,
                                            started + seconds, left, perfect)
                               for n in range(clients)))
        report.seconds = time.perf_counter() - started
        report.client_cpu = time.process_time() - cpu

    asyncio.run(run())
    return report


WRK_SCRIPT = r"""
-- Each wrk thread has one connection and plays whole games against perfect through the
-- game endpoints: create a game, then a random legal move at a time.
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("number", counter)
end
function init(args)
  math.randomseed(number * 7919)
  id = nil
  variant = (number % 2 == 0) and "4x4" or "3x3"
  games, errors = 0, 0
end
function request()
  if id == nil then
    return wrk.format("POST", "/api/games", {["Content-Type"] = "application/json"},
      '{"variant":"' .. variant .. '","players":{"x":"human","o":"perfect"}}')
  end
  return wrk.format("POST", "/api/games/" .. id .. "/moves",
    {["Content-Type"] = "application/json"},
    '{"move":"' .. legal[math.random(#legal)] .. '","ply":' .. ply .. '}')
end
function response(status, headers, body)
  if status ~= 200 and status ~= 201 then
    errors = errors + 1
    id = nil
    return
  end
  id = string.match(body, '"id":"([^"]+)"')
  ply = string.match(body, '"ply":(%d+)')
  legal = {}
  local list = string.match(body, '"legal_moves":%[(.-)%]') or ""
  for move in string.gmatch(list, '"([^"]+)"') do legal[#legal + 1] = move end
  if #legal == 0 then
    id = nil
    games = games + 1
  end
end
function done(summary, latency, requests)
  io.write(string.format("WRK %d %d %d %.3f %.3f %.3f %.3f\n", summary.requests,
    summary.errors.status + summary.errors.connect + summary.errors.read
      + summary.errors.write + summary.errors.timeout,
    summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, latency.mean / 1000))
end
"""
"""A wrk script (Lua) that plays like `game_load`'s clients: the same mix of boards."""


@dataclass
class WrkReport:
    requests: int
    errors: int
    seconds: float
    p50_ms: float
    p99_ms: float
    max_ms: float

    @property
    def rate(self) -> float:
        return self.requests / max(self.seconds, 1e-9)


def wrk_load(url: str, *, connections: int = 50, seconds: float = 10.0,
             wrk: str = "wrk") -> WrkReport:
    """The same game load from ``wrk`` (an independent load generator written in C): one
    thread per connection, each playing whole games."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
    try:
        done = subprocess.run(
            [wrk, f"-t{connections}", f"-c{connections}", f"-d{max(1, round(seconds))}s",
             "--timeout", "10s", "-s", script.name, url],
            capture_output=True, text=True, check=True, timeout=seconds + 60)
    finally:
        os.unlink(script.name)
    line = next(line for line in done.stdout.splitlines() if line.startswith("WRK "))
    requests, errors, micros, p50, p99, longest, _ = line.split()[1:]
    non_2xx = sum(int(part.split()[-1]) for part in done.stdout.splitlines()
                  if part.strip().startswith("Non-2xx"))
    return WrkReport(int(requests), int(errors) + non_2xx, int(micros) / 1e6, float(p50),
                     float(p99), float(longest))


# ----------------------------------------------------------------- light among heavy
@dataclass
class MixReport:
    light: list[float] = field(default_factory=list)
    """Latencies of the 3×3 client's requests (game moves against perfect, or the level asked
    for), seconds."""
    light_errors: int = 0
    heavy_done: int = 0
    heavy_refused: int = 0
    """Heavy requests answered 503 (their queue was full or they waited too long)."""
    heavy_other: int = 0


HEAVY = ({"path": "/api/move", "player": "perfect", "variant": "4x4x4"},
         {"path": "/api/analysis", "variant": "6x6k4"},
         {"path": "/api/move", "player": "hard", "variant": "4x4x4"},
         {"path": "/api/analysis", "variant": "4x4x4"})
"""The heavy requests: the cube at perfect and hard, analysis of big boards at the largest
limits; on fresh positions each time, so no cache answers them."""


async def _heavy_client(url: str, number: int, report: MixReport, stop: asyncio.Event) -> None:
    rng = random.Random(1000 + number)
    client = await RawClient.connect(url)
    try:
        while not stop.is_set():
            kind = HEAVY[number % len(HEAVY)]
            board = Position(kind["variant"])
            for _ in range(rng.randrange(2, 8)):
                board.push(rng.choice(board.legal_moves()))
            if board.is_game_over():
                continue
            body: Json = {"position": board.to_string()}
            if kind["path"] == "/api/move":
                body["player"] = kind["player"]
            else:
                body.update(nodes=5_000_000, seconds=10.0)
            status, _ = await client.call("POST", str(kind["path"]), body)
            if status == 200:
                report.heavy_done += 1
            elif status == 503:  # the queue is full: wait as the answer asks (Retry-After)
                report.heavy_refused += 1
                await asyncio.sleep(1.0)
            else:
                report.heavy_other += 1
    finally:
        await client.close()


async def _light_client(url: str, report: MixReport, stop: asyncio.Event,
                        level: str = "perfect") -> None:
    rng = random.Random(7)
    client = await RawClient.connect(url)
    try:
        while not stop.is_set():
            started = time.perf_counter()
            status, state = await client.json("POST", "/api/games", {
                "variant": "3x3", "players": {"x": "human", "o": level},
                "seed": rng.randrange(2**31)})
            report.light.append(time.perf_counter() - started)
            while status < 300 and not state["game"]["result"] and not stop.is_set():
                started = time.perf_counter()
                status, state = await client.json(
                    "POST", f"/api/games/{state['id']}/moves",
                    {"move": rng.choice(state["position"]["legal_moves"]), "ply": state["ply"]})
                report.light.append(time.perf_counter() - started)
                await asyncio.sleep(0.01)  # a person's pace is slower still
            if status >= 300:
                report.light_errors += 1
    finally:
        await client.close()


def light_among_heavy(url: str, *, heavy: int = 20, seconds: float = 20.0) -> MixReport:
    """A 3×3 client plays against perfect while ``heavy`` clients keep heavy requests going."""
    report = MixReport()

    async def run() -> None:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(_heavy_client(url, n, report, stop)) for n in range(heavy)]
        await asyncio.sleep(1.0)  # the heavy requests are under way first
        light = asyncio.create_task(_light_client(url, report, stop))
        await asyncio.sleep(seconds)
        stop.set()
        await light
        await asyncio.gather(*tasks)

    asyncio.run(run())
    return report


async def _small_board_client(url: str, number: int, variant: str, level: str,
                              report: MixReport, stop: asyncio.Event) -> None:
    """Whole games on ``variant`` against ``level``, one after another, until ``stop``."""
    rng = random.Random(2000 + number)
    client = await RawClient.connect(url)
    try:
        while not stop.is_set():
            status, state = await client.json("POST", "/api/games", {
                "variant": variant, "players": {"x": "human", "o": level},
                "seed": rng.randrange(2**31)})
            while status < 300 and not state["game"]["result"] and not stop.is_set():
                status, state = await client.json(
                    "POST", f"/api/games/{state['id']}/moves",
                    {"move": rng.choice(state["position"]["legal_moves"]), "ply": state["ply"]})
                if status < 300:
                    report.heavy_done += 1
            if status == 503:
                report.heavy_refused += 1
                await asyncio.sleep(1.0)
            elif status >= 300:
                report.heavy_other += 1
    finally:
        await client.close()


def small_among_small(url: str, *, level: str = "hard", others: int = 10,
                      seconds: float = 20.0, variant: str = "4x4") -> MixReport:
    """A 3×3 client plays games against ``level`` while ``others`` clients play whole games on
    ``variant`` (4×4) against the same level: the small boards' work must not slow the 3×3
    game (its replies' latencies are `MixReport.light`; the others' moves answered,
    refused with 503 and otherwise are counted as the heavy ones)."""
    report = MixReport()

    async def run() -> None:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(_small_board_client(url, n, variant, level, report, stop))
                 for n in range(others)]
        await asyncio.sleep(1.0 if others else 0.0)  # the others' games are under way first
        light = asyncio.create_task(_light_client(url, report, stop, level))
        await asyncio.sleep(seconds)
        stop.set()
        await light
        await asyncio.gather(*tasks)

    asyncio.run(run())
    return report


# ----------------------------------------------------------------- memory
def distinct_positions(count: int, seed: int = 0) -> Iterator[Position]:
    """``count`` different positions of random play on the small and middle boards, none over."""
    rng = random.Random(seed)
    seen: set[str] = set()
    while len(seen) < count:
        board = Position(rng.choice(("4x4", "5x5k4", "6x6k4", "4x4x4", "3x4k3", "5x5")))
        for _ in range(rng.randrange(1, 9)):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves()))
        text = board.to_string()
        if board.is_game_over() or text in seen:
            continue
        seen.add(text)
        yield board


def memory_run(server: Server, positions: int = 10_000, every: int = 1000,
               progress: Callable[[int, int], None] | None = None) -> list[tuple[int, int]]:
    """Ask about ``positions`` distinct positions (their facts, a computer move, a short
    analysis); return (positions so far, resident bytes of the server and its workers)
    at the start and every ``every`` positions."""
    samples = [(0, server.memory())]

    async def run() -> None:
        clients = [await RawClient.connect(server.url) for _ in range(8)]
        queue: asyncio.Queue[Position | None] = asyncio.Queue(64)

        async def work(client: RawClient) -> None:
            while (board := await queue.get()) is not None:
                text = board.to_string()
                await client.call("POST", "/api/position", {"position": text})
                player = "perfect" if board.variant.cells <= 16 else "rules"
                await client.call("POST", "/api/move", {"position": text, "player": player,
                                                        "seed": 1})
                await client.call("POST", "/api/analysis", {"position": text, "nodes": 2000})

        workers = [asyncio.create_task(work(client)) for client in clients]
        for n, board in enumerate(distinct_positions(positions), 1):
            await queue.put(board)
            if n % every == 0:
                samples.append((n, server.memory()))
                if progress:
                    progress(n, samples[-1][1])
        for _ in workers:
            await queue.put(None)
        await asyncio.gather(*workers)
        for client in clients:
            await client.close()
        samples.append((positions, server.memory()))

    asyncio.run(run())
    return samples


# ----------------------------------------------------------------- history at scale
HISTORY_PLAYERS = ({"x": "human", "o": "easy"}, {"x": "medium", "o": "human"},
                   {"x": "human", "o": "hard"}, {"x": "human", "o": "perfect"},
                   {"x": "human", "o": "human"})
"""Who plays in the games `fill_history` writes: a human against each level, and two people."""


def random_finished_games(count: int, seed: int = 0,
                          variants: tuple[str, ...] = ("3x3", "4x4")) -> list[GameRecord]:
    """``count`` games of random moves to the end, on each board in turn (players as in
    `HISTORY_PLAYERS`, in turn)."""
    rng = random.Random(seed)
    games = []
    for n in range(count):
        board = Position(variants[n % len(variants)])
        moves = []
        while not board.is_game_over():
            cell = rng.choice(board.legal_moves())
            moves.append(board.move_name(cell))
            board.push(cell)
        games.append(GameRecord.from_moves(board.variant.name, moves,
                                           players=HISTORY_PLAYERS[n % len(HISTORY_PLAYERS)]))
    return games


def fill_history(folder: Path, games: int, *, seed: int = 0, browsers: int = 100,
                 distinct: int = 500) -> float:
    """Add ``games`` finished games to the games file in ``folder``: ``distinct`` random games
    (`random_finished_games`) over and over, each with one of ``browsers`` browser ids (or
    none, one in ten), one minute apart, written straight into SQLite, then the results table
    counted afresh (`GameStore.rebuild_results`). Returns the seconds the recount took."""
    rng = random.Random(seed)
    pool = random_finished_games(distinct, seed)
    ids = [f"bench-browser-{n:04d}" for n in range(browsers)]
    store = GameStore.in_folder(folder)
    store.check()  # the file and its tables
    store.close()
    db = sqlite3.connect(folder / DATABASE_NAME)
    try:
        rows = []
        for n in range(games):
            record = pool[n % len(pool)]
            finished = time.strftime("%Y-%m-%dT%H:%M:%S+00:00",
                                     time.gmtime(1_700_000_000 + 60 * n))
            rows.append((secrets.token_urlsafe(24), record.variant, record.start,
                         json.dumps(record.players), json.dumps(list(record.moves)),
                         record.result, finished, finished, rng.randrange(2**31),
                         None if n % 10 == 0 else rng.choice(ids)))
        with db:
            db.executemany("INSERT INTO games (token, variant, start, players, moves, result,"
                           " started, finished, ply, undone, seed, browser)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, '[]', ?, ?)", rows)
    finally:
        db.close()
    started = time.perf_counter()
    store = GameStore.in_folder(folder)
    try:
        store.rebuild_results()
    finally:
        store.close()
    return time.perf_counter() - started


def history_timing(url: str, *, requests: int = 200, limit: int = 100,
                   browser: str | None = None) -> list[float]:
    """Latencies (seconds) of ``requests`` ``GET /api/history?limit=`` one after another on
    one connection (of one browser's games if ``browser`` is given: the header the page
    sends)."""
    latencies: list[float] = []
    headers = None if browser is None else {"X-Browser-Id": browser}

    async def run() -> None:
        client = await RawClient.connect(url)
        try:
            for _ in range(requests):
                started = time.perf_counter()
                status, _ = await client.call("GET", f"/api/history?limit={limit}",
                                              headers=headers)
                latencies.append(time.perf_counter() - started)
                if status != 200:
                    raise RuntimeError(f"GET /api/history answered {status}")
        finally:
            await client.close()

    asyncio.run(run())
    return latencies


# ----------------------------------------------------------------- guards
def _probe_latencies(url: str, stop: Callable[[], bool], every: float = 0.05) -> list[float]:
    """Time light requests (``GET /api/options``, a fresh connection each) until `stop()`;
    a request that fails counts as infinitely slow."""
    samples = []
    while not stop():
        started = time.perf_counter()
        try:
            status, _ = request(url, "GET", "/api/options", timeout=10)
            samples.append(time.perf_counter() - started if status == 200 else float("inf"))
        except OSError:
            samples.append(float("inf"))
        time.sleep(every)
    return samples


@contextlib.contextmanager
def _probing(url: str) -> Iterator[list[float]]:
    """Light requests on a thread for as long as the block runs (see `_probe_latencies`);
    the list of their latencies fills as they answer."""
    samples: list[float] = []
    done = False

    def probe() -> None:
        samples.extend(_probe_latencies(url, lambda: done))

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        yield samples
    finally:
        done = True
        prober.join()


@dataclass
class ChunkedReport:
    status: int = 0
    answered: float = 0.0
    """Seconds from the first body byte to the answer."""
    sent: int = 0
    """Body bytes the client got out before the server closed the connection."""
    rss_before: int = 0
    rss_after: int = 0
    light_before: list[float] = field(default_factory=list)
    light_during: list[float] = field(default_factory=list)


def chunked_flood(server: Server, mib: int = 300) -> ChunkedReport:
    """Send a chunked body of `mib` MiB (no declared length) to ``POST /api/games`` while a
    light client polls; the answer, how much the server let in, its memory, the latencies."""
    report = ChunkedReport(rss_before=server.memory())
    report.light_before = _probe_latencies(server.url, _for_seconds(2.0))
    with _probing(server.url) as report.light_during:
        _send_chunked(server, mib, report)
        report.rss_after = server.memory()
        time.sleep(1.0)
    return report


def _send_chunked(server: Server, mib: int, report: ChunkedReport) -> None:
    chunk = b"a" * 65536
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                     b"application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        started = time.perf_counter()

        def pump() -> None:
            try:
                while report.sent < mib * 2**20:
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    report.sent += len(chunk)
            except OSError:
                pass

        sender = threading.Thread(target=pump, daemon=True)
        sender.start()
        with contextlib.suppress(OSError):
            line = sock.recv(65536)
            report.answered = time.perf_counter() - started
            report.status = int(line.split()[1]) if line.startswith(b"HTTP/") else 0
        sender.join(30)


def _for_seconds(seconds: float) -> Callable[[], bool]:
    end = time.monotonic() + seconds
    return lambda: time.monotonic() > end


def descriptor_limit(limit: int) -> Callable[[], None]:
    """A ``preexec`` for `Server`: the server runs with at most `limit` open files."""
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    return apply


@dataclass
class HalfOpenReport:
    opened: int = 0
    refused: int = 0
    all_closed: float | None = None
    """Seconds from the last one opened until the server had closed them all (None: not in
    the time allowed)."""
    light: list[float] = field(default_factory=list)


def half_open(server: Server, connections: int = 1000, wait: float = 20.0) -> HalfOpenReport:
    """Open `connections` connections that send a request line and one header and then
    nothing, while a light client polls; how long until the server closed them all."""
    report = HalfOpenReport()
    with _probing(server.url) as report.light:
        _hold_half_open(server, connections, wait, report)
        time.sleep(0.5)
    return report


def _hold_half_open(server: Server, connections: int, wait: float,
                    report: HalfOpenReport) -> None:
    parts = urlsplit(server.url)
    held: list[socket.socket] = []
    try:
        for _ in range(connections):
            try:
                sock = socket.create_connection((parts.hostname, parts.port), timeout=5)
                sock.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                sock.setblocking(False)
                held.append(sock)
            except OSError:
                report.refused += 1
        report.opened = len(held)
        opened = time.monotonic()
        open_ones = list(held)
        while open_ones and time.monotonic() - opened < wait:
            still = []
            for sock in open_ones:
                try:
                    if sock.recv(4096) == b"":
                        continue  # closed by the server
                    still.append(sock)  # an answer: read on
                except BlockingIOError:
                    still.append(sock)
                except OSError:
                    continue  # reset by the server
            open_ones = still
            time.sleep(0.05)
        if not open_ones:
            report.all_closed = time.monotonic() - opened
    finally:
        for sock in held:
            sock.close()


__all__ = ["ChunkedReport", "CrashRound", "HalfOpenReport", "LoadReport", "MixReport",
           "RaceReport", "RawClient", "Server", "StorageReport", "WrkReport", "bad_storage",
           "check_file", "chunked_flood", "crash_round", "descriptor_limit", "fill_history",
           "game_load", "half_open", "history_timing", "light_among_heavy", "memory_run",
           "percentile", "race", "random_finished_games", "request", "small_among_small",
           "wrk_load"]
