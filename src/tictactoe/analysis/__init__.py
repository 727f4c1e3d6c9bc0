"""Analysis: the census (positions, terminal positions and games, by ply and up to
symmetry) and the enumeration of legal positions by constraint search.

>>> next(legal_positions("3x3", "won")).is_valid()
True
"""

from tictactoe.analysis.census import Census, brute_force_census, census, check_census_size
from tictactoe.analysis.enumerate import KINDS, Kind, legal_positions

__all__ = [
    "KINDS",
    "Census",
    "Kind",
    "brute_force_census",
    "census",
    "check_census_size",
    "legal_positions",
]
