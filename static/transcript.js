// Renders the conversation into the "Conversation" log, from the changes the controller
// reports: messages from index `at` on were replaced or added. A settled message is drawn
// once and never redrawn; the answer being written is redrawn at most once per frame; many
// messages at once (opening a long conversation) are drawn in slices of a few milliseconds,
// so the host page never has a long task.

import { feedbackButtons, reasoningBlock, showLiveReasoning, showSettledReasoning, toggleReasoning } from "./answer-parts.js";
import { canReadAloud } from "./read-aloud.js";

/** @typedef {import("./client.js").Message} Message */

/**
 * A person pressed one of a message's actions: `copy` (an answer's Markdown), `copy-code`
 * (a code block: `text`), `edit`, `fork`, `retry`, `version` (show `version`) or `feedback`
 * (`rating`: "good" or "bad"). Raised on the log, for the element to carry out.
 */
export class MessageActionEvent extends Event {
  static type = "message-action";
  /**
   * @param {string} action @param {number} index
   * @param {{version?: number, text?: string, rating?: string, source?: HTMLElement}} details
   */
  constructor(action, index, { version = 0, text = "", rating = "", source = undefined } = {}) {
    super(MessageActionEvent.type);
    this.action = action;
    this.index = index;
    this.version = version;
    this.text = text;
    this.rating = rating;
    this.source = source;
  }
}

/** The buttons' `data-action`s, as the events name them. */
const ACTIONS = { "copy-answer": "copy", "previous-version": "version", "next-version": "version" };

/** Time one slice of drawing may take before the page gets the main thread back. */
const SLICE_MS = 8;

export class Transcript {
  /** @type {HTMLElement[]} one element per settled message, in order */
  #nodes = [];
  /** @type {HTMLElement | null} */
  #draftNode = null;
  /** @type {Message[]} the controller's live list */
  #messages = [];
  /** @type {Message | null} */
  #draft = null;
  /** lowest index changed since the last drawing; Infinity when nothing is */
  #dirtyFrom = Infinity;
  #draftDirty = false;
  #frame = 0;
  #log;
  #renderText;
  #onDrawn;

