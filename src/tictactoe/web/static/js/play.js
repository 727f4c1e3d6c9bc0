// The play view: a game against the computer or between two people on one screen.
//
// The server owns the game. The page sends each move (and undo, redo) with the game's ply
// counter; the server checks it, plays the computer's reply and answers with the game as it
// stands, which the page then draws. A change made from an older state (another tab moved
// first) is refused with 409 and the current game, which the page adopts. Tabs on the same
// game follow each other through localStorage.
//
// The Moves list looks back through the game: a click (or ←, →, Home, End) shows an earlier
// position, read-only, until the last move is shown again. A game opened from a record file
// or a link is looked through the same way, and can be played on from any of its positions.

import { api, ApiError, browserId } from "./api.js";
import { BoardView, spokenCell, threesInWords } from "./board.js";
import { hintsOf } from "./hints.js";
import { MoveList, globalStep, stepFor } from "./moves.js";
import { RecordTools } from "./records.js";
import { addResult, scoreOf } from "./score.js";
import { Sounds } from "./sound.js";

const SAVED_GAME = "tictactoe.current";
const SAVED_SETUP = "tictactoe.setup";   // the last game's board, opponent, level and side
const SAVED_HINTS = "tictactoe.hints";   // whether the Hints switch is on
const SAVED_THREATS = "tictactoe.threats";  // the Threats switch: {cube, flat}, on and off at first
const MAX_CUSTOM_BOARDS = 3;             // boards from loaded positions kept in the Board list
const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
  "nine", "ten"];
const CHANGED_ELSEWHERE = "This game was changed in another tab or window; here is where it stands now.";

function replyText(reply) {
  // what the computer's last move is worth, in the server's plain words ("I can force a win
  // with my next move", "about even (my estimate +0.2)")
  if (!reply) return "";
  const where = spokenCell(reply.move);
  if (!reply.words) return `The computer (${reply.player}) played ${where}.`;
  return `The computer (${reply.player}) played ${where}: ${reply.words}.`;
}

function inARow(variant) {
  return `${NUMBER_WORDS[variant.k] || String(variant.k)} in a row`;
}

export function boardName(variant) {
  // a readable name for a board of a loaded position: "10×6, five in a row"
  return `${variant.shape.join("×")}, ${inARow(variant)}`;
}

function plain(text) {
  // a board's name or label as typed: lower case, "×" as "x", without spaces
  return text.toLowerCase().replace(/×/g, "x").replace(/\s+/g, "");
}

export function listedBoard(variants, text) {
  // the Board list's board that a typed name stands for: its label ("15×15, five in a row
  // (gomoku)"), or the size its label starts with ("15x15", "9×9"), reads as the board the list
  // means (15x15k5), not the library's board of that size (fifteen in a row); null otherwise
  const typed = plain(text);
  const found = variants.filter((v) => plain(v.label) === typed
    || plain(v.label.split(",")[0]) === typed);
  return found.length === 1 ? found[0].value : null;
}

function readJson(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch (err) {
    return null;
  }
}

function readSaved() {
  try {
    const saved = JSON.parse(localStorage.getItem(SAVED_GAME) || "null");
    return saved && typeof saved.id === "string" ? saved : null;
  } catch (err) {
    return null;
  }
}

export class PlayView {
  constructor(elements, onFinished) {
    this.el = elements;
    this.onFinished = onFinished;
    this.board = new BoardView(elements.board, { onPlay: (cell) => this.play(cell), label: "Board",
      confirm: elements.tapConfirm });
    this.setup = { variant: "3x3", mode: "computer", level: null, side: "x" };  // level: the server's default
    this.start = null;          // position string for the next new game, or null: empty board
    this.game = null;           // the game as the server last answered (GameState)
    this.info = null;           // the position drawn (the game's, or a move awaiting its answer)
    this.busy = false;          // a request that changes the game is under way
    this.epoch = 0;             // bumped on every change; late answers for old states are dropped
    this.hints = null;
    this.hintNote = "";
    this.note = "";
    this.lastCell = null;
    this.error = "";
    this.shown = null;          // the step looked at (moves from the start), or null: the game now
    this.viewInfo = null;       // the position looked at
    this.viewEpoch = 0;
    this.hintEpoch = 0;
    this.opened = null;         // a game from a record file or link: { record, link, from }
    this.answerQuestion = null; // answers the open question from the dialog (see ask)
    this.moveList = new MoveList(elements.moves, (step) => this.showStep(step));
    this.sounds = new Sounds(elements.sound);
    this.records = new RecordTools(elements, this);
  }

