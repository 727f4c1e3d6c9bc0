"""Save screenshots of the terminal app as SVG (the pictures on the terminal app's docs page).

    python -m tictactoe.tui.screenshot [FOLDER]

In a headless app it writes, into FOLDER (default ``docs``):

- ``tui.svg``: a few moves against ``perfect`` on 3×3 with the hints on;
- ``tui-score.svg``: a game lost to ``perfect``, then sides swapped (``w``), with the
  session's score under Players;
- ``tui-gomoku.svg``: 15×15 with the threats on, the side panel listing each side's threes.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from textual.pilot import Pilot

from tictactoe.core import Position, Side
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.game import HUMAN, Game

SIZE = (104, 26)
MOVES = ("b2", "a1", "c1", "a3")
GOMOKU = ("g8", "a1", "h8", "c10", "i8", "c11", "o15", "c13", "f9")
"""X's open three g8 h8 i8 and O's broken three c10 c11 c13."""


async def _settle(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, TicTacToeApp)
    for _ in range(100):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not app.thinking and (not app.hints_on or app.hints):
            return


def _save(app: TicTacToeApp, path: Path) -> None:
    app.title = "tictactoe"
    path.parent.mkdir(parents=True, exist_ok=True)
    app.save_screenshot(filename=path.name, path=str(path.parent))


async def hints(path: Path) -> None:
    """3×3 against ``perfect`` with the hints on."""
    game = Game("3x3", players={Side.X: HUMAN, Side.O: "perfect"})
    for move in MOVES:
        game.play_text(move)
    app = TicTacToeApp(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("left", "h")
        await _settle(pilot)
        _save(app, path)


async def score(path: Path) -> None:
    """A game lost to ``perfect`` by playing the first empty cell, then sides swapped."""
    app = TicTacToeApp(Game("3x3", players={Side.X: HUMAN, Side.O: "perfect"}))
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        while not app.game.position.is_game_over():
            app.play(app.game.position.legal_moves()[0])
            await _settle(pilot)
        await pilot.press("w")
        await _settle(pilot)
        _save(app, path)


async def gomoku(path: Path) -> None:
    """15×15 between two people, threats on: the side panel lists the threes."""
    start = Position("15x15k5")
    for move in GOMOKU:
        start.push_name(move)
    app = TicTacToeApp(Game(players={Side.X: HUMAN, Side.O: HUMAN}, start=start))
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.press("t")
        await _settle(pilot)
        _save(app, path)


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for name, make in (("tui.svg", hints), ("tui-score.svg", score),
                       ("tui-gomoku.svg", gomoku)):
        asyncio.run(make(folder / name))
        print(f"saved {folder / name}")


if __name__ == "__main__":
    main()
