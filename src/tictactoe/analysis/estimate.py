"""What a census will cost, before running it: positions by ply by sampling, then memory,
disk and time from the sizes the census code uses and rates measured on a 2-core machine.

A reachable position is exactly a legal one (the rules of `Position.status`, which the tests
check against reachability), so the positions of a ply are the fillings with that many
marks times the fraction of them that are legal: the first is a binomial product, the second
is sampled. Canonical positions are about the positions over the symmetry group's size.

>>> e = estimate("4x4")
>>> 9.0e6 < e.positions < 10.5e6    # 9,722,011
True
"""

from __future__ import annotations

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from tictactoe.extras import require

require("fast", "the census estimate")

import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tictactoe.analysis.compiled_census import census_group, check_cells
from tictactoe.core import Variant

SAMPLES = 20_000
"""Random fillings per ply."""

MEMORY_BYTES_PER_PARENT = 46
"""A settled position in memory: key, 128-bit paths and merged paths, orbit, status."""
MEMORY_BYTES_PER_CHILD = 170
"""A child in a growing hash table (40-byte slots at a load of 0.35 to 0.7, and the old
table while it grows), fitted to the peak of 4x5 k=4 (7.1 GB)."""
ROW_BYTES = 24
"""An edge row on disk (key, low words); 40 where a high word is needed."""
WIDE_ROW_BYTES = 40
MEMORY_SECONDS_PER_EDGE = 7e-8
"""Seconds per (parent, child) edge and symmetry, in memory: the CPU time of 4x5 k=4 (264 s
for 1.07e9 edges and 4 symmetries) on a 2-core machine."""
SHARDED_SECONDS_PER_EDGE = 1.5e-7
"""The same on the sharded route (rows written, read and merged), per worker: about twice
the in-memory cost per edge, as measured on 4x4."""


@dataclass(frozen=True)
class CensusEstimate:
    """Expected size and cost of a census."""

    variant: str
    cells: int
    symmetries: int
    positions_by_ply: list[float]
    going_by_ply: list[float]
    """Positions whose game goes on (not won, not full)."""

    @property
    def positions(self) -> float:
        return sum(self.positions_by_ply)

    @property
    def canonical_by_ply(self) -> list[float]:
        return [p / self.symmetries for p in self.positions_by_ply]

    @property
    def edges_by_ply(self) -> list[float]:
        """Edge rows into each ply: a canonical parent's distinct canonical children."""
        edges = [1.0]
        for ply, going in enumerate(self.going_by_ply[:-1]):
            edges.append(going / self.symmetries * (self.cells - ply))
        return edges

    @property
    def widest_ply(self) -> int:
        return max(range(len(self.positions_by_ply)), key=self.positions_by_ply.__getitem__)

    @property
    def memory_bytes(self) -> float:
        """Peak memory of the in-memory census."""
        canonical = self.canonical_by_ply
        peak = 0.0
        for ply in range(len(canonical) - 1):
            going = self.going_by_ply[ply] / self.symmetries
            peak = max(peak, MEMORY_BYTES_PER_PARENT * (canonical[ply] + going),
                       MEMORY_BYTES_PER_PARENT * going
                       + MEMORY_BYTES_PER_CHILD * canonical[ply + 1],
                       (MEMORY_BYTES_PER_CHILD + MEMORY_BYTES_PER_PARENT) * canonical[ply + 1])
        return peak + 200e6  # the interpreter, numba and the kernels

    def row_bytes(self, ply: int) -> int:
        """Bytes of an edge row into a ply: wide once counts may pass 2**64."""
        return WIDE_ROW_BYTES if math.factorial(self.cells) * self.symmetries >= 2**64 \
            and ply > 12 else ROW_BYTES

    @property
    def disk_bytes(self) -> float:
        """Peak disk of the sharded census: the edge rows into a ply and into the next."""
        rows = [e * self.row_bytes(p) for p, e in enumerate(self.edges_by_ply)]
        return max(a + b for a, b in zip(rows, [*rows[1:], 0.0], strict=True))

    @property
    def written_bytes(self) -> float:
        """Edge rows written over the whole census."""
        return sum(e * self.row_bytes(p) for p, e in enumerate(self.edges_by_ply))

    def seconds(self, workers: int = 1, *, sharded: bool = False) -> float:
        """Expected time on this kind of machine."""
        rate = SHARDED_SECONDS_PER_EDGE if sharded else MEMORY_SECONDS_PER_EDGE
        work = sum(self.edges_by_ply) * self.symmetries * rate
        return work / (workers if sharded else 1)

    def shards(self, per_shard: int = 1 << 20, workers: int = 1) -> int:
        """Shards so that no task holds much over `per_shard` canonical positions."""
        widest = max(self.canonical_by_ply)
        wanted = max(1, math.ceil(widest / per_shard), 2 * workers)
        return 1 << (wanted - 1).bit_length()


