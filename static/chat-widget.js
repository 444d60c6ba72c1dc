// <chat-widget>: the one file a host page includes. The element renders and takes input;
// the controller (./client.js) talks to the worker, where the Python session decides.

import { WidgetClient, configFrom } from "./client.js";
import { askApproval } from "./approval.js";
import { AttachmentTray } from "./attachments.js";
import { showGreeting, wireGreeting } from "./greeting.js";
import { HistoryView } from "./history-view.js";
import { Launcher } from "./launcher.js";
import { createRenderer } from "./markdown.js";
import { showChoices, wireOptionsMenu } from "./pickers.js";
import { EVENT } from "./protocol.js";
import { SessionHandle } from "./session-handle.js";
import { english, loadStrings } from "./strings.js";
import { TEMPLATE, localize } from "./template.js";
import { MessageActionEvent, Transcript } from "./transcript.js";
import { keepForOffline } from "./offline.js";

// `api` beside the script's `static/` folder, so a server mounted at /chat is found at /chat/api.
const DEFAULT_ENDPOINT = new URL("../api", import.meta.url).href;
const DEFAULT_MAX_ATTACHMENT_BYTES = 512 * 1024;

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
  /** makes `session` answer, once the element is connected */
  #connectSession;
  #pendingTools = [];
  #elements;
  #transcript;
  #historyView;
  #disposed = false;
  #tray;
  /** aborts the listeners on `window` when the element leaves the page */
  #connection = new AbortController();
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
      title: $(".title"), loading: $(".loading"), alert: $(".alert"), log: $(".transcript"),
      greeting: $(".greeting"), recent: $(".recent"), form: $(".composer"), message: $("textarea"),
      send: $(".send"), stop: $(".stop"), model: $(".model"), thinking: $(".thinking"),
      usage: $(".usage"), offline: $(".offline"), suggestions: $(".suggestions"),
      announce: $(".announce"), launcher: $(".launcher"), close: $(".close"), chat: $(".chat"),
      options: $(".options"), choices: $(".choices"), historyButton: $(".history-button"),
      newConversation: $(".new"),
    };
    const t = (key, values) => this.#t(key, values);
    this.#historyView = new HistoryView(this.#root, {
      t,
      open: (conversationId) => this.#act("open", { conversationId }),
      forget: (conversationId) => this.#act("forget", { conversationId }),
      rename: (conversationId, title) => this.#act("rename", { conversationId, title }),
      exportAll: () => this.#act("exportAll", {}),
      importAll: (text) => this.#act("importAll", { text }),
      search: (query) => this.#act("search", { query }),
      alert: (text) => this.#showAlert(text),
    });
    this.#tray = new AttachmentTray(this.#root, {
      t,
      limit: () => this.maxAttachmentBytes,
      alert: (text) => (text ? this.#showAlert(text) : this.#clearAlert()),
    });
    ({ session: this.session, connect: this.#connectSession } = SessionHandle.pending());
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
    this.#listenToWindow();
    if (this.client || this.#disposed) return;
    const config = configFrom(this);
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
    this.#elements.historyButton.hidden = config.history === "off";
    this.#wire(this.client);
    this.#connectSession(this.client);
    keepForOffline();
  }

  disconnectedCallback() {
    this.#connection.abort();
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

  /** Offline, history stays readable; sending waits for the network, and says so. */
  #listenToWindow() {
    this.#connection.abort();
    this.#connection = new AbortController();
    const connectivity = () => this.client && this.#renderMeta();
    const { signal } = this.#connection;
    addEventListener("online", connectivity, { signal });
    addEventListener("offline", connectivity, { signal });
  }

  /** @param {WidgetClient} client */
  #wire(client) {
    const { form, message, send, stop, model, thinking, log } = this.#elements;
    client.addEventListener(EVENT.meta, () => {
      this.#renderMeta();
      if (client.state.id !== this.#conversationId) {
        this.#conversationId = client.state.id;
        this.#announceEvent("chatkeep-conversation", { id: client.state.id, title: client.state.title });
      }
    });
    client.addEventListener(EVENT.messages, (event) => {
      const { at, add, turn } = /** @type {CustomEvent} */ (event).detail;
      this.#transcript.messagesChanged(client.state.messages, at);
      this.#renderLists(); // the live conversation may have become (or stopped being) empty
      // Each message a turn settles is news for the host; opening a conversation is not.
      if (turn) for (const added of add) this.#announceEvent("chatkeep-message", structuredClone(added));
    });
    client.addEventListener(EVENT.draft, () => this.#transcript.draftChanged(client.draft));
    client.addEventListener(EVENT.history, () => this.#renderLists());
    client.addEventListener(EVENT.alert, (event) => this.#showAlert(/** @type {CustomEvent} */ (event).detail));
    client.approve = (call, signal) => askApproval(log, call, signal, this.#t);
    if (this.getAttribute("mode") === "launcher") {
      new Launcher(this, this.#elements, this.getAttribute("storage-prefix") || "chatkeep");
    }
    wireOptionsMenu(this.#elements.options, this.#elements.choices, model);
    Promise.all([client.ready, this.#rendering, this.#localized]).then(
      () => {
        this.#elements.loading.remove();
        this.#renderMeta();
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
    this.#elements.newConversation.addEventListener("click", () => this.#act("restore", { snapshot: null }));
    this.#elements.historyButton.addEventListener("click", () => this.#historyView.show());
    wireGreeting(this.#elements, {
      open: (conversationId) => this.#act("open", { conversationId }),
      send: (text) => this.#act("send", { text }),
      showAll: () => this.#historyView.show(),
    });
    log.addEventListener(MessageActionEvent.type, (event) => this.#onMessageAction(/** @type {MessageActionEvent} */ (event)));
  }

  /** Carries out what a person pressed under a message. */
  async #onMessageAction({ action, index, version, text, source }) {
    const client = /** @type {WidgetClient} */ (this.client);
    const content = client.state.messages[index]?.content ?? "";
    if (action === "copy" || action === "copy-code") {
      navigator.clipboard?.writeText(action === "copy" ? content : text).then(
        () => {
          if (action === "copy") this.#announce(this.#t("copied"));
          source?.classList.add("copied");
          setTimeout(() => source?.classList.remove("copied"), 1500);
        },
        () => this.#showAlert(this.#t("copy.denied")),
      );
    } else if (action === "retry") {
      this.#act("retry", { index });
    } else if (action === "version") {
      this.#act("showVersion", { index, version });
    } else if (action === "edit" && !client.state.busy) {
      const edited = await this.#transcript.editInPlace(index, content, this.#t("edit.field"));
      if (edited) this.#act("edit", { index, text: edited });
    } else if (action === "fork") {
      const forked = await this.#act("fork", { index });
      if (typeof forked === "string") {
        this.#elements.message.value = forked;
        this.#elements.message.focus();
      }
    }
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
    const { title, send, stop, thinking, model, usage, offline, log } = this.#elements;
    title.textContent = state.title || this.#t("title.new");
    offline.hidden = navigator.onLine;
    send.disabled = state.busy || !navigator.onLine;
    send.hidden = state.busy;
    stop.hidden = !state.busy;
    // While an answer is written, a person's messages offer no edit, fork or retry.
    log.toggleAttribute("data-busy", state.busy);
    showChoices(model, thinking, state);
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
    const { state, history } = /** @type {WidgetClient} */ (this.client);
    this.#elements.greeting.hidden = state.messages.length > 0 || state.busy;
    showGreeting(this.#elements, {
      suggestions: this.suggestions, history, liveId: state.id, untitled: this.#t("untitled"),
    });
    this.#historyView.render(history, state.id);
  }

  /** Shows `text` (in the widget's language when it is one of Python's or the server's). */
  #showAlert(text) {
    const shown = this.#t.message(text);
    this.#elements.alert.textContent = shown;
    this.#elements.alert.hidden = false;
    this.#announceEvent("chatkeep-error", { message: shown });
  }

  #clearAlert() {
    this.#elements.alert.hidden = true;
    this.#elements.alert.textContent = "";
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
}

ChatWidget.define();
