// The history view: this browser's unfinished games (a click resumes one in the play view),
// the finished games with a replay that steps through one, and results per level.

import { api, browserId } from "./api.js";
import { BoardView } from "./board.js";
import { drawResultsChart } from "./chart.js";
import { hintsOf } from "./hints.js";
import { MoveList, stepFor } from "./moves.js";

const RESULT_TEXT = { x: "X won", o: "O won", draw: "Draw" };
const boardLabels = new Map();  // the Board list's labels, from the server's options

export function setBoardLabels(variants) {
  // the boards the page offers, with the labels of its Board list ("15×15, five in a row
  // (gomoku)"): the history names a board the same way
  for (const v of variants) boardLabels.set(v.value, v.label);
}

function humanSide(game) {
  // the one human's side in a game against the computer; null for two people (or none)
  const humans = ["x", "o"].filter((side) => game.players[side] === "human");
  return humans.length === 1 ? humans[0] : null;
}

function origin(game) {
  // where a game began, if not on the empty board as a game of its own
  const labels = [];
  if (game.continues != null) labels.push(`continues game ${game.continues}`);
  if (game.start) labels.push("from a loaded position");
  return labels;
}
const SCOPE_KEY = "tictactoe.history-scope";
const SETUP_KEY = "tictactoe.setup";
const HINTS_KEY = "tictactoe.hints";  // the Hints switch, shared with the play view  // the play view's setup: its board is the current one
// the classes of the table's columns (which place each field of a row laid out as a card on
// a phone: see app.css)
const COLUMNS = ["number", "when", "board", "x", "o", "result", "moves"];

export function boardLabel(name) {
  // a board of the Board list by its label there; another (from a loaded position) by its
  // name: "8x8k4" -> "8×8, 4 in a row"; "4x4x5" -> "4×4×5"
  if (boardLabels.has(name)) return boardLabels.get(name);
  const [shape, k] = name.split("k");
  return k ? `${shape.replace(/x/g, "×")}, ${k} in a row` : shape.replace(/x/g, "×");
}

