// The parts of an answer beside its text: the model's reasoning, in a disclosure above it, and
// the "Good answer" / "Bad answer" toggles under it.
//
// Reasoning is open while the model thinks and closes when the answer starts; a person may
// open it again. Its text is drawn like an answer's (Markdown, sanitised) and, inside the
// answer being written (`aria-busy`), is never read aloud piece by piece.

/** @typedef {import("./client.js").Message} Message */
/** @typedef {import("./strings.js").Lookup} Lookup */

const CHEVRON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M9 6l6 6-6 6"/></svg>';
export const FEEDBACK_ICONS = {
  good: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 11v9H4v-9zM7 11l4-7a2 2 0 012 2v4h5a2 2 0 012 2.3l-1.2 6A2 2 0 0116.8 20H7"/></svg>',
  bad: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 13V4H4v9zM7 13l4 7a2 2 0 002-2v-4h5a2 2 0 002-2.3l-1.2-6A2 2 0 0016.8 4H7"/></svg>',
};

/**
 * The reasoning disclosure: a button (its name says "Thinking…" or "Thought for N s") that
 * shows and hides the reasoning's text.
 * @param {Lookup} t
 * @returns {HTMLElement}
 */
export function reasoningBlock(t) {
  const block = document.createElement("div");
  block.className = "reasoning";
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "thought";
  toggle.setAttribute("aria-expanded", "false");
  toggle.innerHTML = `${CHEVRON}<span class="thought-label"></span>`;
  const text = document.createElement("div");
  text.className = "thought-text";
  text.hidden = true;
  block.append(toggle, text);
  setThoughtLabel(block, t("thought"));
  return block;
}

/**
 * Draws a settled answer's reasoning: closed, named "Thought for N s" (or "Thought").
 * @param {HTMLElement} block @param {Message} message @param {Lookup} t
 * @param {(target: HTMLElement, text: string) => void} render
 */
export function showSettledReasoning(block, message, t, render) {
  const seconds = message.reasoning_seconds;
  setThoughtLabel(block, typeof seconds === "number" ? thoughtFor(seconds, t) : t("thought"));
  render(/** @type {HTMLElement} */ (block.querySelector(".thought-text")), message.reasoning ?? "");
}

/**
 * Draws the reasoning of the answer being written: open while the model thinks, closed once
 * the answer itself starts (unless the person opened or closed it meanwhile).
 * @param {HTMLElement} block @param {Message} draft @param {Lookup} t
 * @param {(target: HTMLElement, text: string) => void} render
 * @param {number} startedAt  `performance.now()` when the reasoning began
 */
export function showLiveReasoning(block, draft, t, render, startedAt) {
  const answering = Boolean(draft.content) || Boolean(draft.tool_calls?.length);
  const text = /** @type {HTMLElement} */ (block.querySelector(".thought-text"));
  const reasoning = draft.reasoning ?? "";
  if (block.dataset.drawn !== String(reasoning.length)) {
    block.dataset.drawn = String(reasoning.length);
    render(text, reasoning);
  }
  if (answering && !block.dataset.settled) {
    block.dataset.settled = "true";
    const seconds = Math.max(0, Math.round((performance.now() - startedAt) / 1000));
    setThoughtLabel(block, thoughtFor(seconds, t));
    if (!block.dataset.touched) setOpen(block, false);
  } else if (!answering) {
    setThoughtLabel(block, t("thinking.live"));
    if (!block.dataset.touched) setOpen(block, true);
  }
}

/** "Thought for N s", or "Thought for a moment" under half a second. */
function thoughtFor(/** @type {number} */ seconds, /** @type {Lookup} */ t) {
  return seconds > 0 ? t("thought.for", { seconds }) : t("thought.brief");
}

/** A press of the disclosure's button: open or close it, and remember the person chose. */
export function toggleReasoning(/** @type {HTMLElement} */ toggle) {
  const block = /** @type {HTMLElement} */ (toggle.closest(".reasoning"));
  block.dataset.touched = "true";
  setOpen(block, toggle.getAttribute("aria-expanded") !== "true");
}

function setOpen(/** @type {HTMLElement} */ block, /** @type {boolean} */ open) {
  block.querySelector(".thought")?.setAttribute("aria-expanded", String(open));
  const text = /** @type {HTMLElement} */ (block.querySelector(".thought-text"));
  text.hidden = !open;
}

function setThoughtLabel(/** @type {HTMLElement} */ block, /** @type {string} */ label) {
  const node = /** @type {HTMLElement} */ (block.querySelector(".thought-label"));
  if (node.textContent !== label) node.textContent = label;
}

/**
 * The two rating toggles under an answer; the one the person chose is pressed.
 * @param {Message} message @param {number} index @param {Lookup} t
 * @returns {HTMLButtonElement[]}
 */
export function feedbackButtons(message, index, t) {
  return /** @type {const} */ (["good", "bad"]).map((rating) => {
    const node = document.createElement("button");
    node.type = "button";
    node.className = `action feedback ${rating}`;
    const label = t(`feedback.${rating}`);
    node.setAttribute("aria-label", label);
    node.title = label;
    node.setAttribute("aria-pressed", String(message.feedback === rating));
    node.innerHTML = FEEDBACK_ICONS[rating];
    node.dataset.action = "feedback";
    node.dataset.rating = rating;
    node.dataset.index = String(index);
    return node;
  });
}
