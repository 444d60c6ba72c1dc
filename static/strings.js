// The widget's strings: one table per language (static/i18n/<code>.js), English the default
// and the fallback for any key a table leaves out. A string said of a number of things has a
// key per plural form of the language (`exported.one`, `exported.other`; Arabic has six:
// Intl.PluralRules names them), picked by the `count` it is given.

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
 * A `Lookup`, `t.notice(notice)`: a notice in this language (`error.<code>` of the table),
 * or its English message as it arrived (in English, and where a table has no such code);
 * `t.lang` the language and `t.dir` its direction ("rtl" or "ltr").
 * @typedef {Lookup & {notice: (notice: Notice | string) => string, lang: string, dir: "rtl" | "ltr"}} Translate
 */

/** The languages written right to left, of those the widget may be given. */
const RIGHT_TO_LEFT = new Set(["ar", "fa", "he", "ur"]);

/** The English strings, ready at once. */
export const english = translator("en", en);

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
    return translator(code, { ...en, ...language.default }, errors.default);
  } catch {
    return english;
  }
}

/**
 * @param {string} lang
 * @param {Record<string, string>} table
 * @param {Record<string, string>} englishErrors  the English templates of `error.<code>`: a
 *   sentence that arrived without its values has them read back by its template
 * @returns {Translate}
 */
function translator(lang, table, englishErrors = {}) {
  const plurals = new Intl.PluralRules(lang);
  /** The template of `key`, in the plural form `count` takes when there is one for it. */
  const template = (/** @type {string} */ key, /** @type {unknown} */ count) => {
    if (typeof count !== "number") return table[key];
    return table[`${key}.${plurals.select(count)}`] ?? table[`${key}.other`] ?? table[key];
  };
  const t = (/** @type {string} */ key, /** @type {Record<string, string | number>} */ values = {}) =>
    fill(template(key, values.count) ?? key, values);
  const notice = (/** @type {Notice | string} */ said) => {
    if (typeof said === "string") return said;
    const params = said.params ?? {};
    const key = `error.${said.code}${typeof params.variant === "string" ? `.${params.variant}` : ""}`;
    if (!said.code || !(key in table)) return said.message;
    // A notice without its values (from an older server) has them read back from its English.
    const values = Object.keys(params).length ? params : readBack(englishErrors[key] ?? "", said.message);
    if (!values) return said.message;
    const count = Number.isInteger(Number(values.count)) ? Number(values.count) : undefined;
    return fill(template(key, count), /** @type {Record<string, string | number>} */ (values));
  };
  return Object.assign(t, { notice, lang, dir: /** @type {"rtl" | "ltr"} */ (RIGHT_TO_LEFT.has(lang) ? "rtl" : "ltr") });
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
