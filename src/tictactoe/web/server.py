"""The HTTP server under ``ttt serve``: uvicorn's h11 protocol with limits that hold for every
connection, so that slow or idle clients cannot use up the server.

- **Read deadline.** A request's line, headers and body must all arrive within
  `READ_SECONDS` of its first byte (or of the connection's opening); else the connection is
  closed. A client that sends one header and waits, or stops halfway through a body, is gone
  after that time.
- **Keep-alive.** An idle connection between requests is closed after `KEEP_ALIVE_SECONDS`
  (uvicorn's ``timeout_keep_alive``).
- **Write deadline.** A client that stops reading its answer (the server's send buffer stays
  full for `WRITE_SECONDS`) is cut off, and so is a closed connection whose last answer it
  does not read within that time.
- **Connection cap.** At most `connection_cap` connections are open at once, below the
  process's descriptor limit (raised to its hard limit, at most `WANTED_DESCRIPTORS`, at
  start). A new connection past the cap cuts off the oldest connection that is closing but
  still unread, else the oldest that is sending its request or idle, else the oldest whose
  client does not read its answer or sends requests ahead of the answers (pipelining, which
  no browser does); never another whose answer is being computed. So neither a flood of
  half-open connections nor clients that do not read can lock out a real client.
- **Per-address cap.** One address (other than this machine's own) holds at most
  `PER_ADDRESS_SHARE` of the cap; past it, its own oldest connection goes the same way.
- **Listen queue.** The kernel holds up to `LISTEN_QUEUE` connections not yet accepted, so a
  burst of connections does not make a real client's handshake wait a second for a resend.
- **Quiet logs.** A message that repeats (a closed connection, a failed ``accept``) is logged
  once per `LOG_WINDOW_SECONDS` with a count of the ones left out (`RepeatFilter`).

>>> connection_cap(1024)
796
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from tictactoe.web.limits import LOOPBACK, client_key

log = logging.getLogger("tictactoe.web.server")

READ_SECONDS = 5.0
"""Most seconds one request (line, headers and body) may take to arrive."""
WRITE_SECONDS = 10.0
"""Most seconds an answer may wait on a client that does not read it."""
PER_ADDRESS_SHARE = 0.5
"""The share of the connection cap one client address may hold (loopback clients exempt)."""
KEEP_ALIVE_SECONDS = 5
"""Most seconds an idle connection stays open between requests."""
MAX_CONNECTIONS = 2000
"""Most connections open at once, whatever the descriptor limit."""
RESERVED_DESCRIPTORS = 100
"""Descriptors kept for everything but connections: the database, the engine workers' pipes,
the static files and the logs."""
ACCEPT_BATCH = 64
"""Connections the server accepts at a time. The cap keeps twice as many descriptors free:
one batch just accepted, and one of connections closed to make room whose descriptors are
freed a moment later. (Out of descriptors, the event loop would stop accepting for a whole
second.)"""
LISTEN_QUEUE = 2048
"""Connections the kernel holds for the server before it accepts them (at most the system's
``somaxconn``). Held connections use no descriptor of the server's; a queue longer than one
accept batch keeps a burst of connections from overflowing it, which would make the kernel
drop the handshakes of real clients (they wait a second for it to be sent again)."""
WANTED_DESCRIPTORS = 4096
"""The descriptor limit the server asks for at start (up to the hard limit)."""
LOG_WINDOW_SECONDS = 10.0
"""A repeated log message appears at most once in this many seconds."""
QUIETED_LOGGERS = ("asyncio", "uvicorn", "uvicorn.error", "tictactoe.web.server", "tictactoe.web")


def connection_cap(descriptors: int) -> int:
    """The most connections to keep open with `descriptors` file descriptors."""
    return max(16, min(MAX_CONNECTIONS, descriptors - RESERVED_DESCRIPTORS
                                          - 2 * ACCEPT_BATCH))


def raise_descriptor_limit() -> int:
    """Raise this process's soft limit on open files towards `WANTED_DESCRIPTORS` (never past
    the hard limit); the limit in force afterwards (`MAX_CONNECTIONS` where there is none)."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return MAX_CONNECTIONS + RESERVED_DESCRIPTORS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = WANTED_DESCRIPTORS if hard == resource.RLIM_INFINITY else min(hard,
                                                                           WANTED_DESCRIPTORS)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    return MAX_CONNECTIONS + RESERVED_DESCRIPTORS if soft == resource.RLIM_INFINITY else soft


