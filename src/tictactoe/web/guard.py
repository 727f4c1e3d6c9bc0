"""Plain ASGI layers in front of the app: ``HEAD`` answered as ``GET``, the declared body
length, the Host check and the security headers (inside them, Starlette's
``RequestBodyLimitMiddleware`` counts a body's bytes as they arrive, chunked or not, and stops
at the first byte past `MAX_BODY_BYTES`).

Each wraps the app without reading the body, so the other requests pay nothing for it:

- `HeadAsGet` answers ``HEAD`` on every path as ``GET`` with the body left out (FastAPI's
  routes accept only the methods they declare, so they would answer 405);
- `DeclaredLengthCheck` answers 413 to a declared ``Content-Length`` over the limit;
- `HostCheck` answers 400 to a request whose ``Host`` is not on the allow-list (a page on
  another site that rebinds its name to 127.0.0.1 sends its own name, so it cannot read or
  play the games of a server bound to this machine);
- `SecurityHeaders` adds a strict Content-Security-Policy (scripts, styles and data from the
  server itself only; no framing), ``nosniff``, ``Referrer-Policy`` and, on game state,
  ``Cache-Control: no-store``.

>>> host_allowed(b"127.0.0.1:8000", {"127.0.0.1", "localhost"})
True
>>> host_allowed(b"attacker.example", {"127.0.0.1", "localhost"})
False
>>> host_allowed(b"[::1]:8000", {"::1"})
True
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 16 * 1024
"""Largest request body accepted; anything bigger is refused with 413."""

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The names a server bound to a loopback address answers to (with ``--allowed-host`` more)."""

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'")
"""The page's scripts, styles, images and requests come from the server itself; nothing
inline, nothing from elsewhere, and no other site may frame it."""

SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
NO_STORE_PREFIX = "/api/games"
"""Answers under this path carry game state (and secret game ids): never stored by a cache."""


async def refuse(send: Send, status: int, detail: str, *, close: bool = False) -> None:
    """Answer with ``{"detail": detail}`` and `status` (and close the connection after)."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class DeclaredLengthCheck:
    """Answer 413 at once to a body whose declared ``Content-Length`` is over `max_bytes`
    (Starlette's ``RequestBodyLimitMiddleware`` counts any other body as it arrives)."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"content-length" and (not value.isdigit()
                                                  or int(value) > self.max_bytes):
                    await refuse(send, 413, body_too_large(self.max_bytes), close=True)
                    return
        await self.app(scope, receive, send)


def body_too_large(max_bytes: int = MAX_BODY_BYTES) -> str:
    """What a 413 answer says."""
    return f"request body too large: at most {max_bytes} bytes"


def host_allowed(host: bytes, allowed: Iterable[str]) -> bool:
    """Whether the ``Host`` header `host` names one of `allowed` (any port)."""
    text = host.decode("latin-1").strip().lower()
    if text.startswith("["):  # [::1]:8000
        name = text[1:text.find("]")] if "]" in text else ""
    else:
        name = text.rsplit(":", 1)[0] if text.count(":") == 1 else text
    return name != "" and name in {a.lower().strip("[]") for a in allowed}


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or ``localhost``) is this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class HostCheck:
    """Answer 400 to a request whose ``Host`` header is missing or not in `allowed`."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = frozenset(a.lower().strip("[]") for a in allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = next((value for name, value in scope["headers"] if name == b"host"), b"")
            if not host_allowed(host, self.allowed):
                shown = host.decode("latin-1")[:100]
                await refuse(send, 400, f"this server does not answer to the host {shown!r}; "
                                        f"use one of {', '.join(sorted(self.allowed))} "
                                        "(ttt serve --allowed-host adds names)")
                return
        await self.app(scope, receive, send)


class HeadAsGet:
    """Answer ``HEAD`` like ``GET``: the same status and headers (``Content-Length``
    included), no body. The API's schema still lists only ``GET``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        # a copy: the server still sees HEAD in its own scope, and so sends no body either
        await self.app({**scope, "method": "GET"}, receive, send_without_body)


class SecurityHeaders:
    """Add `SECURITY_HEADERS` to every answer, and ``Cache-Control: no-store`` to game state."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        no_store = str(scope.get("path", "")).startswith(NO_STORE_PREFIX)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(n, v) for n, v in message.get("headers", [])
                           if not (no_store and n.lower() == b"cache-control")]
                headers.extend(SECURITY_HEADERS)
                if no_store:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


__all__ = ["CONTENT_SECURITY_POLICY", "LOOPBACK_HOSTS", "MAX_BODY_BYTES",
           "DeclaredLengthCheck", "HeadAsGet", "HostCheck", "SecurityHeaders", "body_too_large",
           "host_allowed", "is_loopback"]
