// The hints of a position, from the server's analysis: what each empty cell is worth.

export function hintFor(score) {
  // a proven value reads "win in 3"; an estimate from a search cut short reads "estimate +2"
  // (the server's text, on the library's one scale); the short code ("W3", "W≤7", "W",
  // "≈+2") is the library's too, as are the legend's entries (options.hint_codes)
  const kind = score.kind === "heuristic" ? "estimate" : score.kind;
  return { kind, text: score.text, short: score.code };
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