  // ---------------------------------------------------------------- setup
  async init(options) {
    this.variants = options.variants;
    for (const v of options.variants) this.el.variant.append(new Option(v.label, v.value));
    for (const l of options.levels) this.el.level.append(new Option(l.label, l.value));
    this.levelDescriptions = new Map(options.levels.map((l) => [l.value, l.description || ""]));
    if (options.limits && options.limits.position_chars) {
      this.el.positionText.maxLength = options.limits.position_chars;  // the server's bound
    }
    this.restoreSetup(options);
    this.el.hints.checked = readJson(SAVED_HINTS) === true;
    this.bindControls();
    if (!(await this.resume())) await this.newGame();
  }

  restoreSetup(options) {
    // the last game's setup (kept in this browser), where the page still offers it
    const saved = readJson(SAVED_SETUP) || {};
    const offered = (list, value) => list.some((choice) => choice.value === value);
    this.setup = {
      variant: offered(options.variants, saved.variant) ? saved.variant : "3x3",
      mode: saved.mode === "humans" ? "humans" : "computer",
      level: offered(options.levels, saved.level) ? saved.level : options.default_level,
      side: saved.side === "o" ? "o" : "x",
    };
    this.writeSetup();
  }

  saveSetup() {
    localStorage.setItem(SAVED_SETUP, JSON.stringify(this.setup));
  }

