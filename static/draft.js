// The answer being written, as the page keeps it: the worker sends only what was appended
// (static/worker.js coalesces Python's changes), and this folds each change in.

/** @typedef {import("./client.js").Message} Message */
/** @typedef {import("./protocol.js").DraftChange} DraftChange */
/** @typedef {{answer: string, message: Message}} Drafting  an answer being written, by name */

/**
 * The answer being written after a change: `text` appended at offset `at`, `thought` to the
 * reasoning at `thoughtAt`, the tool calls replaced when given. A change of another answer
 * starts afresh; `end` means it has settled: nothing is being written.
 * @param {Drafting | null} drafting @param {DraftChange} change
 * @returns {Drafting | null}
 */
export function nextDraft(drafting, change) {
  if (change.end) return null;
  const { answer, at, text, thoughtAt, thought, calls } = change;
  const before = drafting?.answer === answer ? drafting.message : null;
  const content = (before?.content ?? "").slice(0, at) + text;
  const reasoning = (before?.reasoning ?? "").slice(0, thoughtAt ?? 0) + (thought ?? "");
  const toolCalls = calls ?? before?.tool_calls;
  /** @type {Message} */
  const message = { role: "assistant", content };
  if (reasoning) message.reasoning = reasoning;
  if (toolCalls?.length) message.tool_calls = toolCalls;
  return { answer, message };
}
