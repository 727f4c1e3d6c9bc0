"""The terminal app (``ttt play``): a Textual game, a plain line-by-line mode, and game history.

`Game` holds the state both front ends share: the moves, undo and redo, and who plays each side.
The Textual app lives in `tictactoe.tui.app` and is imported only when it is needed.
"""

from tictactoe.tui.game import HUMAN, Game

__all__ = ["HUMAN", "Game"]
