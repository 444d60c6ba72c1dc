// The answer being written, as the page keeps it: the worker sends only what was appended
// (static/worker.js coalesces Python's `draft` calls), and this folds each change in.

/** @typedef {import("./client.js").Message} Message */

/**
 * The answer being written after a change: `[at, text, calls?, thoughtAt?, thought?]` appends
 * `text` at offset `at` (0 starts a new answer), replaces the tool calls when given, and
 * appends `thought` to the reasoning at `thoughtAt`; `null` means it has settled.
 * @param {Message | null} draft @param {[number, string, any[]?, number?, string?] | null} change
 * @returns {Message | null}
 */
export function nextDraft(draft, change) {
  if (change === null) return null;
  const [at, text, calls, thoughtAt = 0, thought = ""] = change;
  const fresh = !draft || (at === 0 && thoughtAt === 0);
  const before = fresh ? "" : (draft.content ?? "").slice(0, at);
  const thoughtBefore = fresh ? "" : (draft.reasoning ?? "").slice(0, thoughtAt);
  const toolCalls = calls ?? (fresh ? undefined : draft?.tool_calls);
  /** @type {Message} */
  const next = { role: "assistant", content: before + text };
  if (thoughtBefore || thought) next.reasoning = thoughtBefore + thought;
  if (toolCalls) next.tool_calls = toolCalls;
  return next;
}
