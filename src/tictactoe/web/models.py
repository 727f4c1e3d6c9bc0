"""The JSON shapes of the web API, as pydantic models (they also make the OpenAPI schema).

>>> PositionRequest(position="o2/1x1/3 x").position
'o2/1x1/3 x'
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_POSITION_CHARS = 1200
"""The longest position string accepted. The largest board (32×32, 1,024 cells) needs at most
about 1,070: 32 rows of up to 32 characters, the slashes, the side to move and k."""

MAX_NAME_CHARS = 40
"""The longest player, level or variant name accepted."""

MAX_MOVES = 1024
"""A game never has more moves than the largest board (32×32) has cells."""

MAX_RECORD_CHARS = 15_000
"""The longest game record file accepted (a 32×32 game of 1,024 moves takes about 9,000)."""

MAX_LINK_CHARS = 6_000
"""The longest game link accepted (1,024 moves of up to four characters, and a position)."""

PositionText = Field(
    min_length=1, max_length=MAX_POSITION_CHARS,
    description="A position string such as 'o2/1x1/3 x', or a variant name such as '4x4'.",
    examples=["o2/1x1/3 x", "3x3"])


MoveName = Annotated[str, Field(
    min_length=1, max_length=MAX_NAME_CHARS, pattern=r"^\s*[0-9A-Za-z:]+\s*$",
    description="A move: a cell name such as 'b2' (on a cube '2:b3') or a cell number.",
    examples=["b2", "2:b3"])]
"""A move as the requests give it. Only ASCII letters, digits and ':' (the rules core would
take a superscript digit for a number and fail on it without a clear message)."""


class Strict(BaseModel):
    """Request bodies refuse unknown fields, so a typo is an error rather than ignored."""

    model_config = ConfigDict(extra="forbid")


# ----------------------------------------------------------------- requests
class PositionRequest(Strict):
    position: str = PositionText
    moves: list[MoveName] = Field(
        default_factory=list, max_length=MAX_MOVES,
        description="Moves to play from the position first, such as ['b2', 'a1'].")


class MoveRequest(Strict):
    position: str = PositionText
    player: str = Field(
        default="perfect", min_length=1, max_length=MAX_NAME_CHARS,
        description="A player (random, newcomer, greedy, rules, heuristic, mcts, perfect) or "
                    "a level (beginner, easy, medium, hard, perfect).",
        examples=["perfect", "easy"])
    seed: int | None = Field(
        default=None, ge=0, le=2**63 - 1, strict=True,
        description="Seed for the player's random choices; the same seed gives the same move "
                    "(a JSON integer).")


class AnalysisRequest(Strict):
    position: str = PositionText
    nodes: int | None = Field(
        default=None, ge=1, le=5_000_000, strict=True,
        description="Node budget, a JSON integer; the server caps it at its own limit.")
    seconds: float | None = Field(
        default=None, gt=0, le=10.0, strict=True, allow_inf_nan=False,
        description="Time budget in seconds, a JSON number; the server caps it at its own "
                    "limit.")


class Players(Strict):
    x: str = Field(default="human", min_length=1, max_length=MAX_NAME_CHARS)
    o: str = Field(default="human", min_length=1, max_length=MAX_NAME_CHARS)


Ply = Field(ge=0, le=2**31, strict=True,
            description="The game's `ply` as the client last saw it, a JSON integer; a request "
                        "made from an older state is refused with 409.")


class NewGameRequest(Strict):
    variant: str | None = Field(
        default=None, min_length=1, max_length=MAX_NAME_CHARS, examples=["3x3", "4x4x4"],
        description="The board; absent when `position` is given.")
    position: str | None = Field(
        default=None, min_length=1, max_length=MAX_POSITION_CHARS,
        description="Start from this position string instead of the empty board.")
    players: Players = Field(default_factory=Players)
    seed: int | None = Field(
        default=None, ge=0, le=2**63 - 1, strict=True,
        description="Seed for the computer's random choices (a JSON integer); absent: the "
                    "server picks one.")
    moves: list[MoveName] = Field(
        default_factory=list, max_length=MAX_MOVES,
        description="Moves already played, such as ['b2', 'a1']: only for a game between two "
                    "people (against the computer, give the `position` they lead to).")


class PlayRequest(Strict):
    move: MoveName
    ply: int = Ply


class ChangeRequest(Strict):
    ply: int = Ply


class UpdateGameRequest(Strict):
    moves: list[MoveName] = Field(max_length=MAX_MOVES,
                             description="Every move of the game so far, in order.")
    ply: int = Ply


# ----------------------------------------------------------------- responses
class VariantInfo(BaseModel):
    name: str
    shape: list[int]
    k: int
    cells: int
    layers: int
    rows: int
    columns: int
    is_3d: bool
    line_kinds: list[LineKindInfo] = Field(
        default_factory=list, description="The kinds of winning lines, with how many of each.")


class LineKindInfo(BaseModel):
    kind: str = Field(description="'row', 'column', 'diagonal', 'layer diagonal', 'pillar', "
                                  "'vertical diagonal' or 'space diagonal'.")
    count: int
    description: str = Field(description="A few words for a legend.")


class ThreatInfo(BaseModel):
    side: Literal["x", "o"]
    cell: int = Field(description="The empty cell that completes the line.")
    line: list[int] = Field(description="The line's cells.")
    kind: str = Field(description="The line's kind, as in the variant's `line_kinds`.")


class ThreeInfo(BaseModel):
    side: Literal["x", "o"]
    marks: list[int] = Field(description="The three's marks (k-2 of them), in increasing order.")
    cells: list[int] = Field(description="The empty cells where one more mark makes an open "
                                         "four (k-1 in a row, both ends empty).")
    shape: Literal["open", "broken"] = Field(
        description="'open': the marks in a row (..XXX.); 'broken': one empty cell among "
                    "them (.XX.X.).")
    kind: str = Field(description="The line's kind, as in the variant's `line_kinds`.")


class OutcomeInfo(BaseModel):
    result: Literal["x", "o", "draw"]
    winner: Literal["x", "o"] | None
    termination: Literal["line", "full board"]


class PositionInfo(BaseModel):
    position: str = Field(description="The position string, normalised.")
    variant: VariantInfo
    cells: list[Literal["x", "o", ""]] = Field(description="Each cell's mark, row-major.")
    cell_names: list[str] = Field(description="Each cell's name, such as 'b2' or '2:b3'.")
    turn: Literal["x", "o"]
    ply: int = Field(description="Marks on the board.")
    legal_moves: list[str]
    valid: bool = Field(description="Whether the position can arise in play.")
    problems: list[str] = Field(description="Why it cannot, one message per reason.")
    outcome: OutcomeInfo | None
    winning_lines: list[list[int]] = Field(description="Completed lines, as cell indices.")
    threats: list[ThreatInfo] = Field(
        default_factory=list,
        description="Open threats while the game goes on: lines where one side has every cell "
                    "but one, and that one is empty (none once the game is over).")
    threes: list[ThreatInfo] = Field(
        default_factory=list,
        description="Open threes while the game goes on, on boards of five or more in a row: "
                    "`cell` is where the side would make threats on two cells at once (an "
                    "open four), `line` a line with its k-2 marks through that cell.")
    live_threes: list[ThreeInfo] = Field(
        default_factory=list,
        description="The threes while the game goes on, on boards of five or more in a row: "
                    "k-2 marks of one side in a line that one more mark makes an open four, "
                    "open (in a row) or broken (one gap among them), each once.")


class ScoreInfo(BaseModel):
    kind: Literal["win", "loss", "draw", "heuristic"]
    plies: int | None = None
    within: int | None = Field(
        default=None, description="For a proven win or loss of unknown length: the game "
                                  "ends within this many plies at most, where known.")
    value: float | None = None
    text: str = Field(description="'win in 3', 'draw', 'loss in 4', 'win within 7', "
                                  "'forced win', or an estimate.")
    code: str = Field("", description="The short code a board's cell shows: 'W3', 'W≤7', "
                                      "'W', 'L2', 'L≤8', 'L', 'D' or an estimate such as "
                                      "'≈+2' (the options' hint_codes explain each).")


class MoveResponse(BaseModel):
    move: str
    cell: int
    player: str
    score: ScoreInfo | None
    position: PositionInfo = Field(description="The position after the move.")


class MoveValue(BaseModel):
    move: str
    cell: int
    score: ScoreInfo
    words: str = Field(default="", description="What the move is worth for the player to "
                                               "move, in the words of the computer's "
                                               "comments ('you can force a win within your "
                                               "next 3 moves', 'better for you (estimate)').")


class AnalysisResponse(BaseModel):
    position: str
    proven: bool = Field(description="False when the bound stopped the search before a proof.")
    score: ScoreInfo = Field(description="The value for the side to move.")
    moves: list[MoveValue] = Field(description="Every legal move, from the mover's view (past "
                                               "64 cells: the moves proven to win or lose, "
                                               "and the best few others).")
    best: list[str]
    nodes: int
    seconds: float


class GameInfo(BaseModel):
    number: int = Field(description="The public record number, shown in the history.")
    variant: str
    start: str | None
    players: dict[str, str]
    moves: list[str]
    result: Literal["x", "o", "draw"] | None
    started: str
    finished: str | None
    status: Literal["finished", "unfinished"] = Field(
        description="'unfinished' while the game is not over (the history lists a "
                    "browser's unfinished games on request, and never counts them).")
    continues: int | None = Field(
        default=None, description="The number of the finished game this one continues: undo "
                                  "after the end made it. A game from a set position has a "
                                  "`start` instead of the empty board.")


class HistoryGame(GameInfo):
    id: str | None = Field(
        default=None, description="Of an unfinished game of the browser that asks: its "
                                  "secret id, to resume it.")


class ComputerMove(BaseModel):
    move: str
    cell: int
    player: str
    score: ScoreInfo | None = Field(description="Its value for the computer, if it scores moves.")
    words: str = Field(
        default="", description="That value in plain words, from the computer's side: 'I can "
                                "force a win in 2 moves', 'about even (my estimate)', 'you "
                                "can win with your next move'; empty if it scores no moves.")


class GameState(BaseModel):
    id: str = Field(description="The game's secret id: only its holder may change the game.")
    ply: int = Field(description="The game's change counter: every stored change (a move with "
                                 "the computer's reply, an undo, a redo) adds one, so it never "
                                 "repeats. Send it with the next change.")
    game: GameInfo
    undone: list[str] = Field(description="Moves taken back, the next to redo first.")
    seed: int = Field(description="The seed of the computer's random choices in this game.")
    position: PositionInfo = Field(description="The position now.")
    can_undo: bool = Field(description="Whether undo would take back a move (of a finished "
                                       "game: in a new game that continues it).")
    can_redo: bool
    reply: ComputerMove | None = Field(
        default=None, description="The computer's move played in answer to this request.")
    continued_by: str | None = Field(
        default=None, description="Of a finished game: the id of the game that continues it "
                                  "(made by undo), if there is one.")


class ConflictResponse(BaseModel):
    detail: str = Field(description="Why the request does not fit the game.")
    state: GameState | None = Field(description="The game as it stands now.")


class LevelStats(BaseModel):
    level: str
    wins: int = Field(description="Games the human won against this opponent.")
    draws: int
    losses: int


class BoardStats(BaseModel):
    variant: str = Field(description="The board, such as '3x3'.")
    games: int = Field(description="The games counted on this board, every level together.")
    levels: list[LevelStats] = Field(description="The human's results on this board against "
                                                 "each computer opponent.")


class RecordRequest(Strict):
    text: str | None = Field(
        default=None, min_length=1, max_length=MAX_RECORD_CHARS,
        description="A game record file's text (the JSON the terminal app saves).")
    link: str | None = Field(
        default=None, min_length=1, max_length=MAX_LINK_CHARS,
        description="A game in link form: the board, a colon, the moves separated by commas, "
                    "and for a game from a set position a semicolon and its position string.",
        examples=["3x3:b2,a1,c3", "4x4x4:1:a1,2:b2", "3x3:c3;o2/1x1/3 x"])


class GameRecordInfo(BaseModel):
    format: str = Field(description="Always 'tictactoe-game/1'.")
    variant: str
    start: str | None = Field(description="The start position string; null: the empty board.")
    moves: list[str]
    players: dict[str, str] = Field(description="'human' or a level or player name, by side.")
    result: Literal["x", "o", "draw"] | None
    started: str
    finished: str | None


class RecordResponse(BaseModel):
    record: GameRecordInfo = Field(
        description="The game record, checked move by move: the file a terminal app reads.")
    link: str = Field(description="The same game in link form (board:moves[;start]).",
                      examples=["3x3:b2,a1,c3"])


class HistoryResponse(BaseModel):
    games: list[HistoryGame] = Field(
        description="With `unfinished=true`: the browser's unfinished games first (the most "
                    "recently started first), then the finished ones, newest first.")
    levels: list[LevelStats] = Field(description="The results against each computer "
                                                 "opponent, every board together.")
    boards: list[BoardStats] = Field(
        default_factory=list,
        description="The same results for each board apart, the most played board first.")


class ChoiceInfo(BaseModel):
    value: str
    label: str
    description: str | None = None


class HintCodeInfo(BaseModel):
    code: str = Field(description="An example of the short code, such as 'W3'.")
    text: str = Field(description="The same example in words, such as 'win in 3'.")
    meaning: str
    pattern: str = Field(description="A regular expression that every code and text of "
                                     "this kind matches in full.")


class OptionsResponse(BaseModel):
    variants: list[ChoiceInfo]
    levels: list[ChoiceInfo]
    hint_codes: list[HintCodeInfo] = Field(
        default_factory=list, description="Every kind of hint a board may show, in the "
                                          "order of the page's legend.")
    default_level: str = Field(description="The level a new game starts at unless another is "
                                           "chosen (the library's, as in the terminal app).")
    limits: dict[str, float]
    ready: bool = Field(
        description="Whether the startup warm-up (loading the compiled search, solving the "
                    "early positions of the small boards) is over; until then answers are "
                    "slower, never wrong.")
    public_history: bool = Field(
        True, description="Whether the history of every game on the server may be read "
                          "(off on a public address unless the server was started with "
                          "--public-history); a browser's own games can always be read.")


class ErrorResponse(BaseModel):
    detail: str = Field(description="What is wrong with the request.")
