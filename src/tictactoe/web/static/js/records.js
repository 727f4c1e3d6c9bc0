// A game's record: Export downloads it as the JSON file the terminal app saves and loads,
// Import opens such a file, and Share link puts the moves in the page's address
// (#game=3x3:b2,a1,c3, the library's link form). The server reads every record and link
// (POST /api/records/parse), so a bad one gets its message; the page then looks through the
// game and can play on from any of its positions.

import { api } from "./api.js";

export const LINK_PREFIX = "#game=";
const MAX_FILE_BYTES = 15000;  // the server's limit on a record file's text

export class RecordTools {
  constructor(elements, play) {
    this.el = elements;
    this.play = play;
    elements.exportRecord.addEventListener("click", () => this.exportRecord());
    elements.importRecord.addEventListener("change", () => this.importFile());
    elements.share.addEventListener("click", () => this.share());
  }

  // the record shown: an opened game's, else the game under way's (from the server)
  async current() {
    const play = this.play;
    if (play.opened) return { record: play.opened.record, link: play.opened.link };
    if (!play.game) throw new Error("there is no game yet");
    return api.record(play.game.id);
  }

  render() {
    const ready = !!(this.play.opened || this.play.game);
    this.el.exportRecord.disabled = !ready;
    this.el.share.disabled = !ready;
  }

  // an opened game was left: its share link and message go
  closed() {
    this.el.shareText.hidden = true;
    this.showError("");
  }

  showError(message) {
    this.el.recordError.textContent = message;
    if (message) this.el.recordError.scrollIntoView({ block: "nearest" });
  }

  // the record of the game shown, or null with the reason on the page ("Cannot export: ...")
  async currentOrSay(failing) {
    this.showError("");
    try {
      return await this.current();
    } catch (err) {
      this.showError(`${failing}: ${err.message}`);
      return null;
    }
  }

  async exportRecord() {
    const answer = await this.currentOrSay("Cannot export");
    if (!answer) return;
    const record = answer.record;
    const text = `${JSON.stringify(record, null, 2)}\n`;
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const link = document.createElement("a");
    const number = this.play.opened || !this.play.game ? "" : `-${this.play.game.game.number}`;
    link.href = url;
    link.download = `tictactoe-${record.variant}${number}.json`;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  async importFile() {
    const input = this.el.importRecord;
    const file = input.files && input.files[0];
    input.value = "";  // the same file may be opened again
    if (!file) return;
    this.showError("");
    if (file.size > MAX_FILE_BYTES) {
      this.showError(`${file.name}: too large for a game record (${file.size} bytes; at most ${MAX_FILE_BYTES})`);
      return;
    }
    let answer;
    try {
      answer = await api.parseRecord({ text: await file.text() });
    } catch (err) {
      this.showError(`${file.name} is not a game record the page can open: ${err.message}`);
      return;
    }
    await this.play.openRecord(answer, `Game from ${file.name}`);
  }

  async share() {
    const answer = await this.currentOrSay("Cannot make a link");
    if (!answer) return;
    const url = `${location.origin}${location.pathname}${LINK_PREFIX}${encodeURI(answer.link)}`;
    const box = this.el.shareText;
    box.value = url;
    box.hidden = false;
    box.select();
    try {
      await navigator.clipboard.writeText(url);
      this.el.shareNote.textContent = "Link copied";
    } catch (err) {
      this.el.shareNote.textContent = "Copy the link from the box";
    }
    setTimeout(() => { this.el.shareNote.textContent = ""; }, 3000);
  }

  // open the game of a link's fragment (after "#game="); a bad one says what is wrong
  async openLink(fragment) {
    this.showError("");
    let link;
    try {
      link = decodeURIComponent(fragment).trim();
    } catch (err) {
      this.showError("This game link is damaged (a broken %-escape); ask for the link again.");
      return;
    }
    if (!link) {
      this.showError("This game link has no game after #game=.");
      return;
    }
    let answer;
    try {
      answer = await api.parseRecord({ link });
    } catch (err) {
      this.showError(`This game link cannot be opened: ${err.message}`);
      return;
    }
    await this.play.openRecord(answer, "Shared game");
  }

  // the address stops naming a shared game once the page leaves it
  leaveLink() {
    if (location.hash.startsWith(LINK_PREFIX)) {
      history.replaceState(null, "", `${location.pathname}${location.search}#play`);
    }
  }
}
