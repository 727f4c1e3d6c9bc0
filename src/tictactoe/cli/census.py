"""``ttt count`` and ``ttt enumerate``."""
