// The widget's strings: one table per language (static/i18n/<code>.js), English the default
// and the fallback for any key a table leaves out.

import en from "./i18n/en.js";

/**
 * A language's strings by key: `t(key, values)`.
 * @typedef {(key: string, values?: Record<string, string | number>) => string} Lookup
 */
/**
 * What Python, the server or the worker tells a person: the English `message`, and the
 * `code` (and `params`, a `variant` among them when a code says one of several sentences)
 * the page says it by.
 * @typedef {{message: string, code?: string, params?: Record<string, unknown>}} Notice
 */
/**
 * A `Lookup`, and `t.notice(notice)`: a notice in this language (`error.<code>` of the
 * table), or its English message as it arrived (in English, and where a table has no such
 * code).
 * @typedef {Lookup & {notice: (notice: Notice | string) => string}} Translate
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
    const [language, errors] = await Promise.all([
      import(new URL(`./i18n/${code}.js`, import.meta.url).href),
      import(new URL("./i18n/errors.js", import.meta.url).href),
    ]);
    return translator({ ...en, ...language.default }, errors.default);
  } catch {
    return english;
  }
}

/**
 * @param {Record<string, string>} table
 * @param {Record<string, string>} englishErrors  the English templates of `error.<code>`: a
 *   sentence that arrived without its values has them read back by its template
 * @returns {Translate}
 */
function translator(table, englishErrors = {}) {
  const t = (/** @type {string} */ key, /** @type {Record<string, string | number>} */ values = {}) =>
    fill(table[key] ?? key, values);
  const notice = (/** @type {Notice | string} */ said) => {
    if (typeof said === "string") return said;
    const params = said.params ?? {};
    const key = `error.${said.code}${typeof params.variant === "string" ? `.${params.variant}` : ""}`;
    if (!said.code || !(key in table)) return said.message;
    // A notice without its values (from an older server) has them read back from its English.
    const values = Object.keys(params).length ? params : readBack(englishErrors[key] ?? "", said.message);
    return values ? fill(table[key], /** @type {Record<string, string | number>} */ (values)) : said.message;
  };
  return Object.assign(t, { notice });
}

/** @param {string} template @param {Record<string, string | number>} values */
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/**
 * The values of an English sentence made from `template` (each `{name}` a value), or null
 * when the sentence is not one of it: for notices that arrive without their params.
 * @param {string} template @param {string} sentence
 */
function readBack(template, sentence) {
  /** @type {string[]} */
  const names = [];
  const pattern = template
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 ? (names.push(part), "(.*?)") : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  const found = new RegExp(`^${pattern}$`, "s").exec(sentence);
  return found ? Object.fromEntries(names.map((name, i) => [name, found[i + 1]])) : null;
}
