// The play view: a game against the computer or between two people on one screen.

import { api, ApiError } from "./api.js";
import { BoardView, spokenCell } from "./board.js";

const SAVED_GAME = "tictactoe.current";

function hintFor(score) {
  // a proven value reads "win in 3"; an estimate from a search cut short reads "estimate +2"
  const kind = score.kind === "heuristic" ? "estimate" : score.kind;
  const value = Math.round((score.value || 0) * 10) / 10;
  const text = score.kind === "heuristic" ? `estimate ${value > 0 ? "+" : ""}${value}` : score.text;
  const short = { win: `W${score.plies}`, loss: `L${score.plies}`, draw: "D" }[score.kind]
    || `≈${value > 0 ? "+" : ""}${Math.round(value)}`;
  return { kind, text, short };
}

export class PlayView {
  constructor(elements, onFinished) {
    this.el = elements;
    this.onFinished = onFinished;
    this.board = new BoardView(elements.board, { onPlay: (cell) => this.play(cell), label: "Board" });
    this.setup = { variant: "3x3", mode: "computer", level: "perfect", side: "x" };
    this.start = null;          // position string the game started from, or null: empty board
    this.startTurn = "x";
    this.moves = [];
    this.redoStack = [];
    this.info = null;
    this.gameId = null;
    this.saved = false;         // the server holds this game as finished
    this.seed = 0;
    this.epoch = 0;             // bumped on every change; late answers for old states are dropped
    this.thinking = false;
    this.hints = null;
    this.hintNote = "";
    this.lastCell = null;
    this.saving = Promise.resolve();
    this.error = "";
  }

  // ---------------------------------------------------------------- setup
  async init(options) {
    for (const v of options.variants) this.el.variant.append(new Option(v.label, v.value));
    for (const l of options.levels) this.el.level.append(new Option(l.label, l.value));
    this.el.level.value = "perfect";
    this.bindControls();
    if (!(await this.resume())) await this.newGame();
  }

