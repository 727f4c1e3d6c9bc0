"""Command line: check a proof file, or write one for a small board.

    python -m tictactoe.proof check FILE             # exit status 0 if the proof is valid
    python -m tictactoe.proof small POSITION FILE    # POSITION: a position string or variant

The checker stops at the first failure and prints it (line, position, rule) on stderr.
"""

from __future__ import annotations

import argparse
import sys

from tictactoe.core import TicTacToeError
from tictactoe.proof.check import check_proof
from tictactoe.proof.errors import ProofError
from tictactoe.proof.small import write_small_proof


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status.

    >>> main(["check", "no/such/file"])
    1
    """
    parser = argparse.ArgumentParser(prog="python -m tictactoe.proof",
                                     description="Check or write proof files.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="check a proof file")
    check.add_argument("file")
    small = commands.add_parser("small", help="prove a small position and write the proof")
    small.add_argument("position", help="a position string, or a variant for its empty board")
    small.add_argument("file", help="where to write (gzip if it ends in .gz)")
    args = parser.parse_args(argv)
    if args.command == "check":
        try:
            stats = check_proof(args.file)
        except ProofError as err:
            print(f"{args.file}: invalid proof: {err}", file=sys.stderr)
            return 1
        print(stats.summary())
        return 0
    try:
        header = write_small_proof(args.position, args.file)
    except (TicTacToeError, ValueError) as err:
        print(f"cannot prove {args.position!r}: {err}", file=sys.stderr)
        return 1
    print(f"wrote a proof of {header.value!r} ({header.lines:,} lines) to {args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
