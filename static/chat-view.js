// What <chat-widget> shows, and what a person's input does: the view over the controller.
// The element (./chat-widget.js) keeps the attributes, the lifecycle and the host API.

import { askApproval } from "./approval.js";
import { endpoint, imageHosts, language, mode, pdfSeconds, storagePrefix } from "./settings.js";
import { Composer } from "./composer.js";
import { showContext } from "./context-meter.js";
import { prepareFile } from "./prepare-file.js";
import { showGreeting, wireGreeting } from "./greeting.js";
import { showMeta, wireOptionsMenu } from "./header.js";
import { HistoryView } from "./history-view.js";
import { Launcher } from "./launcher.js";
import { createRenderer } from "./markdown.js";
import { carryOut } from "./message-actions.js";
import { Notices } from "./notices.js";
import { SendQueue } from "./send-queue.js";
import { Follower } from "./follow.js";
import { fillSteadily } from "./progress.js";
import { EVENT } from "./protocol.js";
import { english, loadStrings } from "./strings.js";
import { localize } from "./template.js";
import { MessageActionEvent, Transcript } from "./transcript.js";
import { carryOutUi, presentingDrawer, uiDrawer } from "./ui-actions.js";

/** @typedef {import("./client.js").WidgetClient} WidgetClient */
/**
 * What the view needs of the element.
 * @typedef {HTMLElement & {suggestions: string[], maxAttachmentBytes: number, consentPending: boolean,
 *   grantConsent: () => void}} Host
 */

export class ChatView {
  #host;
  #root;
  #elements;
  #notices;
  #historyView;
  #composer;
  /** @type {Follower} */
  #follower;
  /** @type {SendQueue | null} messages written while an answer is */
  #queue = null;
  /** @type {Transcript | null} */
  #transcript = null;
  /** @type {WidgetClient | null} */
  #client = null;
  #conversationId = "";
  /** @type {Launcher | null} */
  #launcher = null;
  /** @type {import("./share-dialog.js").ShareDialog | null} */
  #shareDialog = null;
  /** @type {Promise<(target: HTMLElement, text: string) => void> | null} answers drawn as Markdown, once loaded */
  #rendering = null;
  /** @type {(render: (target: HTMLElement, text: string) => void) => void} */
  #rendered = () => {};
  /** whether the chat shows (inline, or a launcher opened once) */
  #showing = false;
  /** @type {import("./strings.js").Translate} the strings of the widget's language */
  #t = english;

