"""The server's guards against a real uvicorn server on 127.0.0.1 (the protocol, with short
limits) and through the app: bodies past the limit, slow and half-open clients, the
connection cap, the Host allow-list, the security headers, ``HEAD`` answered as ``GET``,
and ``ttt serve``: the ``--host`` warning, and a port in use refused before any file is made."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import struct
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.exceptions import StarletteDeprecationWarning
from typer.testing import CliRunner

with warnings.catch_warnings():  # Starlette now prefers httpx2 for its test client; httpx works
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

from tictactoe.cli import app as cli_app
from tictactoe.web.app import create_app
from tictactoe.web.guard import CONTENT_SECURITY_POLICY, LOOPBACK_HOSTS, MAX_BODY_BYTES
from tictactoe.web.server import (
    LISTEN_QUEUE,
    GuardedServer,
    RepeatFilter,
    connection_cap,
    guarded_protocol,
    server_config,
)

READ_SECONDS = 1.0
CAP = 24


@dataclass
class Running:
    port: int
    server: uvicorn.Server

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=5)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """The app under the guarded protocol (read deadline 1 s, at most 24 connections)."""
    web = create_app(tmp_path_factory.mktemp("guard"), warm=False, processes=False,
                     allowed_hosts=LOOPBACK_HOSTS)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = GuardedServer(server_config(web, "127.0.0.1", port, read_seconds=READ_SECONDS,
                                         max_connections=CAP))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield Running(port, server)
    server.should_exit = True
    thread.join(10)


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes `sock` within `within` seconds (anything it sends first is
    read and dropped)."""
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


def read_answer(sock: socket.socket) -> tuple[bytes, bytes]:
    """One answer's head and body (by its Content-Length)."""
    sock.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        body += sock.recv(65536)
    return head, body


def test_a_chunked_body_past_the_limit_is_refused_without_reading_it(running: Running) -> None:
    sock = running.connect()
    sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    sent = 0
    chunk = b"a" * 4096

    def pump() -> None:  # up to 64 MiB, far more than the server should ever read
        nonlocal sent
        try:
            while sent < 64 * 2**20:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except OSError:
            pass

    sender = threading.Thread(target=pump, daemon=True)
    sender.start()
    head, body = read_answer(sock)
    assert head.startswith(b"HTTP/1.1 413")
    assert json.loads(body)["detail"] == f"request body too large: at most {MAX_BODY_BYTES} bytes"
    assert closed_by_server(sock, 5)
    sender.join(5)
    assert sent < 8 * 2**20  # the sender was cut off long before the end
    sock.close()


def test_a_declared_length_past_the_limit_is_refused(running: Running) -> None:
    response = httpx.post(f"{running.url}/api/games", content=b"{" + b" " * MAX_BODY_BYTES + b"}",
                          headers={"content-type": "application/json"})
    assert response.status_code == 413 and "too large" in response.json()["detail"]


def test_half_open_and_stalled_requests_are_closed_and_others_served(running: Running) -> None:
    half_open = []
    for _ in range(10):
        sock = running.connect()
        sock.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and no more
        half_open.append(sock)
    stalled = running.connect()
    stalled.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 16000\r\n"
                    b"Content-Type: application/json\r\n\r\n{\"variant\": ")  # 13 of 16,000 bytes
    assert httpx.get(f"{running.url}/api/options").status_code == 200  # served meanwhile
    started = time.monotonic()
    assert all(closed_by_server(sock, READ_SECONDS + 3) for sock in [*half_open, stalled])
    assert time.monotonic() - started < READ_SECONDS + 3
    for sock in [*half_open, stalled]:
        sock.close()


def test_a_slow_but_steady_request_in_time_is_answered(running: Running) -> None:
    sock = running.connect()
    for line in (b"GET /api/options HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n", b"\r\n"):
        sock.sendall(line)
        time.sleep(READ_SECONDS / 5)
    sock.settimeout(5)
    assert sock.recv(100).startswith(b"HTTP/1.1 200")
    sock.close()