  bindControls() {
    const el = this.el;
    el.variant.addEventListener("change", () => { this.start = null; this.newGame(); });
    el.level.addEventListener("change", () => this.newGame());
    for (const input of el.setup.querySelectorAll("input[type=radio]")) {
      input.addEventListener("change", () => this.newGame());
    }
    el.newGame.addEventListener("click", () => { this.newGame(); });
    el.undo.addEventListener("click", () => this.undo());
    el.redo.addEventListener("click", () => this.redo());
    el.hints.addEventListener("change", () => this.refreshHints());
    el.copy.addEventListener("click", () => this.copyPosition());
    el.positionForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.load(el.positionText.value);
    });
    el.positionText.addEventListener("input", () => this.showPositionError(""));
    document.addEventListener("keydown", (event) => {
      if (event.target.closest && event.target.closest("input, select, textarea")) return;
      if (event.ctrlKey || event.metaKey || event.altKey || this.el.view.hidden) return;
      if (event.key === "u") this.undo();
      else if (event.key === "r") this.redo();
      else if (event.key === "h") { el.hints.checked = !el.hints.checked; this.refreshHints(); }
      else if (event.key === "n") this.newGame();
    });
  }

  readSetup() {
    const form = this.el.setup;
    this.setup = {
      variant: this.el.variant.value,
      mode: form.querySelector("input[name=mode]:checked").value,
      level: this.el.level.value,
      side: form.querySelector("input[name=side]:checked").value,
    };
    form.classList.toggle("computer-off", this.setup.mode !== "computer");
  }

  writeSetup() {
    const form = this.el.setup;
    this.ensureVariantOption(this.setup.variant);
    this.el.variant.value = this.setup.variant;
    this.el.level.value = this.setup.level;
    form.querySelector(`input[name=mode][value=${this.setup.mode}]`).checked = true;
    form.querySelector(`input[name=side][value=${this.setup.side}]`).checked = true;
    form.classList.toggle("computer-off", this.setup.mode !== "computer");
  }

  ensureVariantOption(name) {
    if (![...this.el.variant.options].some((o) => o.value === name)) {
      this.el.variant.append(new Option(name, name));
    }
  }

  players() {
    if (this.setup.mode !== "computer") return { x: "human", o: "human" };
    return this.setup.side === "x" ? { x: "human", o: this.setup.level }
                                   : { x: this.setup.level, o: "human" };
  }

  isComputerTurn(info = this.info) {
    return this.setup.mode === "computer" && info && !info.outcome && info.turn !== this.setup.side;
  }

  turnAfter(count) {
    return count % 2 === 0 ? this.startTurn : (this.startTurn === "x" ? "o" : "x");
  }

  // ---------------------------------------------------------------- state changes
  async newGame() {
    this.readSetup();
    this.epoch++;
    this.moves = [];
    this.redoStack = [];
    this.gameId = null;
    this.saved = false;
    this.lastCell = null;
    this.seed = Math.floor(Math.random() * 2 ** 31);
    this.error = "";
    this.showPositionError("");
    localStorage.removeItem(SAVED_GAME);
    await this.refresh();
  }

  async resume() {
    let saved;
    try {
      saved = JSON.parse(localStorage.getItem(SAVED_GAME) || "null");
    } catch (err) {
      saved = null;
    }
    if (!saved || typeof saved.id !== "string") return false;
    try {
      const { game } = await api.getGame(saved.id);
      if (game.result) return false;
      const players = game.players;
      const humans = ["x", "o"].filter((s) => players[s] === "human");
      this.setup = {
        variant: game.variant,
        mode: humans.length === 1 ? "computer" : "humans",
        level: humans.length === 1 ? players[humans[0] === "x" ? "o" : "x"] : this.el.level.value,
        side: humans.length === 1 ? humans[0] : "x",
      };
      if (![...this.el.level.options].some((o) => o.value === this.setup.level)) {
        this.el.level.append(new Option(this.setup.level, this.setup.level));
      }
      this.writeSetup();
      this.start = game.start;
      this.moves = game.moves;
      this.gameId = saved.id;
      this.seed = Number.isInteger(saved.seed) ? saved.seed : 0;
      this.epoch++;
      await this.refresh();
      return true;
    } catch (err) {
      localStorage.removeItem(SAVED_GAME);
      return false;
    }
  }

  startString() {
    return this.start || this.setup.variant;
  }

  async refresh() {
    const epoch = this.epoch;
    let info;
    try {
      info = await api.position(this.startString(), this.moves);
    } catch (err) {
      if (epoch !== this.epoch) return;
      this.error = err.message;
      this.render();
      return;
    }
    if (epoch !== this.epoch) return;
    if (this.moves.length === 0) this.startTurn = info.turn;
    this.info = info;
    this.hints = null;
    this.render();
    this.afterChange();
  }

  afterChange() {
    if (this.isComputerTurn() && this.info.valid) {
      this.computerMove();
    } else {
      this.refreshHints();
    }
  }

  async play(cell) {
    if (this.thinking || !this.info || this.info.outcome || this.isComputerTurn()) return;
    const name = this.info.cell_names[cell];
    if (!this.info.legal_moves.includes(name)) return;
    this.epoch++;
    this.moves = [...this.moves, name];
    this.redoStack = [];
    this.lastCell = cell;
    await this.refresh();
    this.save();
  }

  async computerMove() {
    const epoch = this.epoch;
    this.thinking = true;
    this.render();
    try {
      const answer = await api.move(this.info.position, this.setup.level, this.seed + this.moves.length);
      if (epoch !== this.epoch) return;
      this.epoch++;
      this.moves = [...this.moves, answer.move];
      this.lastCell = answer.cell;
      this.info = answer.position;
      this.hints = null;
      this.thinking = false;
      this.render();
      this.save();
      this.refreshHints();
      if (!this.info.outcome) this.board.focus();
    } catch (err) {
      if (epoch !== this.epoch) return;
      this.thinking = false;
      this.error = `the computer could not move: ${err.message}`;
      this.render();
    }
  }

  canUndo() {
    if (this.thinking) return false;
    if (this.setup.mode !== "computer") return this.moves.length > 0;
    // never undo into a position where the computer would simply move again
    for (let n = this.moves.length - 1; n >= 0; n--) {
      if (this.turnAfter(n) === this.setup.side) return true;
    }
    return false;
  }

  async undo() {
    if (!this.canUndo()) return;
    this.epoch++;
    const moves = [...this.moves];
    const redo = [...this.redoStack];
    do {
      redo.push(moves.pop());
    } while (this.setup.mode === "computer" && moves.length && this.turnAfter(moves.length) !== this.setup.side);
    this.moves = moves;
    this.redoStack = redo;
    this.lastCell = null;
    this.thinking = false;
    this.forkIfSaved();
    await this.refresh();
    this.save();
  }

  async redo() {
    if (this.thinking || this.redoStack.length === 0) return;
    this.epoch++;
    const moves = [...this.moves];
    const redo = [...this.redoStack];
    do {
      moves.push(redo.pop());
    } while (this.setup.mode === "computer" && redo.length && this.turnAfter(moves.length) !== this.setup.side);
    this.moves = moves;
    this.redoStack = redo;
    this.lastCell = null;
    this.forkIfSaved();
    await this.refresh();
    if (this.info) this.lastCell = this.info.cell_names.indexOf(this.moves[this.moves.length - 1]);
    this.render();
    this.save();
  }

  forkIfSaved() {
    // a finished game is kept as it was; playing on after an undo records a new game
    if (this.saved) {
      this.gameId = null;
      this.saved = false;
    }
  }

  async load(text) {
    const trimmed = text.trim();
    if (!trimmed) {
      this.showPositionError("Paste a position string first.");
      return;
    }
    let info;
    try {
      info = await api.position(trimmed);
    } catch (err) {
      this.showPositionError(err.message);
      return;
    }
    if (!info.valid) {
      this.showPositionError(`This position cannot arise in play: ${info.problems.join("; ")}`);
      return;
    }
    this.showPositionError("");
    this.start = info.position;
    this.setup.variant = info.variant.name;
    if (!info.outcome) this.setup.side = info.turn;
    this.writeSetup();
    await this.newGame();
  }

  // ---------------------------------------------------------------- saving
  save() {
    const moves = [...this.moves];
    const epoch = this.epoch;
    this.saving = this.saving.then(() => this.saveNow(moves, epoch)).catch(() => {});
    return this.saving;
  }

  async saveNow(moves, epoch) {
    if (moves.length === 0 && !this.gameId) return;
    try {
      let response;
      if (this.gameId && !this.saved) {
        try {
          response = await api.updateGame(this.gameId, moves);
        } catch (err) {
          if (!(err instanceof ApiError) || (err.status !== 409 && err.status !== 404)) throw err;
          this.gameId = null;
        }
      }
      if (!response) {
        if (this.saved) return;
        response = await api.newGame(this.setup.variant, this.start, this.players(), moves);
        this.gameId = response.id;
      }
      if (response.game.result) {
        this.saved = true;
        localStorage.removeItem(SAVED_GAME);
        this.onFinished();
      } else {
        localStorage.setItem(SAVED_GAME, JSON.stringify({ id: this.gameId, seed: this.seed }));
      }
      if (epoch === this.epoch) this.el.hintNote.hidden = !this.hintNote;
    } catch (err) {
      this.el.hintNote.textContent = `The game could not be saved: ${err.message}`;
      this.el.hintNote.hidden = false;
    }
  }

  // ---------------------------------------------------------------- hints
  async refreshHints() {
    const info = this.info;
    this.hintNote = "";
    if (!this.el.hints.checked || !info || info.outcome || !info.valid || this.isComputerTurn()) {
      if (this.hints) { this.hints = null; this.render(); }
      this.el.hintNote.hidden = true;
      return;
    }
    const epoch = this.epoch;
    try {
      const analysis = await api.analysis(info.position);
      if (epoch !== this.epoch || !this.el.hints.checked) return;
      const hints = new Map();
      const ranks = analysis.best.length < analysis.moves.length;  // outline the best if it stands out
      for (const m of analysis.moves) {
        hints.set(m.cell, { ...hintFor(m.score), best: ranks && analysis.best.includes(m.move) });
      }
      this.hints = hints;
      this.hintNote = analysis.proven ? "" :
        "The search stopped at its bound before a proof: these values are estimates.";
    } catch (err) {
      if (epoch !== this.epoch) return;
      this.hints = null;
      this.hintNote = `No hints: ${err.message}`;
    }
    this.el.hintNote.textContent = this.hintNote;
    this.el.hintNote.hidden = !this.hintNote;
    this.render();
  }

  // ---------------------------------------------------------------- copy
  async copyPosition() {
    const text = this.info ? this.info.position : "";
    this.el.positionText.value = text;
    let done = false;
    try {
      await navigator.clipboard.writeText(text);
      done = true;
    } catch (err) {
      this.el.positionText.select();
      done = document.execCommand && document.execCommand("copy");
    }
    this.el.copied.textContent = done ? "Copied" : "Select and copy the text";
    setTimeout(() => { this.el.copied.textContent = ""; }, 2000);
  }

  showPositionError(message) {
    this.el.positionError.textContent = message;
    this.el.positionText.setAttribute("aria-invalid", message ? "true" : "false");
  }

  // ---------------------------------------------------------------- drawing
  render() {
    const info = this.info;
    const el = this.el;
    if (info) {
      const interactive = !this.thinking && !info.outcome && !this.isComputerTurn() && info.valid;
      this.board.render(info, { interactive, hints: this.hints, last: this.lastCell });
      if (document.activeElement !== el.positionText) el.positionText.value = info.position;
    }
    this.renderStatus();
    this.renderMoves();
    el.undo.disabled = !this.canUndo();
    el.redo.disabled = this.thinking || this.redoStack.length === 0;
  }

  renderStatus() {
    const status = this.el.status;
    const info = this.info;
    status.className = "status";
    status.replaceChildren();
    const say = (text, cls) => {
      status.append(document.createTextNode(text));
      if (cls) status.classList.add(cls);
    };
    if (this.error) return say(this.error, "error");
    if (!info) return say("Loading…");
    if (!info.valid) return say(`This position cannot arise in play: ${info.problems.join("; ")}`, "error");
    if (info.outcome) {
      const line = info.winning_lines.length
        ? ` (${info.winning_lines[0].map((c) => info.cell_names[c]).join(" ")})` : "";
      if (info.outcome.result === "draw") return say("It's a draw.", "drawn");
      const winner = info.outcome.winner.toUpperCase();
      if (this.setup.mode === "computer") {
        return info.outcome.winner === this.setup.side
          ? say(`You win!${line}`, "won") : say(`The computer wins${line}.`, "lost");
      }
      return say(`${winner} wins${line}.`, "won");
    }
    if (this.thinking) {
      const spinner = document.createElement("span");
      spinner.className = "spinner";
      spinner.setAttribute("aria-hidden", "true");
      status.append(spinner);
      return say("The computer is thinking…");
    }
    const mark = document.createElement("span");
    mark.className = `mark-${info.turn}`;
    mark.textContent = info.turn.toUpperCase();
    if (this.setup.mode === "computer") {
      say("Your move: you are ");
      status.append(mark);
    } else {
      status.append(mark);
      say(" to move");
    }
  }

  renderMoves() {
    const list = this.el.moves;
    list.replaceChildren();
    const all = [...this.moves, ...[...this.redoStack].reverse()];
    all.forEach((move, i) => {
      const li = document.createElement("li");
      const side = this.turnAfter(i);
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = `${i + 1}.`;
      const s = document.createElement("span");
      s.className = `side-${side}`;
      s.textContent = side.toUpperCase();
      const m = document.createElement("span");
      m.textContent = move;
      li.append(n, s, m);
      li.setAttribute("aria-label", `move ${i + 1}, ${side.toUpperCase()} ${spokenCell(move)}${i >= this.moves.length ? " (undone)" : ""}`);
      if (i >= this.moves.length) li.classList.add("undone");
      if (i === this.moves.length - 1) li.classList.add("current");
      list.append(li);
    });
    this.el.noMoves.hidden = all.length > 0;
    list.scrollTop = list.scrollHeight;
  }
}
