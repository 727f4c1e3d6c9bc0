// The JSON API, as small async functions. Errors carry the server's message.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, "cannot reach the server");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : response.statusText;
    throw new ApiError(response.status, detail || `request failed (${response.status})`);
  }
  return data;
}

export const api = {
  options: () => call("GET", "/api/options"),
  position: (position, moves = []) => call("POST", "/api/position", { position, moves }),
  move: (position, player, seed) => call("POST", "/api/move", { position, player, seed }),
  analysis: (position) => call("POST", "/api/analysis", { position }),
  newGame: (variant, start, players, moves) =>
    call("POST", "/api/games", { variant, start, players, moves }),
  getGame: (id) => call("GET", `/api/games/${encodeURIComponent(id)}`),
  updateGame: (id, moves) => call("PUT", `/api/games/${encodeURIComponent(id)}`, { moves }),
  history: () => call("GET", "/api/history"),
};
