"""Bit tricks on ``uint64`` boards for the compiled kernels.

`popcount` and `lowest` compile to single machine instructions (LLVM's ``ctpop`` and
``cttz``), and `prefetch_row` to a cache prefetch hint. Every board constant is a
``np.uint64``: mixing one with a signed integer makes numba compute in float64.

>>> import numpy as np
>>> int(popcount(np.uint64(0b1011))), int(lowest(np.uint64(0b1000)))
(3, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.extending import intrinsic

from tictactoe.search import jit_cache

jit_cache.configure()  # before any kernel is compiled or loaded

ZERO = np.uint64(0)
ONE = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:  # pragma: no cover - compiled
    sig = types.int64(types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx: Any, x: Any) -> Any:  # pragma: no cover - compiled
    sig = types.int64(types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _prefetch(typingctx: Any, address: Any) -> Any:  # pragma: no cover - compiled
    sig = types.none(address)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        i32 = ir.IntType(32)
        i8p = ir.IntType(8).as_pointer()
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]))
        builder.call(fn, [builder.inttoptr(args[0], i8p), ir.Constant(i32, 0),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def popcount(x: np.uint64) -> int:  # pragma: no cover - compiled
    """Number of set bits."""
    return _ctpop(x)  # type: ignore[call-arg]


@njit(cache=True, inline="always")
def lowest(x: np.uint64) -> int:  # pragma: no cover - compiled
    """Index of the lowest set bit (64 for zero)."""
    return _cttz(x)  # type: ignore[call-arg]


@njit(cache=True, inline="always")
def prefetch_row(table: np.ndarray, row: int) -> None:  # pragma: no cover - compiled
    """Start loading the cache lines of ``table[row]`` (a 2-D array), to be read soon: a
    table probe's cache miss then overlaps other work."""
    start = table.ctypes.data + row * table.strides[0]
    for address in range(start & ~63, start + table.strides[0], 64):
        _prefetch(address)  # type: ignore[call-arg]


@njit(cache=True, inline="always")
def bit(cell: int) -> np.uint64:  # pragma: no cover - compiled
    """The mask of one cell."""
    return ONE << np.uint64(cell)