class RepeatFilter(logging.Filter):
    """Let a message (by logger and format) through once per `window` seconds; the next one
    let through says how many were left out meanwhile.

    >>> quiet = RepeatFilter(window=60)
    >>> record = logging.makeLogRecord({"name": "x", "msg": "too many open files"})
    >>> quiet.filter(record), quiet.filter(record), quiet.left_out
    (True, False, 1)
    """

    def __init__(self, window: float = LOG_WINDOW_SECONDS) -> None:
        super().__init__()
        self.window = window
        self.last: dict[tuple[str, str], float] = {}
        self.suppressed: dict[tuple[str, str], int] = {}
        self.left_out = 0

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = time.monotonic()
        if now - self.last.get(key, -self.window) < self.window:
            self.suppressed[key] = self.suppressed.get(key, 0) + 1
            self.left_out += 1
            return False
        self.last[key] = now
        skipped = self.suppressed.pop(key, 0)
        if skipped:
            record.msg = f"{record.msg} ({skipped} more like this in the last " \
                         f"{self.window:g} s not shown)"
        if len(self.last) > 1000:  # many distinct messages: forget the old ones
            self.last = {k: t for k, t in self.last.items() if now - t < self.window}
        return True


def quiet_repeated_logs() -> RepeatFilter:
    """Put one `RepeatFilter` on the server's loggers (once); return it."""
    for name in QUIETED_LOGGERS:
        for existing in logging.getLogger(name).filters:
            if isinstance(existing, RepeatFilter):
                return existing
    quiet = RepeatFilter()
    for name in QUIETED_LOGGERS:
        logging.getLogger(name).addFilter(quiet)
    return quiet


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the read deadline and the connection cap above (set per
    server by `guarded_protocol`)."""

    read_seconds: float = READ_SECONDS
    write_seconds: float = WRITE_SECONDS
    max_connections: int = MAX_CONNECTIONS
    by_age: ClassVar[dict[GuardedH11Protocol, None]] = {}
    """This server's open connections, oldest first (a dict keeps the order of insertion):
    the next one to close past the cap is found without looking at all of them."""

    next_warning: ClassVar[float] = 0.0
    """When the cap's warning may be logged again (a burst past the cap logs it once)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.read_timer: asyncio.TimerHandle | None = None
        self.write_timer: asyncio.TimerHandle | None = None
        self.address = ""
        self.sent_ahead = False
        """Whether the client has sent a request before the answer to the one before
        (pipelining; sticky)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.by_age[self] = None
        self.address = client_key(self.client[0]) if self.client else ""
        self._arm_read_deadline()
        if len(self.connections) > self.max_connections:  # closing ones count till they close
            self._make_room()
        elif self.address != LOOPBACK:
            mine = [c for c in self.by_age if c.address == self.address]
            if len(mine) > max(1, int(self.max_connections * PER_ADDRESS_SHARE)):
                self._make_room(mine)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_read_deadline()
        self._cancel_write_deadline()
        self.by_age.pop(self, None)
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.write_timer is None:
            self.write_timer = self.loop.call_later(self.write_seconds, self._write_too_slow)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._cancel_write_deadline()

    def _cancel_write_deadline(self) -> None:
        if self.write_timer is not None:
            self.write_timer.cancel()
            self.write_timer = None

    def _write_too_slow(self) -> None:
        self.write_timer = None
        log.info("cut off a connection whose client read its answer too slowly (over %g s)",
                 self.write_seconds)
        self.transport.abort()

    def unread(self) -> bool:
        """Whether this connection waits on its client: closing with an answer still unsent,
        its writing paused, or requests sent ahead of the answers (pipelined; no browser
        does that) left unread."""
        return self.transport.is_closing() or self.sent_ahead or (self.flow is not None and (
            self.flow.write_paused or self.flow.read_paused))

    def data_received(self, data: bytes) -> None:
        if self.read_timer is None and self.conn.their_state is h11.IDLE:
            self._arm_read_deadline()  # the first bytes of the next request on this connection
        self.sent_ahead = self.sent_ahead or self.conn.their_state is h11.DONE
        super().data_received(data)
        # uvicorn pauses reading when requests wait behind the one in hand, but a streamed
        # answer (a static file) resumes it to watch for a disconnect: note it now
        self.sent_ahead = self.sent_ahead or (self.flow is not None and self.flow.read_paused)
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._cancel_read_deadline()  # the request is in (or the connection is ending)

    def reading(self) -> bool:
        """Whether this connection is sending a request or idle, with no answer being made."""
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and (
            self.cycle is None or self.cycle.response_complete)

    def _arm_read_deadline(self) -> None:
        self._cancel_read_deadline()
        self.read_timer = self.loop.call_later(self.read_seconds, self._read_too_slow)

    def _cancel_read_deadline(self) -> None:
        if self.read_timer is not None:
            self.read_timer.cancel()
            self.read_timer = None

    def _read_too_slow(self) -> None:
        self.read_timer = None
        if not self.transport.is_closing() and self.conn.their_state in (h11.IDLE,
                                                                          h11.SEND_BODY):
            log.info("closed a connection whose request took over %g s to arrive",
                     self.read_seconds)
            self.transport.close()

    def _make_room(self, among: list[GuardedH11Protocol] | None = None) -> None:
        """Cut off the oldest other connection (of `among`, default all) that is closing
        but unread, else reading or idle, else unread, else this one."""
        others = [c for c in (self.by_age if among is None else among) if c is not self]
        victim = next((c for c in others if c.transport.is_closing()), None) or next(
            (c for c in others if c.reading()), None) or next(
            (c for c in others if c.unread()), self)
        self.by_age.pop(victim, None)  # going: no longer a candidate
        if self.loop.time() >= GuardedH11Protocol.next_warning:  # a burst logs once
            GuardedH11Protocol.next_warning = self.loop.time() + LOG_WINDOW_SECONDS
            log.warning("%d connections are open, the most allowed (or one address holds its "
                        "share): closed the oldest idle or slow ones", self.max_connections)
        victim.transport.abort()  # at once, even with an answer its client does not read


class GuardedServer(uvicorn.Server):
    """uvicorn's server with the listen queue lengthened to `LISTEN_QUEUE` once it listens
    (uvicorn's ``backlog`` sets both the queue and the accept batch; only the batch must stay
    small)."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        for server in getattr(self, "servers", []):
            for listening in server.sockets:
                with contextlib.suppress(OSError), socket.socket(
                        fileno=os.dup(listening.fileno())) as same:
                    same.listen(LISTEN_QUEUE)  # the same socket, through a second descriptor


