// Finding TeX in an answer's text, for markdown.js to typeset: `$$…$$` and `\[…\]` as display
// math, `\(…\)` and `$…$` inline. Only closed math counts: while an answer is still being
// written, half-written TeX stays text until its closing delimiter arrives, so it never
// flickers into errors. `$` follows Pandoc's rule, so prices are not math: the opening `$`
// has no space after it, the closing one no space before it and no digit after it.
//
// Linear in the text: a naive search from every `$` to the end of its line made 64 KB of
// `$1 ` one 17-second task. `MathFinder` reads a text once, lazily, into tables that answer
// "where does the math starting here end?" in constant or logarithmic time.

/** @type {[string, string, boolean][]} opening, closing, display */
const DELIMITERS = [["$$", "$$", true], ["\\[", "\\]", true], ["\\(", "\\)", false]];
const SPACE = /\s/;
const DIGIT = /[0-9]/;

/** Where math ends in one text, for every place it may start. */
export class MathFinder {
  /** @type {Map<string, number[]>} every place each closing delimiter occurs, in order */
  #closings = new Map();
  /** @type {Int32Array | null} for each place, the closing `$` a scan from there meets, or -1 */
  #dollarClose = null;

  /** @param {string} src */
  constructor(src) {
    this.src = src;
  }

  /**
   * The math that starts at `pos`, or null.
   * @param {number} pos
   * @returns {{tex: string, display: boolean, end: number} | null}  `end`: just past it
   */
  at(pos) {
    const src = this.src;
    for (const [open, close, display] of DELIMITERS) {
      if (!src.startsWith(open, pos)) continue;
      const start = pos + open.length;
      const end = this.#next(close, start);
      if (end < 0 || !src.slice(start, end).trim()) return null;
      return { tex: src.slice(start, end), display, end: end + close.length };
    }
    return src[pos] === "$" ? this.#inlineDollars(pos) : null;
  }

  /** The first `close` at or after `start`: all of them found once, then a binary search. */
  #next(close, start) {
    let places = this.#closings.get(close);
    if (!places) {
      places = [];
      for (let at = this.src.indexOf(close); at >= 0; at = this.src.indexOf(close, at + 1)) places.push(at);
      this.#closings.set(close, places);
    }
    let low = 0;
    let high = places.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (places[middle] < start) low = middle + 1;
      else high = middle;
    }
    return low < places.length ? places[low] : -1;
  }

  /** `$…$` on one line, by Pandoc's rule. */
  #inlineDollars(pos) {
    const src = this.src;
    const first = src[pos + 1];
    if (first === undefined || first === "$" || SPACE.test(first)) return null;
    const end = this.#closingDollars()[pos + 1];
    return end < 0 ? null : { tex: src.slice(pos + 1, end), display: false, end: end + 1 };
  }

  /**
   * For each place, where a scan for the closing `$` that starts there ends: at a newline
   * nothing closes, a backslash hides the character after it. Filled from the end, each
   * place from the one or two after it.
   */
  #closingDollars() {
    if (this.#dollarClose) return this.#dollarClose;
    const src = this.src;
    const close = new Int32Array(src.length + 2).fill(-1);
    for (let i = src.length - 1; i >= 0; i--) {
      const char = src[i];
      if (char === "\n") close[i] = -1;
      else if (char === "\\") close[i] = close[i + 2];
      else if (char === "$" && !SPACE.test(src[i - 1] ?? " ") && !DIGIT.test(src[i + 1] ?? "")) close[i] = i;
      else close[i] = close[i + 1];
    }
    this.#dollarClose = close;
    return close;
  }
}

/**
 * The math that starts at `pos` in `src`, or null (one look: a renderer keeps a `MathFinder`).
 * @param {string} src @param {number} pos
 */
export function findMath(src, pos) {
  return new MathFinder(src).at(pos);
}
