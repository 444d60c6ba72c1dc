// The answer being written, folded from the worker's changes (static/draft.js).
// node --test tests/js

import assert from "node:assert/strict";
import { test } from "node:test";
import { nextDraft } from "../../static/draft.js";

/** Every change in turn, from no draft. */
const fold = (...changes) => changes.reduce(nextDraft, null);

test("text is appended where the worker says", () => {
  assert.deepEqual(fold([0, "Hel"], [3, "lo"]), { role: "assistant", content: "Hello" });
  assert.deepEqual(fold([0, "Hel"], [3, "lo"], null), null);
});

test("reasoning streams first, then the answer, and both are kept", () => {
  const draft = fold([0, "", null, 0, "Let me "], [0, "", null, 7, "think."], [0, "Four", null, 13, ""]);
  assert.deepEqual(draft, { role: "assistant", content: "Four", reasoning: "Let me think." });
});

test("a change from offset 0 of both starts a new answer", () => {
  const draft = fold([0, "old", null, 0, "old thought"], [0, "new"]);
  assert.deepEqual(draft, { role: "assistant", content: "new" });
});

test("tool calls are replaced when given and kept when not", () => {
  const calls = [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }];
  assert.deepEqual(fold([0, "", calls], [0, "x"]).tool_calls, undefined); // offset 0: a new answer
  assert.deepEqual(fold([0, "a", calls], [1, "b"]).tool_calls, calls);
});
