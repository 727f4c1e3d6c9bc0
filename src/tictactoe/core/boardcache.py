"""Per-board caches with a budget in bytes: the tables made for a board (its lines, masks,
symmetries, the kernels' arrays) are kept for the boards used most recently, up to a
number of bytes, so that a process that meets thousands of board names (a web server, say)
keeps its memory flat.

>>> @board_cache(max_bytes=2_000)
... def table(n: int) -> tuple[int, ...]:
...     return tuple(range(1000, 1000 + n))
>>> _ = table(10), table(20), table(30)
>>> table.cache.entries, table.cache.bytes <= 2_000
(2, True)
>>> estimate_bytes((1000, 1001)) > estimate_bytes((1000,))
True
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, ParamSpec, Protocol, TypeVar, cast

P = ParamSpec("P")
R = TypeVar("R")

MiB = 1024 * 1024


def estimate_bytes(value: object, _depth: int = 0) -> int:
    """About how many bytes `value` holds: arrays by their ``nbytes``, tuples, lists, sets,
    dicts and dataclasses by their items (ints 28 bytes and more, by their bits), strings by
    their length. An estimate for budgets, not an exact measure."""
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return 112 + nbytes
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, int):
        return 28 + 4 * (value.bit_length() // 30)
    if isinstance(value, str | bytes):
        return 49 + len(value)
    if _depth > 6:
        return 64
    if isinstance(value, tuple | list | set | frozenset):
        return 56 + 8 * len(value) + sum(estimate_bytes(v, _depth + 1) for v in value)
    if isinstance(value, dict):
        return 64 + sum(24 + estimate_bytes(k, _depth + 1) + estimate_bytes(v, _depth + 1)
                        for k, v in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return 56 + sum(estimate_bytes(getattr(value, f.name), _depth + 1)
                        for f in dataclasses.fields(value))
    return 64


class ByteBudget(Generic[R]):
    """A least-recently-used map bounded by the estimated bytes of its values (the newest
    value is kept even if it alone is over the budget). Thread-safe."""

    def __init__(self, max_bytes: int, weigh: Callable[[R], int] = estimate_bytes) -> None:
        self.max_bytes = max_bytes
        self.weigh = weigh
        self.bytes = 0
        self._data: OrderedDict[Hashable, tuple[R, int]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def entries(self) -> int:
        return len(self._data)

    def get(self, key: Hashable) -> tuple[bool, R | None]:
        with self._lock:
            found = self._data.get(key)
            if found is None:
                return False, None
            self._data.move_to_end(key)
            return True, found[0]

    def put(self, key: Hashable, value: R) -> None:
        size = self.weigh(value)
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._data[key] = (value, size)
            self.bytes += size
            while self.bytes > self.max_bytes and len(self._data) > 1:
                self.bytes -= self._data.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = 0


class BoardCached(Protocol[P, R]):
    cache: ByteBudget[R]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...

    def cache_clear(self) -> None: ...


def board_cache(max_bytes: int, weigh: Callable[[Any], int] = estimate_bytes
                ) -> Callable[[Callable[P, R]], BoardCached[P, R]]:
    """Cache a function of hashable arguments (a board, say) within `max_bytes` (by
    `weigh` of each result, `estimate_bytes` unless told); the least recently used results
    go first. A result that raises is not cached."""

    def decorate(func: Callable[P, R]) -> BoardCached[P, R]:
        budget: ByteBudget[R] = ByteBudget(max_bytes, weigh)

        @functools.wraps(func)
        def cached(*args: P.args, **kwargs: P.kwargs) -> R:
            key = (args, tuple(sorted(kwargs.items())))
            hit, value = budget.get(key)
            if hit:
                return cast(R, value)
            result = func(*args, **kwargs)
            budget.put(key, result)
            return result

        wrapper = cast(BoardCached[P, R], cached)
        wrapper.cache = budget
        wrapper.cache_clear = budget.clear  # type: ignore[method-assign]
        return wrapper

    return decorate


__all__ = ["ByteBudget", "MiB", "board_cache", "estimate_bytes"]
