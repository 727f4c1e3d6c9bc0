"""Proof-number search: depth-first proof-number search (df-pn) with threat-space search,
compiled with numba, for boards of at most 64 cells.

`prove` answers "does this side force a win?" (``win``, ``no-win`` or ``unknown``);
`game_value` asks it for both sides to give the value (``x``, ``o`` or ``draw``).
`PnSearch` keeps its tables between questions.

>>> prove("4x3").outcome, game_value("3x3").value
('win', 'draw')
"""

from tictactoe.search.pn.driver import PnResult, PnSearch, PnValue, game_value, prove

__all__ = ["PnResult", "PnSearch", "PnValue", "game_value", "prove"]
