"""SVG pictures: well-formed XML on every kind of board, the right marks, winning line, last
move and hints, the size, bad input, ``_repr_svg_`` and ``ttt show``."""

from __future__ import annotations

import io
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from needs import needs
from typer.testing import CliRunner

from tictactoe import IllegalMoveError, InvalidMoveError, Position, Side
from tictactoe.cli import app
from tictactoe.core.svg import COLOURS
from tictactoe.search import solve
from tictactoe.search.score import Draw, Heuristic, Loss, Win
from tictactoe.svg import board, hint, png

NS = {"svg": "http://www.w3.org/2000/svg"}


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def _cells(root: ET.Element) -> dict[int, ET.Element]:
    cells = {int(g.attrib["data-index"]): g for g in root.iterfind("svg:g", NS)
             if "cell" in g.attrib["class"].split()}
    return cells


def _mark_of(cell: ET.Element) -> str | None:
    marks = [el.attrib["class"].split()[1] for el in cell
             if el.attrib.get("class", "").startswith("mark ")]
    assert len(marks) <= 1
    return marks[0] if marks else None


def _random_position(name: str, rng: random.Random) -> Position:
    p = Position(name)
    for _ in range(rng.randrange(p.variant.cells)):
        moves = p.legal_moves()
        if not moves:
            break
        p.push(rng.choice(moves))
    return p


@pytest.mark.parametrize("name", ["3x3", "4x4", "5x5k4", "6x5k4", "3x7k3", "4x4x4", "3x3x3",
                                  "8x8k5"])
def test_marks_and_winning_cells_match_the_position(name: str) -> None:
    rng = random.Random(name)
    for _ in range(15):
        p = _random_position(name, rng)
        root = _parse(board(p))
        cells = _cells(root)
        assert sorted(cells) == list(range(p.variant.cells))
        for cell, element in cells.items():
            side = p.mark_at(cell)
            assert _mark_of(element) == (side.symbol if side else None)
            assert element.attrib["data-cell"] == p.move_name(cell)
        won = {c for line in p.winning_lines() for c in line}
        shown = {c for c, el in cells.items() if "winning" in el.attrib["class"].split()}
        assert shown == won
        assert not root.findall(".//svg:circle[@class='last-move']", NS)


def test_a_winning_line_in_one_plane_gets_a_stroke_and_one_through_a_cube_does_not() -> None:
    flat = _parse(board("xxx/oo1/3 o"))
    assert len(flat.findall("svg:line[@class='winning-line']", NS)) == 1
    cube = Position("4x4x4")
    for move in ["1:a1", "1:b1", "2:b2", "1:c1", "3:c3", "2:a1", "4:d4"]:
        cube.push_name(move)
    assert cube.winner() is Side.X  # the main diagonal through the four layers
    root = _parse(board(cube))
    assert not root.findall("svg:line[@class='winning-line']", NS)
    winning = {c for c, el in _cells(root).items() if "winning" in el.attrib["class"]}
    assert winning == set(cube.winning_lines()[0])
    titles = [t.text for t in root.iterfind("svg:text[@class='layer-title']", NS)]
    assert titles == ["LAYER 1", "LAYER 2", "LAYER 3", "LAYER 4"]


def test_last_move_by_index_or_name_and_from_the_move_stack() -> None:
    p = Position("3x3")
    p.push_name("b2")
    p.push_name("a1")
    for picture in (board(p, lastmove="a1"), board(p, lastmove=0), p._repr_svg_()):
        cells = _cells(_parse(picture))
        dots = [c for c, el in cells.items()
                if el.find("svg:circle[@class='last-move']", NS) is not None]
        assert dots == [0]
        assert "last" in cells[0].attrib["class"].split()
    assert "last-move" not in Position("o2/1x1/3 x")._repr_svg_()


def test_hints_follow_the_solution() -> None:
    p = Position("x2/1o1/2x o")
    solution = solve(p)
    cells = _cells(_parse(board(p, hints=solution, size=600)))
    for cell in p.empty_cells():
        group = cells[cell].find("svg:g", NS)
        assert group is not None
        kinds = group.attrib["class"].split()
        score = solution.moves[cell]
        assert kinds[1] == ("win" if isinstance(score, Win) else
                            "loss" if isinstance(score, Loss) else "draw")
        assert ("best" in kinds) == (cell in solution.best)
        text = group.find("svg:text", NS)
        assert text is not None and text.text == str(score)  # 600 px: the long labels
    for cell in (0, 4, 8):  # taken cells carry no hint
        assert cells[cell].find("svg:g", NS) is None


def test_hints_from_a_map_of_scores_outline_the_best_and_use_short_labels_when_small() -> None:
    hints = {1: Win(3), 2: Draw(), 3: Loss(2), 5: Win(5), 6: Heuristic(1.5)}
    cells = _cells(_parse(board("x2/1o1/3 x", hints=hints, size=120)))
    labels = {c: cells[c].find("svg:g/svg:text", NS).text for c in hints}  # type: ignore
    assert labels == {1: "W3", 2: "D", 3: "L2", 5: "W5", 6: "≈+2"}
    best = {c for c in hints if "best" in cells[c].find("svg:g", NS).attrib["class"]}  # type: ignore
    assert best == {1}
    assert hint(Heuristic(-0.25)).text == str(Heuristic(-0.25)) == "estimate -0.2"


