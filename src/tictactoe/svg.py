"""Pictures of positions as SVG: any board, a cube as its four layers side by side.

`board` marks the winning line, the last move and, if given, each move's value coloured as in
the web app (green win, grey draw, red loss, the best moves outlined). In Jupyter a `Position`
shows as this picture by itself (``Position._repr_svg_``). Plain Python: the standard library
and the package's rules core only. ``ttt show`` writes the picture to a file, and to PNG with
the ``plot`` extra (`png`).

>>> from tictactoe import Position
>>> from tictactoe.search import solve
>>> p = Position("x2/1o1/2x o")
>>> picture = board(p, hints=solve(p), size=300)
>>> picture.count('class="mark x"'), picture.count('class="hint'), 'width="300"' in picture
(2, 6, True)
"""

from __future__ import annotations

from collections.abc import Mapping

from tictactoe.core import Position
from tictactoe.core.svg import COLOURS, Hint, HintKind, draw
from tictactoe.extras import require
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Loss, Score, Win
from tictactoe.search.solution import Solution


def board(position: Position | str, *, size: int | None = None,
          lastmove: int | str | None = None,
          hints: Solution | Mapping[int, Score] | None = None,
          coordinates: bool = True) -> str:
    """Draw a position (or a position string, or a variant name for its empty board) as SVG.

    `size` is the width in pixels (by default about 80 per cell, at most 720). `lastmove` is a
    cell index or name (``"b2"``, ``"2:b3"``) to mark with a dot. `hints` are move values: a
    `Solution` (its best moves are outlined) or a map from cell to `Score` (the highest
    scores are outlined); they go on the empty cells. `coordinates` adds the column letters
    and row numbers.

    >>> svg = board("3x3", lastmove="b2", coordinates=False)
    >>> svg.count('class="coordinate"'), svg.count("last-move")
    (0, 1)
    """
    if isinstance(position, str):
        position = Position(position)
    if isinstance(lastmove, str):
        lastmove = position.variant.parse_cell(lastmove)
    return draw(position.variant, position.x, position.o, lastmove=lastmove,
                hints=_hints(hints), size=size, coordinates=coordinates,
                title=position.to_string())


def _hints(hints: Solution | Mapping[int, Score] | None) -> dict[int, Hint] | None:
    if hints is None:
        return None
    if isinstance(hints, Solution):
        scores, best = dict(hints.moves), set(hints.best)
    else:
        scores = dict(hints)
        top = max(scores.values(), default=None)
        best = {cell for cell, score in scores.items() if score == top}
    return {cell: hint(score, best=cell in best) for cell, score in scores.items()}


def hint(score: Score, *, best: bool = False) -> Hint:
    """A score as the label and colour of a hint, as in the web app.

    >>> hint(Win(3)), hint(Draw()).short
    (Hint(text='win in 3', short='W3', kind='win', best=False), 'D')
    """
    kind: HintKind
    if isinstance(score, Win):
        kind, short = "win", f"W{score.plies}"
    elif isinstance(score, Loss):
        kind, short = "loss", f"L{score.plies}"
    elif isinstance(score, ForcedWin):
        kind, short = "win", "W"
    elif isinstance(score, ForcedLoss):
        kind, short = "loss", "L"
    elif isinstance(score, Draw):
        kind, short = "draw", "D"
    else:
        value = score.value if isinstance(score, Heuristic) else 0.0
        return Hint(str(Heuristic(value)), f"≈{value:+.0f}", "estimate", best)
    return Hint(str(score), short, kind, best)


def png(svg: str, *, scale: float = 1.0) -> bytes:
    """Rasterise an SVG picture to PNG bytes (needs the ``plot`` extra: resvg).

    `scale` multiplies the picture's own size in pixels (2 for a sharper image).
    """
    require("plot", "PNG pictures")
    import resvg_py

    if not scale > 0:
        raise ValueError(f"scale must be positive, not {scale}")
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=scale))


__all__ = ["COLOURS", "Hint", "board", "hint", "png"]
