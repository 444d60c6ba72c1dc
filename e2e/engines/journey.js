// The cross-engine journey's steps, run inside the page by whichever driver drives the
// engine (Playwright, puppeteer over WebDriver BiDi, Selenium over WebDriver): the same code
// in every engine, reading the page through the element's public API and its shadow root.
// Evaluated as a script after each navigation; defines `globalThis.journey`.
globalThis.journey = {
  widget: () => document.querySelector("chat-widget"),
  root() { return this.widget().shadowRoot; },

  /** Until `test()` is true (every 10 ms), or fail saying `what`. */
  async until(test, what, ms = 30_000) {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  },

  /** `promise`, or fail saying `what` after `ms`. */
  within(promise, what, ms = 60_000) {
    let timer;
    const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms); });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  },

  /** Errors from here on: script errors and what the page logs as one. */
  watchErrors() {
    if (window.__errors) return true;
    window.__errors = [];
    addEventListener("error", (event) => window.__errors.push(String(event.message)));
    addEventListener("unhandledrejection", (event) => window.__errors.push(String(event.reason)));
    const logged = console.error.bind(console);
    console.error = (...args) => { window.__errors.push(args.join(" ")); logged(...args); };
    return true;
  },

  async ready() {
    this.watchErrors();
    await this.within(customElements.whenDefined("chat-widget"), "the element to be defined");
    await this.within(this.widget().session.ready, "the widget to be ready");
    return true;
  },

  async openLauncher() {
    this.watchErrors();
    await this.within(customElements.whenDefined("chat-widget"), "the element to be defined");
    this.root().querySelector(".launcher").click();
    await this.within(this.widget().session.ready, "the launcher's chat to be ready");
    return this.widget().hasAttribute("open");
  },

  /** Types `text` into the composer and presses Send; the answer, and whether it streamed. */
  async send(text) {
    const session = this.widget().session;
    const before = session.messages.length;
    const field = this.root().querySelector(".composer textarea");
    field.value = text;
    field.dispatchEvent(new Event("input", { bubbles: true }));
    this.root().querySelector(".composer .send").click();
    let streamed = false;
    await this.until(() => {
      if (session.draft?.content) streamed = true;
      return !session.busy && session.messages.length >= before + 2;
    }, "the answer");
    const shown = [...this.root().querySelectorAll("article[data-role=assistant]")].at(-1);
    return { answer: session.messages.at(-1)?.content ?? "", streamed, shown: shown?.textContent ?? "" };
  },

  /** The kept conversations a reloaded widget lists on its greeting ("Recent"). */
  async recent() {
    await this.until(() => this.root().querySelectorAll(".recent button[data-id]").length > 0, "the recent list");
    return [...this.root().querySelectorAll(".recent button[data-id]")].map((button) => button.textContent);
  },

  transcript() {
    return this.root().querySelector(".transcript").textContent;
  },

  /** A new conversation, then the one titled `title` opened again from the history page. */
  async reopen(title) {
    const session = this.widget().session;
    this.root().querySelector(".new").click();
    await this.until(() => session.messages.length === 0, "a new conversation");
    this.root().querySelector(".history-button").click();
    await this.until(() => [...this.root().querySelectorAll(".conversations li")].length > 0, "the history list");
    const open = [...this.root().querySelectorAll(".conversations li button")]
      .find((button) => button.textContent.includes(title));
    if (!open) throw new Error(`no conversation titled "${title}" in the history`);
    open.click();
    await this.until(() => this.transcript().includes(title), "the conversation reopened");
    return this.transcript();
  },

  /** Until this origin keeps Python's memory snapshot (static/snapshot-store.js): true once kept. */
  async snapshotKept() {
    return this.widget().session.snapshotKept();
  },

  startedFromSnapshot() {
    return this.widget().session.startedFromSnapshot;
  },

  errors() {
    return window.__errors ?? [];
  },
};