def estimate(variant: Variant | str, samples: int = SAMPLES, seed: int = 0) -> CensusEstimate:
    """Positions by ply, by sampling `samples` random fillings of each ply."""
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    check_cells(v)
    n = v.cells
    group = census_group(v)
    rng = np.random.default_rng(seed)
    masks = np.array(v.line_masks, dtype=np.uint64)
    positions: list[float] = []
    going: list[float] = []
    for ply in range(n + 1):
        xs, os_ = (ply + 1) // 2, ply // 2
        fillings = math.comb(n, xs) * math.comb(n - xs, os_)
        order = np.argsort(rng.random((samples, n)), axis=1)
        bits = np.uint64(1) << order.astype(np.uint64)
        x = np.bitwise_or.reduce(bits[:, :xs], axis=1) if xs else np.zeros(samples, np.uint64)
        o = np.bitwise_or.reduce(bits[:, xs:xs + os_], axis=1) if os_ else \
            np.zeros(samples, np.uint64)
        legal, over = legal_and_over(x, o, masks, np.uint64(v.full_mask), xs > os_)
        positions.append(fillings * float(legal.mean()))
        going.append(fillings * float((legal & ~over).mean()))
    while positions and positions[-1] == 0:
        positions.pop()
        going.pop()
    return CensusEstimate(v.name, n, group.size, positions, going)


def legal_and_over(x: npt.NDArray[np.uint64], o: npt.NDArray[np.uint64],
                   masks: npt.NDArray[np.uint64], full: np.uint64,
                   x_moved_last: bool) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Which fillings (with X's and O's counts right for the side that moved last) are
    legal positions, and which of those are over (won or full)."""
    shared_x = np.full(len(x), full)
    shared_o = np.full(len(x), full)
    x_wins = np.zeros(len(x), dtype=bool)
    o_wins = np.zeros(len(x), dtype=bool)
    for m in masks:
        hx, ho = (x & m) == m, (o & m) == m
        x_wins |= hx
        o_wins |= ho
        shared_x[hx] &= m
        shared_o[ho] &= m
    legal = ~(x_wins & o_wins)
    legal &= ~x_wins | (x_moved_last & (shared_x != 0))
    legal &= ~o_wins | (not x_moved_last) & (shared_o != 0)
    return legal, x_wins | o_wins | ((x | o) == full)


def available_memory() -> int:
    """Bytes of memory available to a new process (Linux's MemAvailable)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))  # pragma: no cover


def free_disk(folder: Path) -> int:
    """Bytes free in the file system of a folder (or of its nearest existing parent)."""
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return shutil.disk_usage(folder).free


def human_bytes(n: float) -> str:
    """
    >>> human_bytes(4.6e9)
    '4.6 GB'
    """
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(n) < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError  # pragma: no cover


def human_seconds(s: float) -> str:
    """
    >>> human_seconds(95), human_seconds(7200), human_seconds(3 * 86400)
    ('1.6 min', '2.0 h', '3.0 days')
    """
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.1f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"
