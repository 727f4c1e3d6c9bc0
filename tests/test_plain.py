"""Plain mode (``ttt play --plain``) fed through standard input, and ``ttt history``."""

from __future__ import annotations

import importlib
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tictactoe.cli import app
from tictactoe.core.record import GameRecord
from tictactoe.players.levels import DEFAULT_LEVEL
from tictactoe.tui.history import DATABASE_NAME, read_history

runner = CliRunner()


def play(*args: str, script: str) -> tuple[int, str]:
    result = runner.invoke(app, ["play", "--plain", *args], input=script)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_scripted_two_player_game_with_typos_and_illegal_moves() -> None:
    script = "zz\na1\na1\nd1\nb1\na2\nundo\nredo\nhelp\nb2\n9\n\na3\nb3\n"
    code, out = play("--player", "human", script=script)
    assert code == 0
    lines = out.splitlines()
    expected_in_order = [
        "3x3: two players. Type a move such as b2, or 'help'.",
        "X to move> zz",
        "cannot read move 'zz': expected column letter and row number such as b2, or a cell "
        "index. Try again, or type 'help'.",
        "X to move> a1",
        "O to move> a1",
        "a1 is already taken. Try again, or type 'help'.",
        "O to move> d1",
        "'d1' is off the 3x3 board: columns are a-c. Try again, or type 'help'.",
        "O to move> b1",
        "X to move> a2",
        "O to move> undo",
        "Took back a2.",
        "X to move> redo",
        "Replayed a2.",
        "O to move> help",
        "  undo, u      take back your last move (and the computer's reply)",
        "O to move> b2",
        "X to move> 9",
        "'9' is off the 3x3 board: cells are 0-8. Try again, or type 'help'.",
        "X to move> ",
        "X to move> a3",
        "Game over. X wins: a1 a2 a3. Score: X 1 · O 0 · draws 0.",
        "game over (new, swap, undo, save, quit)> b3",
        "The game is over: type 'new' for another, 'undo', or 'quit'.",
        "game over (new, swap, undo, save, quit)> ",
        "End of input.",
        "Result: X wins: a1 a2 a3.",
    ]
    position = 0
    for want in expected_in_order:
        assert want in lines[position:], f"missing after line {position}: {want!r}\n{out}"
        position = lines.index(want, position) + 1
    assert lines[-1] == "Result: X wins: a1 a2 a3."
    end = lines.index("Game over. X wins: a1 a2 a3. Score: X 1 · O 0 · draws 0.")
    final_board = "\n".join(lines[end - 4:end])
    assert final_board == "   a b c\n 1 x o .\n 2 x o .\n 3 x . ."


def test_against_the_computer_undo_takes_both_plies() -> None:
    code, out = play("--level", "perfect", "--seed", "7", script="b2\nundo\nquit\n")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "3x3: you play X, perfect plays O. Type a move such as b2, or 'help'."
    reply = next(line for line in lines if line.startswith("O (perfect) plays "))
    corner, value = reply.removeprefix("O (perfect) plays ").split(" ", 1)
    assert corner in {"a1", "c1", "a3", "c3"}  # the only replies to the centre that draw
    assert value == "(proven: draw)."  # the perfect player says what its move is worth
    assert f"Took back {corner} b2." in lines
    assert lines[-1] == "Unfinished after 0 moves: X (you) to move."


def test_computer_opens_and_wins_against_a_bad_script() -> None:
    # O plays the first empty cell each time (typed as a cell number), which loses.
    script = "".join(f"{cell}\n" for cell in range(9))
    code, out = play("--level", "perfect", "--first", "o", "--seed", "1", script=script)
    assert code == 0
    assert "X (perfect) plays " in out
    assert out.splitlines()[-1].startswith("Result: X (perfect) wins: ")


def test_end_of_input_mid_game_and_hints() -> None:
    code, out = play("--player", "human", "--start", "x2/1o1/2x o", script="hint\n")
    assert code == 0
    assert "draw: b1 a2 c2 b3  ·  loss in 4: c1 a3" in out
    assert out.splitlines()[-2:] == ["End of input.", "Unfinished after 0 moves: O to move."]


def test_save_new_and_load(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    code, out = play("--player", "human",
                     script=f"b2\na1\nsave {path}\nnew\nload {path}\nload {tmp_path}/none\n")
    assert code == 0
    record = GameRecord.from_json(path.read_text())
    assert record.moves == ("b2", "a1") and record.result is None
    assert f"Saved {path}." in out and f"Loaded {path}." in out and "New game." in out
    assert f"Cannot load {tmp_path}/none: No such file or directory." in out
    assert out.splitlines()[-1] == "Unfinished after 2 moves: X to move."
    code, out = play("--load", str(path), script="")
    assert code == 0 and out.splitlines()[-1] == "Unfinished after 2 moves: X to move."


@pytest.mark.parametrize(("args", "message"), [
    (["--level", "hard", "--player", "rules"], "give --level or --player, not both"),
    (["--first", "z"], "--first must be x or o"),
    (["--level", "genius"], "unknown level 'genius': choose one of beginner, easy, medium, "
                            "hard, perfect"),
    (["--level", "MCTS"], "unknown level 'MCTS': choose one of beginner, easy, medium, hard, "
                          "perfect; --player mcts chooses that player"),
    (["--level", "human"], "--player human is for two people at one keyboard"),
    (["--player", "genius"], "unknown player 'genius': choose one of random, newcomer, greedy"),
    (["--variant", "3x3x"], "unknown variant '3x3x'"),
    (["--start", "xxx/ooo/3 x"], "cannot arise in play"),
    (["--think", "0"], "--think must be a positive number of seconds"),
])
def test_bad_options_give_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["play", "--plain", *args], input="")
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_piped_input_falls_back_to_plain_mode() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from tictactoe.cli import main; main()", "play",
         "--player", "human"],
        input="b2\nxx\nquit\n", capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "X to move> b2" in done.stdout and "cannot read move 'xx'" in done.stdout
    assert done.stdout.splitlines()[-1] == "Unfinished after 1 move: O to move."


