"""Save a screenshot of the terminal app as SVG (the picture on the terminal app's docs page).

    python -m tictactoe.tui.screenshot docs/tui.svg

It plays a few moves against ``perfect`` in a headless app, turns the hints on and saves what
the screen shows.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tictactoe.core import Side
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.game import HUMAN, Game

SIZE = (104, 26)
MOVES = ("b2", "a1", "c1", "a3")


async def screenshot(path: Path) -> None:
    """Write the SVG screenshot to ``path``."""
    game = Game("3x3", players={Side.X: HUMAN, Side.O: "perfect"})
    for move in MOVES:
        game.play_text(move)
    app = TicTacToeApp(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("left", "h")
        for _ in range(100):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if app.hints:
                break
        app.title = "tictactoe"
        path.parent.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(filename=path.name, path=str(path.parent))


def main() -> None:
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/tui.svg")
    asyncio.run(screenshot(target))
    print(f"saved {target}")


if __name__ == "__main__":
    main()
