// The JSON API, as small async functions. Errors carry the server's message.

export class ApiError extends Error {
  constructor(status, message, body = null) {
    super(message);
    this.status = status;
    this.body = body;  // the answer's JSON: on 409 it holds the game as it stands ("state")
  }
}

// a request refused for coming too fast (429) is sent again after the server's Retry-After,
// when that is short: a player who starts games quickly waits a moment instead of failing
const RETRY_WAIT_LIMIT = 10;  // seconds
const RETRIES = 3;

async function call(method, path, body, headers = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  for (let attempt = 0; ; attempt++) {
    try {
      response = await fetch(path, init);
    } catch (err) {
      throw new ApiError(0, "cannot reach the server");
    }
    const wait = Number(response.headers.get("Retry-After"));
    if (response.status !== 429 || attempt >= RETRIES || !(wait >= 0 && wait <= RETRY_WAIT_LIMIT)) break;
    await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 0.2) * 1000));
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : response.statusText;
    throw new ApiError(response.status, detail || `request failed (${response.status})`, data);
  }
  return data;
}

export const api = {
  options: () => call("GET", "/api/options"),
  position: (position, moves = []) => call("POST", "/api/position", { position, moves }),
  analysis: (position) => call("POST", "/api/analysis", { position }),
  // games: the server checks every move, plays the computer's replies and stores the game;
  // each change sends the game's ply counter, and a stale one is refused with 409
  // the browser id travels in a header, never in the URL (so it stays out of logs and links)
  newGame: (setup, browser) => call("POST", "/api/games", setup, browserHeader(browser)),
  getGame: (id) => call("GET", game(id)),
  play: (id, move, ply) => call("POST", `${game(id)}/moves`, { move, ply }),
  undo: (id, ply) => call("POST", `${game(id)}/undo`, { ply }),
  redo: (id, ply) => call("POST", `${game(id)}/redo`, { ply }),
  // a game's record (the terminal app's JSON) and its link form; a record file's text or a
  // link read back ({ text } or { link })
  record: (id) => call("GET", `${game(id)}/record`),
  parseRecord: (body) => call("POST", "/api/records/parse", body),
  // with the browser's id, its unfinished games too (each with its id, to resume it)
  history: (browser) => call("GET", browser ? "/api/history?unfinished=true" : "/api/history",
                             undefined, browserHeader(browser)),
};

function browserHeader(browser) {
  return browser ? { "X-Browser-Id": browser } : {};
}

function game(id) {
  return `/api/games/${encodeURIComponent(id)}`;
}

// A random id kept in this browser: its games carry it, so the history can show them alone.
const BROWSER_KEY = "tictactoe.browser";

export function browserId() {
  let id = localStorage.getItem(BROWSER_KEY);
  if (!id || !/^[A-Za-z0-9_-]{16,64}$/.test(id) || new Set(id).size < 8) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    localStorage.setItem(BROWSER_KEY, id);
  }
  return id;
}
