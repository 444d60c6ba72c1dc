// <chat-widget>: the one file a host page includes. The element holds the attributes, the
// lifecycle and the host API; the view (./chat-view.js) renders and takes input; the
// controller (./client.js) talks to the worker, where the Python session decides.

import { ChatView } from "./chat-view.js";
import { WidgetClient } from "./client.js";
import { Consent } from "./consent.js";
import { keepForOffline } from "./offline.js";
import { SessionHandle } from "./session-handle.js";
import * as settings from "./settings.js";
import { SYNC_KEY_CHANGED, takeSyncLink } from "./sync-link.js";
import { TEMPLATE } from "./template.js";
import { followWebMcp } from "./webmcp.js";
// Every module the ones above import, named here too: the browser asks for all of them at
// once instead of level by level, so a page waits one round trip for the element, not four.
import "./answer-parts.js";
import "./approval.js";
import "./attachments.js";
import "./codec.js";
import "./consent.js";
import "./context-meter.js";
import "./composer.js";
import "./dictation.js";
import "./downscale.js";
import "./draft.js";
import "./greeting.js";
import "./header.js";
import "./history-view.js";
import "./host-tools.js";
import "./i18n/en.js";
import "./launcher.js";
import "./list-changes.js";
import "./markdown.js";
import "./math.js";
import "./message-actions.js";
import "./module-worker.js";
import "./notices.js";
import "./pdf-reader.js";
import "./prepare-file.js";
import "./progress.js";
import "./protocol.js";
import "./read-aloud.js";
import "./refusals.js";
import "./rpc.js";
import "./send-queue.js";
import "./server-tools.js";
import "./follow.js";
import "./served-from.js";
import "./settings.js";
import "./storage.js";
import "./stored.js";
import "./strings.js";
import "./transcript.js";
import "./ui-actions.js";
import "./worker-start.js";


/** @typedef {import("./chat-widget.js").ChatWidget} ChatWidgetType as declared in chat-widget.d.ts */

/** @implements {ChatWidgetType} checked by tsc against the declaration */
export class ChatWidget extends HTMLElement {
  /** Attributes whose change after connecting takes effect at once (the rest configure the start). */
  static observedAttributes = settings.LIVE_ATTRIBUTES;

  static define(tag = "chat-widget", registry = customElements) {
    if (!registry.get(tag)) registry.define(tag, this);
    return this;
  }

