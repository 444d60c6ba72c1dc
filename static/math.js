// Finding TeX in an answer's text, for markdown.js to typeset: `$$…$$` and `\[…\]` as display
// math, `\(…\)` and `$…$` inline. Only closed math counts: while an answer is still being
// written, half-written TeX stays text until its closing delimiter arrives, so it never
// flickers into errors. `$` follows Pandoc's rule, so prices are not math: the opening `$`
// has no space after it, the closing one no space before it and no digit after it.

/** @type {[string, string, boolean][]} opening, closing, display */
const DELIMITERS = [["$$", "$$", true], ["\\[", "\\]", true], ["\\(", "\\)", false]];

/**
 * The math that starts at `pos` in `src`, or null.
 * @param {string} src @param {number} pos
 * @returns {{tex: string, display: boolean, end: number} | null}  `end`: just past it
 */
export function findMath(src, pos) {
  for (const [open, close, display] of DELIMITERS) {
    if (!src.startsWith(open, pos)) continue;
    const start = pos + open.length;
    const end = src.indexOf(close, start);
    if (end < 0 || !src.slice(start, end).trim()) return null;
    return { tex: src.slice(start, end), display, end: end + close.length };
  }
  return src[pos] === "$" ? inlineDollars(src, pos) : null;
}

/** `$…$` on one line, by Pandoc's rule. */
function inlineDollars(src, pos) {
  const first = src[pos + 1];
  if (first === undefined || first === "$" || /\s/.test(first)) return null;
  for (let i = pos + 1; i < src.length; i++) {
    const char = src[i];
    if (char === "\n") return null;
    if (char === "\\") {
      i++; // an escaped character, `\$` included
      continue;
    }
    if (char === "$" && !/\s/.test(src[i - 1]) && !/[0-9]/.test(src[i + 1] ?? "")) {
      return { tex: src.slice(pos + 1, i), display: false, end: i + 1 };
    }
  }
  return null;
}
