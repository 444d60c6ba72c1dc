// The widget's strings: one table per language (static/i18n/<code>.js), English the default
// and the fallback for any key a table leaves out.

import en from "./i18n/en.js";

/**
 * A language's strings by key: `t(key, values)`.
 * @typedef {(key: string, values?: Record<string, string | number>) => string} Lookup
 */
/**
 * A `Lookup`, and `t.message(text)` for a sentence Python or the server wrote in English (see
 * `messages` in i18n/de.js): the English where none is listed.
 * @typedef {Lookup & {message: (text: string) => string}} Translate
 */

/** The English strings, ready at once. */
export const english = translator(en);

/**
 * The strings of `lang` (`de`, `de-AT`, …), English where a table has no such key or there is
 * no table for the language at all.
 * @param {string} lang
 * @returns {Promise<Translate>}
 */
export async function loadStrings(lang) {
  const code = String(lang || "en").toLowerCase().split("-")[0];
  if (code === "en" || !/^[a-z]{2,3}$/.test(code)) return english;
  try {
    const language = await import(new URL(`./i18n/${code}.js`, import.meta.url).href);
    return translator({ ...en, ...language.default }, language.messages ?? {});
  } catch {
    return english;
  }
}

/**
 * @param {Record<string, string>} table
 * @param {Record<string, string>} messages  English sentence templates → this language's
 * @returns {Translate}
 */
function translator(table, messages = {}) {
  const t = (/** @type {string} */ key, /** @type {Record<string, string | number>} */ values = {}) =>
    fill(table[key] ?? key, values);
  return Object.assign(t, { message: messageTranslator(messages) });
}

/** @param {string} template @param {Record<string, string | number>} values */
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/**
 * What matches an English sentence template: `match` (the whole sentence, each `{name}` a
 * group) and the `names` of its values, in order.
 * @param {string} english
 */
export function sentencePattern(english) {
  /** @type {string[]} */
  const names = [];
  const pattern = english
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 ? (names.push(part), "(.*?)") : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return { match: new RegExp(`^${pattern}$`, "s"), names };
}

/**
 * Reads the values back out of an English sentence by its template, then fills them into
 * the language's own: `The model "{model}" is not offered here.` matches any model's name.
 * @param {Record<string, string>} messages
 */
function messageTranslator(messages) {
  const rules = Object.entries(messages).map(([english, own]) => ({ ...sentencePattern(english), own }));
  return (/** @type {string} */ text) => {
    for (const { match, names, own } of rules) {
      const found = match.exec(text);
      if (found) return fill(own, Object.fromEntries(names.map((name, i) => [name, found[i + 1]])));
    }
    return text;
  };
}
