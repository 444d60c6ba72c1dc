// The host API on `element.session`: available at once, answering once the runtime is ready.

/** @typedef {import("./client.js").WidgetClient} WidgetClient */

import { EVENT } from "./protocol.js";

/** The client's events that mean "the conversation changed". */
const CHANGES = [EVENT.meta, EVENT.messages, EVENT.draft];

/** @typedef {import("./chat-widget.js").ChatSession} ChatSession as declared in chat-widget.d.ts */

/**
 * The host API, available at once on `element.session`; it answers after `ready`.
 * @implements {ChatSession} checked by tsc against the declaration
 */
export class SessionHandle {
  #client;
  /** @type {WidgetClient | null} once the element is connected */
  #connected = null;
  /**
   * A handle that answers once `connect(client)` is called, as the element is connected.
   * @returns {{session: SessionHandle, connect: (client: WidgetClient) => void}}
   */
  static pending() {
    let connect = (/** @type {WidgetClient} */ _client) => {};
    const client = new Promise((resolve) => (connect = resolve));
    return { session: new SessionHandle(client), connect };
  }

  /** @param {Promise<WidgetClient>} client */
  constructor(client) {
    this.#client = client;
    client.then((connected) => (this.#connected = connected));
  }
  get ready() {
    return this.#client.then((client) => client.ready).then(() => undefined);
  }
  /** The open conversation's id ("" before ready). */
  get conversationId() {
    return this.#connected?.state.id ?? "";
  }
  /**
   * The settled messages as the widget shows them, read at once (a copy; `getHistory()`
   * asks Python itself).
   * @returns {import("./chat-widget.js").Message[]}
   */
  get messages() {
    return /** @type {any} */ (structuredClone(this.#connected?.state.messages ?? []));
  }
  /** True while an answer is being written (or tools run between answers). */
  get busy() {
    return this.#connected?.state.busy ?? false;
  }
  /**
   * The answer being written right now, as far as it has come; null when none is.
   * @returns {import("./chat-widget.js").Message | null}
   */
  get draft() {
    const draft = this.#connected?.draft;
    return draft ? /** @type {any} */ (structuredClone(draft)) : null;
  }
  /** True when the runtime started from the build's memory snapshot (the fast way). */
  get startedFromSnapshot() {
    return this.#connected?.fromSnapshot ?? false;
  }
  /**
   * Resolves true once this browser keeps the memory snapshot the next visit boots from (at
   * once when this one booted from it), false when it will not: no consent, or refused.
   */
  async snapshotKept() {
    return (await this.#client).snapshotKept();
  }
  /** Resolves once ready and no turn runs: at once when idle, else when the running one settles. */
  async settled() {
    await (await this.#client).settled();
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
