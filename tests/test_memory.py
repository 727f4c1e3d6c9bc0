"""The searches' big tables: zeroed, aligned, and backed by huge pages where offered."""

from __future__ import annotations

import mmap

import numpy as np
import pytest

from tictactoe.search.memory import CACHE_LINE, HUGE_PAGE, MIN_BYTES, huge_zeros


@pytest.mark.parametrize("rows", [3, 1024, MIN_BYTES // 64, 2 * MIN_BYTES // 64 + 5])
def test_a_table_is_zeroed_writable_and_starts_on_a_cache_line(rows: int) -> None:
    table = huge_zeros((rows, 8), np.uint64)
    assert table.shape == (rows, 8) and table.dtype == np.uint64
    assert not table.any() and table.flags.writeable and table.flags.c_contiguous
    assert table.ctypes.data % CACHE_LINE == 0
    table[-1, -1] = 7  # the last word is the table's own
    assert int(table.sum()) == 7


@pytest.mark.skipif(not hasattr(mmap, "MADV_HUGEPAGE"), reason="no huge pages on this system")
def test_a_big_table_starts_on_a_huge_page() -> None:
    table = huge_zeros((MIN_BYTES // 8,), np.int64)
    assert table.ctypes.data % HUGE_PAGE == 0
