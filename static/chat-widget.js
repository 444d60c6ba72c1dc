// <chat-widget>: the one file a host page includes. The element renders; the controller
// (./client.js) talks to the worker, where the Python session decides.

import { WidgetClient } from "./client.js";
import { askApproval } from "./approval.js";
import { AttachmentTray } from "./attachments.js";
import { HistoryView } from "./history-view.js";
import { createRenderer } from "./markdown.js";
import { SessionHandle } from "./session-handle.js";
import { english, loadStrings } from "./strings.js";
import { Transcript } from "./transcript.js";

const STYLESHEET = new URL("./chat-widget.css", import.meta.url).href;
// `api` beside the script's `static/` folder, so a server mounted at /chat is found at /chat/api.
const DEFAULT_ENDPOINT = new URL("../api", import.meta.url).href;
const THINKING_LEVELS = ["off", "low", "medium", "high"];
const HISTORY_MODES = ["local", "memory", "off"];
const DEFAULT_MAX_ATTACHMENT_BYTES = 512 * 1024;

const ICONS = {
  clock: '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/></svg>',
  plus: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 5v14M5 12h14"/></svg>',
  back: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M15 5l-7 7 7 7"/></svg>',
  sliders: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 7h10M18 7h2M4 17h4M12 17h8"/><circle cx="16" cy="7" r="2"/><circle cx="10" cy="17" r="2"/></svg>',
  chat: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 5h16v11H9l-5 4z"/></svg>',
  close: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>',
  clip: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M20 11.5l-7.8 7.8a5 5 0 01-7.1-7.1l8.5-8.5a3.3 3.3 0 014.7 4.7l-8.5 8.5a1.7 1.7 0 01-2.4-2.4l7.8-7.8"/></svg>',
};

// Every string is marked with its key in the language tables (static/i18n/): `data-t` for the
// text, `data-t-label` for the accessible name (and tooltip), `data-t-placeholder`.
const TEMPLATE = `
<link rel="stylesheet" href="${STYLESHEET}">
<button type="button" class="launcher" part="launcher" data-t-label="open" aria-expanded="false" hidden>${ICONS.chat}</button>
<div class="chat" part="chat">
  <header part="header">
    <h2 class="title" data-t="title.new"></h2>
    <button type="button" class="icon options" data-t-label="options" aria-expanded="false" aria-controls="choices">${ICONS.sliders}</button>
    <div class="choices" id="choices">
      <select class="model" data-t-label="model"></select>
      <select class="thinking" data-t-label="thinking">
        ${THINKING_LEVELS.map((level) => `<option value="${level}" data-t="thinking.${level}"></option>`).join("")}
      </select>
    </div>
    <button type="button" class="icon history-button" data-t-label="history">${ICONS.clock}</button>
    <button type="button" class="icon new" data-t-label="new">${ICONS.plus}</button>
    <button type="button" class="icon close" data-t-label="close" hidden>${ICONS.close}</button>
  </header>
  <div class="loading" role="progressbar" data-t-label="loading"><span></span></div>
  <div class="alert" role="alert" hidden></div>
  <div class="transcript" role="log" data-t-label="conversation" part="transcript">
    <div class="greeting">
      <p data-t="greeting"></p>
      <div class="suggestions" hidden></div>
      <section class="recent" hidden>
        <h3 data-t="recent"></h3>
        <ul role="list" data-t-label="recent.list"></ul>
        <button type="button" class="all" data-t="recent.all"></button>
      </section>
    </div>
  </div>
  <form class="composer" part="composer">
    <ul class="files" data-t-label="files" hidden></ul>
    <div class="row">
      <button type="button" class="icon attach" data-t-label="attach">${ICONS.clip}</button>
      <input type="file" class="file-input" multiple hidden accept="image/*,text/*,.md,.json,.csv,.py,.js,.ts,.html,.css,.xml,.yaml,.yml">
      <textarea data-t-label="message" data-t-placeholder="message" rows="2"></textarea>
      <button type="submit" class="send" data-t="send"></button>
      <button type="button" class="stop" data-t="stop" hidden></button>
    </div>
  </form>
  <p class="offline" role="status" data-t="offline" hidden></p>
  <p class="usage" aria-live="polite"></p>
  <p class="announce" aria-live="polite"></p>
  <section class="history-page" data-t-label="history" hidden>
    <header>
      <button type="button" class="icon back" data-t-label="back">${ICONS.back}</button>
      <h2 data-t="history"></h2>
      <input type="search" class="search" data-t-label="search" data-t-placeholder="search.placeholder">
    </header>
    <ul class="conversations" role="list" data-t-label="conversations"></ul>
    <p class="empty-history" data-t="history.empty"></p>
    <footer>
      <p class="status" role="status"></p>
      <button type="button" class="export" data-t="export"></button>
      <button type="button" class="import" data-t="import"></button>
      <input type="file" class="import-file" accept=".json,application/json" hidden>
    </footer>
  </section>
</div>`;