function currentBoard() {
  try {
    const setup = JSON.parse(localStorage.getItem(SETUP_KEY) || "null");
    return setup && typeof setup.variant === "string" ? setup.variant : null;
  } catch (err) {
    return null;
  }
}

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso || "";
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export class HistoryView {
  constructor(elements, onResume) {
    this.el = elements;
    this.onResume = onResume;
    this.board = new BoardView(elements.replayBoard, { label: "Replay" });
    this.games = [];
    this.game = null;
    this.step = 0;
    this.epoch = 0;
    this.listEpoch = 0;
    this.shownScope = "browser";  // the scope of the games listed now
    this.boards = [];        // the results of each board, as the server counts them
    this.chartBoard = null;  // the board the chart shows: chosen, else the current or most played
    this.chosenBoard = null;
    elements.chartBoard.addEventListener("change", () => {
      this.chosenBoard = elements.chartBoard.value;
      this.drawChart();
    });
    const el = elements;
    el.first.addEventListener("click", () => this.show(0));
    el.prev.addEventListener("click", () => this.show(this.step - 1));
    el.next.addEventListener("click", () => this.show(this.step + 1));
    el.last.addEventListener("click", () => this.show(this.game ? this.game.moves.length : 0));
    el.slider.addEventListener("input", () => this.show(Number(el.slider.value)));
    // which games: this browser's (the default) or every game on the server
    this.scopeInputs = [...el.scope.querySelectorAll("input[name=scope]")];
    const remembered = localStorage.getItem(SCOPE_KEY) === "all" ? "all" : "browser";
    for (const input of this.scopeInputs) {
      input.checked = input.value === remembered;
      input.addEventListener("change", () => {
        localStorage.setItem(SCOPE_KEY, this.scope());
        this.refresh();
      });
    }
    // the moves as a list to click; ←, →, Home and End step through them in the replay (but
    // not in its slider or switch, which use them, nor in the list, which steps by itself)
    // and with the focus on the page itself
    this.moveList = new MoveList(el.moves, (step) => this.show(step));
    const stepKey = (event) => {
      const step = this.game ? stepFor(event, this.step, this.game.moves.length) : null;
      if (step === null) return;
      event.preventDefault();
      this.show(step);
    };
    el.replay.addEventListener("keydown", (event) => {
      if (event.target.closest("input, .moves, .moves-start")) return;
      stepKey(event);
    });
    document.addEventListener("keydown", (event) => {
      if (el.scope.hidden || el.replay.hidden || event.target !== document.body) return;
      stepKey(event);
    });
    el.hints.checked = localStorage.getItem(HINTS_KEY) === "true";
    el.hints.addEventListener("change", () => {
      localStorage.setItem(HINTS_KEY, JSON.stringify(el.hints.checked));
      this.show(this.step);
    });
  }

  // On a server that keeps every game's history private, only this browser's games.
  keepPrivate() {
    for (const input of this.scopeInputs) {
      input.checked = input.value === "browser";
      if (input.value === "all") {
        input.disabled = true;
        input.parentElement.title = "This server keeps the history of every game private.";
      }
    }
    if (!this.el.scope.hidden) this.refresh();
  }

  scope() {
    const checked = this.scopeInputs.find((input) => input.checked);
    return checked ? checked.value : "browser";
  }

  // The Board list's labels arrived (after the list was perhaps drawn): name boards by them.
  useBoardLabels(variants) {
    setBoardLabels(variants);
    if (this.games.length || this.boards.length) this.render();
  }

  // Who played a side: "you" for the human against the computer in this browser's games
  // (in every game on the server, "human"); for two people, or the computer, its name.
  playerName(game, side) {
    if (side !== humanSide(game)) return game.players[side];
    return this.shownScope === "all" ? "human" : "you";
  }

  // The result from the human's side against the computer ("You won", "You lost"; "Human
  // won" among every game on the server); between two people, which side won.
  resultText(game) {
    if (game.status === "unfinished") return "Unfinished";
    const human = humanSide(game);
    if (!human || game.result === "draw") return RESULT_TEXT[game.result] || "";
    const who = this.shownScope === "all" ? "Human" : "You";
    return `${who} ${game.result === human ? "won" : "lost"}`;
  }

  async refresh() {
    const scope = this.scope();
    const epoch = ++this.listEpoch;
    let data;
    try {
      data = await api.history(scope === "all" ? null : browserId());
    } catch (err) {
      this.el.empty.textContent = `Cannot load the history: ${err.message}`;
      this.el.empty.hidden = false;
      return;
    }
    if (epoch !== this.listEpoch) return;
    this.shownScope = scope;
    this.games = data.games;
    this.boards = data.boards || [];
    this.render();
  }

  render() {
    const scope = this.shownScope;
    this.el.empty.textContent = scope === "all" ? "No finished games on this server yet. Play one!"
      : "No games in this browser yet. Play one!";
    this.el.table.setAttribute("aria-label", scope === "all"
      ? "All games on this server, every board" : "Games in this browser, every board");
    this.drawChart();
    const body = this.el.table.tBodies[0];
    body.replaceChildren();
    this.el.table.hidden = this.games.length === 0;
    this.el.empty.hidden = this.games.length > 0;
    for (const game of this.games) {
      const row = document.createElement("tr");
      row.tabIndex = 0;
      row.dataset.number = String(game.number);
      row.setAttribute("aria-selected", this.game && this.game.number === game.number ? "true" : "false");
      const open = game.status === "unfinished";
      const cells = [String(game.number), when(open ? game.started : game.finished),
                     boardLabel(game.variant), this.playerName(game, "x"), this.playerName(game, "o")];
      for (const text of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        row.append(td);
      }
      // a continuation after undo, or a game from a loaded position, says so by its board
      const board = row.cells[2];
      for (const label of origin(game)) {
        const tag = document.createElement("span");
        tag.className = "tag muted";
        tag.textContent = label.startsWith("from") ? "from a position" : `continues ${game.continues}`;
        tag.title = label.startsWith("from") ? `from the position ${game.start}`
          : `${label}: undo after its end made this one`;
        board.append(tag);
      }
      const result = document.createElement("td");
      const badge = document.createElement("span");
      badge.className = `badge ${open ? "unfinished" : game.result}`;
      badge.textContent = this.resultText(game);
      result.append(badge);
      if (open) row.title = "Unfinished: open it to play on";
      const count = document.createElement("td");
      count.textContent = String(game.moves.length);
      row.append(result, count);
      [...row.cells].forEach((td, i) => { td.className = COLUMNS[i]; });
      row.addEventListener("click", () => this.open(game));
      row.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); this.open(game); }
      });
      body.append(row);
    }
  }

  // the chart of one board: the board chosen in its select if it still has games, else the
  // board of the play view if it has, else the most played
  drawChart() {
    const el = this.el;
    const names = this.boards.map((board) => board.variant);
    const pick = [this.chosenBoard, currentBoard()].find((name) => names.includes(name));
    this.chartBoard = pick || names[0] || null;
    const select = el.chartBoard;
    select.replaceChildren(...this.boards.map((board) => new Option(
      `${boardLabel(board.variant)} (${board.games} ${board.games === 1 ? "game" : "games"})`,
      board.variant, false, board.variant === this.chartBoard)));
    el.chartBoardField.hidden = this.boards.length === 0;
    const all = this.scope() === "all";
    const on = this.chartBoard ? ` on ${boardLabel(this.chartBoard)}` : "";
    const title = all ? `Results by level${on}, all players` : `Your results by level${on}`;
    el.chartTitle.textContent = title;
    el.chartScope.textContent = all
      ? "Games from the empty board, everyone on this server." : "Games from the empty board, in this browser.";
    const board = this.boards.find((b) => b.variant === this.chartBoard);
    el.chart.dataset.board = this.chartBoard || "";
    drawResultsChart(el.chart, board ? board.levels : [], title);
  }

  async open(game) {
    if (game.status === "unfinished") {
      if (game.id && this.onResume) this.onResume(game.id);
      return;
    }
    this.game = game;
    for (const row of this.el.table.tBodies[0].rows) {
      row.setAttribute("aria-selected", row.dataset.number === String(game.number) ? "true" : "false");
    }
    this.el.replay.hidden = false;
    // where it began goes in the title, so that the line under it stays one line
    this.el.replayTitle.textContent = ["Replay", ...origin(game)].join(" · ");
    this.el.info.textContent = [`Game ${game.number}`, boardLabel(game.variant),
      `X ${this.playerName(game, "x")}, O ${this.playerName(game, "o")}`,
      this.resultText(game)].join(" · ");
    this.el.slider.max = String(game.moves.length);
    await this.show(game.moves.length);
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.el.replay.scrollIntoView({ block: "nearest", behavior: still ? "auto" : "smooth" });
  }

  async show(step) {
    const game = this.game;
    if (!game) return;
    const target = Math.max(0, Math.min(step, game.moves.length));
    const epoch = ++this.epoch;
    let info;
    try {
      info = await api.position(game.start || game.variant, game.moves.slice(0, target));
    } catch (err) {
      this.el.move.textContent = `Cannot replay: ${err.message}`;
      return;
    }
    if (epoch !== this.epoch) return;
    this.step = target;
    this.el.slider.value = String(target);
    const last = target > 0 ? info.cell_names.indexOf(game.moves[target - 1]) : null;
    this.board.render(info, { interactive: false, last });
    const first = game.start ? game.start.trim().split(/\s+/)[1] || "x" : "x";
    this.moveList.render({ moves: game.moves, first, shown: target });
    // with Hints on, what each empty cell is worth for the side to move
    if (this.el.hints.checked && !info.outcome && info.valid) {
      try {
        const hints = hintsOf(await api.analysis(info.position));
        if (epoch === this.epoch) this.board.render(info, { interactive: false, last, hints });
      } catch (err) {
        if (epoch === this.epoch) this.el.move.textContent += ` · no hints: ${err.message}`;
      }
    }
    this.el.move.textContent = target === 0 ? `Start · ${game.moves.length} moves`
      : `Move ${target} of ${game.moves.length}: ${game.moves[target - 1]}`;
    this.el.first.disabled = this.el.prev.disabled = target === 0;
    this.el.next.disabled = this.el.last.disabled = target === game.moves.length;
  }

  // the Hints switch may have changed in the play view
  syncHints() {
    const on = localStorage.getItem(HINTS_KEY) === "true";
    if (on !== this.el.hints.checked) {
      this.el.hints.checked = on;
      if (this.game) this.show(this.step);
    }
  }
}