def test_past_the_connection_cap_the_oldest_idle_connections_make_room(
        running: Running) -> None:
    idle = []
    for _ in range(CAP + 10):
        sock = running.connect()
        sock.sendall(b"GET /api/options HTTP/1.1\r\n")
        idle.append(sock)
    time.sleep(0.2)
    with httpx.Client() as client:  # a new client is served at once, many times over
        assert all(client.get(f"{running.url}/api/options").status_code == 200
                   for _ in range(5))
    assert closed_by_server(idle[0], 0.5)  # the oldest made room, before its deadline
    for sock in idle:
        sock.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="TCP_INFO as on Linux")
def test_the_kernel_holds_a_long_queue_of_connections_not_yet_accepted(
        running: Running) -> None:
    # on a listening socket, Linux's tcp_info gives the queue's length (tcpi_unacked) and
    # its most (tcpi_sacked): a burst longer than one accept batch must fit in it, or the
    # kernel drops handshakes and real clients wait a second for them to be sent again
    listening = running.server.servers[0].sockets[0]
    info = listening.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    most = struct.unpack_from("I", info, 28)[0]
    somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
    assert most == min(LISTEN_QUEUE, somaxconn) > 256


def test_a_burst_past_the_descriptor_limit_never_runs_the_server_out_of_descriptors(
        tmp_path: Path) -> None:
    # 600 connections at once to a server allowed 256 open files (so at most
    # connection_cap(256) connections): it closes the oldest to make room and never fails to
    # accept for want of descriptors (the event loop would then stop accepting for a second)
    from reliability import Server, descriptor_limit, request
    assert connection_cap(256) < 100
    server = Server(tmp_path, preexec=descriptor_limit(256))
    held = []
    try:
        for _ in range(600):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(sock)
        assert request(server.url, "GET", "/api/options", timeout=10)[0] == 200
        assert closed_by_server(held[0], 5)
        log = server.log.read_text()
        assert "closed the oldest idle or slow ones" in log
        assert "out of system resource" not in log and "Too many open files" not in log, log
    finally:
        for sock in held:
            sock.close()
        server.stop()


# --------------------------------------------------------------- through the app
@pytest.fixture
def local_client(tmp_path: Path) -> Iterator[TestClient]:
    web = create_app(tmp_path, warm=False, processes=False, allowed_hosts=LOOPBACK_HOSTS)
    with TestClient(web, base_url="http://127.0.0.1:8000") as client:
        yield client


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "LOCALHOST:80", "[::1]:8000"])
def test_the_loopback_names_are_answered(local_client: TestClient, host: str) -> None:
    assert local_client.get("/api/options", headers={"host": host}).status_code == 200


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000",
                                  "127.0.0.1.attacker.example", "", "[::2]:8000"])
def test_a_foreign_host_is_refused(local_client: TestClient, host: str) -> None:
    for method, path in (("GET", "/api/history"), ("POST", "/api/games")):
        response = local_client.request(method, path, headers={
            "host": host, "origin": f"http://{host}"}, json={"variant": "3x3"})
        assert response.status_code == 400
        assert "does not answer to the host" in response.json()["detail"]


def test_every_answer_carries_the_security_headers(local_client: TestClient) -> None:
    for path in ("/", "/static/js/main.js", "/api/options", "/api/nowhere"):
        headers = local_client.get(path).headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-frame-options"] == "DENY"
    created = local_client.post("/api/games", json={"variant": "3x3"})
    assert created.status_code == 201 and created.headers["cache-control"] == "no-store"
    game = created.json()["id"]
    assert local_client.get(f"/api/games/{game}").headers["cache-control"] == "no-store"
    assert "no-store" not in local_client.get("/static/app.css").headers.get(
        "cache-control", "")


def test_the_page_has_no_inline_script_or_style() -> None:
    from importlib import resources

    page = (resources.files("tictactoe.web") / "static" / "index.html").read_text()
    assert re.search(r"<script(?![^>]*\bsrc=)", page) is None  # every script is a file
    assert "<style" not in page and re.search(r"\s(style|on[a-z]+)=", page) is None


