// Sounds of moves and results: short tones made with the Web Audio API, off until the Sound
// switch is turned on (kept in this browser). No audio context exists while the sound is off.

const SAVED_SOUND = "tictactoe.sound";  // "on" or "off"; off at first

const TUNES = {
  x: [[660, 0.07]],
  o: [[520, 0.07]],
  won: [[523, 0.11], [659, 0.11], [784, 0.2]],
  lost: [[392, 0.14], [311, 0.24]],
  drawn: [[440, 0.12], [440, 0.16]],
};

export class Sounds {
  constructor(input) {
    this.input = input;
    this.context = null;
    input.checked = localStorage.getItem(SAVED_SOUND) === "on";
    input.addEventListener("change", () => {
      localStorage.setItem(SAVED_SOUND, input.checked ? "on" : "off");
      if (input.checked) this.play("x");  // a first tone says it works (and the click allows it)
    });
  }

  get on() {
    return this.input.checked;
  }

  // a move by side ("x", "o"), or a result: "won", "lost", "drawn"
  play(tune) {
    if (!this.on || !TUNES[tune]) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    if (!this.context) this.context = new Context();
    const ctx = this.context;
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    let at = ctx.currentTime + 0.01;
    for (const [frequency, length] of TUNES[tune]) {
      const tone = ctx.createOscillator();
      const gain = ctx.createGain();
      tone.type = "sine";
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.12, at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
      tone.connect(gain);
      gain.connect(ctx.destination);
      tone.start(at);
      tone.stop(at + length + 0.02);
      at += length;
    }
  }
}
