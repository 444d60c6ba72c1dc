// The element names every module it needs at its top (static/chat-widget.js), so the browser
// fetches them all in one round trip: a module reachable only through another one would add
// a round trip to every page load. node --test tests/js

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const STATIC = join(dirname(fileURLToPath(import.meta.url)), "../../static");
const ENTRY = join(STATIC, "chat-widget.js");

/** The relative modules `file` imports statically. */
function imports(file) {
  const source = readFileSync(file, "utf8");
  return [...source.matchAll(/^import\s+(?:[^"';]*?\s+from\s+)?"(\.[^"]+)";/gm)].map(([, path]) =>
    normalize(join(dirname(file), path)),
  );
}

test("every module the element reaches is imported by chat-widget.js itself", () => {
  const direct = new Set(imports(ENTRY));
  const reached = new Set();
  const waiting = [...direct];
  while (waiting.length) {
    const file = waiting.pop();
    if (reached.has(file)) continue;
    reached.add(file);
    waiting.push(...imports(file));
  }
  const missing = [...reached].filter((file) => !direct.has(file)).map((file) => relative(STATIC, file));
  assert.deepEqual(missing, []);
});