  /**
   * @param {HTMLElement} log  the element with role="log"
   * @param {(target: HTMLElement, text: string) => void} renderText
   *   draws an answer's text (Markdown, sanitised) into `target`
   * @param {() => void} onDrawn  called after each drawing step (e.g. to keep the view scrolled)
   * @param {import("./strings.js").Lookup} t  the widget's strings
   * @param {(notice: import("./strings.js").Notice) => string} message  what Python or the
   *   server said (a failed answer's error), in the widget's language
   * @param {Promise<unknown>} drawable  nothing is drawn before it settles (Markdown loaded)
   */
  constructor(log, renderText, onDrawn = () => {}, t = (key) => key, message = (said) => said.message, drawable = Promise.resolve()) {
    this.#log = log;
    drawable.then(() => {
      this.#drawable = true;
      if (this.#dirtyFrom !== Infinity || this.#draftDirty) this.#schedule();
    });
    this.#renderText = renderText;
    this.#onDrawn = onDrawn;
    this.#t = t;
    this.#sentence = message;
    log.addEventListener("click", (event) => this.#clicked(/** @type {HTMLElement} */ (event.target)));
  }

  /**
   * The message at `index` becomes a text field holding `text`: Enter resolves with what
   * the person wrote, Escape (or an empty field) puts the message back and resolves null.
   * @param {number} index @param {string} text @param {string} label  the field's name
   * @returns {Promise<string | null>}
   */
  editInPlace(index, text, label) {
    const body = /** @type {HTMLElement | null} */ (this.#nodes[index]?.querySelector(".body"));
    if (!body) return Promise.resolve(null);
    const field = document.createElement("textarea");
    field.className = "edit-field";
    field.setAttribute("aria-label", label);
    field.value = text;
    field.rows = Math.min(8, text.split("\n").length + 1);
    body.replaceWith(field);
    field.focus();
    return new Promise((resolve) => {
      field.addEventListener("keydown", (event) => {
        const done = event.key === "Enter" && !event.shiftKey && !event.isComposing;
        if (event.key !== "Escape" && !done) return;
        event.preventDefault();
        const edited = done ? field.value.trim() : "";
        if (!edited) field.replaceWith(body);
        resolve(edited || null);
      });
    });
  }

  /** Turns a press of a message's button into a `MessageActionEvent`. */
  #clicked(/** @type {HTMLElement} */ target) {
    const thought = /** @type {HTMLElement | null} */ (target.closest("button.thought"));
    if (thought) {
      toggleReasoning(thought);
      return;
    }
    const code = /** @type {HTMLElement | null} */ (target.closest("button.copy"));
    if (code) {
      const text = code.closest(".code")?.querySelector("code")?.textContent ?? "";
      this.#log.dispatchEvent(new MessageActionEvent("copy-code", -1, { text, source: code }));
      return;
    }
    const pressed = /** @type {HTMLElement | null} */ (target.closest("button[data-action]"));
    if (!pressed) return;
    const action = pressed.getAttribute("data-action") ?? "";
    this.#log.dispatchEvent(new MessageActionEvent(ACTIONS[action] ?? action, Number(pressed.getAttribute("data-index")), {
      version: Number(pressed.getAttribute("data-version")),
      rating: pressed.getAttribute("data-rating") ?? "",
      source: pressed,
    }));
  }

  #t;
  #sentence;
  #drawable = false;
  /**
   * Draws a tool result's UI in place of its text (./ui-render.js, loaded by the view when
   * one is first drawn); by default its text stays.
   * @type {(target: HTMLElement, message: Message, index: number) => void}
   */
  drawUi = () => {};
  /**
   * Draws what the `present` tool's arguments hold so far into the answer being written
   * (./ui-stream.js); by default nothing.
   * @type {(answer: HTMLElement, streamed: string) => void}
   */
  drawPresenting = () => {};
  /** when the answer being written began to think */
  #thinkingSince = 0;

  /** Messages from `at` on changed; `messages` is the whole (live) list. */
  messagesChanged(/** @type {Message[]} */ messages, /** @type {number} */ at) {
    this.#messages = messages;
    this.#dirtyFrom = Math.min(this.#dirtyFrom, at);
    this.#schedule();
  }

  /** The answer being written changed (or is gone: `null`). */
  draftChanged(/** @type {Message | null} */ draft) {
    this.#draft = draft;
    this.#draftDirty = true;
    this.#schedule();
  }

  #schedule() {
    if (this.#drawable && !this.#frame) this.#frame = requestAnimationFrame(() => this.#draw());
  }

  #draw() {
    this.#frame = 0;
    const deadline = performance.now() + SLICE_MS;
    if (this.#dirtyFrom !== Infinity) {
      const from = Math.min(this.#dirtyFrom, this.#nodes.length);
      const stale = this.#nodes.splice(from);
      // A message drawn again (rated, say) keeps the reasoning the person opened.
      const opened = new Set(stale.filter(isThoughtOpen).map((node) => Number(node.dataset.index)));
      for (const node of stale) node.remove();
      // Draw what is missing, in order, until the slice is used up.
      while (this.#nodes.length < this.#messages.length && performance.now() < deadline) {
        const index = this.#nodes.length;
        const node = this.#message(this.#messages[index], index);
        const thought = /** @type {HTMLElement | null} */ (node.querySelector("button.thought"));
        if (thought && opened.has(index)) toggleReasoning(thought);
        this.#log.insertBefore(node, this.#draftNode);
        this.#nodes.push(node);
      }
      this.#dirtyFrom = this.#nodes.length < this.#messages.length ? this.#nodes.length : Infinity;
    }
    if (this.#draftDirty) {
      this.#draftDirty = false;
      this.#drawDraft();
    }
    this.#onDrawn();
    if (this.#dirtyFrom !== Infinity) this.#schedule(); // more to draw: next frame
  }

  #drawDraft() {
    const draft = this.#draft;
    if (!draft) {
      this.#draftNode?.remove();
      this.#draftNode = null;
      return;
    }
    if (!this.#draftNode) {
      this.#draftNode = article("assistant");
      this.#draftNode.setAttribute("aria-busy", "true");
      this.#draftNode.append(element("div", "body"));
      this.#log.append(this.#draftNode);
    }
    if (draft.reasoning) {
      let block = /** @type {HTMLElement | null} */ (this.#draftNode.querySelector(".reasoning"));
      if (!block) {
        block = reasoningBlock(this.#t);
        this.#draftNode.prepend(block);
        this.#thinkingSince = performance.now();
      }
      showLiveReasoning(block, draft, this.#t, this.#renderText, this.#thinkingSince);
    }
    const body = /** @type {HTMLElement} */ (this.#draftNode.querySelector(".body"));
    this.#renderText(body, draft.content ?? "");
    this.#draftNode.querySelector(".calls")?.remove();
    const calls = draft.tool_calls ?? [];
    if (calls.some(notPresent)) this.#draftNode.append(toolCalls(calls.filter(notPresent), this.#t("tool.calling")));
    const presenting = calls.find((call) => !notPresent(call));
    if (presenting) this.drawPresenting(this.#draftNode, presenting.function?.arguments ?? "");
  }

  /** @param {Message & {versions?: any[], version?: number}} message @param {number} index */
  #versions(message, index) {
    const total = (message.versions?.length ?? 0) + 1;
    const shown = message.version ?? total;
    const previous = button(this.#t("version.previous"), "previous-version", index);
    previous.dataset.version = String(shown - 1);
    previous.disabled = shown <= 1;
    const status = element("span", "version-status");
    status.textContent = this.#t("version.status", { n: shown, total });
    const next = button(this.#t("version.next"), "next-version", index);
    next.dataset.version = String(shown + 1);
    next.disabled = shown >= total;
    return [previous, status, next];
  }

  /** @param {Message} message @param {number} index */
  #message(message, index) {
    const node = article(message.role);
    node.dataset.index = String(index);
    if (message.role === "user") {
      const body = element("div", "body");
      body.textContent = message.content ?? ""; // a person's words are shown as they typed them
      node.append(body);
      if (message.attachments?.length) node.append(attachmentList(message.attachments));
      const actions = element("div", "actions");
      if (message.versions?.length) actions.append(...this.#versions(message, index));
      actions.append(
        button(this.#t("edit"), "edit", index),
        button(this.#t("fork"), "fork", index),
        button(this.#t("retry"), "retry", index),
      );
      node.append(actions);
    } else if (message.role === "tool") {
      const label = element("div", "label");
      label.textContent = this.#t("tool.result", { name: message.name ?? this.#t("tool.unnamed") });
      const body = element("div", "body plain");
      body.textContent = message.content ?? ""; // tool output is data: shown, never interpreted
      node.append(label, body);
      if (message.ui || message.ui_fallback !== undefined) this.drawUi(body, message, index); // cards, tables, forms
    } else {
      if (message.reasoning) {
        const block = reasoningBlock(this.#t);
        showSettledReasoning(block, message, this.#t, this.#renderText);
        node.append(block);
      }
      const body = element("div", "body");
      this.#renderText(body, message.content ?? "");
      node.append(body);
      if (message.tool_calls?.some(notPresent)) node.append(toolCalls(message.tool_calls.filter(notPresent), this.#t("tool.calling")));
      if (message.sources?.length) node.append(sourceList(message.sources, this.#t("sources")));
      if (message.content) {
        const actions = element("div", "actions");
        const copy = button(this.#t("copy"), "copy-answer", index);
        copy.classList.add("copy-answer");
        actions.append(copy);
        if (canReadAloud()) {
          actions.append(button(this.#t("read.aloud"), "read-aloud", index));
        }
        actions.append(...feedbackButtons(message, index, this.#t));
        node.append(actions);
      }
      if (message.error) {
        node.classList.add("failed");
        const note = element("p", "interrupted");
        note.textContent = this.#sentence({ message: message.error, code: message.error_code, params: message.error_params });
        node.append(note);
      }
    }
    return node;
  }
}

function isThoughtOpen(/** @type {HTMLElement} */ node) {
  return node.querySelector("button.thought")?.getAttribute("aria-expanded") === "true";
}

function article(role) {
  const node = element("article", `message ${role}`);
  node.dataset.role = role;
  return node;
}

/** The built-in `present` tool's call is drawn as its UI, not as its arguments. */
const notPresent = (/** @type {any} */ call) => call.function?.name !== "present";

function toolCalls(calls, calling) {
  const list = element("ul", "calls");
  for (const call of calls) {
    const item = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = `${call.function.name}(${call.function.arguments})`;
    item.append(calling, code);
    list.append(item);
  }
  return list;
}

/** The links an answer cites, numbered; only http(s) URLs become links (Python kept no other). */
function sourceList(sources, heading) {
  const section = element("section", "sources");
  section.setAttribute("aria-label", heading);
  const title = element("h3", "");
  title.textContent = heading;
  const list = element("ol", "");
  list.setAttribute("aria-label", heading); // a screen reader hears whose links these are
  for (const { url, title: name } of sources) {
    if (!/^https?:\/\//i.test(String(url))) continue;
    const link = document.createElement("a");
    link.href = url;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    link.textContent = name || new URL(url).hostname;
    const item = document.createElement("li");
    item.append(link);
    list.append(item);
  }
  section.append(title, list);
  return section;
}

function attachmentList(attachments) {
  const list = element("ul", "attachments");
  for (const file of attachments) {
    const item = document.createElement("li");
    item.textContent = `📎 ${file.name}`;
    list.append(item);
  }
  return list;
}

/** Quiet icon buttons under a message; the label stays their accessible name and tooltip. */
const ACTION_ICONS = {
  edit: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 20h4L19 9l-4-4L4 16z"/></svg>',
  "previous-version": '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M15 6l-6 6 6 6"/></svg>',
  "next-version": '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M9 6l6 6-6 6"/></svg>',
  fork: '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="6" cy="5" r="2"/><circle cx="18" cy="5" r="2"/><circle cx="12" cy="19" r="2"/><path d="M6 7v2a3 3 0 003 3h6a3 3 0 003-3V7M12 12v5"/></svg>',
  retry: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 12a8 8 0 1 0 3-6.2M4 4v5h5"/></svg>',
  "read-aloud": '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 9v6h4l5 4V5L8 9zM16 9a4 4 0 010 6M18.5 6.5a7.5 7.5 0 010 11"/></svg>',
  "copy-answer": '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="8" y="8" width="12" height="12" rx="2"/><path d="M16 8V6a2 2 0 00-2-2H6a2 2 0 00-2 2v8a2 2 0 002 2h2"/></svg>',
};

function button(label, action, index) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = "action";
  node.setAttribute("aria-label", label);
  node.title = label;
  node.innerHTML = ACTION_ICONS[action] ?? "";
  node.dataset.action = action;
  node.dataset.index = String(index);
  return node;
}

/** @returns {HTMLElement} */
function element(tag, className) {
  const node = document.createElement(tag);
  node.className = className;
  // What people and models write runs in its own direction: an English question reads left
  // to right in an Arabic chat, an Arabic one right to left in any (by its first letter).
  if (className.startsWith("body")) node.dir = "auto";
  return node;
}