# --------------------------------------------------------------- HEAD requests
@pytest.mark.parametrize("path", ["/", "/api/options", "/api/history", "/static/app.css",
                                  "/static/js/main.js", "/openapi.json"])
def test_head_answers_like_get_without_a_body(local_client: TestClient, path: str) -> None:
    got = local_client.get(path)
    head = local_client.head(path)
    assert got.status_code == 200 and head.status_code == 200, head.text
    assert head.content == b""
    for name in ("content-type", "content-length", "cache-control",
                 "content-security-policy", "x-content-type-options"):
        assert head.headers.get(name) == got.headers.get(name), name


def test_head_on_a_game_and_on_errors_matches_get(local_client: TestClient) -> None:
    game = local_client.post("/api/games", json={"variant": "3x3"}).json()["id"]
    for path in (f"/api/games/{game}", f"/api/games/{game}/record"):
        head, got = local_client.head(path), local_client.get(path)
        assert head.status_code == got.status_code == 200 and head.content == b""
        assert head.headers["cache-control"] == got.headers["cache-control"] == "no-store"
    for path in ("/api/games/nothing-here-at-all", "/api/nowhere"):
        head, got = local_client.head(path), local_client.get(path)
        assert head.status_code == got.status_code == 404 and head.content == b""
        assert head.headers["content-type"] == got.headers["content-type"]
    refused = local_client.head("/api/games")  # POST only
    assert refused.status_code == 405 and refused.content == b""
    assert refused.headers["allow"] == local_client.get("/api/games").headers["allow"]


def test_head_is_not_in_the_api_schema(local_client: TestClient) -> None:
    paths = local_client.get("/openapi.json").json()["paths"]
    assert paths and all("head" not in operations for operations in paths.values())
    assert "get" in paths["/api/options"]


