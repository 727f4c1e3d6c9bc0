"""Exceptions raised by the rules core. All are `ValueError` subclasses."""

from __future__ import annotations


class TicTacToeError(ValueError):
    """Base class of every error the package raises for bad input."""


class VariantError(TicTacToeError):
    """A variant name or board shape is malformed or unsupported."""


class BoardTooLargeError(VariantError):
    """The board is too large for the requested operation."""


class InvalidPositionError(TicTacToeError):
    """A position string is malformed. The message names the problem and its place."""


class InvalidMoveError(TicTacToeError):
    """A move is written in a form that cannot be parsed, or names a cell off the board."""


class IllegalMoveError(TicTacToeError):
    """A move is well-formed but not legal here (occupied cell, or the game is over)."""


class ImpossiblePositionError(TicTacToeError):
    """A position cannot arise in play; the message lists every reason."""


class CensusBackendError(TicTacToeError):
    """A census backend cannot run: an unknown name, Dask not installed, a scheduler that
    cannot be reached, or options that do not go together."""


class SpillError(TicTacToeError):
    """The spill folder of a sharded census cannot be used: not a folder, not writable,
    full, or holding another census."""
