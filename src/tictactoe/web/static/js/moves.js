// A game's moves as a list to look through: a "Start" button before the list and one button
// per move; a click shows the position after that move, and the arrow keys, Home and End step through them.
//
// Which keys step where: inside the list, ←/↑ and →/↓ step back and forward, Home and End go
// to the start and the last move, and the focus follows the shown move. Elsewhere on the page
// the same keys (←, →, Home, End) step through the moves only when the focus is on nothing in
// particular (the page itself) or on a plain button or link: never on the board (where the
// arrows move between cells), in a form control (text box, list, switch, slider), in a table
// or in a dialog. See stepFor and globalStep.

// the step a key asks for, from the step shown and the last step; null for other keys
export function stepFor(event, shown, last) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return null;
  switch (event.key) {
    case "ArrowLeft": return Math.max(0, shown - 1);
    case "ArrowRight": return Math.min(last, shown + 1);
    case "Home": return 0;
    case "End": return last;
    default: return null;
  }
}

// whether a key pressed with the focus on `target` may step through the moves (see above)
export function globalStep(target) {
  if (!target || target === document.body || target === document.documentElement) return true;
  if (!target.closest) return false;
  return !target.closest(".board-area, .moves, .moves-start, input, select, textarea, dialog, table, "
    + "[contenteditable]");
}

export class MoveList {
  // list: an <ol class="moves">; onShow(step) asks to show the position after `step` moves
  constructor(list, onShow, { label = "Moves" } = {}) {
    this.list = list;
    this.onShow = onShow;
    this.label = label;
    this.moves = [];
    this.shown = 0;
    // the start, before any move: a button of its own, so that the list has one item a move
    this.start = document.createElement("button");
    this.start.type = "button";
    this.start.className = "move moves-start";
    this.start.dataset.step = "0";
    this.start.textContent = "Start";
    this.start.title = "The board before any move";
    list.before(this.start);
    for (const element of [list, this.start]) this.listen(element);
  }

  listen(element) {
    element.addEventListener("keydown", (event) => {
      const button = event.target.closest("button[data-step]");
      if (!button) return;
      const keyed = { ArrowUp: "ArrowLeft", ArrowDown: "ArrowRight" }[event.key];
      const step = stepFor(keyed ? { key: keyed } : event, this.shown, this.moves.length);
      if (step === null) return;
      event.preventDefault();
      this.focusOn = step;
      this.onShow(step);
    });
    element.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-step]");
      if (button) this.onShow(Number(button.dataset.step));
    });
  }

  // moves: the moves played; undone: moves taken back (listed, greyed, not to be shown);
  // first: the side that made the first move; shown: the step shown (0: the start)
  render({ moves, undone = [], first = "x", shown }) {
    const list = this.list;
    const hadFocus = list.contains(document.activeElement) || document.activeElement === this.start;
    this.moves = moves;
    this.shown = shown;
    list.replaceChildren();
    this.start.hidden = moves.length === 0;
    this.start.tabIndex = shown === 0 ? 0 : -1;
    if (shown === 0) this.start.setAttribute("aria-current", "step");
    else this.start.removeAttribute("aria-current");
    const entry = (step, parts) => {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "move";
      button.dataset.step = String(step);
      // the visible text is the name: "1. X b2" (the spaces are read, not shown)
      parts.forEach((part, i) => button.append(...(i ? [" ", part] : [part])));
      // one tab stop for the list: the shown move
      button.tabIndex = step === shown ? 0 : -1;
      if (step === shown) {
        button.setAttribute("aria-current", "step");
        li.classList.add("current");
      }
      li.append(button);
      list.append(li);
      return button;
    };
    [...moves, ...undone].forEach((move, i) => {
      const side = i % 2 === 0 ? first : (first === "x" ? "o" : "x");
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = `${i + 1}.`;
      const s = document.createElement("span");
      s.className = `side-${side}`;
      s.textContent = side.toUpperCase();
      const m = document.createElement("span");
      m.textContent = move;
      if (i < moves.length) {
        entry(i + 1, [n, s, m]);
      } else {
        const li = document.createElement("li");
        li.className = "undone";
        const note = document.createElement("span");
        note.className = "sr-only";
        note.textContent = "(undone)";
        li.append(n, " ", s, " ", m, " ", note);
        list.append(li);
      }
    });
    const current = shown === 0 ? this.start : list.querySelector("[aria-current]");
    if (this.focusOn !== undefined || hadFocus) {
      if (current) current.focus({ preventScroll: true });
      this.focusOn = undefined;
    }
    // the shown move in sight within the list (the page itself does not scroll)
    if (current && current !== this.start) {
      const item = current.getBoundingClientRect();
      const box = list.getBoundingClientRect();
      if (item.top < box.top) list.scrollTop -= box.top - item.top;
      else if (item.bottom > box.bottom) list.scrollTop += item.bottom - box.bottom;
    } else if (current) {
      list.scrollTop = 0;
    }
  }
}
