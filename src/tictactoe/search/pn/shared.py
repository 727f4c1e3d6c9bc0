"""The proof-number searches a process keeps: two per variant, one per attacker (a search
clears its table when the attacker changes), made on first use and shared by the perfect
player and the analysis (`tictactoe.search.knowledge`), one user at a time; at most
`KEPT_MB` of tables in all.

>>> searches = shared_searches("4x3")
>>> searches is shared_searches("4x3")
True
>>> with searches.lock:
...     searches.of(Side.X).prove(Position("4x3"), attacker=Side.X).outcome
'win'
"""

from __future__ import annotations

import threading

from tictactoe.core import Position, Side, Variant
from tictactoe.core.boardcache import ByteBudget, MiB
from tictactoe.search.pn.driver import PnSearch

TABLE_MB = 64
"""Megabytes of each of the two tables (one per attacker)."""


class SharedSearches:
    """The two searches of one variant; hold `lock` while using them."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.lock = threading.Lock()
        self._by_side: dict[Side, PnSearch] = {}

    def of(self, attacker: Side) -> PnSearch:
        """The search whose attacker is `attacker` (made on first use)."""
        search = self._by_side.get(attacker)
        if search is None:
            search = self._by_side[attacker] = PnSearch(self.variant, table_mb=TABLE_MB)
        return search

    def warm(self) -> None:
        """Make both searches and run each once, so that the kernels are loaded."""
        with self.lock:
            for side in (Side.X, Side.O):
                self.of(side).prove(Position(self.variant), attacker=side, nodes=1,
                                    interruptible=False)


KEPT_MB = 512
"""Megabytes of tables the kept searches may take in all (each variant's two count
2 × `TABLE_MB`): the variants used least recently lose theirs first."""

_all: ByteBudget[SharedSearches] = ByteBudget(KEPT_MB * MiB,
                                              weigh=lambda _: 2 * TABLE_MB * MiB)
_lock = threading.Lock()


def shared_searches(variant: Variant | str) -> SharedSearches:
    """This process's two searches on `variant` (kept for the variants used most recently,
    `KEPT_MB`)."""
    if isinstance(variant, str):
        variant = Variant.parse(variant)
    with _lock:
        hit, found = _all.get(variant)
        if not hit or found is None:
            found = SharedSearches(variant)
            _all.put(variant, found)
        return found


__all__ = ["KEPT_MB", "TABLE_MB", "SharedSearches", "shared_searches"]