def test_head_on_the_real_server_sends_no_body(running: Running) -> None:
    with running.connect() as sock:
        sock.sendall(b"HEAD /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                     b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(5)
        data = b""
        while data.count(b"\r\n\r\n") < 2:
            data += sock.recv(65536) or pytest.fail(f"connection closed: {data!r}")
        head, _, rest = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        length = re.search(rb"content-length: (\d+)", head, re.I)
        assert length is not None and int(length.group(1)) > 0
        assert rest.startswith(b"HTTP/1.1 200")  # the next answer follows at once: no body


# --------------------------------------------------------------- the command
def test_serve_warns_on_a_public_address(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def pretend_run(self: uvicorn.Server, sockets: Any = None) -> None:
        seen["app"] = self.config.app
        self.started = True

    monkeypatch.setattr(uvicorn.Server, "run", pretend_run)
    runner = CliRunner()
    public = runner.invoke(cli_app, ["serve", "--host", "0.0.0.0", "--port", "0",
                                     "--data", str(tmp_path)])
    assert public.exit_code == 0, public.output
    assert "Warning" in public.output and "other machines can connect" in public.output
    with TestClient(seen["app"]) as client:  # no Host check on a public address
        assert client.get("/api/options", headers={"host": "games.example"}).status_code == 200
        assert client.get("/api/options").json()["public_history"] is False
        assert "private" in error(client.get("/api/history"), 403)
        mine = {"X-Browser-Id": "b4Kz9_Qm2xRt7LwP-Vn3aY"}
        assert client.get("/api/history", headers=mine).status_code == 200
    assert "private (--public-history shares it)" in public.output
    shared = runner.invoke(cli_app, ["serve", "--host", "0.0.0.0", "--port", "0",
                                     "--data", str(tmp_path), "--public-history"])
    assert shared.exit_code == 0 and "shared (--public-history)" in shared.output
    with TestClient(seen["app"]) as client:
        assert client.get("/api/history").status_code == 200
    local = runner.invoke(cli_app, ["serve", "--port", "0", "--data", str(tmp_path),
                                    "--allowed-host", "games.example"])
    assert local.exit_code == 0 and "Warning" not in local.output
    with TestClient(seen["app"]) as client:
        assert client.get("/api/options", headers={"host": "games.example"}).status_code == 200
        assert client.get("/api/options", headers={"host": "other.example"}).status_code == 400
        assert client.get("/api/history", headers={"host": "localhost"}).status_code == 200


def error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    detail: str = response.json()["detail"]
    return detail


@pytest.mark.parametrize("folder_exists", [True, False])
def test_serve_on_a_busy_port_fails_cleanly_and_creates_no_database(
        tmp_path: Path, folder_exists: bool) -> None:
    from tictactoe.web.store import DATABASE_NAME

    data = tmp_path / "data"
    if folder_exists:
        data.mkdir()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli_app, ["serve", "--port", str(port),
                                              "--data", str(data)])
    assert result.exit_code != 0 and result.exception is not None
    assert isinstance(result.exception, SystemExit), result.exception
    assert f"127.0.0.1:{port}" in result.output and "error:" in result.output
    assert "Traceback" not in result.output and "is ready" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (data / DATABASE_NAME).exists()
    assert data.exists() is folder_exists


def test_serve_answers_on_the_port_it_bound_first(tmp_path: Path) -> None:
    from reliability import Server

    server = Server(tmp_path / "data")  # a real ``ttt serve``, waited on till it answers
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(b"HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                         b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            data = b""
            while data.count(b"\r\n\r\n") < 2:
                data += sock.recv(65536) or pytest.fail(f"connection closed: {data!r}")
        head, _, rest = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and b"content-length: 0" not in head.lower()
        assert rest.startswith(b"HTTP/1.1 200"), rest[:200]  # the next answer at once: no body
        assert (tmp_path / "data" / "games.sqlite3").exists()
    finally:
        server.stop()


def test_repeated_log_lines_are_counted_not_repeated() -> None:
    quiet = RepeatFilter(window=0.2)
    record = {"name": "asyncio", "msg": "socket.accept() out of system resource"}
    first = logging.makeLogRecord(record)
    shown = [quiet.filter(first)] + [quiet.filter(logging.makeLogRecord(record))
                                     for _ in range(999)]
    assert shown.count(True) == 1 and first.getMessage() == record["msg"]
    time.sleep(0.25)
    later = logging.makeLogRecord(record)
    assert quiet.filter(later) and "999 more like this" in later.getMessage()


class _Transport(asyncio.Transport):
    """A transport that takes what the protocol writes and goes nowhere."""

    def __init__(self) -> None:
        super().__init__()
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default)

    def write(self, data: Any) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closing

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True


@pytest.mark.parametrize("pipelined", [False, True])
def test_a_client_that_sends_requests_ahead_counts_as_unread_while_a_file_is_sent(
        pipelined: bool) -> None:
    # a static file's answer listens for a disconnect, and so resumes the reading that
    # uvicorn paused for requests sent ahead: the cap must still see them (a fresh
    # connection was cut off in their place when all others were in that state)
    answering = asyncio.Event()

    async def file_like(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        listener = asyncio.ensure_future(receive())  # watch for a disconnect, as files do
        answering.set()
        await asyncio.sleep(3600)
        listener.cancel()

    async def run() -> tuple[bool, bool]:
        config = uvicorn.Config(file_like, lifespan="off")
        protocol = guarded_protocol(READ_SECONDS, CAP)(
            config=config, server_state=uvicorn.server.ServerState(), app_state={})
        protocol.connection_made(_Transport())
        request = b"GET /static/app.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        protocol.data_received(request * (3 if pipelined else 1))
        await asyncio.wait_for(answering.wait(), 5)
        await asyncio.sleep(0)  # the listener has resumed reading
        unread, reading = protocol.unread(), protocol.reading()
        protocol.connection_lost(None)
        for task in list(protocol.tasks):
            task.cancel()
        return unread, reading

    unread, reading = asyncio.run(run())
    assert unread is pipelined and not reading