  /** @param {Host} host @param {ShadowRoot} root  holding the template */
  constructor(host, root) {
    this.#host = host;
    this.#root = root;
    localize(root, english);
    const $ = (selector) => /** @type {any} */ (root.querySelector(selector));
    this.#elements = {
      title: $(".title"), loading: $(".loading"), log: $(".transcript"), greeting: $(".greeting"),
      recent: $(".recent"), model: $(".model"), thinking: $(".thinking"), usage: $(".usage"),
      offline: $(".offline"), suggestions: $(".suggestions"), launcher: $(".launcher"),
      close: $(".close"), chat: $(".chat"), options: $(".options"), choices: $(".choices"),
      historyButton: $(".history-button"), newConversation: $(".new"), download: $(".download"),
      consent: $(".consent"), jump: $(".jump"), queue: $(".queue"), meter: $(".context"),
      contextFull: $(".context-full"), allowed: $(".allowed"), share: $("header .share"),
    };
    this.#elements.consent.addEventListener("click", () => host.grantConsent());
    const t = (key, values) => this.#t(key, values);
    this.#notices = new Notices(host, root, (said) => this.#t.notice(said));
    this.#historyView = new HistoryView(root, {
      t,
      open: (conversationId) => this.#act("open", { conversationId }),
      forget: (conversationId) => this.#act("forget", { conversationId }),
      rename: (conversationId, title) => this.#act("rename", { conversationId, title }),
      pin: (conversationId, pinned) => this.#act("pin", { conversationId, pinned }),
      share: (conversationId) => this.#share(conversationId),
      exportAll: () => this.#act("exportAll", {}),
      importAll: (text) => this.#act("importAll", { text }),
      search: (query) => this.#act("search", { query }),
      alert: (text) => this.#notices.alert(text),
    });
    this.#composer = new Composer(root, {
      t,
      prepare: (file) => prepareFile(file, this.#client, pdfSeconds(host)),
      limit: () => host.maxAttachmentBytes,
      alert: (text) => (text ? this.#notices.alert(text) : this.#notices.clear()),
      send: (text, attachments) => this.#send(text, attachments),
      stop: () => this.#act("stop", {}),
      lang: () => language(host),
    });
    this.#follower = new Follower(this.#elements.log, this.#elements.jump,
      () => this.#notices.announce(this.#t("jump.below")), this.#composer.field);
  }

  /**
   * Draws what `client` mirrors from now on, in the element's language (its `lang`, else the
   * page's, else English). A launcher calls `onOpen` when it is first opened. Conversations
   * kept by the host page's own store cannot be pinned (`pinnable`): that store orders them.
   * @param {WidgetClient} client
   * A link that carried a sync code (`syncLink`) is offered once synced history starts.
   * @param {{historyOff: boolean, pinnable: boolean, onOpen: () => void,
   *   syncLink?: import("./sync-link.js").SyncLink | null,
   *   kept?: {storage: () => Storage | null, key: string}}} options  `kept`: where
   *   messages waiting to be sent are kept for a reload
   */
  connect(client, { historyOff, pinnable, onOpen, syncLink = null, kept = { storage: () => null, key: "" } }) {
    const host = this.#host;
    this.#client = client;
    const shared = syncLink?.kind === "share" ? syncLink.value : null; // a conversation shared by a link
    if (shared) syncLink = null;
    this.#queue = new SendQueue(this.#elements.queue, {
      t: (key, values) => this.#t(key, values), ...kept,
      send: (text, attachments) => this.#sendQueued(text, attachments),
      stopAnswer: () => this.#act("stop", {}),
      edit: (text) => {
        const { field } = this.#composer;
        this.#composer.put(field.value.trim() ? `${text}\n\n${field.value}` : text);
      },
    });
    let render = (/** @type {HTMLElement} */ target, /** @type {string} */ text) => void (target.textContent = text);
    const drawable = new Promise((resolve) => (this.#rendered = (markdown) => resolve((render = markdown))));
    const localized = this.#localize();
    this.#transcript = new Transcript(
      this.#elements.log,
      (target, text) => render(target, text),
      () => this.#followAnswer(),
      (key, values) => this.#t(key, values),
      (said) => this.#t.notice(said),
      Promise.all([drawable, localized]),
    );
    const drawing = { t: () => this.#t, markdown: () => this.#loadRenderer(), imageHosts: imageHosts(host) };
    this.#transcript.drawPresenting = presentingDrawer(drawing);
    this.#transcript.drawUi = uiDrawer({ ...drawing, // cards, tables and forms from tools (./ui-render.js)
      drawn: () => client.state.busy && this.#notices.announce(this.#t("ui.shown")),
      act: (action, pressed, index, made) => carryOutUi(action, pressed, index, made, {
        client, send: (text) => this.#send(text, []), alert: (said) => this.#notices.alert(said), t: this.#t }),
    });
    this.#elements.historyButton.hidden = historyOff;
    this.#historyView.pinnable = pinnable;
    this.#wire(client);
    if (mode(host) === "launcher") {
      const parts = { ...this.#elements, message: this.#composer.field };
      this.#launcher = new Launcher(host, parts, storagePrefix(host), onOpen);
    }
    if (shared) this.#openShared(client, shared);
    localized.then(() => this.renderMeta()); // what storage holds, before Python runs
    client.ready.then(() => localized).then(
      () => {
        this.#elements.loading.remove();
        this.renderMeta();
        this.#announceEvent("chatkeep-ready", {});
        if (host.hasAttribute("sync") && !historyOff) this.#startSyncing(client, syncLink);
      },
      (error) => {
        this.#elements.loading.remove();
        this.#notices.alert(error.message);
      },
    );
  }

  /**
   * Synced history (the `sync` attribute): its part of the history page, loaded only here.
   * @param {WidgetClient} client @param {import("./sync-link.js").SyncLink | null} link
   */
  #startSyncing(client, link) {
    const page = /** @type {HTMLElement} */ (this.#root.querySelector(".history-page"));
    import("./sync-panel.js")
      .then(({ startSyncing }) => startSyncing({
        host: this.#host, client, page, root: this.#root, link, t: this.#t, act: (op, args) => this.#act(op, args),
      }))
      .catch((error) => this.#notices.alert(error.message));
  }

  /**
   * A link that carried a shared conversation: shown read-only over the chat (./shared-page.js).
   * @param {WidgetClient} client @param {string} link  `ID.KEY`
   */
  #openShared(client, link) {
    this.#launcher?.toggle(true);
    const token = /** @type {any} */ (this.#host).token;
    import("./shared-page.js").then(({ openShared }) => openShared(this.#root, {
      link, endpoint: endpoint(this.#host).replace(/\/+$/, ""), headers: token ? { authorization: `Bearer ${token}` } : {},
      client, t: () => this.#t, markdown: () => this.#loadRenderer(), imageHosts: imageHosts(this.#host),
      announce: (text) => this.#notices.announce(text), closed: () => this.#composer.field.focus(),
    })).catch((error) => this.#notices.alert(error.message));
  }

  /** "Share": the dialog that makes a conversation's link (./share-dialog.js, loaded now). */
  async #share(/** @type {string} */ conversationId) {
    const { ShareDialog } = await import("./share-dialog.js");
    this.#shareDialog ??= new ShareDialog(this.#root, { call: (op, args) => this.#client?.call(op, args), t: this.#t });
    await this.#shareDialog.open(conversationId, this.#t);
  }

  /** The strings of the element's language, loaded and put in place. */
  #localize() {
    return loadStrings(language(this.#host)).then((t) => {
      this.#t = t;
      localize(this.#root, t);
    });
  }

  /** The element's `lang` changed: every string is drawn again in the new language. */
  setLanguage() {
    this.#localize().then(() => {
      this.renderMeta();
      this.#queue?.render();
      if (this.#client) this.#transcript?.messagesChanged(this.#client.state.messages, 0);
    });
  }

  /**
   * Shows the chat. Its Markdown renderer loads once there is a message to draw, or once
   * Python is ready: loaded at once, markdown-it and DOMPurify (~50 ms of the page's main
   * thread) took that time from a first visit's start, and in WebKit, which fetches a worker's
   * files through the page's main thread, held up the worker's own downloads.
   */
  show() {
    const { loading } = this.#elements;
    if (!this.#showing && loading.isConnected) fillSteadily(loading.firstElementChild); // still starting
    this.#showing = true;
    if (this.#client?.state.messages.length) this.#loadRenderer();
    else this.#client?.ready.catch(() => {}).then(() => this.#loadRenderer());
  }

  /** markdown-it and DOMPurify, loaded once; the transcript draws as soon as they are. */
  #loadRenderer() {
    this.#rendering ??= createRenderer({ imageHosts: imageHosts(this.#host), copyLabel: () => this.#t("copy") })
      .then((render) => {
        this.#rendered(render);
        return render;
      });
    return this.#rendering;
  }

  /** Opens or closes a launcher's panel (nothing inline). */
  toggle(open) {
    this.#launcher?.toggle(open);
  }

  /** Title, pickers, send or stop, usage: everything `meta` holds. */
  renderMeta() {
    if (!this.#client) return;
    const { state } = this.#client;
    showMeta(this.#elements, state, this.#t);
    showContext(this.#elements, state, this.#client.draft, this.#t);
    this.#elements.share.hidden = !this.#client.shareOffered || state.messages.length === 0;
    this.#composer.show({ busy: state.busy, online: navigator.onLine });
    this.renderLists();
  }

  /**
   * Every list of conversations on the page (the recent three, the history page) drawn from
   * one source, the client's history and the live conversation's id, after every change.
   */
  renderLists() {
    if (!this.#client) return;
    const { state, history } = this.#client;
    this.#elements.greeting.hidden = state.messages.length > 0 || state.busy;
    this.#elements.download.hidden = state.messages.length === 0;
    this.#elements.consent.hidden = !this.#host.consentPending; // consent="ask", not yet given
    showGreeting(this.#elements, {
      suggestions: this.#host.suggestions, history, liveId: state.id, untitled: this.#t("untitled"),
    });
    this.#historyView.shareable = this.#client.shareOffered;
    this.#historyView.render(history, state.id);
  }

  /** @param {WidgetClient} client */
  #wire(client) {
    const { model, thinking, log } = this.#elements;
    const transcript = /** @type {Transcript} */ (this.#transcript);
    let wasBusy = false;
    client.addEventListener(EVENT.meta, () => {
      // A screen reader hears once that an answer is ready (the answer itself is in the log).
      const last = client.state.messages.at(-1);
      if (wasBusy && !client.state.busy && last?.role === "assistant" && !last.error) {
        this.#notices.announce(this.#t("answer.ready"));
      }
      wasBusy = client.state.busy;
      this.renderMeta();
      const { busy, unfinished, id } = client.state;
      if (client.isReady && !busy && !unfinished) this.#queue?.idle(id);
      if (client.state.id !== this.#conversationId) {
        this.#conversationId = client.state.id;
        this.#announceEvent("chatkeep-conversation", { id: client.state.id, title: client.state.title });
      }
    });
    client.addEventListener(EVENT.messages, (event) => {
      const { at, add, turn } = /** @type {CustomEvent} */ (event).detail;
      if (this.#showing && client.state.messages.length) this.#loadRenderer();
      transcript.messagesChanged(client.state.messages, at);
      this.renderLists(); // the live conversation may have become (or stopped being) empty
      // Each message a turn settles is news for the host; opening a conversation is not.
      if (turn) for (const added of add) this.#announceEvent("chatkeep-message", structuredClone(added));
    });
    client.addEventListener(EVENT.draft, () => {
      transcript.draftChanged(client.draft);
      showContext(this.#elements, client.state, client.draft, this.#t);
    });
    client.addEventListener(EVENT.history, () => this.renderLists());
    client.addEventListener(EVENT.alert, (event) => this.#notices.alert(/** @type {CustomEvent} */ (event).detail));
    client.tools.approve = (call, signal) => askApproval(log, call, signal, this.#t);
    client.tools.allowed = (name) => client.state.allowed?.includes(name) ?? false;
    client.tools.allowForConversation = (name) => this.#act("allowTool", { name, allowed: true });
    this.#elements.allowed.addEventListener("click", (event) => {
      const name = /** @type {HTMLElement} */ (event.target).closest("button")?.dataset.tool;
      if (name) this.#act("allowTool", { name, allowed: false });
    });
    client.addEventListener("unsent", (event) => this.#composer.put(/** @type {CustomEvent} */ (event).detail));
    wireOptionsMenu(this.#elements.options, this.#elements.choices, model);
    model.addEventListener("change", () => this.#act("setModel", { model: model.value }));
    thinking.addEventListener("change", () => this.#act("setThinking", { level: thinking.value }));
    this.#elements.newConversation.addEventListener("click", () => this.#act("restore", { snapshot: null }));
    this.#elements.historyButton.addEventListener("click", () => this.#historyView.show());
    this.#elements.share.addEventListener("click", () => this.#share(client.state.id));
    wireGreeting(this.#elements, {
      open: (conversationId) => this.#act("open", { conversationId }),
      send: (text) => this.#act("send", { text }),
      showAll: () => this.#historyView.show(),
    });
    log.addEventListener(MessageActionEvent.type, (event) => carryOut(/** @type {MessageActionEvent} */ (event), {
      client, act: (op, args) => this.#act(op, args), transcript,
      composer: this.#composer, notices: this.#notices, t: this.#t,
      announce: (type, detail) => this.#announceEvent(type, detail),
    }));
    this.#elements.download.addEventListener("click", () => this.#download());
  }

  /** Saves the open conversation as Markdown, `<title>.md`. */
  async #download() {
    const file = await this.#act("exportMarkdown", {});
    if (!file) return;
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([file.text], { type: "text/markdown;charset=utf-8" }));
    link.download = file.name;
    this.#root.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  }

  /**
   * What the person sent: at once, or, while an answer is written, queued below it.
   * @param {string} text @param {object[]} attachments
   */
  #send(text, attachments) {
    const client = /** @type {WidgetClient} */ (this.#client);
    if (client.isReady && client.state.busy && this.#queue) {
      this.#queue.add(client.state.id, text, attachments);
      this.#notices.announce(this.#t("queue.added"));
      return undefined;
    }
    this.#follower.toEnd();
    return this.#act("send", { text, attachments });
  }

  /** A queued message goes: rejects, the refusal said, when the session refused it. */
  async #sendQueued(/** @type {string} */ text, /** @type {object[]} */ attachments) {
    this.#follower.toEnd();
    this.#notices.clear();
    try {
      await /** @type {WidgetClient} */ (this.#client).call("send", { text, attachments });
    } catch (error) {
      if (error.code !== "busy") this.#notices.alert({ message: error.message, code: error.code, params: error.params });
      throw error;
    }
  }

  /** Runs an operation in the session, showing a refusal as an alert. */
  async #act(op, args) {
    this.#notices.clear();
    try {
      return await /** @type {WidgetClient} */ (this.#client).call(op, args);
    } catch (error) {
      this.#notices.alert({ message: error.message, code: error.code, params: error.params });
      return undefined;
    }
  }

  /** Follows an answer as it streams, while the reader is at its end (./follow.js). */
  #followAnswer() {
    const { state, draft } = /** @type {WidgetClient} */ (this.#client);
    if (draft || state.busy) this.#follower.grew();
  }

  /** A DOM event on the element that bubbles and crosses the shadow boundary. */
  #announceEvent(type, detail) {
    this.#host.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}
