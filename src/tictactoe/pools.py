"""Process pools that start and stop cleanly, for the engines that run work on this
machine's cores (the sharded census, job-level proving, the ladder).

Workers are forked from a forkserver that has imported the modules they need, and leave
Ctrl-C to the process that drives them, which stops them itself. A worker is started by the
`submit` that needs it, and a Ctrl-C there waits until it has started: a worker half-started
when its parent exits would print a traceback after the command has ended.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from types import FrameType
from typing import Any


def ignore_interrupts() -> None:
    """In a worker: leave Ctrl-C to the process that drives it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Ctrl-C, and ``kill``'s default (`stop_on_terminate` takes it as Ctrl-C)."""


def stop_on_terminate() -> None:
    """In a command's main thread: take SIGTERM (``kill``, a batch system's time limit) as
    Ctrl-C, so that a long command stops its workers and keeps its work. By default SIGTERM
    ends the process at once, and its pool's workers run on without it."""

    def interrupt(number: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Take a Ctrl-C (or a SIGTERM taken as one) that comes during the block after it (in
    the main thread; elsewhere, or where the signal is ignored or left to its default, the
    block runs as it is).

    >>> import os
    >>> before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    >>> try:
    ...     with interrupts_deferred():
    ...         os.kill(os.getpid(), signal.SIGINT)
    ...         print("the block ends")
    ... except KeyboardInterrupt:
    ...     print("then Ctrl-C is taken")
    the block ends
    then Ctrl-C is taken
    >>> _ = signal.signal(signal.SIGINT, before)
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {number: signal.getsignal(number) for number in STOPPING_SIGNALS}
    handled = {number: handler for number, handler in handlers.items() if callable(handler)}
    taken: list[tuple[int, FrameType | None]] = []

    def take(number: int, frame: FrameType | None) -> None:
        taken.append((number, frame))

    for number in handled:
        signal.signal(number, take)
    try:
        yield
    finally:
        for number, handler in handled.items():
            signal.signal(number, handler)
        if taken:
            first, frame = taken[0]
            handled[signal.Signals(first)](first, frame)


class WorkerPool(ProcessPoolExecutor):
    """A `ProcessPoolExecutor` whose `submit` (which starts a worker when none is idle)
    takes a Ctrl-C only once the worker has started (`interrupts_deferred`)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with interrupts_deferred():
            return super().submit(fn, *args, **kwargs)

    def kill(self) -> None:
        """Stop the workers now (their unfinished calls leave nothing half-written)."""
        for process in list((getattr(self, "_processes", None) or {}).values()):
            process.kill()


def process_pool(workers: int, preload: Sequence[str] = ()) -> WorkerPool:
    """A pool of `workers` processes forked from a forkserver that has imported `preload`
    (spawned where there is no forkserver); the workers ignore Ctrl-C.

    >>> import os
    >>> with process_pool(1) as pool:
    ...     pool.submit(os.getpid).result() != os.getpid()
    True
    """
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if context.get_start_method() == "forkserver":
        # workers are forked from a clean server process, never from this one (which may
        # run threads, such as a progress display's)
        context.set_forkserver_preload(list(preload))
    return WorkerPool(workers, mp_context=context, initializer=ignore_interrupts)
