// Every language table (static/i18n/<code>.js) says everything the English one says, with the
// same values to fill in, a form for each plural category the language has, and nothing left
// in English by mistake; right-to-left languages say so.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";

import en from "../../static/i18n/en.js";
import errors from "../../static/i18n/errors.js";
import { SYNC_STRINGS } from "../../static/sync-panel.js";
import { loadStrings } from "../../static/strings.js";

const ENGLISH = { ...en, ...errors, ...SYNC_STRINGS };
const LANGUAGES = readdirSync(new URL("../../static/i18n/", import.meta.url))
  .map((name) => name.replace(/\.js$/, ""))
  .filter((code) => !["en", "errors"].includes(code));
/** Keys said of a number of things: English has `.one`/`.other`, or a `{count}` to fill. */
const COUNTED = new Set([
  ...Object.keys(ENGLISH).filter((key) => key.endsWith(".other")).map((key) => key.slice(0, -6)),
  ...Object.keys(ENGLISH).filter((key) => !/\.(one|other)$/.test(key) && ENGLISH[key].includes("{count}")),
]);
const CATEGORIES = ["zero", "one", "two", "few", "many", "other"];
/** Words a language writes as English does (or strings that are only values). */
const SAME_AS_ENGLISH = {
  fr: ["options", "conversation", "conversations", "message", "sources", "approval.arguments"],
  es: [], it: ["share.link"], pt: [], ja: [], zh: [], ar: [], de: ["share.link"],
};
const placeholders = (/** @type {string} */ text) => new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
/** The English template a key of a table translates. */
const englishOf = (/** @type {string} */ key) => {
  const [base, category] = [key.replace(/\.(zero|one|two|few|many|other)$/, ""), key.split(".").pop()];
  // Any form of a counted string is the English "other" form, which fills in the number.
  if (COUNTED.has(base) && CATEGORIES.includes(category ?? "")) return ENGLISH[`${base}.other`] ?? ENGLISH[base];
  return ENGLISH[key];
};

test("there are the nine languages the issue names, besides English", () => {
  assert.deepEqual(new Set(LANGUAGES), new Set(["ar", "de", "es", "fr", "it", "ja", "pt", "zh"]));
});

for (const code of LANGUAGES) {
  test(`${code}: every string is translated, with the values English fills in`, async () => {
    const table = (await import(`../../static/i18n/${code}.js`)).default;
    const plurals = new Intl.PluralRules(code);
    for (const key of Object.keys(table)) {
      const english = englishOf(key);
      assert.ok(english !== undefined, `${code}: "${key}" is not a key English has`);
      const counted = COUNTED.has(key.replace(/\.(zero|one|two|few|many|other)$/, ""));
      const missing = [...placeholders(english)].filter((name) => !placeholders(table[key]).has(name));
      // A plural form may spell its number out ("une", "two conversations"); nothing else may.
      assert.deepEqual(missing.filter((name) => !(counted && name === "count")), [], `${code}: "${key}" leaves out values`);
      const unknown = [...placeholders(table[key])].filter((name) => !placeholders(english).has(name));
      assert.deepEqual(unknown, [], `${code}: "${key}" fills in values English does not give`);
    }
    for (const key of Object.keys(ENGLISH).filter((key) => !/\.(one|other)$/.test(key) || !COUNTED.has(key.slice(0, key.lastIndexOf("."))))) {
      assert.ok(key in table, `${code}: "${key}" is not translated`);
    }
    const left = Object.keys(table).filter((key) => table[key] === ENGLISH[key] && /[a-z]{3}/i.test(table[key].replace(/\{\w+\}/g, "")));
    assert.deepEqual(left.filter((key) => !SAME_AS_ENGLISH[code].includes(key)), [], `${code}: left in English`);
    // Each count from 0 to 200 finds a form of its own category (else "other"), and says the
    // number wherever the form is not for exactly one or two.
    for (const base of COUNTED) {
      for (let count = 0; count <= 200; count++) {
        const category = plurals.select(count);
        const form = table[`${base}.${category}`] ?? table[`${base}.other`] ?? table[base];
        assert.ok(form, `${code}: "${base}" has no form for ${count} (${category})`);
        if (!["zero", "one", "two"].includes(category) && !(base === "import.skipped" && count === 1)) {
          assert.ok(form.includes("{count}"), `${code}: "${base}" for ${count} (${category}) does not say the number`);
        }
      }
    }
  });
}

test("Arabic has a form for each of its six plural categories, and is written right to left", async () => {
  const t = await loadStrings("ar");
  assert.equal(t.dir, "rtl");
  assert.equal(t("exported", { count: 1 }), "صُدِّرت محادثة واحدة.");
  assert.equal(t("exported", { count: 2 }), "صُدِّرت محادثتان.");
  assert.equal(t("exported", { count: 3 }), "صُدِّرت 3 محادثات.");
  assert.equal(t("exported", { count: 11 }), "صُدِّرت 11 محادثة.");
  assert.equal(t("exported", { count: 100 }), "صُدِّرت 100 محادثة.");
  // A notice counted by Python picks its form too, with or without its values.
  const said = { message: "3 synced conversations could not be read with this sync code and were left out.", code: "sync_unreadable" };
  assert.equal(t.notice({ ...said, params: { count: 3 } }), "تعذّرت قراءة 3 محادثات متزامنة بهذا الرمز فاستُبعدت.");
  assert.equal(t.notice(said), "تعذّرت قراءة 3 محادثات متزامنة بهذا الرمز فاستُبعدت.");
  assert.equal((await loadStrings("fr")).dir, "ltr");
});

test("French says one for 0 and 1, and English plural keys still work", async () => {
  const fr = await loadStrings("fr");
  assert.equal(fr("exported", { count: 0 }), "0 conversation exportée.");
  assert.equal(fr("exported", { count: 5 }), "5 conversations exportées.");
  const ja = await loadStrings("ja");
  assert.equal(ja("exported", { count: 1 }), "1 件の会話をエクスポートしました。");
  const english = await loadStrings("en");
  assert.equal(english("exported", { count: 1 }), "Exported 1 conversation.");
  assert.equal(english("exported", { count: 4 }), "Exported 4 conversations.");
});
