// A small stacked bar chart of the human's results against each computer level, in SVG.

const SVG = "http://www.w3.org/2000/svg";

function node(name, attrs = {}, text = null) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  return el;
}

// title: what the chart shows (its scope and board), the start of its accessible name
export function drawResultsChart(container, levels, title = "Your results by level") {
  container.replaceChildren();
  if (!levels.length) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = "Finish a game against the computer to see your results here.";
    container.append(p);
    return;
  }
  const width = 360;
  const labelWidth = 78;
  const barHeight = 22;
  const gap = 12;
  const legendHeight = 28;
  const height = legendHeight + levels.length * (barHeight + gap);
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
  const summary = levels.map((l) => `${l.level}: ${l.wins} won, ${l.draws} drawn, ${l.losses} lost`).join("; ");
  svg.setAttribute("aria-label", `${title}. ${summary}`);
  svg.append(node("title", {}, `${title}. ${summary}`));

  const parts = [["wins", "Won", "seg-win"], ["draws", "Drawn", "seg-draw"], ["losses", "Lost", "seg-loss"]];
  let x = labelWidth;
  for (const [, label, cls] of parts) {
    svg.append(node("rect", { x, y: 4, width: 12, height: 12, rx: 3, class: cls }));
    svg.append(node("text", { x: x + 17, y: 14, class: "axis-label" }, label));
    x += 70;
  }
  const barWidth = width - labelWidth - 8;
  levels.forEach((level, i) => {
    const y = legendHeight + i * (barHeight + gap);
    const total = level.wins + level.draws + level.losses;
    svg.append(node("text", { x: 0, y: y + barHeight / 2 + 4 }, level.level));
    let left = labelWidth;
    for (const [key, , cls] of parts) {
      const count = level[key];
      if (!count) continue;
      const w = (count / total) * barWidth;
      svg.append(node("rect", { x: left, y, width: Math.max(w - 1, 1), height: barHeight, rx: 4, class: cls }));
      if (w > 18) {
        svg.append(node("text", { x: left + w / 2, y: y + barHeight / 2 + 4, "text-anchor": "middle", class: "seg-text" }, String(count)));
      }
      left += w;
    }
  });
  container.append(svg);
}