  bindControls() {
    const el = this.el;
    // a change of setup starts a new game; in a game under way the page asks first
    this.onCommit(el.variant, "variant", () => this.changeSetup(true));
    this.onCommit(el.level, "level", () => this.changeSetup(false), () => this.describeLevel());
    for (const input of el.setup.querySelectorAll("input[type=radio]")) {
      input.addEventListener("change", () => this.changeSetup(false));
    }
    el.newGame.addEventListener("click", () => this.requestNewGame());
    el.undo.addEventListener("click", () => this.undo());
    el.redo.addEventListener("click", () => this.redo());
    el.hints.addEventListener("change", () => this.hintsChanged());
    el.threats.addEventListener("change", () => this.threatsChanged());
    el.copy.addEventListener("click", () => this.copyPosition());
    el.rematch.addEventListener("click", () => this.rematch(false));
    el.swap.addEventListener("click", () => this.rematch(true));
    el.backToGame.addEventListener("click", () => this.backToGame());
    el.closeOpened.addEventListener("click", () => { this.backToGame(); this.records.leaveLink(); });
    el.playOn.addEventListener("click", () => this.playOn());
    el.positionForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.load(el.positionText.value);
    });
    el.positionText.addEventListener("input", () => this.showPositionError(""));
    document.addEventListener("keydown", (event) => {
      if (this.el.view.hidden || this.el.confirm.open) return;
      // ←, →, Home, End step through the moves where the focus is on no control that uses
      // them (see moves.js)
      const sequence = this.sequence();
      if (sequence && globalStep(event.target)) {
        const step = stepFor(event, this.shownStep(), sequence.moves.length);
        if (step !== null) { event.preventDefault(); this.showStep(step); return; }
      }
      if (event.target.closest && event.target.closest("input, select, textarea, dialog")) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "u") this.undo();
      else if (event.key === "r") this.redo();
      else if (event.key === "h") { el.hints.checked = !el.hints.checked; this.hintsChanged(); }
      else if (event.key === "t") { el.threats.checked = !el.threats.checked; this.threatsChanged(); }
      else if (event.key === "n") this.requestNewGame();
    });
    // another tab changed this game: fetch it (the storage event fires in the other tabs only)
    window.addEventListener("storage", (event) => {
      if (event.key !== SAVED_GAME || !this.game) return;
      const saved = readSaved();
      if (saved && saved.id === this.game.id && saved.ply !== this.game.ply) this.sync();
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && this.game) this.sync();
    });
  }

  onCommit(select, key, commit, step = null) {
    // A select's choice, once committed. A keyboard step on a closed select (an arrow key,
    // Home, End, a letter) fires "change" at every step: those wait until Enter or until
    // the focus leaves the select, so that the page asks once, for the board or level
    // chosen; a pick from the open list (or with the mouse) is committed at once. A choice
    // stepped back to the setup of the game under way changes nothing.
    let stepping = false;
    let pending = false;
    const settle = () => {
      if (!pending) return;
      pending = false;
      if (select.value !== this.setup[key]) commit();
    };
    select.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { if (pending) event.preventDefault(); settle(); return; }
      // the key's own change comes in this task, before the timer
      stepping = !event.altKey && !event.ctrlKey && !event.metaKey
        && (event.key.length === 1 || /^(Arrow|Page)|^(Home|End)$/.test(event.key));
      if (stepping) setTimeout(() => { stepping = false; });
    });
    select.addEventListener("change", () => {
      if (step) step();
      if (stepping) { pending = true; return; }
      pending = false;
      commit();
    });
    select.addEventListener("blur", settle);
  }

  // ---------------------------------------------------------------- asking first
  inProgress() {
    // a game not over in which a human has moved: starting another would leave it
    const game = this.game;
    if (!game || game.game.result) return false;
    const players = game.game.players;
    return game.game.moves.some((_, i) => players[this.turnAfter(i)] === "human");
  }

  ask(title, text, yes) {
    // the page's own confirm dialog (modal: focus stays in it, Escape answers no). Its
    // "close" event comes a task after it closes: a question asked in between first takes
    // the last one's answer from the dialog, and a late event that finds the dialog open
    // again belongs to that earlier question
    const dialog = this.el.confirm;
    if (this.answerQuestion) this.answerQuestion();
    this.el.confirmTitle.textContent = title;
    this.el.confirmText.textContent = text;
    this.el.confirmYes.textContent = yes;
    dialog.returnValue = "";
    return new Promise((resolve) => {
      const answer = () => {
        dialog.removeEventListener("close", closed);
        this.answerQuestion = null;
        resolve(dialog.returnValue === "yes");
      };
      const closed = () => { if (!dialog.open) answer(); };
      this.answerQuestion = answer;
      dialog.addEventListener("close", closed);
      dialog.showModal();
    });
  }

  mayLeave(title) {
    if (!this.inProgress()) return Promise.resolve(true);
    return this.ask(title, "This game is not over. It stays in History as unfinished, and you "
      + "can resume it there.", "Start a new game");
  }

  async requestNewGame() {
    if (this.el.confirm.open) return;
    if (await this.mayLeave("Start a new game?")) await this.newGame();
  }

  async changeSetup(board) {
    if (await this.mayLeave("Start a new game with these settings?")) {
      if (board) this.start = null;
      await this.newGame();
    } else {
      this.writeSetup();  // back to the settings of the game under way
    }
  }

  async open(id) {
    // resume a stored game (from History): it becomes this page's current game
    const epoch = ++this.epoch;
    try {
      const state = await api.getGame(id);
      if (epoch !== this.epoch) return;
      this.busy = false;
      this.opened = null;
      this.records.closed();
      this.adopt(state);
    } catch (err) {
      if (epoch !== this.epoch) return;
      this.error = `Cannot open that game: ${err.message}`;
      this.render();
    }
  }

  describeLevel() {
    // the one-line description of the chosen level, under the select
    const text = (this.levelDescriptions && this.levelDescriptions.get(this.el.level.value)) || "";
    this.el.levelDescription.textContent = text ? `${this.el.level.selectedOptions[0].text}: ${text}.` : "";
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

  writeSetup(variant = null) {
    const form = this.el.setup;
    this.ensureBoard(this.setup.variant, variant);
    this.ensureOption(this.el.level, this.setup.level);
    this.el.variant.value = this.setup.variant;
    this.el.level.value = this.setup.level;
    this.describeLevel();
    form.querySelector(`input[name=mode][value=${this.setup.mode}]`).checked = true;
    form.querySelector(`input[name=side][value=${this.setup.side}]`).checked = true;
    form.classList.toggle("computer-off", this.setup.mode !== "computer");
  }

  ensureOption(select, value) {
    if (![...select.options].some((o) => o.value === value)) select.append(new Option(value, value));
  }

  ensureBoard(name, variant) {
    // a board from a loaded position joins the Board list under a readable name; the list
    // keeps the last few of them
    const select = this.el.variant;
    if ([...select.options].some((o) => o.value === name)) return;
    const option = new Option(variant ? boardName(variant) : name, name);
    option.dataset.custom = "true";
    select.append(option);
    const custom = [...select.options].filter((o) => o.dataset.custom && o.value !== name);
    for (const old of custom.slice(0, Math.max(0, custom.length - (MAX_CUSTOM_BOARDS - 1)))) {
      old.remove();
    }
  }

  setupOf(game) {
    // the setup a stored game was started with, from its players
    const players = game.game.players;
    const humans = ["x", "o"].filter((s) => players[s] === "human");
    return {
      variant: game.game.variant,
      mode: humans.length === 1 ? "computer" : "humans",
      level: humans.length === 1 ? players[humans[0] === "x" ? "o" : "x"] : this.el.level.value,
      side: humans.length === 1 ? humans[0] : "x",
    };
  }

  players() {
    if (this.setup.mode !== "computer") return { x: "human", o: "human" };
    return this.setup.side === "x" ? { x: "human", o: this.setup.level }
                                   : { x: this.setup.level, o: "human" };
  }

  humanToMove(info = this.info) {
    if (!info || info.outcome) return false;
    return this.setup.mode !== "computer" || info.turn === this.setup.side;
  }

  startTurn() {
    const start = this.game && this.game.game.start;
    return start ? start.trim().split(/\s+/)[1] || "x" : "x";  // "BOARD SIDE [K]"
  }

  turnAfter(count) {
    const first = this.startTurn();
    return count % 2 === 0 ? first : (first === "x" ? "o" : "x");
  }

  // ---------------------------------------------------------------- the server's answers
  adopt(state, note = "", started = false) {
    // started: the answer to a new game of this page (the computer may have moved, and won)
    const before = started ? { id: state.id, game: { moves: [], result: null } } : this.game;
    this.reply = state.reply || null;
    this.game = state;
    this.info = state.position;
    this.note = note;
    this.error = "";
    this.hints = null;
    const moves = state.game.moves;
    this.lastCell = moves.length ? state.position.cell_names.indexOf(moves[moves.length - 1]) : null;
    this.setup = this.setupOf(state);
    this.start = state.game.start || null;  // a rematch or new game starts where this one did
    this.writeSetup(state.position.variant);
    this.saveSetup();
    // other tabs on this game follow it (a finished one too: resume then starts a new game)
    localStorage.setItem(SAVED_GAME, JSON.stringify({ id: state.id, ply: state.ply }));
    if (state.game.result) this.onFinished();
    if (!this.opened) { this.shown = null; this.viewInfo = null; }
    // a move played here, and a game that ended here: a tone, and the session's score
    if (before && before.id === state.id && state.game.moves.length > before.game.moves.length) {
      if (this.reply) this.sounds.play(this.setup.side === "x" ? "o" : "x");
      if (state.game.result && !before.game.result) this.finished(state.game);
    }
    this.render();
    this.refreshHints();
  }

  // a game that just ended: its result counts in the session's score (against the computer)
  finished(game) {
    const mine = this.setup.mode === "computer" ? this.setup.side : null;
    const who = game.result === "draw" ? "draws" : game.result === mine ? "you" : "computer";
    if (mine) addResult(this.setup.variant, this.setup.level, who);
    this.sounds.play(game.result === "draw" ? "drawn" : !mine || game.result === mine ? "won" : "lost");
  }

  async change(request, preview = null, noteFor = () => "") {
    // send a change; draw the answer, or the game as it stands if another tab changed it first
    if (this.busy || !this.game) return;
    const epoch = ++this.epoch;
    this.busy = true;
    this.note = "";
    if (preview) this.info = preview;
    this.hints = null;
    this.render();
    try {
      const state = await request();
      if (epoch !== this.epoch) return;
      this.busy = false;
      this.adopt(state, noteFor(state));
      if (!state.position.outcome && this.humanToMove()) this.board.focus();
    } catch (err) {
      if (epoch !== this.epoch) return;
      this.busy = false;
      if (err instanceof ApiError && err.status === 409 && err.body && err.body.state) {
        this.adopt(err.body.state, CHANGED_ELSEWHERE);
        return;
      }
      this.info = this.game.position;
      this.error = `That did not work: ${err.message}`;
      this.render();
    }
  }

  async sync() {
    if (this.busy || !this.game) return;
    const epoch = this.epoch;
    try {
      const state = await api.getGame(this.game.id);
      if (epoch !== this.epoch || this.busy || state.ply === this.game.ply) return;
      this.adopt(state);
    } catch (err) {
      // the next change will say what is wrong
    }
  }

  // ---------------------------------------------------------------- state changes
  async newGame(moves = []) {
    this.readSetup();
    const epoch = ++this.epoch;
    this.shown = null;
    this.viewInfo = null;
    this.opened = null;
    this.records.closed();
    this.game = null;
    this.info = null;
    this.lastCell = null;
    this.error = "";
    this.note = "";
    this.hints = null;
    this.busy = true;
    this.showPositionError("");
    this.showPositionNote(null);
    localStorage.removeItem(SAVED_GAME);
    this.render();
    const request = { players: this.players() };
    if (this.start) request.position = this.start;
    else request.variant = this.setup.variant;
    if (moves.length) request.moves = moves;
    try {
      const state = await api.newGame(request, browserId());
      if (epoch !== this.epoch) return;
      this.busy = false;
      this.adopt(state, "", true);
    } catch (err) {
      if (epoch !== this.epoch) return;
      this.busy = false;
      this.error = `Cannot start a game: ${err.message}`;
      this.render();
    }
  }

  async resume() {
    const saved = readSaved();
    if (!saved) return false;
    try {
      const state = await api.getGame(saved.id);
      if (state.game.result) return false;
      this.epoch++;
      this.adopt(state);
      return true;
    } catch (err) {
      localStorage.removeItem(SAVED_GAME);
      return false;
    }
  }

  play(cell) {
    const info = this.info;
    if (this.busy || !this.game || !this.humanToMove(info) || !info.valid) return;
    const name = info.cell_names[cell];
    if (!info.legal_moves.includes(name)) return;
    // show the move at once; the server's answer (with the computer's reply) replaces it
    const cells = [...info.cells];
    cells[cell] = info.turn;
    this.lastCell = cell;
    // the threats the move blocks or takes go at once, and new ones come with the answer
    const threats = (info.threats || []).filter((threat) => threat.cell !== cell);
    const threes = (info.threes || []).filter((three) => !three.line.includes(cell));
    const liveThrees = (info.live_threes || []).filter((three) => !three.cells.includes(cell));
    const preview = { ...info, cells, legal_moves: [], threats, threes, live_threes: liveThrees };
    this.sounds.play(info.turn);
    const { id, ply } = this.game;
    return this.change(() => api.play(id, name, ply), preview);
  }

  undo() {
    if (!this.canUndo()) return;
    const { id, ply } = this.game;
    const number = this.game.game.number;
    // undo after the end plays on in a new game that continues the finished one: say so
    return this.change(() => api.undo(id, ply), null, (state) => state.id === id ? ""
      : `Game ${number} is over and kept in History as it ended; you are playing on in `
        + `game ${state.game.number}, which continues it.`);
  }

  redo() {
    if (!this.canRedo()) return;
    const { id, ply } = this.game;
    return this.change(() => api.redo(id, ply));
  }

  canUndo() {
    return !this.busy && !!this.game && this.game.can_undo && this.shown === null && !this.opened;
  }

  canRedo() {
    return !this.busy && !!this.game && this.game.can_redo && this.shown === null && !this.opened;
  }

  async load(text) {
    const trimmed = text.trim();
    if (!trimmed) {
      this.showPositionError("Paste a position string first.");
      return;
    }
    let info;
    try {
      info = await api.position(listedBoard(this.variants || [], trimmed) || trimmed);
    } catch (err) {
      this.showPositionError(err.message);
      return;
    }
    if (!info.valid) {
      this.showPositionError(`This position cannot arise in play: ${info.problems.join("; ")}`);
      return;
    }
    if (info.outcome) {
      this.showPositionError("The game is already over in this position.");
      return;
    }
    this.showPositionError("");
    if (!(await this.mayLeave("Start a new game from this position?"))) return;
    // what to go back to if the position was not the board meant ("3/3 x" is a 2×3 board)
    const before = { id: this.game && this.game.id, start: this.start,
                     board: this.el.variant.selectedOptions[0]?.text || this.setup.variant,
                     variant: this.setup.variant };
    this.start = info.position;
    this.setup.variant = info.variant.name;
    this.setup.side = info.turn;
    this.writeSetup(info.variant);
    await this.newGame();
    if (this.game && before.variant !== info.variant.name) {
      const size = info.variant.shape.join("×");
      const article = /^(8|11|18)(×|$)/.test(size) ? "an" : "a";  // an 8×8, an 11×11, an 18×18
      this.showPositionNote(`Loaded ${article} ${size} board (${inARow(info.variant)}) `
        + `instead of ${before.board}.`, before.id ? () => this.restore(before) : null);
    }
  }

  async restore(before) {
    // undo a load: back to the game (and its board) from before it
    this.showPositionNote(null);
    this.start = before.start;
    await this.open(before.id);
  }

  showPositionNote(text, undo = null) {
    const note = this.el.positionNote;
    note.replaceChildren();
    note.hidden = !text;
    if (!text) return;
    note.append(text);
    if (undo) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link-button";
      button.textContent = "Undo";
      button.setAttribute("aria-label", "Undo: go back to the game before this position");
      button.addEventListener("click", undo);
      note.append(" ", button);
    }
  }

  // ---------------------------------------------------------------- hints
  // the Hints switch may have changed in the History view
  syncHints() {
    const on = readJson(SAVED_HINTS) === true;
    if (on !== this.el.hints.checked) {
      this.el.hints.checked = on;
      this.refreshHints();
    }
  }

  hintsChanged() {
    localStorage.setItem(SAVED_HINTS, JSON.stringify(this.el.hints.checked));
    this.refreshHints();
  }

  async refreshHints() {
    // the hints of the position shown: the game's when a human is to move, or one looked at
    const looking = this.shown !== null;
    const info = looking ? this.viewInfo : this.info;
    this.hintNote = "";
    this.el.hintLegend.hidden = !this.el.hints.checked;
    const hintEpoch = ++this.hintEpoch;
    if (!this.el.hints.checked || (this.busy && !looking) || !info || info.outcome || !info.valid
        || (!looking && !this.humanToMove(info))) {
      if (this.hints) { this.hints = null; this.render(); }
      this.el.hintNote.hidden = true;
      return;
    }
    const epoch = this.epoch;
    try {
      const analysis = await api.analysis(info.position);
      if (epoch !== this.epoch || hintEpoch !== this.hintEpoch || !this.el.hints.checked) return;
      this.hints = hintsOf(analysis);
      const estimates = [...this.hints.values()].some((h) => h.kind === "estimate");
      this.hintNote = analysis.proven || !estimates ? "" :
        "The search stopped at its bound: values marked ≈ are estimates, the others are proven.";
    } catch (err) {
      if (epoch !== this.epoch || hintEpoch !== this.hintEpoch) return;
      this.hints = null;
      this.hintNote = `No hints: ${err.message}`;
    }
    this.el.hintNote.textContent = this.hintNote;
    this.el.hintNote.hidden = !this.hintNote;
    this.render();
  }

  // ---------------------------------------------------------------- threats
  // The Threats switch is kept for cubes and flat boards apart: on at first on a cube (where
  // threats across the layers are hard to see), off on a flat board.
  threatsSaved() {
    const saved = readJson(SAVED_THREATS);
    return { cube: true, flat: false, ...(saved && typeof saved === "object" ? saved : {}) };
  }

  threatsChanged() {
    if (this.boardKind) {
      const saved = this.threatsSaved();
      saved[this.boardKind] = this.el.threats.checked;
      localStorage.setItem(SAVED_THREATS, JSON.stringify(saved));
    }
    this.render();
  }

  // the legend under the board: the threat key while threats are shown, and a cube's lines
  renderLegend(info) {
    const el = this.el;
    const kind = info.variant.is_3d ? "cube" : "flat";
    if (kind !== this.boardKind) {
      this.boardKind = kind;
      el.threats.checked = this.threatsSaved()[kind] === true;
    }
    el.threatKey.hidden = !el.threats.checked;
    el.threeKey.hidden = !el.threats.checked || info.variant.k < 5;
    if (!el.threeKey.hidden) el.threeKey.querySelector(".three-now").textContent = threesInWords(info);
    el.lineKinds.hidden = !info.variant.is_3d;
    if (info.variant.is_3d && this.legendFor !== info.variant.name) {
      this.legendFor = info.variant.name;
      const list = el.lineKinds.querySelector("ul");
      list.replaceChildren();
      for (const kind of info.variant.line_kinds) {
        const item = document.createElement("li");
        item.dataset.kind = kind.kind;
        const count = document.createElement("b");
        count.textContent = String(kind.count);
        item.append(count, ` ${kind.description}`);
        list.append(item);
      }
      const total = info.variant.line_kinds.reduce((sum, k) => sum + k.count, 0);
      el.lineKinds.querySelector("h2").textContent =
        `The ${total} lines of ${NUMBER_WORDS[info.variant.k] || info.variant.k} on this board`;
    }
  }

  // ---------------------------------------------------------------- copy
  async copyPosition() {
    // the position shown: the game's, or the one looked at
    const shown = this.shown !== null && this.viewInfo ? this.viewInfo : this.info;
    const text = shown ? shown.position : "";
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
    if (message) this.showPositionNote(null);  // a note on an earlier load is stale by then
    this.el.positionText.setAttribute("aria-invalid", message ? "true" : "false");
    // next to the box, and in sight even when the box is near the bottom of the window
    if (message) this.el.positionError.scrollIntoView({ block: "nearest" });
  }

  // ---------------------------------------------------------------- drawing
  render() {
    const info = this.info;
    const el = this.el;
    const looking = this.shown !== null;
    const shown = looking ? this.viewInfo : info;
    if (shown) {
      // a position looked at is read-only
      const interactive = !looking && !this.busy && !!this.game && this.humanToMove(info) && info.valid;
      this.renderLegend(shown);
      const threats = el.threats.checked ? shown.threats || [] : null;
      const threes = el.threats.checked ? shown.threes || [] : null;
      const liveThrees = el.threats.checked ? shown.live_threes || [] : null;
      const moves = looking ? this.sequence().moves : [];
      const last = looking ? (this.shown ? shown.cell_names.indexOf(moves[this.shown - 1]) : null)
        : this.lastCell;
      this.board.render(shown, { interactive, hints: this.hints, last, threats, threes, liveThrees });
      if (document.activeElement !== el.positionText) el.positionText.value = shown.position;
    }
    el.board.toggleAttribute("data-looking", looking);
    this.renderStatus();
    this.renderMoves();
    this.renderAfterGame();
    this.records.render();
    el.gameNote.textContent = this.note;
    el.gameNote.hidden = !this.note;
    el.undo.disabled = !this.canUndo();
    el.redo.disabled = !this.canRedo();
  }

  renderStatus() {
    // the line keeps its height (see .status), so that the board never moves: the text goes
    // in a box cut at its last line, and where it is cut a More button opens the box to the
    // whole of it (the board moves down then, at the player's asking) until the text changes
    const status = this.el.status;
    status.className = "status";
    const text = document.createElement("span");
    text.className = "status-text";
    text.id = "status-text";
    status.replaceChildren(text);
    this.statusLine(text);
    const open = this.statusOpen === text.textContent;
    if (!open) this.statusOpen = null;
    if (!open && text.scrollHeight <= text.clientHeight + 1) return;
    const more = document.createElement("button");
    more.type = "button";
    more.className = "status-more";
    more.setAttribute("aria-controls", "status-text");
    const show = (expanded) => {
      status.classList.toggle("open", expanded);
      more.setAttribute("aria-expanded", String(expanded));
      more.textContent = expanded ? "Less" : "More";
      this.statusOpen = expanded ? text.textContent : null;
    };
    more.addEventListener("click", () => show(!status.classList.contains("open")));
    status.append(more);
    show(open);
  }

  statusLine(status) {
    const info = this.info;
    const say = (text, cls) => {
      status.append(document.createTextNode(text));
      if (cls) this.el.status.classList.add(cls);
    };
    if (this.error) return say(this.error, "error");
    if (this.shown !== null && this.viewInfo) return this.lookingLine(say);
    if (!info) return say(this.busy ? "Starting a game…" : "Loading…");
    if (!info.valid) return say(`This position cannot arise in play: ${info.problems.join("; ")}`, "error");
    if (info.outcome && !this.busy) {
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
    if (this.busy && this.setup.mode === "computer") {
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
      if (this.reply) {
        const reply = document.createElement("span");
        reply.className = "reply";
        reply.textContent = ` · ${replyText(this.reply)}`;
        status.append(reply);
      }
    } else {
      status.append(mark);
      say(" to move");
    }
  }

  renderMoves() {
    const sequence = this.sequence();
    const moves = sequence ? sequence.moves : [];
    const undone = sequence ? sequence.undone : [];
    this.moveList.render({ moves, undone, first: sequence ? sequence.first : "x",
                           shown: this.shownStep() });
    this.el.moves.hidden = !sequence;
    this.el.noMoves.hidden = moves.length + undone.length > 0;
    const el = this.el;
    el.lookBar.hidden = this.shown === null;
    el.backToGame.hidden = !!this.opened;
    el.playOn.hidden = !this.opened;
    el.closeOpened.hidden = !this.opened;
    const over = this.viewInfo && (this.viewInfo.outcome || !this.viewInfo.valid);
    el.playOn.disabled = !this.opened || !this.viewInfo || !!over;
    el.playOn.title = over ? "The game is over in this position" : "";
  }

  // ---------------------------------------------------------------- looking through the moves
  // the moves looked through: the game's, or those of a game opened from a record or a link
  sequence() {
    if (this.opened) {
      const r = this.opened.record;
      return { start: r.start, variant: r.variant, moves: r.moves, undone: [],
               first: r.start ? r.start.trim().split(/\s+/)[1] || "x" : "x" };
    }
    if (!this.game) return null;
    return { start: this.game.game.start, variant: this.game.game.variant,
             moves: this.game.game.moves, undone: this.game.undone, first: this.startTurn() };
  }

  shownStep() {
    const sequence = this.sequence();
    return this.shown !== null ? this.shown : sequence ? sequence.moves.length : 0;
  }

  // show the position after `step` moves; the last one of the game under way is the game
  // itself, playable again
  async showStep(step) {
    const sequence = this.sequence();
    if (!sequence || (this.busy && !this.opened)) return;
    const target = Math.max(0, Math.min(step, sequence.moves.length));
    const epoch = ++this.viewEpoch;
    if (!this.opened && target === sequence.moves.length) {
      if (this.shown !== null) this.backToGame();
      return;
    }
    let info;
    try {
      info = await api.position(sequence.start || sequence.variant, sequence.moves.slice(0, target));
    } catch (err) {
      if (epoch !== this.viewEpoch) return;
      this.error = `Cannot show that move: ${err.message}`;
      this.render();
      return;
    }
    const now = this.sequence();
    if (epoch !== this.viewEpoch || !now || now.moves !== sequence.moves) return;
    this.error = "";
    this.shown = target;
    this.viewInfo = info;
    this.hints = null;
    this.render();
    this.refreshHints();
  }

  // back from an earlier position (or from a game opened from a record) to the game under way
  backToGame() {
    ++this.viewEpoch;
    const wasOpened = !!this.opened;
    this.shown = null;
    this.viewInfo = null;
    this.opened = null;
    this.hints = null;
    this.error = "";
    if (wasOpened) this.records.closed();
    this.render();
    this.refreshHints();
  }

  lookingLine(say) {
    const total = this.sequence().moves.length;
    const where = this.shown === 0 ? `The start (move 0 of ${total})` : `Move ${this.shown} of ${total}`;
    if (this.opened) {
      const info = this.viewInfo;
      const end = info.outcome ? (info.outcome.result === "draw" ? " · a draw"
        : ` · ${info.outcome.winner.toUpperCase()} wins`) : ` · ${info.turn.toUpperCase()} to move`;
      return say(`${this.opened.from}: ${where}${end}`, "looking");
    }
    return say(`${where} — press → or End to return`, "looking");
  }

  // a game opened from a record file or a link: looked through from its last move
  async openRecord(answer, from) {
    ++this.viewEpoch;
    this.opened = { record: answer.record, link: answer.link, from };
    this.shown = null;
    this.viewInfo = null;
    await this.showStep(answer.record.moves.length);
  }

  // play on from the position looked at in an opened game: between two people with its moves
  // so far, against the computer from that position (you take the side to move)
  async playOn() {
    const opened = this.opened;
    const info = this.viewInfo;
    if (!opened || !info || info.outcome || !info.valid) return;
    if (!(await this.mayLeave("Play on from this position?"))) return;
    this.setup.variant = info.variant.name;
    if (this.setup.mode === "computer") {
      this.start = info.position;
      this.setup.side = info.turn;
      this.writeSetup(info.variant);
      await this.newGame();
    } else {
      this.start = opened.record.start;
      this.writeSetup(info.variant);
      await this.newGame(opened.record.moves.slice(0, this.shown));
    }
    this.records.leaveLink();
  }

  // ---------------------------------------------------------------- after a game
  // Rematch (the same board, level and sides) and Swap sides, and the session's score
  renderAfterGame() {
    const el = this.el;
    const over = !!(this.game && this.game.game.result) && !this.busy && !this.opened;
    const computer = this.setup.mode === "computer";
    el.afterGame.hidden = !over;
    el.swap.hidden = !computer;
    const score = computer ? scoreOf(this.setup.variant, this.setup.level) : null;
    const played = score ? score.you + score.computer + score.draws : 0;
    el.score.hidden = !played;
    if (played) {
      const level = el.level.selectedOptions[0] ? el.level.selectedOptions[0].text : this.setup.level;
      const board = el.variant.selectedOptions[0] ? el.variant.selectedOptions[0].text : this.setup.variant;
      el.score.textContent = `This session on ${board}, ${level}: you ${score.you} · `
        + `computer ${score.computer} · draws ${score.draws}`;
    }
  }

  async rematch(swap) {
    if (this.busy) return;
    if (swap) {
      this.setup.side = this.setup.side === "x" ? "o" : "x";
      this.writeSetup();
    }
    await this.newGame();
  }
}
