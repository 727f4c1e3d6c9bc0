// The hints of a position, from the server's analysis: what each empty cell is worth.

export function hintFor(score) {
  // a proven value reads "win in 3"; an estimate from a search cut short reads "estimate +2"
  // (the server's text, on the library's one scale)
  const kind = score.kind === "heuristic" ? "estimate" : score.kind;
  const value = score.value || 0;
  const text = score.text;
  // a forced win of unknown length reads "W", or "W≤7" where a bound is known
  const length = score.plies != null ? score.plies : score.within != null ? `≤${score.within}` : "";
  const short = { win: `W${length}`, loss: `L${length}`, draw: "D" }[score.kind]
    || `≈${value > 0 ? "+" : ""}${Math.round(value)}`;
  return { kind, text, short };
}

// the board's hints (a Map cell -> hint) from an analysis, the best moves marked where they
// stand out
export function hintsOf(analysis) {
  const hints = new Map();
  const ranks = analysis.best.length < analysis.moves.length;
  for (const m of analysis.moves) {
    hints.set(m.cell, { ...hintFor(m.score), words: m.words, best: ranks && analysis.best.includes(m.move) });
  }
  return hints;
}
