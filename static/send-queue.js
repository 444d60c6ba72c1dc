// Messages written while an answer is being written: each waits below it as "Queued" (with
// "Edit", "Remove" and "Send now") and goes, in order, once the answer before it has settled.
// "Send now" stops the answer (kept as far as it came) and sends that message first. The
// queue is kept in the page's storage with the conversations, so a reload loses none of it.

/**
 * @typedef {{id: string, text: string, attachments?: object[]}} Queued
 * @typedef {{conversation: string, items: Queued[]}} Kept
 */

export class SendQueue {
  /** @type {Queued[]} */
  #items = [];
  /** the conversation the messages were written for */
  #conversation = "";
  #list;
  #options;
  /** a message is on its way: the next waits for it */
  #sending = false;

  /**
   * @param {HTMLElement} list  the "Queued messages" list
   * @param {{t: import("./strings.js").Lookup, storage: () => Storage | null, key: string,
   *   send: (text: string, attachments: object[]) => Promise<void>, stopAnswer: () => void,
   *   edit: (text: string) => void}} options  `send` rejects when the message was refused;
   *   `storage`: where the queue is kept (null: nowhere, with history off or in the host's store)
   */
  constructor(list, options) {
    this.#list = list;
    this.#options = options;
    const kept = read(options.storage(), options.key);
    if (kept) ({ conversation: this.#conversation, items: this.#items } = kept);
    list.addEventListener("click", (event) => {
      const button = /** @type {HTMLElement} */ (event.target).closest("button[data-queued]");
      if (button) this.#pressed(button.getAttribute("data-action") ?? "", button.getAttribute("data-queued") ?? "");
    });
  }

  get length() {
    return this.#items.length;
  }

  /** A message written while the answer in `conversation` is being written: it waits. */
  add(/** @type {string} */ conversation, /** @type {string} */ text, /** @type {object[]} */ attachments = []) {
    if (this.#conversation !== conversation) this.#giveBack();
    this.#conversation = conversation;
    this.#items.push({ id: crypto.randomUUID(), text, ...(attachments.length ? { attachments } : {}) });
    this.#changed();
  }

  /**
   * The session is idle in `conversation` (`ready`: Python runs): the first message waiting
   * goes. Messages written for another conversation go back to the message field instead.
   */
  async idle(/** @type {string} */ conversation) {
    if (this.#sending || !this.#items.length) return;
    if (conversation !== this.#conversation) {
      this.#giveBack();
      return;
    }
    const next = /** @type {Queued} */ (this.#items.shift());
    this.#changed();
    this.#sending = true;
    try {
      await this.#options.send(next.text, next.attachments ?? []);
    } catch (error) {
      if (/** @type {any} */ (error)?.code === "busy") {
        this.#items.unshift(next); // an answer began meanwhile (picked up): it waits for that one
        this.#changed();
      } else {
        this.#options.edit(next.text); // refused: back in the field, the reason said beside it
      }
    } finally {
      this.#sending = false;
    }
  }

  /** Draws the list again (the language changed, or a message came or went). */
  render() {
    const { t } = this.#options;
    this.#list.hidden = this.#items.length === 0;
    this.#list.replaceChildren(...this.#items.map((item) => {
      const row = document.createElement("li");
      row.className = "queued";
      const label = document.createElement("span");
      label.className = "label";
      label.textContent = t("queue.queued");
      const text = document.createElement("p");
      text.className = "body";
      text.dir = "auto";
      text.textContent = item.text; // as the person typed it
      if (item.attachments?.length) text.append(...item.attachments.map((file) => `\n📎 ${/** @type {any} */ (file).name}`));
      const actions = document.createElement("div");
      actions.className = "actions";
      actions.append(
        button(t("edit"), "edit", item.id), button(t("queue.remove"), "remove", item.id),
        button(t("queue.sendNow"), "send-now", item.id),
      );
      row.append(label, text, actions);
      return row;
    }));
  }

  /** @param {string} action @param {string} id */
  #pressed(action, id) {
    const at = this.#items.findIndex((item) => item.id === id);
    if (at < 0) return;
    const [item] = this.#items.splice(at, 1);
    if (action === "send-now") {
      this.#items.unshift(item); // first to go, once the answer has stopped
      this.#options.stopAnswer();
    } else if (action === "edit") {
      this.#options.edit(item.text);
    }
    this.#changed();
  }

  /** Every message waiting goes back to the message field (nothing is lost). */
  #giveBack() {
    const texts = this.#items.map((item) => item.text);
    this.#items = [];
    if (texts.length) this.#options.edit(texts.join("\n\n"));
    this.#changed();
  }

  #changed() {
    this.render();
    const storage = this.#options.storage();
    if (!storage) return;
    try {
      if (!this.#items.length) storage.removeItem(this.#options.key);
      else keep(storage, this.#options.key, { conversation: this.#conversation, items: this.#items });
    } catch {
      // storage refused: the queue still works in this page
    }
  }
}

/** @param {Storage} storage @param {string} key @param {Kept} kept */
function keep(storage, key, kept) {
  try {
    storage.setItem(key, JSON.stringify(kept));
  } catch {
    // too large with its files: the words are kept at least
    const items = kept.items.map(({ id, text }) => ({ id, text }));
    storage.setItem(key, JSON.stringify({ ...kept, items }));
  }
}

/** @param {Storage | null} storage @param {string} key @returns {Kept | null} */
function read(storage, key) {
  try {
    const kept = JSON.parse(storage?.getItem(key) ?? "null");
    if (typeof kept?.conversation !== "string" || !Array.isArray(kept.items)) return null;
    const items = kept.items.filter((item) => typeof item?.id === "string" && typeof item.text === "string");
    return { conversation: kept.conversation, items };
  } catch {
    return null; // unreadable: nothing waits
  }
}

/** @param {string} label @param {string} action @param {string} id */
function button(label, action, id) {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = label;
  node.dataset.action = action;
  node.dataset.queued = id;
  return node;
}
