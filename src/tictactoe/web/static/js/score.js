// The session's score against the computer: you, the computer and draws, for each board and
// level, kept in sessionStorage (this tab, until it is closed).

const SAVED_SCORE = "tictactoe.score";

function read() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SAVED_SCORE) || "{}");
    return saved && typeof saved === "object" ? saved : {};
  } catch (err) {
    return {};
  }
}

export function scoreOf(variant, level) {
  const entry = read()[`${variant} ${level}`] || {};
  const count = (n) => (Number.isInteger(n) && n >= 0 ? n : 0);
  return { you: count(entry.you), computer: count(entry.computer), draws: count(entry.draws) };
}

// count a finished game: "you", "computer" or "draws"
export function addResult(variant, level, who) {
  const all = read();
  const score = scoreOf(variant, level);
  score[who] += 1;
  all[`${variant} ${level}`] = score;
  sessionStorage.setItem(SAVED_SCORE, JSON.stringify(all));
  return score;
}
