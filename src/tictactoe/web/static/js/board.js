// Draws a board (flat, or a cube as layers side by side) and handles clicks and keys.
//
// The board is sized to its space: the biggest cells that fit the width of its container (a
// hard limit: the page never scrolls sideways) and the height left over by the elements
// around the board marked data-board-chrome (a status line, a toolbar). Where the board's
// column has a height of its own (app.css: a mouse on a wide window, where the play view
// fills the window) that is the column's height, else the window's less the header. The
// height is a soft limit: cells stop shrinking at the board's --min-cell (36 px, a touch
// target; 24 px for a mouse on a wide window 500 px high or more), and the column or the
// page scrolls instead. The layers of a cube sit in a row where that leaves
// cells of a touch target or more, else two by two, else one under another.
//
// On a touch screen, a tap on a cell under SMALL_TAP px (15x15, 19x19 on a phone) selects
// it, and a second tap there (or the Play here button) plays it; the player can turn this
// off (the "Confirm taps on small cells" switch, kept in this browser).

const SVG = "http://www.w3.org/2000/svg";
const MAX_CELL = 100;   // px: the 3x3 board on a big screen
const MIN_CELL = 36;    // px: a touch target; smaller only where the width leaves no choice
                        // (or, for a mouse, the board's --min-cell from app.css)
const LONG_HINTS = 70;  // px: cells from this size write "win in 3", smaller ones "W3"
const TINY = 28;        // px: cells under this size (15x15, 19x19 on a phone) show only proven
                        // hints, by their letter (W, L, D), and an estimate's best move by a dot
const TITLE = 24;       // px: a layer's title and the space under it (see .layer-title)
const SMALL_TAP = 24;   // px: on a touch screen a tap on a smaller cell selects it, a second plays
const SAVED_CONFIRM = "tictactoe.confirmTaps";  // the "Confirm taps on small cells" switch, on at first

// the sizes that go with a cell size (px), all whole pixels so that the sums below are exact
function metrics(cell) {
  return {
    cell,
    mark: Math.round(cell * 0.5),
    // the big boards (15x15, 19x19) on a phone get cells under a touch target: thinner gaps
    // and corners leave them as much of the width as there is
    gap: cell >= 70 ? 6 : cell >= 50 ? 5 : cell >= 40 ? 4 : cell >= 30 ? 3 : cell >= 20 ? 2 : 1,
    coord: Math.max(cell >= 30 ? 12 : 14, Math.min(20, Math.round(cell * 0.3))),
    layerGap: Math.max(10, Math.min(20, Math.round(cell * 0.3))),
    radius: Math.max(cell >= 30 ? 6 : 2, Math.min(12, Math.round(cell * 0.14))),
  };
}

function markSvg(mark) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add(mark);
  if (mark === "x") {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", "M22 22 L78 78 M78 22 L22 78");
    svg.append(path);
  } else {
    const circle = document.createElementNS(SVG, "circle");
    circle.setAttribute("cx", "50");
    circle.setAttribute("cy", "50");
    circle.setAttribute("r", "31");
    svg.append(circle);
  }
  return svg;
}

export function spokenCell(name) {
  // "2:b3" -> "layer 2, b3"
  const parts = name.split(":");
  return parts.length === 2 ? `layer ${parts[0]}, ${parts[1]}` : name;
}

// the threes on the board (a PositionInfo's live_threes), in words for the legend: "X: an
// open three, g8 h8 i8 (an open four at f8 or j8). O: none."
export function threesInWords(info) {
  const names = info.cell_names;
  const said = ["x", "o"].map((side) => {
    const mine = (info.live_threes || []).filter((three) => three.side === side);
    const list = mine.map((three) => `a${three.shape === "open" ? "n open" : " broken"} three, `
      + `${three.marks.map((c) => spokenCell(names[c])).join(" ")} (an open four at `
      + `${three.cells.map((c) => spokenCell(names[c])).join(" or ")})`);
    return `${side.toUpperCase()}: ${list.length ? list.join("; ") : "none"}.`;
  });
  return `On the board now: ${said.join(" ")}`;
}

