"""Running the compiled kernels: node limits, deadlines and Ctrl-C.

A kernel runs either in the calling thread or, when it may run long, in worker threads that
do not hold the interpreter lock; the calling thread stops them at the deadline or on
Ctrl-C by zeroing their node limit, which the kernels check at every node.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tictactoe.search.compiled import kernels as _sk

INTERRUPTIBLE_EMPTY = 16
"""An unlimited search with more empty cells than this runs where Ctrl-C can stop it."""


def run_interruptible(kernel: Any, args: tuple[Any, ...], misc: np.ndarray,
                   deadline: float | None) -> Any:
    """Run a ``nogil`` kernel in a worker thread, so that the calling thread can stop it at
    the deadline or on Ctrl-C: the node limit drops to zero, which the kernel checks at
    every node. A `KeyboardInterrupt` goes on once the worker has returned."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(kernel(*args))
        except BaseException as err:  # handed to the caller below
            failure.append(err)

    worker = threading.Thread(target=run, name="tictactoe-solve", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.02)
            if deadline is not None and time.perf_counter() > deadline:
                misc[_sk.LIMIT] = 0
    except KeyboardInterrupt:
        misc[_sk.LIMIT] = 0
        worker.join()
        raise
    if failure:
        raise failure[0]
    return result[0]


def run_kernel(kernel: Any, args: tuple[Any, ...], misc: np.ndarray, limit: int,
         deadline: float | None, threaded: bool) -> tuple[Any, int]:
    """Call a kernel with a node limit (in a worker thread if ``threaded``); returns its
    result and the nodes it searched."""
    misc[_sk.NODES] = 0
    misc[_sk.ABORTED] = 0
    misc[_sk.LIMIT] = limit
    result = run_interruptible(kernel, args, misc, deadline) if threaded else kernel(*args)
    return result, int(min(misc[_sk.NODES], limit))


def drive(kernel: Any, args: Callable[[Any], tuple[Any, ...]], finished: Callable[[Any], bool],
           misc: np.ndarray, nodes: int | None, deadline: float | None,
           threaded: bool) -> tuple[Any, int]:
    """Call a kernel (``args(last result)`` gives its arguments) until ``finished(result)``,
    the node limit or the deadline; returns the last result and the nodes searched. A
    threaded call is stopped at the deadline; otherwise, with a deadline, the kernel hands
    back every 2**19 nodes to look at the clock, and the next call resumes."""
    budget = nodes if nodes is not None else 1 << 62
    chunk = 1 << 62 if deadline is None or threaded else 1 << 19
    result: Any = None
    total = 0
    while True:
        result, searched = run_kernel(kernel, args(result), misc, min(chunk, budget - total),
                                deadline, threaded)
        total += searched
        if finished(result) or total >= budget or (
                deadline is not None and time.perf_counter() > deadline):
            return result, total


def run_threads(jobs: list[Callable[[], None]], miscs: list[np.ndarray],
                 stop: threading.Event, deadline: float | None) -> None:
    """Run each job on its own thread until all return. The deadline, Ctrl-C or ``stop``
    (set by a job) halts the others: their node limits drop to zero, which the kernels check
    at every node. A job sets its limit before it looks at ``stop``, so none is missed."""
    failure: list[BaseException] = []

    def run(job: Callable[[], None]) -> None:
        try:
            job()
        except BaseException as err:  # handed to the caller below
            failure.append(err)
            stop.set()

    def halt() -> None:
        stop.set()
        for misc in miscs:
            misc[_sk.LIMIT] = 0

    workers = [threading.Thread(target=run, args=(job,), name=f"tictactoe-solve-{i}",
                                daemon=True) for i, job in enumerate(jobs)]
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            while worker.is_alive():
                worker.join(0.02)
                if stop.is_set() or (deadline is not None and time.perf_counter() > deadline):
                    halt()
    except KeyboardInterrupt:
        halt()
        for worker in workers:
            worker.join()
        raise
    if failure:
        raise failure[0]


def start_job(misc: np.ndarray, stop: threading.Event, limit: int = 1 << 62) -> bool:
    """Ready a workspace for one kernel call under `run_threads`, with a node limit;
    False if halted (looked at after the limit is set, so no halt is missed)."""
    misc[_sk.NODES] = 0
    misc[_sk.ABORTED] = 0
    misc[_sk.LIMIT] = limit
    return not stop.is_set()
