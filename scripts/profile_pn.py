"""Where proof-number search spends its time, by compiled function (a profile, not a test).

    python scripts/profile_pn.py [VARIANT] [--nodes N] [--top N]

Runs df-pn from the empty board of VARIANT (default ``4x4x4``) for N nodes under Linux
``perf`` (Debian's ``linux-perf``) and prints each compiled kernel's share of the samples,
with the search's node rate and threat-search positions.

perf cannot name numba's code by itself: the kernels are machine code made at run time. The
script compiles them afresh (in a temporary numba cache, so that numba keeps each one's
symbol table), then writes ``/tmp/perf-PID.map``, the file perf reads for code made at run
time, with every compiled function's address. Small functions numba inlines count towards
their caller.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time


def perf_map(path: str) -> int:
    """Write the address and size of every compiled function loaded so far; their count."""
    from numba.core.registry import CPUDispatcher

    found: set[tuple[int, str]] = set()
    for dispatcher in gc.get_objects():
        if not isinstance(dispatcher, CPUDispatcher):
            continue
        for compiled in dispatcher.overloads.values():
            library = compiled.library
            module = getattr(library, "_final_module", None)
            if module is None:
                continue
            for function in module.functions:
                if function.is_declaration:
                    continue
                address = library.get_pointer_to_function(function.name)
                if address:
                    found.add((address, function.name))
    ordered = sorted(found)
    with open(path, "w", encoding="utf-8") as out:
        for i, (address, name) in enumerate(ordered):
            size = ordered[i + 1][0] - address if i + 1 < len(ordered) else 1 << 16
            out.write(f"{address:x} {min(size, 1 << 21):x} {readable(name)}\n")
    return len(ordered)


def readable(mangled: str) -> str:
    """``_ZN9tictactoe6search2pn3tss7_searchB...`` -> ``tictactoe.search.pn.tss._search``."""
    if not mangled.startswith("_ZN"):
        return mangled
    parts, rest = [], mangled[3:]
    while rest and rest[0].isdigit():
        digits = len(rest) - len(rest.lstrip("0123456789"))
        size = int(rest[:digits])
        parts.append(rest[digits:digits + size])
        rest = rest[digits + size:]
    return ".".join(parts) or mangled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variant", nargs="?", default="4x4x4")
    parser.add_argument("--nodes", type=int, default=60_000)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    if shutil.which("perf") is None:
        print("perf is not installed (Debian: apt-get install linux-perf)", file=sys.stderr)
        return 2
    cache = tempfile.mkdtemp(prefix="pn-profile-")
    os.environ["NUMBA_CACHE_DIR"] = cache  # compiled here, not loaded: with symbol tables
    from tictactoe.core import Position
    from tictactoe.search.pn import PnSearch
    from tictactoe.search.pn import tss as threat_search

    try:
        print(f"compiling the kernels for {args.variant} …", file=sys.stderr, flush=True)
        PnSearch(args.variant, table_mb=64).prove(Position(args.variant), nodes=300)
        mapped = perf_map(f"/tmp/perf-{os.getpid()}.map")
        search = PnSearch(args.variant, table_mb=1024)
        data = os.path.join(cache, "perf.data")
        recorder = subprocess.Popen(
            ["perf", "record", "-F", "999", "-o", data, "-p", str(os.getpid())],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)  # perf attaches
        started = time.process_time()
        result = search.prove(Position(args.variant), nodes=args.nodes)
        cpu = time.process_time() - started
        recorder.send_signal(subprocess.signal.SIGINT)
        recorder.wait()
        report = subprocess.run(
            ["perf", "report", "-i", data, "--sort", "sym", "--stdio"],
            capture_output=True, text=True, check=False).stdout
    finally:
        os.environ.pop("NUMBA_CACHE_DIR", None)
    tss_nodes = int(search.misc[threat_search.TSS_NODES])
    print(f"{args.variant}: {result.nodes:,} df-pn nodes in {cpu:.2f} s of CPU "
          f"({result.nodes / cpu:,.0f} a second), {tss_nodes:,} threat-search positions "
          f"({tss_nodes / max(1, result.nodes):.0f} a node); {mapped} compiled functions")
    shown = 0
    for line in report.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        print(line.replace("[.] ", "").replace("[k] ", "kernel: "))
        shown += 1
        if shown == args.top:
            break
    shutil.rmtree(cache, ignore_errors=True)
    os.remove(f"/tmp/perf-{os.getpid()}.map")
    return 0


if __name__ == "__main__":
    sys.exit(main())