/** Titles that differ from the accessible name (a tooltip says a little more). */
const TOOLTIPS = { options: "options.title", attach: "attach.title" };

/**
 * Puts the strings of `t` into everything marked in the template.
 * @param {ShadowRoot} root @param {import("./strings.js").Lookup} t
 */
function localize(root, t) {
  for (const node of root.querySelectorAll("[data-t]")) node.textContent = t(node.getAttribute("data-t") ?? "");
  for (const node of root.querySelectorAll("[data-t-label]")) {
    const key = node.getAttribute("data-t-label") ?? "";
    node.setAttribute("aria-label", t(key));
    if (node.tagName === "BUTTON") node.setAttribute("title", t(TOOLTIPS[key] ?? key));
  }
  for (const node of root.querySelectorAll("[data-t-placeholder]")) {
    node.setAttribute("placeholder", t(node.getAttribute("data-t-placeholder") ?? ""));
  }
}

/**
 * Served from the page's own origin, the widget registers its service worker so that, after
 * one visit, the page, the widget and the runtime load offline. Embedded from another origin
 * it does not (a service worker may only serve its own origin).
 */
function keepForOffline() {
  const script = new URL("./service-worker.js", import.meta.url);
  if (script.origin !== location.origin || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(script, { scope: new URL("../", script).pathname }).catch((error) => {
    console.warn(`Chatkeep: offline use is not available here (${error.message}).`);
  });
}

/**
 * A start-up snapshot as plain data for the worker; one that is not (a function, a cycle)
 * is unreadable: a new conversation opens, with a warning.
 * @param {unknown} value
 */
function plainOrWarn(value) {
  if (value === null || value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    console.warn("Chatkeep: the start-up snapshot could not be read; a new conversation opens.");
    return null;
  }
}

/**
 * The model picker's options, grouped by provider when the server has several: the group is
 * the provider, each option the model's own name.
 * @param {{id: string, provider?: string}[]} offered
 */
function modelOptions(offered) {
  const groups = new Map();
  for (const { id, provider } of offered) {
    if (!groups.has(provider)) groups.set(provider, []);
    const name = provider && id.startsWith(`${provider}/`) ? id.slice(provider.length + 1) : id;
    groups.get(provider).push(new Option(name, id));
  }
  if (groups.size === 1 && groups.has(undefined)) return groups.get(undefined);
  return [...groups].map(([provider, options]) => {
    const group = document.createElement("optgroup");
    group.label = provider ?? "other";
    group.append(...options);
    return group;
  });
}

/**
 * A promise with its resolve and reject, for `ready` before the element is connected.
 * @returns {{promise: Promise<any>, resolve: (value: any) => void, reject: (error: any) => void}}
 */
function deferred() {
  let resolve, reject;
  const promise = new Promise((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

/** @typedef {import("./chat-widget.js").ChatWidget} ChatWidgetType as declared in chat-widget.d.ts */

/** @implements {ChatWidgetType} checked by tsc against the declaration */
export class ChatWidget extends HTMLElement {
  static define(tag = "chat-widget", registry = customElements) {
    if (!registry.get(tag)) registry.define(tag, this);
    return this;
  }

  /** @type {WidgetClient | null} */
  client = null;
  /** @type {SessionHandle} */
  session;
  #historyStore = null;
  /** @type {object | string | null} */
  #startupSnapshot = null;
  /** @type {string | null} */
  #token = null;
  /** @type {string[] | null} */
  #suggestions = null;
  #conversationId = "";
  #root;
  #started = deferred();
  #pendingTools = [];
  #elements;
  #transcript;
  #historyView;
  #disposed = false;
  #tray;
  /** @type {Promise<void>} settles once answers can be drawn as Markdown */
  #rendering = Promise.resolve();
  /** @type {import("./strings.js").Translate} the strings of the widget's language */
  #t = english;
  /** @type {Promise<void>} settles once the language's strings are in place */
  #localized = Promise.resolve();

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    this.#root.innerHTML = TEMPLATE;
    localize(this.#root, english);
    const $ = (selector) => /** @type {any} */ (this.#root.querySelector(selector));
    this.#elements = {
      title: $(".title"),
      loading: $(".loading"),
      alert: $(".alert"),
      log: $(".transcript"),
      greeting: $(".greeting"),
      recent: $(".recent"),
      form: $(".composer"),
      message: $("textarea"),
      send: $(".send"),
      stop: $(".stop"),
      model: $(".model"),
      thinking: $(".thinking"),
      usage: $(".usage"),
      offline: $(".offline"),
      suggestions: $(".suggestions"),
      announce: $(".announce"),
      launcher: $(".launcher"),
      close: $(".close"),
      chat: $(".chat"),
    };
    this.#historyView = new HistoryView(this.#root, {
      t: (key, values) => this.#t(key, values),
      open: (conversationId) => this.#act("open", { conversationId }),
      forget: (conversationId) => this.#act("forget", { conversationId }),
      rename: (conversationId, title) => this.#act("rename", { conversationId, title }),
      exportAll: () => this.#act("exportAll", {}),
      importAll: (text) => this.#act("importAll", { text }),
      search: (query) => this.#act("search", { query }),
      alert: (text) => this.#showAlert(text),
    });
    this.#tray = new AttachmentTray(this.#root, {
      t: (key, values) => this.#t(key, values),
      limit: () => this.maxAttachmentBytes,
      alert: (text) => (text ? this.#showAlert(text) : this.#clearAlert()),
    });
    this.session = new SessionHandle(this.#started.promise);
    // A page may set properties before this class is defined: take them over.
    for (const name of ["historyStore", "snapshot", "token", "suggestions"]) {
      if (Object.prototype.hasOwnProperty.call(this, name)) {
        const value = this[name];
        delete this[name];
        this[name] = value;
      }
    }
  }

  /**
   * The conversation to open at start-up, set before the element is connected: a snapshot
   * (object or JSON text), read tolerantly; an unreadable one opens a new conversation.
   */
  get snapshot() {
    return this.#startupSnapshot;
  }

  set snapshot(value) {
    this.#startupSnapshot = value ?? null;
  }

  /**
   * A client token from the host's backend (`chatkeep.sign_client_token`), sent with every
   * API call when the server requires one; the `token` attribute, or set before connecting.
   */
  get token() {
    return this.#token ?? this.getAttribute("token");
  }

  set token(value) {
    this.#token = value ?? null;
  }

  /** Questions offered as buttons on an empty chat; also the `suggestions` attribute (JSON). */
  get suggestions() {
    if (this.#suggestions) return this.#suggestions;
    try {
      const parsed = JSON.parse(this.getAttribute("suggestions") ?? "[]");
      return Array.isArray(parsed) ? parsed.filter((item) => typeof item === "string") : [];
    } catch {
      return [];
    }
  }

  set suggestions(value) {
    this.#suggestions = Array.isArray(value) ? value.map(String) : null;
    if (this.client) this.#renderLists();
  }

  /** A host-owned history store; assign it before the element is connected. */
  get historyStore() {
    return this.#historyStore;
  }

  set historyStore(store) {
    this.#historyStore = store;
  }

  /** How much the files attached to one message may weigh together. */
  get maxAttachmentBytes() {
    const value = Number.parseInt(this.getAttribute("max-attachment-bytes") ?? "", 10);
    return value > 0 ? value : DEFAULT_MAX_ATTACHMENT_BYTES;
  }

  get endpoint() {
    return this.getAttribute("endpoint") || DEFAULT_ENDPOINT;
  }

  connectedCallback() {
    if (this.client || this.#disposed) return;
    const historyAttribute = this.getAttribute("history") ?? "memory";
    /** @type {import("./client.js").ClientConfig} */
    const config = {
      endpoint: this.endpoint,
      model: this.getAttribute("model"),
      instructions: this.getAttribute("instructions"),
      history: this.historyStore ? "host" : HISTORY_MODES.includes(historyAttribute) ? /** @type {any} */ (historyAttribute) : "memory",
      prefix: this.getAttribute("storage-prefix") || "chatkeep",
      maxConversations: Math.max(1, Number.parseInt(this.getAttribute("max-conversations") ?? "20", 10) || 20),
      generateTitle: this.hasAttribute("generate-title"),
      snapshot: plainOrWarn(this.#startupSnapshot),
      token: this.token,
    };
    const imageHosts = (this.getAttribute("image-hosts") ?? "").split(/[\s,]+/).filter(Boolean);
    // Until Markdown has loaded (long before the runtime has), text would show as typed.
    let render = (/** @type {HTMLElement} */ target, /** @type {string} */ text) => void (target.textContent = text);
    this.#rendering = createRenderer({ imageHosts, copyLabel: () => this.#t("copy") })
      .then((markdown) => void (render = markdown));
    // The language: the element's `lang`, else the page's, else English.
    const lang = this.getAttribute("lang") || document.documentElement.lang || "en";
    this.#localized = loadStrings(lang).then((t) => {
      this.#t = t;
      localize(this.#root, t);
    });
    this.#transcript = new Transcript(
      this.#elements.log,
      (target, text) => render(target, text),
      () => this.#followAnswer(),
      (key, values) => this.#t(key, values),
      (text) => this.#t.message(text),
    );
    this.client = new WidgetClient(config, () => this.historyStore);
    for (const [tool, registration] of this.#pendingTools) registration.unregister = this.client.registerTool(tool);
    this.#pendingTools = [];
    /** @type {HTMLElement} */ (this.#root.querySelector(".history-button")).hidden = config.history === "off";
    this.#wire(this.client);
    this.#started.resolve(this.client);
    keepForOffline();
  }

  disconnectedCallback() {
    // Moving the element within the page disconnects and reconnects it: only a removal ends it.
    queueMicrotask(() => {
      if (!this.isConnected && this.client && !this.#disposed) {
        this.#disposed = true;
        this.client.dispose().catch(() => {});
      }
    });
  }

  /** @param {import("./client.js").ToolDefinition} tool */
  registerTool(tool) {
    if (this.client) return this.client.registerTool(tool);
    const registration = { unregister: () => {} };
    this.#pendingTools.push([tool, registration]);
    return () => {
      this.#pendingTools = this.#pendingTools.filter(([, r]) => r !== registration);
      registration.unregister();
    };
  }

  /** @param {WidgetClient} client */
  #wire(client) {
    const { form, message, send, stop, model, thinking, log, recent } = this.#elements;
    client.addEventListener("meta", () => {
      this.#renderMeta();
      if (client.state.id !== this.#conversationId) {
        this.#conversationId = client.state.id;
        this.#announceEvent("chatkeep-conversation", { id: client.state.id, title: client.state.title });
      }
    });
    client.addEventListener("messages", (event) => {
      const { at, add, turn } = /** @type {CustomEvent} */ (event).detail;
      this.#transcript.messagesChanged(client.state.messages, at);
      this.#renderLists(); // the live conversation may have become (or stopped being) empty
      // Each message a turn settles is news for the host; opening a conversation is not.
      if (turn) for (const message of add) this.#announceEvent("chatkeep-message", structuredClone(message));
    });
    client.addEventListener("draft", () => this.#transcript.draftChanged(client.draft));
    client.addEventListener("history", () => this.#renderLists());
    client.addEventListener("alert", (event) => this.#showAlert(/** @type {CustomEvent} */ (event).detail));
    this.#elements.suggestions.addEventListener("click", (event) => {
      const choice = /** @type {HTMLElement} */ (event.target).closest("button");
      if (choice?.textContent) this.#act("send", { text: choice.textContent });
    });
    this.#wireLauncher();
    // On a narrow widget the pickers live behind "Options", so the title keeps the room.
    const options = /** @type {HTMLElement} */ (this.#root.querySelector(".options"));
    const choices = /** @type {HTMLElement} */ (this.#root.querySelector(".choices"));
    options.addEventListener("click", () => {
      const open = !choices.classList.contains("open");
      choices.classList.toggle("open", open);
      options.setAttribute("aria-expanded", String(open));
      if (open) this.#elements.model.focus();
    });
    choices.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
      if (event.key === "Escape" && choices.classList.contains("open")) {
        event.preventDefault(); // the menu closes first, then (again) the launcher
        choices.classList.remove("open");
        options.setAttribute("aria-expanded", "false");
        options.focus();
      }
    });
    // Offline, history stays readable; sending waits for the network, and says so.
    const connectivity = () => this.client && this.#renderMeta();
    addEventListener("online", connectivity);
    addEventListener("offline", connectivity);
    Promise.all([client.ready, this.#rendering, this.#localized]).then(
      () => {
        this.#elements.loading.remove();
        this.#renderMeta();
        this.#renderLists();
        this.#announceEvent("chatkeep-ready", {});
      },
      (error) => {
        this.#elements.loading.remove();
        this.#showAlert(error.message);
      },
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#sendDraft();
    });
    message.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.#sendDraft();
      }
    });
    send.disabled = true;
    stop.addEventListener("click", () => this.#act("stop", {}));
    model.addEventListener("change", () => this.#act("setModel", { model: model.value }));
    thinking.addEventListener("change", () => this.#act("setThinking", { level: thinking.value }));
    this.#root.querySelector(".new").addEventListener("click", () => this.#act("restore", { snapshot: null }));
    this.#root.querySelector(".history-button").addEventListener("click", () => this.#historyView.show());
    recent.querySelector(".all").addEventListener("click", () => this.#historyView.show());
    client.approve = (call, signal) => askApproval(this.#elements.log, call, signal, this.#t);
    recent.addEventListener("click", (event) => {
      const row = /** @type {HTMLElement} */ (event.target).closest("button[data-id]");
      if (row) this.#act("open", { conversationId: row.getAttribute("data-id") });
    });
    log.addEventListener("click", (event) => {
      const answer = /** @type {HTMLElement} */ (event.target).closest("button.copy-answer");
      if (answer) {
        const index = Number(answer.getAttribute("data-index"));
        const text = client.state.messages[index]?.content ?? "";
        navigator.clipboard?.writeText(text).then(
          () => this.#announce(this.#t("copied")),
          () => this.#showAlert(this.#t("copy.denied")),
        );
        return;
      }
      const copy = /** @type {HTMLElement} */ (event.target).closest("button.copy");
      if (copy) {
        const code = copy.closest(".code")?.querySelector("code")?.textContent ?? "";
        navigator.clipboard?.writeText(code).then(
          () => {
            copy.classList.add("copied");
            setTimeout(() => copy.classList.remove("copied"), 1500);
          },
          () => this.#showAlert(this.#t("copy.denied")),
        );
        return;
      }
      const target = /** @type {HTMLElement} */ (event.target).closest("button[data-action]");
      const index = Number(target?.getAttribute("data-index"));
      const action = target?.getAttribute("data-action");
      if (action === "retry") this.#act("retry", { index });
      if (action === "edit") this.#startEditing(index);
      if (action === "previous-version" || action === "next-version") {
        this.#act("showVersion", { index, version: Number(target?.getAttribute("data-version")) });
      }
      if (target?.getAttribute("data-action") === "fork") {
        this.#act("fork", { index }).then((text) => {
          if (typeof text === "string") {
            message.value = text;
            message.focus();
          }
        });
      }
    });
  }

  /**
   * "Edit": the message becomes a text field; Enter sends it again (the answers after it are
   * replaced, the earlier version kept), Escape leaves it as it was.
   * @param {number} index
   */
  #startEditing(index) {
    const client = /** @type {WidgetClient} */ (this.client);
    const article = this.#elements.log.querySelector(`article[data-role=user][data-index="${index}"]`);
    const body = article?.querySelector(".body");
    if (!article || !body || client.state.busy) return;
    const field = document.createElement("textarea");
    field.className = "edit-field";
    field.setAttribute("aria-label", this.#t("edit.field"));
    field.value = client.state.messages[index]?.content ?? "";
    field.rows = Math.min(8, field.value.split("\n").length + 1);
    body.replaceWith(field);
    field.focus();
    field.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        field.replaceWith(body);
      } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        const text = field.value.trim();
        if (text) this.#act("edit", { index, text });
        else field.replaceWith(body);
      }
    });
  }

  /** Runs an operation in the session, showing a refusal as an alert. */
  async #act(op, args) {
    this.#clearAlert();
    try {
      return await /** @type {WidgetClient} */ (this.client).call(op, args);
    } catch (error) {
      this.#showAlert(error.message);
      return undefined;
    }
  }

  #sendDraft() {
    const text = this.#elements.message.value.trim();
    if ((!text && !this.#tray.count) || this.#elements.send.disabled) return;
    const attachments = this.#tray.take();
    this.#elements.message.value = "";
    this.#act("send", { text, attachments });
  }

  /** Title, pickers, send or stop, usage: everything `meta` holds. */
  #renderMeta() {
    const { state } = /** @type {WidgetClient} */ (this.client);
    const { title, send, stop, thinking, model, usage, offline } = this.#elements;
    title.textContent = state.title || this.#t("title.new");
    offline.hidden = navigator.onLine;
    send.disabled = state.busy || !navigator.onLine;
    send.hidden = state.busy;
    stop.hidden = !state.busy;
    // While an answer is written, a person's messages offer no edit, fork or retry.
    this.#elements.log.toggleAttribute("data-busy", state.busy);
    thinking.value = state.thinking;
    const offered = state.models.length ? state.models : [{ id: state.model || "default" }];
    const signature = offered.map((m) => m.id).join("\n");
    if (model.dataset.offered !== signature) {
      model.dataset.offered = signature;
      model.replaceChildren(...modelOptions(offered));
    }
    model.value = state.model || offered[0].id;
    usage.textContent = state.usage
      ? this.#t("usage", { in: state.usage.prompt_tokens ?? 0, out: state.usage.completion_tokens ?? 0 })
      : "";
    this.#renderLists();
  }

  /** Keeps the view at the newest message while an answer streams. */
  #followAnswer() {
    const { state, draft } = /** @type {WidgetClient} */ (this.client);
    if (draft || state.busy) this.#elements.log.scrollTop = this.#elements.log.scrollHeight;
  }

  /**
   * Every list of conversations on the page (the recent three, the history page) drawn from
   * one source, the client's history and the live conversation's id, after every change.
   */
  #renderLists() {
    const client = /** @type {WidgetClient} */ (this.client);
    const { state, history } = client;
    this.#elements.greeting.hidden = state.messages.length > 0 || state.busy;
    const offered = this.suggestions;
    const { suggestions } = this.#elements;
    if (suggestions.dataset.offered !== offered.join("\n")) {
      suggestions.dataset.offered = offered.join("\n");
      suggestions.replaceChildren(...offered.map((text) => {
        const choice = document.createElement("button");
        choice.type = "button";
        choice.textContent = text;
        return choice;
      }));
    }
    suggestions.hidden = offered.length === 0;
    this.#historyView.render(history, state.id);
    const { recent } = this.#elements;
    const list = recent.querySelector("ul");
    const newest = history.filter((entry) => entry.id !== state.id).slice(0, 3);
    const signature = newest.map((entry) => `${entry.id}\u0000${entry.title}`).join("\u0001");
    if (list.dataset.signature !== signature) {
      list.dataset.signature = signature;
      list.replaceChildren(
        ...newest.map((entry) => {
          const item = document.createElement("li");
          const open = document.createElement("button");
          open.type = "button";
          open.dataset.id = entry.id;
          open.textContent = entry.title || this.#t("untitled");
          item.append(open);
          return item;
        }),
      );
    }
    recent.hidden = newest.length === 0;
  }

  /** Shows `text` (in the widget's language when it is one of Python's or the server's). */
  #showAlert(text) {
    const shown = this.#t.message(text);
    this.#elements.alert.textContent = shown;
    this.#elements.alert.hidden = false;
    this.#announceEvent("chatkeep-error", { message: shown });
  }

  /** A DOM event on the element that bubbles and crosses the shadow boundary. */
  #announceEvent(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  /** A short message for screen readers (and a glance), gone after a moment. */
  #announce(text) {
    const { announce } = this.#elements;
    announce.textContent = text;
    clearTimeout(this.#announceTimer);
    this.#announceTimer = setTimeout(() => (announce.textContent = ""), 2000);
  }

  #announceTimer = 0;

  /** `mode="launcher"`: a floating button opens the chat as a panel; open or closed survives a reload. */
  #wireLauncher() {
    if (this.getAttribute("mode") !== "launcher") return;
    const { launcher, close, message } = this.#elements;
    const key = `${this.getAttribute("storage-prefix") || "chatkeep"}:launcher-open`;
    const setOpen = (open, focus = true) => {
      this.toggleAttribute("open", open);
      launcher.setAttribute("aria-expanded", String(open));
      launcher.hidden = open;
      try {
        localStorage.setItem(key, open ? "1" : "0");
      } catch {
        // a full or blocked storage only forgets whether the panel was open
      }
      if (focus) (open ? message : launcher).focus();
    };
    launcher.hidden = false;
    close.hidden = false;
    launcher.addEventListener("click", () => setOpen(true));
    close.addEventListener("click", () => setOpen(false));
    this.#elements.chat.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.hasAttribute("open") && !event.defaultPrevented) setOpen(false);
    });
    let wasOpen = false;
    try {
      wasOpen = localStorage.getItem(key) === "1";
    } catch {
      wasOpen = false;
    }
    setOpen(wasOpen, false);
  }

  #clearAlert() {
    this.#elements.alert.hidden = true;
    this.#elements.alert.textContent = "";
  }
}

ChatWidget.define();
