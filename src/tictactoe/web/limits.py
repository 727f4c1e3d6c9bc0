"""A cap on how fast one client may start games: a token bucket per client address.

Each address may start `NEW_GAME_BURST` games at once, then `NEW_GAME_PER_SECOND` a second;
beyond that a new game is refused (the API answers 429 with ``Retry-After``). IPv6 addresses
are counted by their /64 network, which one household or machine usually gets whole, and
every loopback address counts as one client. The address is the connection's own: forwarded
headers (``X-Forwarded-For``) count only from the proxies ``ttt serve --trust-proxy`` names.
A game that undo starts from a finished one takes a token too.

>>> clock = [0.0]
>>> limit = RateLimit(burst=2, per_second=0.5, clock=lambda: clock[0])
>>> [limit.wait("192.0.2.7") for _ in range(3)]
[0.0, 0.0, 2.0]
>>> clock[0] = 2.0
>>> limit.wait("192.0.2.7"), limit.wait("192.0.2.8")
(0.0, 0.0)
>>> client_key("2001:db8::1") == client_key("2001:db8::2")
True

The environment variable ``TICTACTOE_GAME_LIMIT`` changes the figures (``"BURST,PER_SECOND"``,
such as ``"60,2"``) or turns the cap off (``"off"``), for a server behind a proxy that does not
pass on the clients' addresses, or for load tests from one machine.

>>> RateLimit.from_setting("60,2").burst, RateLimit.from_setting("off")
(60.0, None)
"""

from __future__ import annotations

import ipaddress
import logging
import math
import os
import time
from collections import OrderedDict
from collections.abc import Callable

log = logging.getLogger("tictactoe.web")

NEW_GAME_BURST = 30
"""Games one client address may start at once."""

NEW_GAME_PER_SECOND = 1.0
"""Games one client address may start per second after its burst."""

MAX_CLIENTS = 10_000
"""Client addresses remembered; the least recently seen is forgotten first (and starts
afresh with a full burst when it comes back)."""

LIMIT_ENV = "TICTACTOE_GAME_LIMIT"
"""Environment variable: ``BURST,PER_SECOND``, or ``off``."""


LOOPBACK = "loopback"
"""The one key of every loopback address (127.0.0.0/8 and ::1): this machine is one client,
whichever of its addresses it connects from."""


def client_key(host: str) -> str:
    """What a client is counted by: its IPv4 address, or its IPv6 address's /64 network, or
    `LOOPBACK` for any address of this machine (any other name as it is).

    >>> client_key("127.0.0.1") == client_key("127.4.5.6") == client_key("::1") == LOOPBACK
    True
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return LOOPBACK
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class RateLimit:
    """A token bucket for each client: ``burst`` tokens at most, refilled at ``per_second``;
    each new game takes one. Not thread-safe: it is used on the event loop only."""

    def __init__(self, burst: float = NEW_GAME_BURST, per_second: float = NEW_GAME_PER_SECOND,
                 *, clock: Callable[[], float] = time.monotonic,
                 max_clients: int = MAX_CLIENTS) -> None:
        if not (1 <= burst < math.inf and 0 < per_second < math.inf):
            raise ValueError("the burst must be at least 1 and the rate above 0")
        self.burst = float(burst)
        self.per_second = float(per_second)
        self.clock = clock
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """client -> (tokens, when they were counted), the least recently seen first."""

    def wait(self, client: str) -> float:
        """Take a token for ``client``: 0.0 if it had one, else the seconds until it has."""
        key = client_key(client)
        now = self.clock()
        tokens, then = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.per_second)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.per_second
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait

    @staticmethod
    def from_setting(text: str | None) -> RateLimit | None:
        """The limit a setting asks for (``"BURST,PER_SECOND"``; empty: the defaults), or
        None for ``"off"``."""
        if text is None or not text.strip():
            return RateLimit()
        if text.strip().lower() == "off":
            return None
        burst, _, rate = text.partition(",")
        return RateLimit(float(burst), float(rate or NEW_GAME_PER_SECOND))

    @staticmethod
    def from_environment() -> RateLimit | None:
        """The limit `LIMIT_ENV` asks for; the defaults (logged) if it cannot be read."""
        setting = os.environ.get(LIMIT_ENV)
        try:
            return RateLimit.from_setting(setting)
        except ValueError:
            log.warning("%s=%r is neither BURST,PER_SECOND nor off; using %d,%g", LIMIT_ENV,
                        setting, NEW_GAME_BURST, NEW_GAME_PER_SECOND)
            return RateLimit()


__all__ = ["LIMIT_ENV", "LOOPBACK", "MAX_CLIENTS", "NEW_GAME_BURST", "NEW_GAME_PER_SECOND",
           "RateLimit", "client_key"]