  /** @type {WidgetClient | null} */
  client = null;
  /** @type {SessionHandle} */
  session;
  #historyStore = null;
  /** @type {object | (() => object | Promise<object>) | null} */
  #pageContext = null;
  /** @type {Consent | null} */
  #consent = null;
  /** @type {string} the site's key for this person's synced history (`syncKey`) */
  #syncKey = "";
  /** @type {object | string | null} */
  #startupSnapshot = null;
  /** @type {string | null} */
  #token = null;
  /** @type {string[] | null} */
  #suggestions = null;
  #view;
  /** makes `session` answer, once the element is connected */
  #connectSession;
  #pendingTools = [];
  #disposed = false;
  /** stops offering the page's WebMCP tools (./webmcp.js) */
  #stopWebMcp = () => {};
  /** aborts the listeners on `window` when the element leaves the page */
  #connection = new AbortController();

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = TEMPLATE;
    this.#view = new ChatView(this, root);
    ({ session: this.session, connect: this.#connectSession } = SessionHandle.pending());
    // A page may set properties before this class is defined: take them over.
    for (const name of ["historyStore", "snapshot", "token", "suggestions", "pageContext", "syncKey"]) {
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
    return this.#suggestions ?? settings.suggestions(this);
  }

  set suggestions(value) {
    this.#suggestions = Array.isArray(value) ? value.map(String) : null;
    this.#view.renderLists();
  }

  /** A host-owned history store; assign it before the element is connected. */
  get historyStore() {
    return this.#historyStore;
  }

  set historyStore(store) {
    this.#historyStore = store;
  }

  /**
   * What the page says about itself to the model: an object, or a function returning one,
   * read at each message and sent after the operator's instructions; shown nowhere, never kept.
   */
  get pageContext() {
    return this.#pageContext;
  }

  /**
   * A site that signs people in gives each person's key (at least 32 characters, of at least
   * 16 different ones) with the `sync` attribute; `""` signs them out: synced history stops
   * and their synced conversations leave this browser.
   */
  get syncKey() {
    return this.#syncKey;
  }

  set syncKey(value) {
    const before = this.#syncKey;
    this.#syncKey = value == null ? "" : String(value);
    if (this.#syncKey !== before) this.dispatchEvent(new Event(SYNC_KEY_CHANGED));
  }

  set pageContext(value) {
    this.#pageContext = value ?? null;
  }

  /** How much the files attached to one message may weigh together. */
  get maxAttachmentBytes() {
    return settings.maxAttachmentBytes(this);
  }

  get endpoint() {
    return settings.endpoint(this);
  }

  /** `lang`, `model` and `suggestions` changed while running: shown at once. */
  attributeChangedCallback(/** @type {string} */ name, /** @type {string | null} */ before, /** @type {string | null} */ now) {
    if (!this.client || before === now) return;
    if (name === "lang") this.#view.setLanguage();
    else if (name === "suggestions") this.#view.renderLists();
    else if (name === "model" && now) this.client.call("setModel", { model: now }).catch(() => {}); // refused: an alert
  }

  connectedCallback() {
    this.#listenToWindow();
    if (this.client || this.#disposed) return;
    // Out of the address before anything boots; offered (asked first) once Python is ready.
    const syncLink = takeSyncLink();
    const config = settings.clientConfig(this);
    this.#consent = new Consent(this.getAttribute("consent") === "ask", config.prefix);
    this.#consent.addEventListener("change", () => {
      this.#view.renderLists();
      if (this.#consent?.granted && this.client?.started) keepForOffline();
    });
    this.client = new WidgetClient(config, () => this.historyStore, () => this.#pageContext, this.#consent);
    for (const [tool, registration] of this.#pendingTools) registration.unregister = this.client.registerTool(tool);
    this.#pendingTools = [];
    this.#stopWebMcp = followWebMcp((tool) => this.registerTool(tool)); // the page's WebMCP tools
    this.#view.connect(this.client, {
      historyOff: config.history === "off", pinnable: config.history !== "host", onOpen: () => this.#start(),
      syncLink,
      // Messages waiting to be sent are kept where the conversations are, in this browser.
      kept: { storage: () => (config.history === "local" ? this.#consent?.area() ?? null : null), key: `${config.prefix}:queue` },
    });
    this.#connectSession(this.client);
    // Inline, the chat shows at once; a launcher starts when opened, or now with `preload`.
    if (settings.mode(this) !== "launcher" || this.hasAttribute("preload")) this.#start();
  }

  /**
   * With `consent="ask"`: the person agreed to keep their conversations in this browser (what
   * was kept in memory is written now); the widget remembers the answer.
   */
  grantConsent() {
    this.#consent?.grant();
  }

  /** Forgets everything the widget kept in this page's storage, the consent too. */
  revokeConsent() {
    this.#consent?.revoke();
  }

  /** Whether the widget is still to ask before it keeps anything (`consent="ask"`). */
  get consentPending() {
    return this.#consent?.pending ?? this.getAttribute("consent") === "ask";
  }

  /** Opens the launcher's panel (and starts the runtime); nothing inline. */
  open() {
    this.#view.toggle(true);
  }

  /** Closes the launcher's panel; nothing inline. */
  close() {
    this.#view.toggle(false);
  }

  /** The chat shows: Python starts in its worker (once), Markdown loads, offline use begins. */
  #start() {
    if (!this.client) return;
    if (!this.client.started && this.#consent?.granted) keepForOffline();
    this.client.start();
    this.#view.show();
  }

  disconnectedCallback() {
    this.#connection.abort();
    // Moving the element within the page disconnects and reconnects it: only a removal ends it.
    queueMicrotask(() => {
      if (!this.isConnected && this.client && !this.#disposed) {
        this.#disposed = true;
        this.#stopWebMcp();
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
    const connectivity = () => this.#view.renderMeta();
    const { signal } = this.#connection;
    addEventListener("online", connectivity, { signal });
    addEventListener("offline", connectivity, { signal });
    // Back from a locked phone, a background tab or a dropped line: an answer being written
    // is caught up at once, from where it stopped (the server kept it).
    const back = () => document.visibilityState === "visible" && this.client?.wake();
    addEventListener("online", back, { signal });
    document.addEventListener("visibilitychange", back, { signal });
    document.addEventListener("resume", back, { signal });
  }
}

ChatWidget.define();