def test_colours_are_the_web_apps() -> None:
    css = (Path(__file__).parent.parent / "src/tictactoe/web/static/app.css").read_text()
    light = css.split("@media")[0]
    for name in ("x", "o", "win", "win-bg", "draw", "draw-bg", "loss", "loss-bg", "accent",
                 "muted"):
        assert f"--{name}: {COLOURS[name]};" in light
    assert f"--cell-edge: {COLOURS['cell-line']};" in light


def test_size_and_coordinates() -> None:
    root = _parse(board("5x5k4", size=250))
    assert root.attrib["width"] == "250"
    _, _, width, height = (float(v) for v in root.attrib["viewBox"].split())
    assert int(root.attrib["height"]) == round(250 * height / width)
    labels = [t.text for t in root.iterfind("svg:text[@class='coordinate']", NS)]
    assert labels == ["a", "b", "c", "d", "e", "1", "2", "3", "4", "5"]
    assert not _parse(board("5x5k4", coordinates=False)).findall(
        "svg:text[@class='coordinate']", NS)
    default = _parse(board("4x4x4"))
    assert int(default.attrib["width"]) <= 720


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(IllegalMoveError, match="hint for b2, which is taken"):
        board("3/1x1/3 o", hints={4: Draw()})
    with pytest.raises(InvalidMoveError, match="off the 3x3 board"):
        board("3x3", lastmove=9)
    with pytest.raises(InvalidMoveError):
        board("3x3", lastmove="d1")
    with pytest.raises(ValueError, match="positive"):
        board("3x3", size=0)


def test_text_is_escaped() -> None:
    root = _parse(board("3x3"))
    title = root.find("svg:title", NS)
    assert title is not None and title.text == "3/3/3 x"


def test_ttt_show(tmp_path: Path) -> None:
    runner = CliRunner()
    target = tmp_path / "board.svg"
    result = runner.invoke(app, ["show", "xxx/oo1/3 o", "--svg", str(target), "--last", "c1"])
    assert result.exit_code == 0, result.output
    root = _parse(target.read_text())
    assert len(_cells(root)) == 9 and "saved to" in result.output
    result = runner.invoke(app, ["show", "x2/1o1/2x o", "--svg", "-", "--hints"])
    assert result.exit_code == 0
    assert len(_parse(result.stdout).findall(".//svg:g[@class]", NS)) >= 9 + 6
    result = runner.invoke(app, ["show", "x2/1o1/2x o"])
    assert result.exit_code == 0 and "O to move" in result.stdout and " 2 . o ." in result.stdout
    result = runner.invoke(app, ["show", "x2/1o1/2x o", "--svg", str(tmp_path / "no/x.svg")])
    assert result.exit_code == 2 and "cannot write the picture" in result.output
    result = runner.invoke(app, ["show", "33x33"])
    assert result.exit_code == 2 and "at most 32" in result.output
    # strict as the other commands: an impossible board says so, and options that would be
    # ignored or wrong are refused
    result = runner.invoke(app, ["show", "xxx/xxx/xxx o"])
    assert result.exit_code == 0 and "cannot arise in play: X has 9 marks" in result.stdout
    for args, why in [(["--hints"], "--hints goes with --svg or --png"),
                      (["--last", "b2", "--svg", "-"], "--last b2 is an empty cell"),
                      (["--svg", str(tmp_path / "x.png")], "should end in .svg")]:
        result = runner.invoke(app, ["show", "x2/3/3 o", *args])
        assert result.exit_code == 2 and why in result.output, result.output


@needs("plot")
def test_png_is_a_rendering_of_the_svg(tmp_path: Path) -> None:
    from PIL import Image

    refused = CliRunner().invoke(app, ["show", "3x3", "--png", str(tmp_path / "x.svg")])
    assert refused.exit_code == 2 and "should end in .png" in refused.output

    data = png(board("xxx/oo1/3 o", size=300), scale=2)
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and image.size[0] == 600
    root = _parse(board("xxx/oo1/3 o", size=300))
    _, _, width, _ = (float(v) for v in root.attrib["viewBox"].split())
    rect = _cells(root)[0].find("svg:rect", NS)  # a winning cell: its inner corner is green
    assert rect is not None
    scale = 600 / width
    corner = (round((float(rect.attrib["x"]) + 12) * scale),
              round((float(rect.attrib["y"]) + 12) * scale))
    assert image.getpixel(corner) == tuple(bytes.fromhex(COLOURS["win-bg"][1:]))
    target = tmp_path / "board.png"
    result = CliRunner().invoke(app, ["show", "3x3", "--png", str(target)])
    assert result.exit_code == 0 and target.read_bytes()[:4] == b"\x89PNG"
