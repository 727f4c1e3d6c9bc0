// Starts the page: loads the options, then wires the play and history views to the tabs.

import { api } from "./api.js";
import { HistoryView } from "./history.js";
import { PlayView } from "./play.js";
import { LINK_PREFIX } from "./records.js";

const $ = (id) => document.getElementById(id);

const history = new HistoryView({
  table: $("games"), empty: $("games-empty"), chart: $("chart"), replay: $("replay"),
  replayBoard: $("replay-board"), info: $("replay-info"), move: $("replay-move"),
  first: $("replay-first"), prev: $("replay-prev"), next: $("replay-next"), last: $("replay-last"),
  slider: $("replay-step"), scope: $("view-history"), chartTitle: $("chart-title"),
  chartScope: $("chart-scope"), replayTitle: $("replay-title"), chartBoard: $("chart-board"),
  chartBoardField: $("chart-board-field"), moves: $("replay-moves"), hints: $("replay-hints"),
}, (id) => {  // an unfinished game of this browser, clicked in the list: play on in it
  location.hash = "#play";
  play.open(id);
});

let historyStale = true;

const play = new PlayView({
  view: $("view-play"), board: $("board"), status: $("status"), setup: $("setup"),
  variant: $("variant"), level: $("level"), levelDescription: $("level-description"),
  undo: $("undo"), redo: $("redo"), hints: $("hints"), threats: $("threats"),
  threatKey: $("threat-key"), threeKey: $("three-key"), lineKinds: $("line-kinds"),
  gameNote: $("game-note"),
  hintNote: $("hint-note"), newGame: $("new-game"), moves: $("moves"), noMoves: $("no-moves"),
  positionForm: $("position-form"), positionText: $("position-text"), copy: $("copy"),
  copied: $("copied"), positionError: $("position-error"), positionNote: $("position-note"),
  hintLegend: $("hint-legend"), confirm: $("confirm"), confirmTitle: $("confirm-title"),
  confirmText: $("confirm-text"), confirmYes: $("confirm-yes"),
  sound: $("sound"), afterGame: $("after-game"), score: $("score"), rematch: $("rematch"),
  swap: $("swap"), lookBar: $("look-bar"), backToGame: $("back-to-game"), playOn: $("play-on"),
  closeOpened: $("close-opened"), exportRecord: $("export"), importRecord: $("import"),
  share: $("share"), shareText: $("share-text"), shareNote: $("share-note"),
  recordError: $("record-error"),
  tapConfirm: { bar: $("tap-confirm"), text: $("tap-selected"), said: $("tap-said"),
    play: $("tap-play"), cancel: $("tap-cancel"), toggle: $("confirm-taps") },
}, () => { historyStale = true; });

function route() {
  const view = location.hash === "#history" ? "history" : "play";
  $("view-play").hidden = view !== "play";
  $("view-history").hidden = view !== "history";
  for (const name of ["play", "history"]) {
    const tab = $(`tab-${name}`);
    if (name === view) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  if (view === "history") history.syncHints();
  else play.syncHints();
  if (view === "history" && historyStale) {
    historyStale = false;
    history.refresh();
  }
}

// The hints' legend: one entry for each kind of hint the library shows (its code and words,
// what it means), before the note on the marks; each carries its pattern, which every hint of
// its kind matches.
function hintLegend(codes) {
  const marks = $("hint-marks");
  for (const hint of codes || []) {
    const li = document.createElement("li");
    li.dataset.pattern = hint.pattern;
    const code = document.createElement("b");
    code.textContent = hint.code;
    const text = document.createElement("b");
    text.textContent = hint.text;
    li.append(code, " or ", text, `: ${hint.meaning}.`);
    marks.before(li);
  }
}

// While the server loads its engines (a fresh install compiles them), say so, and ask again
// every two seconds until it is ready.
function watchReady() {
  const note = $("engine-note");
  note.hidden = false;
  const check = async () => {
    try {
      if ((await api.options()).ready) { note.hidden = true; return; }
    } catch { /* the server is busy or gone: ask again */ }
    setTimeout(check, 2000);
  };
  setTimeout(check, 2000);
}

async function start() {
  window.addEventListener("hashchange", () => {
    if (location.hash === "#history") historyStale = true;
    route();
    if (location.hash.startsWith(LINK_PREFIX)) play.records.openLink(location.hash.slice(LINK_PREFIX.length));
  });
  route();
  try {
    const options = await api.options();
    history.useBoardLabels(options.variants);
    hintLegend(options.hint_codes);
    if (options.public_history === false) history.keepPrivate();
    if (options.ready === false) watchReady();
    await play.init(options);
    // a shared game's link (#game=3x3:b2,a1): open that game
    if (location.hash.startsWith(LINK_PREFIX)) await play.records.openLink(location.hash.slice(LINK_PREFIX.length));
  } catch (err) {
    $("status").textContent = `Cannot start: ${err.message}`;
    $("status").classList.add("error");
  }
  document.body.dataset.ready = "true";
}

start();
