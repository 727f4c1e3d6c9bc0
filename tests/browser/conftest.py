"""Browser tests: a real `ttt serve` on a free local port, driven by Debian's Chromium.

Without Chromium these tests are skipped on a workstation but fail in CI (``CI=true``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--headless"]


def chromium() -> str:
    """The Chromium executable; fail in CI and skip elsewhere when it is missing."""
    path = shutil.which("chromium")
    if path is None:
        message = "Debian's chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": chromium(), "args": CHROMIUM_ARGS,
            "headless": True}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": {"width": 1200, "height": 860}}


def wait_until(page: Any, expression: str, timeout: float = 30_000) -> Any:
    """Wait until the JavaScript `expression` is truthy in `page` (polled, as Playwright's
    ``wait_for_function`` would, but by ``evaluate``, which the page's CSP allows: the
    page forbids evaluating strings) and return its value."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout / 1000:g} s: {expression}\n"
                               f"the page then: {page.evaluate(PAGE_STATE)}")
        page.wait_for_timeout(50)


PAGE_STATE = """({
  status: (document.querySelector('#status') || {}).textContent,
  notes: [...document.querySelectorAll('.note[role=status]:not([hidden]), .error')]
    .map((n) => n.id + ': ' + n.textContent.trim()).filter((t) => !t.endsWith(': ')),
  dialog: (document.querySelector('#confirm') || {}).open,
  stored: localStorage.getItem('tictactoe.current'),
  marks: document.querySelectorAll('#board .cell svg').length,
  open_cells: document.querySelectorAll('#board .cell[aria-disabled=false]').length,
  level: (document.querySelector('#level') || {}).value,
})"""
"""What a page shows when a wait for it times out: its status line, its notes and errors,
whether its dialog is open, its stored game, and its board's marks and playable cells."""


YOUR_TURN = "document.querySelector('#board .cell[aria-disabled=false]') !== null"
"""True once the page waits for a move of the person at the keyboard."""


def stored_game(url: str, game_id: str, timeout: float = 30.0) -> dict[str, Any]:
    """The server's answer for game `game_id` (``GET /api/games/{id}``), asked again while
    the server says it is busy (429 or 503, as under a full test run's load)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = httpx.get(f"{url}/api/games/{game_id}", timeout=timeout)
        if answer.status_code not in (429, 503) or time.monotonic() > deadline:
            break
        time.sleep(min(float(answer.headers.get("Retry-After", "1")), 2.0))
    assert answer.status_code == 200, f"{answer.status_code}: {answer.text}"
    body: dict[str, Any] = answer.json()
    return body


def open_page(page: Any, url: str) -> None:
    """Load the page and wait until it is ready for a move."""
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    wait_until(page, YOUR_TURN)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """A `ttt serve` process on 127.0.0.1 with its own data folder.

    Every test's browser comes from 127.0.0.1, so a suite of them starts more games from one
    address than the per-address cap allows a person; the cap is off unless ``env`` sets it
    (a test of the cap starts its own server with ``TICTACTOE_GAME_LIMIT``)."""

    def __init__(self, data: Path, port: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.data = data
        self.port = port or _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-c", "from tictactoe.cli import main; main()", "serve",
                   "--port", str(self.port), "--data", str(data)]
        # its output goes to a file: a pipe nobody reads would stop the server once full
        self.log = data.with_name(f"{data.name}-server.log")
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self._output = self.log.open("w")
        self.process = subprocess.Popen(command, stdout=self._output,
                                        stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "TICTACTOE_GAME_LIMIT": "off",
                                             **(env or {})})
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._output.close()
                raise RuntimeError(f"the server stopped: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/api/options", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not start within 90 s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._output.close()


@pytest.fixture(scope="session")
def start_server(
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Server]]:
    """Start servers on demand (on a data folder, and a port if given: the page's own
    storage belongs to its address); every one is stopped at the end of the session."""
    servers: list[Server] = []

    def start(data: Path, port: int | None = None,
              env: dict[str, str] | None = None) -> Server:
        server = Server(data, port, env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def server(start_server: Callable[..., Server],
           tmp_path_factory: pytest.TempPathFactory) -> Server:
    chromium()
    return start_server(tmp_path_factory.mktemp("web-data"))


@pytest.fixture
def shot(request: pytest.FixtureRequest) -> Callable[[Any, str], None]:
    """Save a screenshot of a page under test-artifacts/, named after the test."""
    ARTIFACTS.mkdir(exist_ok=True)

    def save(page: Any, label: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{label}.png"), full_page=True)

    return save


@pytest.fixture(autouse=True)
def no_policy_violations(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test whose page breaks the server's Content-Security-Policy (Chromium reports
    each blocked script, style or request on the console)."""
    if "page" not in request.fixturenames:
        yield
        return
    page = request.getfixturevalue("page")
    violations: list[str] = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    yield
    assert violations == []
