// The widget's strings: one table per language (static/i18n/<code>.js), English the default
// and the fallback for any key a table leaves out.

import en from "./i18n/en.js";

/** @typedef {(key: string, values?: Record<string, string | number>) => string} Translate */

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
    const table = (await import(new URL(`./i18n/${code}.js`, import.meta.url).href)).default;
    return translator({ ...en, ...table });
  } catch {
    return english;
  }
}

/** @param {Record<string, string>} table @returns {Translate} */
function translator(table) {
  return (key, values = {}) =>
    (table[key] ?? key).replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}
