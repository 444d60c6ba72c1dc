// Renders the conversation into the "Conversation" log. Each message is drawn once and
// redrawn only when it changes; the streaming answer updates one element in place.

/** @typedef {import("./client.js").Message} Message */

export class Transcript {
  /** @type {{signature: string, element: HTMLElement}[]} */
  #rendered = [];
  /** @type {HTMLElement | null} */
  #draft = null;
  #log;
  #renderText;

  /**
   * @param {HTMLElement} log  the element with role="log"
   * @param {(target: HTMLElement, text: string, message: Message) => void} renderText
   *   draws an answer's text (Markdown, sanitised) into `target`
   */
  constructor(log, renderText) {
    this.#log = log;
    this.#renderText = renderText;
  }

  /** @param {Message[]} messages @param {Message | null} draft */
  update(messages, draft) {
    messages.forEach((message, index) => {
      const signature = JSON.stringify(message);
      const existing = this.#rendered[index];
      if (existing?.signature === signature) return;
      const element = this.#message(message, index);
      if (existing) existing.element.replaceWith(element);
      else this.#log.insertBefore(element, this.#draft);
      this.#rendered[index] = { signature, element };
    });
    for (const stale of this.#rendered.splice(messages.length)) stale.element.remove();
    this.#updateDraft(draft);
  }

  #updateDraft(draft) {
    if (!draft) {
      this.#draft?.remove();
      this.#draft = null;
      return;
    }
    if (!this.#draft) {
      this.#draft = article("assistant");
      this.#draft.setAttribute("aria-busy", "true");
      this.#draft.append(element("div", "body"));
      this.#log.append(this.#draft);
    }
    const body = /** @type {HTMLElement} */ (this.#draft.querySelector(".body"));
    this.#renderText(body, draft.content ?? "", draft);
    this.#draft.querySelector(".calls")?.remove();
    if (draft.tool_calls?.length) this.#draft.append(toolCalls(draft.tool_calls));
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
      actions.append(button("Fork", "fork", index), button("Retry", "retry", index));
      node.append(actions);
    } else if (message.role === "tool") {
      const label = element("div", "label");
      label.textContent = `Result of ${message.name ?? "a tool"}`;
      const body = element("div", "body plain");
      body.textContent = message.content ?? ""; // tool output is data: shown, never interpreted
      node.append(label, body);
    } else {
      const body = element("div", "body");
      this.#renderText(body, message.content ?? "", message);
      node.append(body);
      if (message.tool_calls?.length) node.append(toolCalls(message.tool_calls));
      if (message.error) {
        node.classList.add("failed");
        const note = element("p", "interrupted");
        note.textContent = message.error;
        node.append(note);
      }
    }
    return node;
  }
}

function article(role) {
  const node = element("article", `message ${role}`);
  node.dataset.role = role;
  return node;
}

function toolCalls(calls) {
  const list = element("ul", "calls");
  for (const call of calls) {
    const item = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = `${call.function.name}(${call.function.arguments})`;
    item.append("Calling ", code);
    list.append(item);
  }
  return list;
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

function button(label, action, index) {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = label;
  node.dataset.action = action;
  node.dataset.index = String(index);
  return node;
}

/** @returns {HTMLElement} */
function element(tag, className) {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}