def make_history(folder: Path) -> None:
    """Two games written the way the browser app writes them."""
    games = [GameRecord.from_moves("3x3", ["b2", "a1", "c3"], players={"x": "human",
                                                                        "o": "perfect"}),
             GameRecord.from_moves("3x3", ["a1", "b1", "a2", "b2", "a3"])]
    try:
        web_store = importlib.import_module("tictactoe.web.store")
    except ImportError:
        web_store = None
    if web_store is not None:  # the browser app's own writer, when it is there
        store = web_store.GameStore.in_folder(folder)
        for game in games:
            store.create(game)
        store.close()
        return
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / DATABASE_NAME)
    db.execute("CREATE TABLE games (number INTEGER PRIMARY KEY AUTOINCREMENT, token TEXT, "
               "variant TEXT, start TEXT, players TEXT, moves TEXT, result TEXT, started TEXT, "
               "finished TEXT)")
    for game in games:
        db.execute("INSERT INTO games (token, variant, start, players, moves, result, started, "
                   "finished) VALUES ('t', ?, ?, ?, ?, ?, ?, ?)",
                   (game.variant, game.start, json.dumps(game.players),
                    json.dumps(list(game.moves)), game.result, game.started, game.finished))
    db.commit()
    db.close()


def test_history_lists_the_browser_games(tmp_path: Path) -> None:
    make_history(tmp_path)
    entries = read_history(tmp_path / DATABASE_NAME)
    assert [e.number for e in entries] == [2, 1]
    assert entries[0].record.result == "x" and entries[1].record.moves == ("b2", "a1", "c3")
    result = runner.invoke(app, ["history", "--data", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "X won" in result.output and "unfinished" in result.output
    assert "b2 a1 c3" in result.output and "perfect" in result.output
    result = runner.invoke(app, ["history", "--data", str(tmp_path), "--record", "2"])
    assert result.exit_code == 0
    assert GameRecord.from_json(result.output).moves == ("a1", "b1", "a2", "b2", "a3")


def test_history_without_a_database_says_so(tmp_path: Path) -> None:
    result = runner.invoke(app, ["history", "--data", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert "no game history at" in result.output
    assert not (tmp_path / "none").exists()  # reading never creates it


def test_the_default_level_is_the_librarys_as_on_the_web_page() -> None:
    code, out = play(script="quit\n")
    assert code == 0 and out.startswith(f"3x3: you play X, {DEFAULT_LEVEL} plays O.")
    assert DEFAULT_LEVEL == "beginner"  # the level a newcomer beats in two games in five


def test_hint_on_a_big_board_names_the_best_ten_wrapped() -> None:
    """On 8x8 every one of the 63 moves has a value: the best ten are named, by value, on
    lines that fit 80 columns (all 63 took one line of 1,200 characters)."""
    _, out = play("--player", "human", "--variant", "8x8k5", "--think", "0.5",
                  script="d4\nhint\n")
    lines = out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.endswith("> hint")) + 1
    end = next(n for n, line in enumerate(lines) if line.startswith("(and "))
    assert lines[end] == "(and 53 more moves)"
    shown = lines[start:end]
    assert 1 <= len(shown) <= 4 and all(len(line) < 80 for line in shown)
    names = [w for w in " ".join(shown).split() if re.fullmatch(r"[a-h]\d", w)]
    assert len(names) == 10


def test_swap_starts_again_with_the_marks_exchanged_and_the_score_counts() -> None:
    """After a lost game, ``swap`` gives the computer X (it opens); each game over line
    carries the session's score from the person's side."""
    first_cells = "".join(f"{cell}\n" for cell in range(9))
    code, out = play("--level", "perfect", "--seed", "1", script=first_cells + "swap\n"
                     + first_cells)
    assert code == 0
    lines = out.splitlines()
    over = [line for line in lines if line.startswith("Game over.")]
    assert over[0].startswith("Game over. O (perfect) wins: ")
    assert over[0].endswith("Score: you 0 · computer 1 · draws 0.")
    swapped = lines.index("New game, sides swapped: perfect plays X, you play O.")
    after = [line for line in lines[swapped + 1:] if " plays " in line or "to move>" in line]
    assert after[0].startswith("X (perfect) plays ")  # the computer opens
    assert over[-1].startswith("Game over. X (perfect) wins: ")
    assert over[-1].endswith("Score: you 0 · computer 2 · draws 0.")
