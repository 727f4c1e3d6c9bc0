"""Outside gomoku programs from the package index, behind one line protocol, for
`scripts/bench_gomoku.py --outside`. Runs in its own virtual environment (the benchmark makes
it), never inside the project's.

    python outside_ai.py NAME SEED

NAME is ``gomoku`` (the `gomoku` 0.1.0 package's threat-space player: fours, threes and
threat sequences after Allis) or ``gomokubench`` (`gomokubench`'s α-β engine at its ``hard``
setting: depth 3, 12 candidate moves). Each line on standard input is a game so far, as
``row,column`` pairs from the first move (an empty line: the empty board), 15x15, the program
to move; each answer is one ``row,column`` line. A new game is a line ``new``.
"""

from __future__ import annotations

import contextlib
import io
import random
import sys
from typing import Any

SIZE = 15


class Gomoku:
    """The `gomoku` package's ThreatSpace player (its own state kept across a game)."""

    def __init__(self) -> None:
        from gomoku.player import threat_space  # type: ignore[import-not-found]

        threat_space.VERBOSE = 0
        self.module = threat_space
        self.player: Any = threat_space.ThreatSpace()

    def new_game(self) -> None:
        self.player = self.module.ThreatSpace()

    def move(self, moves: list[tuple[int, int]]) -> tuple[int, int]:
        from gomoku.board import Board  # type: ignore[import-not-found]

        board = Board()
        for r, c in moves:
            board.move(r, c)
        taken = set(moves)
        for _ in range(2):
            with contextlib.redirect_stdout(io.StringIO()):
                found = self.player.make_move(board)
            move = divmod(found, SIZE) if isinstance(found, int) else tuple(found)
            if (int(move[0]), int(move[1])) not in taken:
                return int(move[0]), int(move[1])
            self.player.winning_line = []  # a stale plan: ask again without it
        raise RuntimeError(f"gomoku chose a taken cell {move}")


class GomokuBench:
    """`gomokubench`'s α-β engine at its ``hard`` setting."""

    def __init__(self) -> None:
        from libs import ai, board, piece  # type: ignore[import-not-found]

        self.ai, self.board, self.piece = ai, board, piece

    def new_game(self) -> None:
        pass

    def move(self, moves: list[tuple[int, int]]) -> tuple[int, int]:
        state = self.board.BoardState(size=SIZE)
        for move in moves:
            state = state.next(move)
        settings = self.ai.resolve_ai_settings(level="hard")
        black = len(moves) % 2 == 0
        found, _ = self.ai.get_best_move(state, settings["depth"], black,
                                         candidate_count=settings["candidate_count"],
                                         random_top_n=settings["random_top_n"])
        return int(found[0]), int(found[1])


def main() -> None:
    name, seed = sys.argv[1], int(sys.argv[2])
    random.seed(seed)
    try:
        import numpy as np

        np.random.seed(seed)
    except ImportError:
        pass
    program: Gomoku | GomokuBench = Gomoku() if name == "gomoku" else GomokuBench()
    for line in sys.stdin:
        text = line.strip()
        if text == "new":
            program.new_game()
            continue
        moves = [(int(a), int(b)) for a, b in (pair.split(",") for pair in text.split())]
        r, c = program.move(moves)
        print(f"{r},{c}", flush=True)


if __name__ == "__main__":
    main()