export class BoardView {
  // container: element to draw into; onPlay(cell) is called when a cell is chosen; confirm:
  // the elements of the tap confirmation ({bar, text, said, play, cancel, toggle}), or null.
  constructor(container, { onPlay = null, label = "Board", confirm = null } = {}) {
    this.container = container;
    this.onPlay = onPlay;
    this.confirm = confirm;
    this.selected = null;     // the cell a first tap selected, awaiting a second
    this.pointer = "";        // the kind of pointer that last pressed on the board
    this.label = label;
    this.variantName = null;
    this.cells = [];
    this.focusIndex = 0;
    this.info = null;
    this.interactive = false;
    this.marks = [];
    this.options = {};
    this.size = null;  // the metrics in use, and the layers in a row
    // fit again when the container's width, its column's size or the window's height changes
    // (a hidden view's board has no width: it is fitted when it is shown)
    const resized = new ResizeObserver(() => this.fit());
    resized.observe(container);
    if (container.parentElement) resized.observe(container.parentElement);
    window.addEventListener("resize", () => this.fit());
    container.addEventListener("pointerdown", (event) => { this.pointer = event.pointerType; });
    if (confirm) this.bindConfirm(confirm);
  }

  // the tap confirmation: the switch (kept in this browser, on at first), Play here, Cancel
  bindConfirm(confirm) {
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem(SAVED_CONFIRM) || "null"); } catch { saved = null; }
    confirm.toggle.checked = saved !== false;
    confirm.toggle.addEventListener("change", () => {
      localStorage.setItem(SAVED_CONFIRM, JSON.stringify(confirm.toggle.checked));
      if (!confirm.toggle.checked) this.select(null);
    });
    confirm.play.addEventListener("click", () => {
      if (this.selected !== null) this.choose(this.selected, "confirm");
    });
    confirm.cancel.addEventListener("click", () => {
      const cell = this.selected;
      this.select(null);
      if (cell !== null) this.cells[cell].focus();
    });
  }

  // whether a tap from this kind of pointer only selects a cell: a touch, on cells under
  // SMALL_TAP px, with the switch on (a mouse, a pen and the keyboard play at once)
  confirming(pointer) {
    return pointer === "touch" && Boolean(this.confirm) && this.confirm.toggle.checked
      && Boolean(this.size) && this.size.cell < SMALL_TAP;
  }

  // select a cell (index) for a second tap, or none (null); the bar under the board says
  // which, and a screen reader hears it
  select(index, redraw = true) {
    if (this.selected === index) return;
    this.selected = index;
    if (this.confirm) {
      const name = index === null ? "" : spokenCell(this.info.cell_names[index]);
      this.confirm.bar.hidden = index === null;
      this.confirm.text.textContent = index === null ? "" : `${name} selected`;
      this.confirm.said.textContent = index === null ? ""
        : `${name} selected: tap it again, or Play here, to play there.`;
    }
    if (redraw && this.info) this.render(this.info, this.options);
  }

  // the biggest cells for the space, and how many layers of a cube go in a row
  fit() {
    const v = this.variant;
    const width = this.container.clientWidth;
    if (!v || !width) return;
    const height = this.room();
    const floor = parseFloat(getComputedStyle(this.container).getPropertyValue("--min-cell")) || MIN_CELL;
    const cube = v.is_3d;  // layers with titles
    const across = (n) => (m) => n * (m.coord + v.columns * (m.cell + m.gap)) + (n - 1) * m.layerGap;
    const down = (n) => (m) => {
      const rows = Math.ceil(v.layers / n);
      return rows * ((cube ? TITLE : 0) + m.coord + v.rows * (m.cell + m.gap)) + (rows - 1) * m.layerGap;
    };
    // the biggest whole cell size for which size(metrics) stays within limit
    const largest = (size, limit) => {
      let low = 1;
      let high = MAX_CELL;
      while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        if (size(metrics(mid)) <= limit) low = mid; else high = mid - 1;
      }
      return low;
    };
    // a row of all layers, else two rows (2 + 2 on the cube), else one layer under another
    const choices = [...new Set([v.layers, Math.ceil(v.layers / 2), 1])];
    const layers = choices.find((n) => largest(across(n), width) >= MIN_CELL) || 1;
    const wide = largest(across(layers), width);
    const tall = largest(down(layers), height);
    const cell = Math.min(wide, Math.max(tall, floor));
    if (this.size && this.size.cell === cell && this.size.layers === layers) return;
    const wasStyle = this.hintStyle();
    const m = metrics(cell);
    this.size = { ...m, layers };
    const style = this.container.style;
    style.setProperty("--cell", `${m.cell}px`);
    style.setProperty("--mark", `${m.mark}px`);
    style.setProperty("--gap", `${m.gap}px`);
    style.setProperty("--coord", `${m.coord}px`);
    style.setProperty("--layer-gap", `${m.layerGap}px`);
    style.setProperty("--cell-radius", `${m.radius}px`);
    style.setProperty("--layers", String(layers));
    this.container.dataset.layers = String(layers);
    // hints read "win in 3" or "W3" by the cell size
    this.container.toggleAttribute("data-tiny", this.tiny());
    if (this.info && this.options.hints && wasStyle !== this.hintStyle()) this.render(this.info, this.options);
  }

  // the height there is for the board: its column's own height where it has one (it scrolls
  // inside itself then), else the window's less the sticky header; less, either way, the
  // elements next to the board marked data-board-chrome (a status line, a toolbar) and the
  // spacing around them
  room() {
    const parent = this.container.parentElement;
    const style = getComputedStyle(parent);
    const gap = parseFloat(style.rowGap) || 0;
    let total = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    for (const element of parent.querySelectorAll(":scope > [data-board-chrome]")) {
      const box = getComputedStyle(element);
      total += element.offsetHeight + gap + parseFloat(box.marginTop) + parseFloat(box.marginBottom);
    }
    if (style.overflowY === "auto") return parent.clientHeight - total - 2;
    const header = document.querySelector("body > header");
    return window.innerHeight - (header ? header.offsetHeight : 0) - 32 - total;
  }

  build(variant, names) {
    this.variantName = variant.name;
    this.variant = variant;
    this.container.replaceChildren();
    this.container.toggleAttribute("data-cube", variant.is_3d);
    this.container.setAttribute("role", "group");
    this.container.setAttribute("aria-label", `${this.label}: ${variant.name}`);
    this.cells = new Array(variant.cells);
    this.marks = new Array(variant.cells).fill("");
    for (let layer = 0; layer < variant.layers; layer++) {
      const wrap = document.createElement("div");
      wrap.className = "layer";
      if (variant.is_3d) {
        const title = document.createElement("div");
        title.className = "layer-title";
        title.textContent = `Layer ${layer + 1}`;
        wrap.append(title);
      }
      const grid = document.createElement("div");
      grid.className = "grid";
      grid.style.setProperty("--rows", variant.rows);
      grid.style.setProperty("--cols", variant.columns);
      grid.append(document.createElement("span"));
      for (let c = 0; c < variant.columns; c++) {
        const coord = document.createElement("span");
        coord.className = "coord";
        coord.textContent = names[c].split(":").pop().replace(/[0-9]+$/, "");  // a..z, aa, ab...
        coord.setAttribute("aria-hidden", "true");
        grid.append(coord);
      }
      for (let r = 0; r < variant.rows; r++) {
        const coord = document.createElement("span");
        coord.className = "coord";
        coord.textContent = String(r + 1);
        coord.setAttribute("aria-hidden", "true");
        grid.append(coord);
        for (let c = 0; c < variant.columns; c++) {
          const index = (layer * variant.rows + r) * variant.columns + c;
          const cell = document.createElement("button");
          cell.type = "button";
          cell.className = "cell";
          cell.dataset.cell = String(index);
          cell.dataset.name = names[index];
          cell.tabIndex = -1;
          cell.addEventListener("click", (event) => this.choose(index, event.pointerType || this.pointer));
          cell.addEventListener("keydown", (event) => this.key(event, index));
          cell.addEventListener("focus", () => { this.focusIndex = index; this.roving(); });
          this.cells[index] = cell;
          grid.append(cell);
        }
      }
      wrap.append(grid);
      this.container.append(wrap);
    }
    this.focusIndex = Math.min(this.focusIndex, variant.cells - 1);
    if (!names[this.focusIndex]) this.focusIndex = 0;
    this.size = null;
    this.info = null;  // the last board's position: fit() must not draw it on these cells
    this.fit();
  }

  // info: a PositionInfo; options: interactive, hints (Map cell -> {text, kind, best}), last,
  // threats (the position's open threats to outline, or null: none shown), threes (the cells
  // that make an open four) and liveThrees (the open and broken threes to underline).
  render(info, { interactive = false, hints = null, last = null, threats = null, threes = null,
    liveThrees = null } = {}) {
    if (info.variant.name !== this.variantName) {
      this.focusIndex = Math.floor(info.variant.cells / 2);
      this.build(info.variant, info.cell_names);
    }
    // a selected cell stays selected while the position does and the cell can be played
    if (this.selected !== null && (!this.info || info.position !== this.info.position || !interactive
        || !info.legal_moves.includes(info.cell_names[this.selected]))) {
      this.select(null, false);
    }
    this.info = info;
    this.interactive = interactive;
    this.options = { interactive, hints, last, threats, threes, liveThrees };
    const winning = new Set(info.winning_lines.flat());
    // the cells that complete a line, by side, with the kinds of those lines; and the marks
    // of the threatening lines
    const completes = { x: new Map(), o: new Map() };
    const threatening = { x: new Set(), o: new Set() };
    for (const threat of threats || []) {
      const kinds = completes[threat.side].get(threat.cell) || [];
      if (!kinds.includes(threat.kind)) kinds.push(threat.kind);
      completes[threat.side].set(threat.cell, kinds);
      for (const c of threat.line) if (c !== threat.cell) threatening[threat.side].add(c);
    }
    // the cells where a side makes an open four (its open threes)
    const fours = { x: new Set(), o: new Set() };
    for (const three of threes || []) fours[three.side].add(three.cell);
    // the marks of each side's open and broken threes (five or more in a row)
    const inThree = { open: new Set(), broken: new Set() };
    for (const three of liveThrees || []) for (const c of three.marks) inThree[three.shape].add(c);
    const legal = new Set(info.legal_moves);
    info.cells.forEach((mark, index) => {
      const cell = this.cells[index];
      const name = info.cell_names[index];
      if (this.marks[index] !== mark) {
        cell.replaceChildren();
        if (mark) cell.append(markSvg(mark));
        cell.classList.toggle("placed", Boolean(mark) && this.marks[index] === "");
        this.marks[index] = mark;
      }
      const hint = !mark && hints ? hints.get(index) : null;
      const old = cell.querySelector(".hint");
      if (old) old.remove();
      const tinyText = hint && this.tiny()
        ? (hint.kind === "estimate" ? (hint.best ? "•" : "") : hint.short.slice(0, 1)) : null;
      if (hint && tinyText !== "") {
        const badge = document.createElement("span");
        badge.className = `hint ${hint.kind}${hint.best ? " best" : ""}`;
        badge.textContent = tinyText !== null ? tinyText
          : hint.short && this.small() ? hint.short : hint.text;
        badge.title = hint.words ? `${hint.text}: ${hint.words}` : hint.text;
        cell.append(badge);
      }
      // a threat: a dashed ring (X) or a dotted one (O) and the side's letter (in a corner
      // when a hint badge is there too)
      for (const old of cell.querySelectorAll(".threat-tag")) old.remove();
      const sides = ["x", "o"].filter((side) => completes[side].has(index));
      for (const side of ["x", "o"]) {
        cell.classList.toggle(`threat-${side}`, sides.includes(side));
        cell.classList.toggle(`in-threat-${side}`, threatening[side].has(index));
        cell.classList.toggle(`three-${side}`, !mark && fours[side].has(index));
        for (const shape of ["open", "broken"]) {
          cell.classList.toggle(`${shape}-three-${side}`, mark === side && inThree[shape].has(index));
        }
      }
      if (sides.length) {
        const tag = document.createElement("span");
        tag.className = "threat-tag";
        tag.setAttribute("aria-hidden", "true");
        for (const side of sides) {
          const letter = document.createElement("span");
          letter.className = `threat-${side}-text`;
          letter.textContent = side.toUpperCase();
          tag.append(letter);
        }
        cell.append(tag);
      }
      const playable = interactive && legal.has(name);
      cell.setAttribute("aria-disabled", playable ? "false" : "true");
      cell.classList.toggle("winning", winning.has(index));
      cell.classList.toggle("last", last === index);
      cell.classList.toggle("selected", this.selected === index);
      let label = `${spokenCell(name)}, ${mark ? mark.toUpperCase() : "empty"}`;
      if (this.selected === index) label += ", selected: tap again to play here";
      if (winning.has(index)) label += ", winning line";
      for (const side of sides) {
        label += `, ${side.toUpperCase()} completes a ${completes[side].get(index).join(" and a ")} here`;
      }
      for (const side of ["x", "o"]) {
        if (!mark && fours[side].has(index)) label += `, ${side.toUpperCase()} makes an open four here`;
      }
      for (const shape of ["open", "broken"]) {
        if (mark && inThree[shape].has(index)) label += `, in ${mark.toUpperCase()}’s ${shape} three`;
      }
      if (hint) label += hint.words ? `, ${hint.text}: ${hint.words}` : `, ${hint.text}`;
      cell.setAttribute("aria-label", label);
    });
    this.roving();
  }

  tiny() {
    return Boolean(this.size) && this.size.cell < TINY;
  }

  // how the hints read at this size: "long", "short" or "tiny"
  hintStyle() {
    return this.tiny() ? "tiny" : this.small() ? "short" : "long";
  }

  small() {
    // too small a cell for "win in 3": "W3" (the full text is the badge's title)
    return !this.size || this.size.cell < LONG_HINTS;
  }

  roving() {
    this.cells.forEach((cell, index) => { cell.tabIndex = index === this.focusIndex ? 0 : -1; });
  }

  // a cell chosen by a pointer of a kind ("mouse", "touch", "pen"; "confirm": the Play here
  // button; "": the keyboard)
  choose(index, pointer = "") {
    this.focusIndex = index;
    this.roving();
    if (!this.interactive || !this.info || !this.onPlay) return;
    if (!this.info.legal_moves.includes(this.info.cell_names[index])) {
      this.select(null);
      return;
    }
    if (this.confirming(pointer) && this.selected !== index) {
      this.select(index);
      return;
    }
    this.select(null);
    this.onPlay(index);
  }

  key(event, index) {
    const v = this.variant;
    const column = index % v.columns;
    const row = Math.floor(index / v.columns) % v.rows;
    const layer = Math.floor(index / (v.rows * v.columns));
    const at = (l, r, c) => (l * v.rows + r) * v.columns + c;
    let next = null;
    switch (event.key) {
      case "ArrowUp": next = at(layer, (row + v.rows - 1) % v.rows, column); break;
      case "ArrowDown": next = at(layer, (row + 1) % v.rows, column); break;
      case "ArrowLeft":
        if (column > 0) next = at(layer, row, column - 1);
        else next = at((layer + v.layers - 1) % v.layers, row, v.columns - 1);
        break;
      case "ArrowRight":
        if (column < v.columns - 1) next = at(layer, row, column + 1);
        else next = at((layer + 1) % v.layers, row, 0);
        break;
      case "PageUp": next = at((layer + v.layers - 1) % v.layers, row, column); break;
      case "PageDown": next = at((layer + 1) % v.layers, row, column); break;
      case "Home": next = at(layer, row, 0); break;
      case "End": next = at(layer, row, v.columns - 1); break;
      case "Enter":
      case " ":
        event.preventDefault();
        this.choose(index);
        return;
      default:
        return;
    }
    event.preventDefault();
    this.focusIndex = next;
    this.roving();
    this.cells[next].focus();
  }

  focus() {
    if (this.cells[this.focusIndex]) this.cells[this.focusIndex].focus();
  }
}