def guarded_protocol(read_seconds: float, max_connections: int,
                     write_seconds: float = WRITE_SECONDS) -> type[GuardedH11Protocol]:
    """`GuardedH11Protocol` with these limits."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,),
                {"read_seconds": read_seconds, "max_connections": max_connections,
                 "write_seconds": write_seconds, "by_age": {}})


def server_config(app: Any, host: str, port: int, *, read_seconds: float = READ_SECONDS,
                  max_connections: int | None = None,
                  trusted_proxies: list[str] | None = None) -> uvicorn.Config:
    """The uvicorn settings of ``ttt serve``: the guarded protocol, the keep-alive timeout,
    the descriptor limit raised and the connection cap under it, repeated logs quieted.
    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are read only from `trusted_proxies`
    (none by default: every client is counted by its connection's own address)."""
    cap = connection_cap(raise_descriptor_limit()) if max_connections is None \
        else max_connections
    quiet_repeated_logs()
    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                          timeout_graceful_shutdown=2, timeout_keep_alive=KEEP_ALIVE_SECONDS,
                          http=guarded_protocol(read_seconds, cap), ws="none",
                          lifespan="on", backlog=ACCEPT_BATCH,
                          proxy_headers=bool(trusted_proxies),
                          forwarded_allow_ips=list(trusted_proxies or []) or None)


__all__ = ["GuardedH11Protocol", "GuardedServer", "RepeatFilter", "connection_cap",
           "guarded_protocol", "raise_descriptor_limit", "server_config"]
