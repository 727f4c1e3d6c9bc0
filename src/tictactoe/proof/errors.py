"""Errors of the proof reader, writer and checker. Both are `ValueError` subclasses (through
`tictactoe.core.errors.TicTacToeError`) and name the line of the file they are about.

>>> print(ProofFormatError("bad token 'Q'", line=7))
line 7: bad token 'Q'
>>> err = ProofCheckError("X's move 4 is taken", line=3, position="x2/3/3 o")
>>> str(err)
"line 3: X's move 4 is taken (position 'x2/3/3 o')"
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

from tictactoe.core.errors import TicTacToeError


class ProofError(TicTacToeError):
    """Base class: a proof file is unreadable or does not prove its claim.

    `line` is the line of the file (the header is line 1), or None if the error is about the
    file as a whole; `detail` is the message without the line number.
    """

    def __init__(self, detail: str, *, line: int | None = None) -> None:
        self.detail = detail
        self.line = line
        super().__init__(detail if line is None else f"line {line}: {detail}")


class ProofFormatError(ProofError):
    """The file does not follow the proof format: bad header, unknown version, bad token,
    a node where another kind is expected, a truncated file or trailing garbage."""


class ProofCheckError(ProofError):
    """The file is well-formed but does not prove its claim: an illegal move, a reply not
    covered, a forced leaf the threat search cannot confirm, and so on.

    `position` is the position string (`Position.to_string`) where the check failed.
    """

    def __init__(self, detail: str, *, line: int | None = None,
                 position: str | None = None) -> None:
        self.position = position
        if position is not None:
            detail = f"{detail} (position {position!r})"
        super().__init__(detail, line=line)
