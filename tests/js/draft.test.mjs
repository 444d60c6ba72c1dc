// The answer being written, folded from the worker's changes (static/draft.js), each change
// a `draft` record as static/protocol.js declares it.
// node --test tests/js

import assert from "node:assert/strict";
import { test } from "node:test";
import { nextDraft } from "../../static/draft.js";
import { EVENT_DATA } from "../../static/protocol.js";
import { conforms } from "./conforms.mjs";

/** A draft record of answer `answer`; `fields` replace the defaults. */
const change = (answer, fields = {}) => ({ answer, at: 0, text: "", ...fields });

/** Every change in turn, from no draft; each checked against the declared shape. */
const fold = (...changes) => {
  for (const c of changes) assert.deepEqual(conforms(c, EVENT_DATA.draft), []);
  return changes.reduce(nextDraft, null)?.message ?? null;
};

test("text is appended where the worker says", () => {
  assert.deepEqual(fold(change("a", { text: "Hel" }), change("a", { at: 3, text: "lo" })), { role: "assistant", content: "Hello" });
  assert.equal(fold(change("a", { text: "Hel" }), change("a", { at: 3, end: true })), null);
});

test("reasoning streams first, then the answer, and both are kept", () => {
  const draft = fold(change("a", { thoughtAt: 0, thought: "Let me " }), change("a", { thoughtAt: 7, thought: "think." }),
    change("a", { text: "Four", thoughtAt: 13 }));
  assert.deepEqual(draft, { role: "assistant", content: "Four", reasoning: "Let me think." });
});

test("a change of another answer starts afresh", () => {
  const draft = fold(change("a", { text: "old", thoughtAt: 0, thought: "old thought" }), change("b", { text: "new" }));
  assert.deepEqual(draft, { role: "assistant", content: "new" });
});

test("tool calls are replaced when given and kept when not", () => {
  const calls = [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }];
  assert.deepEqual(fold(change("a", { calls }), change("b", { text: "x" })).tool_calls, undefined);
  assert.deepEqual(fold(change("a", { text: "a", calls }), change("a", { at: 1, text: "b" })).tool_calls, calls);
});

test("a record with a field nobody declared does not conform", () => {
  assert.deepEqual(conforms({ ...change("a"), extra: 1 }, EVENT_DATA.draft), ['"extra" is not declared']);
  assert.deepEqual(conforms({ answer: "a", at: 0 }, EVENT_DATA.draft), ['"text" is missing']);
  assert.deepEqual(conforms({ ...change("a"), thought: 5 }, EVENT_DATA.draft), ['"thought" is not string']);
});
