"""An OpenSpiel game for any variant, ``tictactoe_mnk``, and the project's players as
OpenSpiel bots.

Importing this module registers the game with ``pyspiel``, so that OpenSpiel's algorithms
(MCTS, CFR, its solvers and evaluators) run on any board:

    pyspiel.load_game("tictactoe_mnk", {"rows": 5, "columns": 5, "k": 4})
    pyspiel.load_game("tictactoe_mnk(layers=4,rows=4,columns=4)")  # Qubic

Parameters: ``rows``, ``columns`` (default 3 each), ``layers`` (1 for a flat board) and ``k``,
the number in a row that wins (default 0: the smallest dimension, as in the package's
variant names). Player 0 plays X and moves first; actions are cell indices, row-major, as in
OpenSpiel's own ``tic_tac_toe``; returns are +1, -1 or 0 at the end. The observation tensor
has planes empty, O and X (as OpenSpiel's ``tic_tac_toe``) over the board. Needs the
``openspiel`` extra.

>>> import pyspiel
>>> state = game("4x4k3").new_initial_state()
>>> state.apply_action(5); state.apply_action(0)
>>> str(state).splitlines()[1], state.legal_actions()[:3]
('.x..', [1, 2, 3])
"""

# ruff: noqa: E402  (the check for the extra comes before the imports that need it)
from __future__ import annotations

from tictactoe.extras import require

require("openspiel", "tictactoe.envs.openspiel")

import random
from typing import Any

import numpy as np
import pyspiel

from tictactoe.core import Position, Side, Variant, VariantError
from tictactoe.players import Limit, Player, make_player

GAME_NAME = "tictactoe_mnk"

DEFAULTS: dict[str, int] = {"rows": 3, "columns": 3, "layers": 1, "k": 0}
"""The game's parameters and their defaults (``k=0``: the smallest dimension)."""


def variant_of(params: dict[str, Any]) -> Variant:
    """The variant that a set of game parameters describes.

    >>> variant_of({"layers": 4, "rows": 4, "columns": 4}).name
    '4x4x4'
    """
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise VariantError(f"unknown parameter {sorted(unknown)[0]!r} of {GAME_NAME}: expected "
                           f"{', '.join(DEFAULTS)}")
    values = {**DEFAULTS, **params}
    layers, rows, columns, k = (int(values[key]) for key in ("layers", "rows", "columns", "k"))
    if layers < 1:
        raise VariantError(f"layers must be 1 (a flat board) or more, not {layers}")
    shape = (rows, columns) if layers == 1 else (layers, rows, columns)
    return Variant.of(shape, k or None)


def _game_type(variant: Variant) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Tic-tac-toe on any m x n board with k in a row, and cubes",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULTS))


_GAME_TYPE = _game_type(Variant.parse("3x3"))


class TicTacToeGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no type information
    """The game ``tictactoe_mnk`` for one set of parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.variant = variant_of(dict(params or {}))
        cells = self.variant.cells
        info = pyspiel.GameInfo(num_distinct_actions=cells, max_chance_outcomes=0,
                                num_players=2, min_utility=-1.0, max_utility=1.0,
                                utility_sum=0.0, max_game_length=cells)
        super().__init__(_GAME_TYPE, info, dict(params or {}))

    def new_initial_state(self) -> TicTacToeState:
        return TicTacToeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info
                                    and not iig_obs_type.perfect_recall):
            return BoardObserver(self.variant, params)
        from open_spiel.python.observation import IIGObserverForPublicInfoGame

        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class TicTacToeState(pyspiel.State):  # type: ignore[misc]
    """A position of the game: `position` is the package's `Position`."""

    def __init__(self, game: TicTacToeGame) -> None:
        super().__init__(game)
        self.position = Position(game.variant)

    def current_player(self) -> int:
        if self.position.is_game_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return 0 if self.position.turn is Side.X else 1

    def _legal_actions(self, player: int) -> list[int]:
        return self.position.legal_moves()

    def _apply_action(self, action: int) -> None:
        self.position.push(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return f"{'xo'[player]}({self.position.variant.cell_name(int(action))})"

    def is_terminal(self) -> bool:
        return self.position.is_game_over()

    def returns(self) -> list[float]:
        outcome = self.position.outcome()
        if outcome is None or outcome.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome.winner is Side.X else [-1.0, 1.0]

    def __str__(self) -> str:
        return _board_text(self.position)


def _board_text(position: Position) -> str:
    """Rows of ``x``, ``o`` and ``.``; a cube's layers separated by a blank line."""
    v = position.variant
    marks = ["x" if position.x >> c & 1 else "o" if position.o >> c & 1 else "."
             for c in range(v.cells)]
    rows = ["".join(marks[start:start + v.columns]) for start in range(0, v.cells, v.columns)]
    layers = ["\n".join(rows[i:i + v.rows]) for i in range(0, len(rows), v.rows)]
    return "\n\n".join(layers)


class BoardObserver:
    """OpenSpiel's observer interface: planes empty, O and X over the board."""

    def __init__(self, variant: Variant, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        shape = (3, variant.cells)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        board = (variant.layers, variant.rows, variant.columns) if variant.is_3d else \
            (variant.rows, variant.columns)
        self.dict = {"observation": np.reshape(self.tensor, (3, *board))}
        self._flat = np.reshape(self.tensor, shape)

    def set_from(self, state: TicTacToeState, player: int) -> None:
        position = state.position
        self._flat.fill(0)
        for cell in range(position.variant.cells):
            plane = 2 if position.x >> cell & 1 else 1 if position.o >> cell & 1 else 0
            self._flat[plane, cell] = 1

    def string_from(self, state: TicTacToeState, player: int) -> str:
        return _board_text(state.position)


pyspiel.register_game(_GAME_TYPE, TicTacToeGame)


def game(variant: str | Variant = "3x3") -> pyspiel.Game:
    """The loaded OpenSpiel game of a variant name (``"5x5k4"``, ``"4x4x4"``...)."""
    v = Variant.parse(variant) if isinstance(variant, str) else variant
    params = {"rows": v.rows, "columns": v.columns, "layers": v.layers, "k": v.k}
    return pyspiel.load_game(GAME_NAME, params)


def _variant_of_game(spiel_game: pyspiel.Game) -> Variant:
    name = spiel_game.get_type().short_name
    if name == GAME_NAME:
        return variant_of(dict(spiel_game.get_parameters()))
    if name in ("tic_tac_toe", "python_tic_tac_toe"):
        return Variant.parse("3x3")
    raise VariantError(f"{name} is not a tic-tac-toe game: expected {GAME_NAME} or tic_tac_toe")


class TicTacToeBot(pyspiel.Bot):  # type: ignore[misc]
    """One of the package's players as an OpenSpiel bot."""

    def __init__(self, spiel_game: pyspiel.Game, player_id: int, player: Player,
                 limit: Limit) -> None:
        super().__init__()
        self.variant = _variant_of_game(spiel_game)
        self.player_id, self.player, self.limit = player_id, player, limit

    def _position(self, state: pyspiel.State) -> Position:
        """The position after the state's actions (so that OpenSpiel's own ``tic_tac_toe``
        states work too)."""
        position = Position(self.variant)
        for action in state.history():
            position.push(int(action))
        return position

    def step(self, state: pyspiel.State) -> int:
        if state.current_player() != self.player_id:
            raise ValueError(f"the bot plays player {self.player_id}, but player "
                             f"{state.current_player()} is to move")
        return int(self.player.choose(self._position(state), self.limit).move)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def provides_policy(self) -> bool:
        return False


def tictactoe_bot(spiel_game: pyspiel.Game, player_id: int, player: str | Player = "perfect",
                  *, seed: int | None = None, limit: Limit | None = None) -> TicTacToeBot:
    """A bot that plays `player_id` (0 moves first) with one of the package's players: a name
    (``random``, ``rules``, ``heuristic``, ``mcts``, ``perfect``, or a level such as
    ``hard``) or a `Player`. Works on ``tictactoe_mnk`` and on OpenSpiel's ``tic_tac_toe``.

    >>> g = game("3x3")
    >>> bots = [tictactoe_bot(g, 0, "perfect", seed=1), tictactoe_bot(g, 1, "rules", seed=2)]
    >>> pyspiel.evaluate_bots(g.new_initial_state(), bots, 0)
    [0.0, 0.0]
    """
    if player_id not in (0, 1):
        raise ValueError(f"player_id must be 0 (X) or 1 (O), not {player_id}")
    chosen = make_player(player, seed=seed if seed is not None else random.randrange(2**31)) \
        if isinstance(player, str) else player
    return TicTacToeBot(spiel_game, player_id, chosen, limit or Limit())


__all__ = ["DEFAULTS", "GAME_NAME", "TicTacToeBot", "TicTacToeGame", "TicTacToeState", "game",
           "tictactoe_bot", "variant_of"]
