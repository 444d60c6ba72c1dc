// The host API on `element.session`: available at once, answering once the runtime is ready.

/** @typedef {import("./client.js").WidgetClient} WidgetClient */

/** The client's events that mean "the conversation changed". */
const CHANGES = ["meta", "messages", "draft"];

/** @typedef {import("./chat-widget.js").ChatSession} ChatSession as declared in chat-widget.d.ts */

/**
 * The host API, available at once on `element.session`; it answers after `ready`.
 * @implements {ChatSession} checked by tsc against the declaration
 */
export class SessionHandle {
  #client;
  /** @param {Promise<WidgetClient>} client */
  constructor(client) {
    this.#client = client;
  }
  get ready() {
    return this.#client.then((client) => client.ready).then(() => undefined);
  }
  async #call(op, args = {}) {
    const client = await this.#client;
    return client.call(op, args);
  }
  /** @param {string} text */
  async send(text) {
    await this.#call("send", { text: String(text) });
  }
  save() {
    return this.#call("save");
  }
  async restore(snapshot) {
    await this.#call("restore", { snapshot: snapshot ?? null });
  }
  /** @param {() => void} listener */
  subscribe(listener) {
    const notify = () => listener();
    let unsubscribed = false;
    let remove = () => {};
    this.#client.then((client) => {
      if (unsubscribed) return;
      for (const type of CHANGES) client.addEventListener(type, notify);
      remove = () => {
        for (const type of CHANGES) client.removeEventListener(type, notify);
      };
    });
    return () => {
      unsubscribed = true;
      remove();
    };
  }
  getHistory() {
    return this.#call("getHistory");
  }
  async setHistory(messages) {
    await this.#call("setHistory", { messages });
  }
  async readSnapshot(value) {
    try {
      return (await this.#call("readSnapshot", { value })) ?? undefined;
    } catch {
      return undefined;
    }
  }
  async dispose() {
    await (await this.#client).dispose();
  }
}
