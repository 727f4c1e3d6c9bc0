"""Big tables in memory backed by huge pages where the system offers them.

The searches' tables are probed at random: with the usual 4 KB pages, nearly every probe of
a table of a gigabyte also misses the processor's page cache (its TLB) and walks the page
tables. Linux's transparent huge pages (2 MB) cut that walk; where they are enabled only on
request (``madvise``, the common default), `huge_zeros` asks for them. Elsewhere, or where
the request fails, the table is plain memory: the results are the same either way.

>>> table = huge_zeros((1024, 6), np.uint64)
>>> table.shape, table.dtype.name, int(table.sum()), table.ctypes.data % CACHE_LINE
((1024, 6), 'uint64', 0, 0)
"""

from __future__ import annotations

import contextlib
import mmap
from typing import Any

import numpy as np

HUGE_PAGE = 2 << 20
"""The size of a transparent huge page on x86-64 and most arm64 systems."""
CACHE_LINE = 64
"""Every table starts on a cache line's boundary."""
MIN_BYTES = 4 * HUGE_PAGE
"""Smaller tables are plain numpy arrays: huge pages would not pay for them."""


def huge_zeros(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A zeroed array that starts on a cache line's boundary, its memory mapped with a
    request for huge pages when it is at least `MIN_BYTES` (every page is then touched
    here, so that the search does not fault on them)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    advise = getattr(mmap, "MADV_HUGEPAGE", None)
    if size < MIN_BYTES or advise is None:
        # on a cache line's boundary, so that a row of 64 bytes is one line
        raw = np.zeros(size + CACHE_LINE, dtype=np.uint8)
        skip = -raw.ctypes.data % CACHE_LINE
        small: np.ndarray = raw[skip:skip + size].view(dtype).reshape(shape)
        return small
    # one huge page more, so that the array can start on a huge page's boundary
    area = mmap.mmap(-1, size + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = np.frombuffer(area, dtype=np.uint8)
    skip = -base.ctypes.data % HUGE_PAGE
    with contextlib.suppress(OSError):  # not offered here: plain pages
        area.madvise(advise, skip, size)
    table: np.ndarray = base[skip:skip + size].view(dtype).reshape(shape)
    table.fill(0)  # fault every page in now
    return table


__all__ = ["CACHE_LINE", "HUGE_PAGE", "MIN_BYTES", "huge_zeros"]
