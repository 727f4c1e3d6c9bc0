"""Analysis: the census (positions, terminal positions and games, by ply and up to
symmetry) and the enumeration of legal positions by constraint search.

The census needs numpy; it is imported on first use, so that the enumeration (plain
Python) stays quick to import.

>>> next(legal_positions("3x3", "won")).is_valid()
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tictactoe.analysis.enumerate import KINDS, Kind, legal_positions

if TYPE_CHECKING:
    from tictactoe.analysis.census import Census, brute_force_census, census, check_census_size

_LAZY = {"Census": "census", "brute_force_census": "census", "census": "census",
         "check_census_size": "census"}

__all__ = [
    "KINDS",
    "Census",
    "Kind",
    "brute_force_census",
    "census",
    "check_census_size",
    "legal_positions",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"tictactoe.analysis.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
