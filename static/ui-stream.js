// The `present` tool's arguments while they stream: the JSON so far, cut back to its last
// complete element and closed, then pruned to the components that pass the widget's check on
// their own. What is drawn grows as complete, valid parts arrive; an incomplete one waits.

import { checkSpec } from "./ui-spec.js";

/**
 * The spec the streamed arguments hold so far, or null while nothing of it can be drawn.
 * @param {string} text  `{"text": …, "root": …}` as far as it came
 */
export function partialSpec(text) {
  const value = closed(text);
  if (!value || typeof value !== "object" || typeof value.root !== "object") return null;
  const root = pruned(value.root);
  if (!root) return null;
  try {
    return checkSpec({ v: 1, text: typeof value.text === "string" ? value.text : "", root });
  } catch {
    return null;
  }
}

/**
 * The JSON so far, cut back to its last complete element (before a comma, or after a closing
 * bracket: never inside an object or array just opened) and closed; null if none.
 */
function closed(/** @type {string} */ text) {
  /** @type {string[]} */
  const open = [];
  let inString = false;
  let safe = { at: 0, closers: "" };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{" || char === "[") open.push(char === "{" ? "}" : "]");
    else if (char === "}" || char === "]") {
      open.pop();
      safe = { at: i + 1, closers: [...open].reverse().join("") };
    } else if (char === ",") safe = { at: i, closers: [...open].reverse().join("") };
  }
  try {
    return JSON.parse(text.slice(0, safe.at) + safe.closers);
  } catch {
    return null;
  }
}

/** `node` with only the children (and actions) that pass the check; null when it does not. */
function pruned(/** @type {any} */ node) {
  if (!node || typeof node !== "object" || Array.isArray(node)) return null;
  const copy = { ...node };
  for (const key of ["children", "actions"]) {
    if (Array.isArray(copy[key])) copy[key] = copy[key].map(pruned).filter(Boolean);
  }
  if ("submit" in copy && !(copy.submit = pruned(copy.submit))) return null;
  try {
    checkSpec({ v: 1, text: "", root: copy });
    return copy;
  } catch {
    return null;
  }
}
