"""The computer's side of the terminal app: its moves and the hints, each bounded in time.

Every call here may search, so the Textual app runs them in a worker thread; the bounds keep
even a 4x4x4 search short. Nothing here knows about Textual.

>>> from tictactoe.search.score import Draw, Loss, Win
>>> hint_label(Win(3)), hint_label(Loss(2)), hint_label(Draw()), hint_label(Win(3), short=True)
('win 3', 'loss 2', 'draw', 'W3')
"""

from __future__ import annotations

from tictactoe.core import Position, Side, TicTacToeError, Variant
from tictactoe.core.record import GameRecord
from tictactoe.extras import available
from tictactoe.players.base import Choice, Limit, Player
from tictactoe.players.levels import make_player
from tictactoe.search.knowledge import WIDE_CELLS, analyse
from tictactoe.search.score import Draw, ForcedLoss, ForcedWin, Heuristic, Loss, Score, Win
from tictactoe.search.words import hint_code, proven_label, reply_words
from tictactoe.tui.game import HUMAN, Game

COMPUTER_SECONDS = 3.0
"""How long the computer may think about one move."""

HINT_SECONDS = 3.0
"""How long the hint search may run; past it, unproven cells show ``?``."""


def warm_up(variant: Variant) -> None:
    """Load the compiled search and this board's tables (about two seconds the first time in
    a process), so that the first hint or computer move spends its time limit searching.
    Does nothing without the ``fast`` extra or on a board it does not take."""
    if not available("fast"):
        return
    if variant.cells > WIDE_CELLS:  # the levels' searches past 64 cells
        from tictactoe.search.wide.analysis import warm_up as warm_wide

        warm_wide(variant)
        return
    from tictactoe.search import compiled

    if compiled.fits(variant):
        compiled.warm_up()
        compiled.tables(variant)


def check_player(name: str) -> str:
    """Check a player or level name (or ``human``); raise `UnknownPlayerError` if unknown.

    >>> check_player("perfect"), check_player("human")
    ('perfect', 'human')
    """
    if name != HUMAN:
        make_player(name)
    return name


def make_computers(players: dict[Side, str], seed: int | None) -> dict[Side, Player]:
    """A computer player for each side that is not human; a seed makes the game repeatable."""
    computers: dict[Side, Player] = {}
    for side, name in players.items():
        if name != HUMAN:
            side_seed = None if seed is None else seed + (0 if side is Side.X else 1)
            computers[side] = make_player(name, seed=side_seed)
    return computers


def computer_move(player: Player, position: Position,
                  seconds: float = COMPUTER_SECONDS) -> Choice:
    """The computer's move in this position (searching a copy), with its value for the
    computer if the player scores moves."""
    return player.choose(position.copy(stack=False), Limit(seconds=seconds))


def value_label(score: Score | None) -> str:
    """What a computer's move is worth, saying whether that is proven: ``proven: win in 5``,
    an estimate in the web page's words, or nothing for a player that does not score moves.

    >>> from tictactoe.search.score import Draw, Heuristic
    >>> value_label(Draw()), value_label(Heuristic(1.5)), value_label(None)
    ('proven: draw', 'not proven: slightly better for me (my estimate +1.5)', '')
    """
    if score is None:
        return ""
    if score.is_proven:
        return f"proven: {score}"
    return f"not proven: {reply_words(score)}"


def hint_scores(position: Position, seconds: float = HINT_SECONDS) -> dict[int, Score]:
    """Each legal move's value for the side to move: proven (win or loss in N plies, within
    N plies, or a draw) where the search, the tactical floor, the shipped strategy or
    proof-number search proves it (`tictactoe.search.knowledge.analyse`), else an
    estimate.

    Against two opposite corners, O must take an edge; a corner loses:

    >>> scores = hint_scores(Position("x2/1o1/2x o"))
    >>> {Position("3x3").move_name(cell): str(score) for cell, score in scores.items()}
    {'b1': 'draw', 'c1': 'loss in 4', 'a2': 'draw', 'c2': 'draw', 'a3': 'loss in 4', 'b3': 'draw'}
    """
    if position.is_game_over():
        return {}
    return dict(analyse(position.copy(stack=False), seconds=seconds).moves)


def hint_label(score: Score, *, short: bool = False) -> str:
    """How a hint reads on the board: ``win 3``, ``loss 2``, ``draw``, ``win ≤7`` (a proven
    win within 7 plies), ``win`` (proven, length unknown), or an estimate ``≈+2``; short
    form ``W3``, ``L2``, ``D``, ``W≤7``, ``W``, ``≈+2``.

    >>> from tictactoe.search.score import ForcedLoss, Heuristic
    >>> hint_label(ForcedLoss(within=8)), hint_label(Heuristic(2.4)), hint_label(Heuristic(-7.0))
    ('loss ≤8', '≈+2', '≈-7')
    """
    long = None if short else proven_label(score, ("win", "loss", "draw"), " ")
    return hint_code(score) if long is None else long


COMPACT_BANDS = {0: "=", 1: "+", 2: "++", 3: "+!", 4: "≈W",
                 -1: "-", -2: "--", -3: "-!", -4: "≈L"}
"""How a compact cell draws an estimate's band (`Heuristic.band`): about even, slightly,
clearly, much better or worse, and winning or losing as far as the search sees (not
proven)."""

COMPACT_PLIES = 9
"""A proven result longer than this many plies reads ``W+`` or ``L+`` in a compact cell."""


def compact_hint(score: Score) -> str:
    """A hint in at most two characters, for the compact cells of a big board: ``W3``,
    ``L2``, ``D``, ``W+`` (a win in more than 9 plies), ``W≤`` (a win within a bound), ``W``
    (length unknown), or an estimate's band: ``=``, ``+``, ``++``, ``+!``, ``≈W`` and their
    negatives (`COMPACT_BANDS`). Never cut: the side panel gives the full value.

    >>> from tictactoe.search.score import ForcedLoss, Heuristic
    >>> [compact_hint(s) for s in (Win(3), Loss(12), ForcedLoss(within=8), Heuristic(16.4),
    ...                            Heuristic(-0.2), Heuristic(-95.0), Draw())]
    ['W3', 'L+', 'L≤', '++', '=', '≈L', 'D']
    """
    if isinstance(score, Win | Loss):
        letter = "W" if isinstance(score, Win) else "L"
        return f"{letter}{score.plies}" if score.plies <= COMPACT_PLIES else f"{letter}+"
    if isinstance(score, ForcedWin | ForcedLoss):
        letter = "W" if isinstance(score, ForcedWin) else "L"
        return letter if score.within is None else f"{letter}≤"
    if isinstance(score, Draw):
        return "D"
    band = score.band if isinstance(score, Heuristic) else 0
    return COMPACT_BANDS[band]


def hint_kind(score: Score) -> str:
    """``win``, ``loss``, ``draw`` or ``unknown`` (an estimate): the colour class of a hint."""
    if isinstance(score, Win | ForcedWin):
        return "win"
    if isinstance(score, Loss | ForcedLoss):
        return "loss"
    if isinstance(score, Draw):
        return "draw"
    return "unknown"


def game_from_record(record: GameRecord, fallback: dict[Side, str]) -> Game:
    """The game in a record. Its players are kept when both are known (``human`` or a player
    or level name); otherwise the current players take the sides."""
    players: dict[Side, str] = {}
    for side in Side:
        name = record.players.get(side.symbol, HUMAN)
        try:
            players[side] = check_player(name)
        except TicTacToeError:
            return Game.from_record(record, players=fallback)
    return Game.from_record(record, players=players)
