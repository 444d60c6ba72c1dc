// The history page: every kept conversation, pinned ones first, then the newest, to open,
// pin, share, rename or forget.

/** @typedef {import("./client.js").HistoryEntry} HistoryEntry */

import { formatBytes } from "./attachments.js";
import { ICONS } from "./template.js";

const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
/** @type {Intl.DateTimeFormat | null} made when a date is first shown, not as the page loads */
let dateFormat = null;

export class HistoryView {
  #page;
  #list;
  #search;
  #empty;
  #actions;
  /** @type {HistoryEntry[]} */
  #entries = [];
  #liveId = "";
  /** @type {{query: string, ids: Set<string>}} what the session found for the last query */
  #found = { query: "", ids: new Set() };
  #searchTimer = 0;
  /** false when the host page's own store keeps the conversations (and orders them) */
  pinnable = true;
  /** true when the server keeps shared links ("Share" on each row) */
  shareable = false;
  #drawnShareable = false;
  /** @type {{id: string, action: string} | null} the button to focus once the list is redrawn */
  #refocus = null;

  /**
   * @param {ShadowRoot} root
   * @param {{open: (id: string) => unknown, forget: (id: string) => unknown,
   *   rename: (id: string, title: string) => unknown, exportAll: () => Promise<unknown>,
   *   pin: (id: string, pinned: boolean) => unknown, share: (id: string) => unknown,
   *   importAll: (text: string) => Promise<unknown>, alert: (text: string) => void,
   *   search: (query: string) => Promise<unknown>,
   *   t: import("./strings.js").Lookup}} actions
   */
  constructor(root, actions) {
    this.#page = /** @type {HTMLElement} */ (root.querySelector(".history-page"));
    this.#list = /** @type {HTMLElement} */ (this.#page.querySelector(".conversations"));
    this.#search = /** @type {HTMLInputElement} */ (this.#page.querySelector(".search"));
    this.#empty = /** @type {HTMLElement} */ (this.#page.querySelector(".empty-history"));
    this.#actions = actions;
    this.#page.querySelector(".back")?.addEventListener("click", () => this.hide());
    this.#search.addEventListener("input", () => {
      this.#draw(); // titles at once; message text as soon as the session has looked
      clearTimeout(this.#searchTimer);
      this.#searchTimer = setTimeout(() => this.#searchMessages(), 120);
    });
    this.#page.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !(event.target instanceof HTMLInputElement && event.target.classList.contains("rename-field"))) this.hide();
    });
    this.#list.addEventListener("click", (event) => this.#onClick(event));
    const importFile = /** @type {HTMLInputElement} */ (this.#page.querySelector(".import-file"));
    this.#page.querySelector(".export")?.addEventListener("click", () => this.#export());
    this.#page.querySelector(".import")?.addEventListener("click", () => importFile.click());
    importFile.addEventListener("change", () => {
      const [file] = importFile.files ?? [];
      importFile.value = "";
      if (file) this.#import(file);
    });
  }

  /** Downloads every kept conversation as one JSON file. */
  async #export() {
    const text = await this.#actions.exportAll();
    if (typeof text !== "string") return;
    const count = JSON.parse(text).conversations.length;
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    link.download = `chatkeep-history-${new Date().toISOString().slice(0, 10)}.json`;
    this.#page.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    this.#status(this.#actions.t("exported", { count }));
  }

  /** @param {File} file */
  async #import(file) {
    if (file.size > MAX_IMPORT_BYTES) {
      this.#actions.alert(this.#actions.t("import.too-large", {
        file: file.name, size: formatBytes(file.size), limit: formatBytes(MAX_IMPORT_BYTES),
      }));
      return;
    }
    const done = /** @type {{imported: number, skipped: number} | undefined} */ (await this.#actions.importAll(await file.text()));
    if (done && typeof done.imported === "number") {
      const { imported: count, skipped } = done;
      let said = this.#actions.t(count === 0 ? "imported.none" : "imported", { count });
      // What did not fit is named: an import never makes room by giving up what was kept.
      if (skipped > 0) said += ` ${this.#actions.t("import.skipped", { count: skipped })}`;
      this.#status(said);
    }
  }

  #status(text) {
    const status = this.#page.querySelector(".status");
    if (status) status.textContent = text;
  }

  show() {
    this.#page.hidden = false;
    this.#page.parentElement?.classList.add("history-open");
    this.#search.value = "";
    this.#draw();
    this.#search.focus();
  }

  hide() {
    this.#page.hidden = true;
    this.#page.parentElement?.classList.remove("history-open");
  }

  /** @param {HistoryEntry[]} entries @param {string} liveId */
  render(entries, liveId) {
    if (entries === this.#entries && liveId === this.#liveId && this.shareable === this.#drawnShareable) return;
    this.#drawnShareable = this.shareable;
    this.#entries = entries;
    this.#liveId = liveId;
    if (!this.#page.hidden) this.#draw();
  }

  /** Asks the session (in the worker) which conversations hold the words, then redraws. */
  async #searchMessages() {
    const query = this.#search.value.trim();
    if (!query) return;
    const ids = await this.#actions.search(query);
    if (Array.isArray(ids) && query === this.#search.value.trim()) {
      this.#found = { query, ids: new Set(ids) };
      this.#draw();
    }
  }

  #draw() {
    const typed = this.#search.value.trim();
    const query = typed.toLowerCase();
    const found = this.#found.query === typed ? this.#found.ids : new Set();
    const shown = this.#entries.filter(
      (entry) => !query || entry.title.toLowerCase().includes(query) || found.has(entry.id),
    );
    this.#list.replaceChildren(...shown.map((entry) => this.#row(entry)));
    if (this.#refocus) { // a pinned row moves: the focus goes with it
      const { id, action } = this.#refocus;
      const again = this.#list.querySelector(`li[data-id="${CSS.escape(id)}"] button[data-action="${action}"]`);
      if (again instanceof HTMLElement) {
        again.focus();
        this.#refocus = null;
      }
    }
    this.#empty.hidden = shown.length > 0;
    this.#empty.textContent = this.#actions.t(this.#entries.length ? "history.none" : "history.empty");
  }

  /** @param {HistoryEntry} entry */
  #row(entry) {
    const item = document.createElement("li");
    item.dataset.id = entry.id;
    if (entry.id === this.#liveId) item.setAttribute("aria-current", "true");
    const t = this.#actions.t;
    const open = button(entry.title || t("untitled"), "open");
    open.classList.add("open");
    if (entry.pinned) {
      item.classList.add("pinned");
      open.insertAdjacentHTML("afterbegin", ICONS.pin); // the words stay the button's name
    }
    const when = document.createElement("time");
    // Any stored time draws a row: one no Date can hold (a hostile import's 9e15) shows none.
    const date = new Date(entry.updated);
    if (entry.updated > 0 && Number.isFinite(date.getTime())) {
      when.dateTime = date.toISOString();
      when.textContent = formatDate(date);
    }
    item.append(open, when);
    if ((entry.shared ?? 0) * 1000 > Date.now()) { // a link still opens it (made here, or on another device)
      const mark = document.createElement("span");
      mark.className = "shared-mark";
      mark.textContent = t("shared");
      when.after(mark);
    }
    if (this.shareable) item.append(button(t("share"), "share"));
    if (this.pinnable) item.append(button(t(entry.pinned ? "unpin" : "pin"), entry.pinned ? "unpin" : "pin"));
    item.append(button(t("rename"), "rename"), button(t("forget"), "forget"));
    return item;
  }

  /** @param {MouseEvent} event */
  #onClick(event) {
    const target = /** @type {HTMLElement} */ (event.target).closest("button[data-action]");
    const item = target?.closest("li");
    const id = item?.dataset.id;
    if (!target || !item || !id) return;
    const action = target.getAttribute("data-action");
    if (action === "open") {
      this.hide();
      this.#actions.open(id);
    } else if (action === "share") {
      this.#actions.share(id);
    } else if (action === "forget") {
      this.#actions.forget(id);
    } else if (action === "pin" || action === "unpin") {
      this.#refocus = { id, action: action === "pin" ? "unpin" : "pin" };
      this.#actions.pin(id, action === "pin");
    } else if (action === "rename") {
      this.#startRename(item, id);
    }
  }

  #startRename(item, id) {
    const entry = this.#entries.find((e) => e.id === id);
    const field = document.createElement("input");
    field.className = "rename-field";
    field.value = entry?.title ?? "";
    field.setAttribute("aria-label", this.#actions.t("rename.field"));
    const open = item.querySelector("button.open");
    open?.replaceWith(field);
    field.focus();
    field.select();
    const finish = (save) => {
      field.removeEventListener("blur", onBlur);
      if (save && field.value.trim()) this.#actions.rename(id, field.value.trim());
      this.#draw();
    };
    const onBlur = () => finish(true);
    field.addEventListener("blur", onBlur);
    field.addEventListener("keydown", (event) => {
      if (event.key === "Enter") finish(true);
      if (event.key === "Escape") finish(false);
    });
  }
}

function button(label, action) {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = label;
  node.dataset.action = action;
  return node;
}

/**
 * The date as this browser's language writes it. Made on first use: the first date format a
 * page makes loads the browser's locale and time-zone data, which held the page's main thread
 * 30-80 ms as the element loaded, and with it a first visit's worker (WebKit and Chromium
 * start a worker only when the page's main thread is free).
 * @param {Date} date
 */
function formatDate(date) {
  dateFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  return dateFormat.format(date);
}
