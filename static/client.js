// The controller: reads the element's configuration, owns the worker, mirrors the session's
// state from the changes Python sends, and runs the host page's tools. It decides nothing
// about the conversation; Python does.
//
// The worker (and Python in it) starts only when `start()` is called: at once inline, when
// a launcher is opened. Until Python is ready, the state is what the page read from storage
// itself (./stored.js), and a message sent is shown at once and sent once Python runs.
//
// Events it dispatches for the element: "meta" (title, model, busy, ...), "messages"
// (detail {at, add, turn}: the first `at` messages stay, `add` follows), "draft" (the answer
// being written changed), "history" (the kept conversations) and "alert" (detail: the text).

import { EVENT, KIND, REQUEST } from "./protocol.js";
import { Channel } from "./rpc.js";
import { hostStoreHandler, localStorageHandler, watchOtherTabs } from "./storage.js";
import { storedList, storedOpening } from "./stored.js";
import { applyListChange, sameUpTo } from "./list-changes.js";
import { HostTools } from "./host-tools.js";
import { nextDraft } from "./draft.js";
import { Consent } from "./consent.js";
import { serverTools } from "./server-tools.js";
import { keepSnapshotLater, startWorker, WORKER_URL } from "./worker-start.js";

/**
 * @typedef {{role: string, content: string | null, tool_calls?: any[], tool_call_id?: string,
 *   name?: string, attachments?: any[], error?: string, error_code?: string,
 *   error_params?: Record<string, unknown>, versions?: any[], version?: number,
 *   reasoning?: string, reasoning_seconds?: number, feedback?: "good" | "bad", sources?: {url: string, title: string}[],
 *   ui?: unknown, ui_fallback?: string, ui_state?: Record<string, Record<string, string | boolean>>}} Message
 * @typedef {{id: string, title: string, model: string, provider: string | null, thinking: string,
 *   busy: boolean, unfinished?: boolean, usage: Record<string, number> | null, context?: number, allowed?: string[],
 *   models: {id: string, provider?: string, context_window?: number}[]}} Meta
 * @typedef {Meta & {messages: Message[]}} SessionState
 * @typedef {{id: string, title: string, updated: number, pinned?: boolean, shared?: number}} HistoryEntry
 * @typedef {{endpoint: string, model?: string | null, instructions?: string | null,
 *   history: "local" | "memory" | "off" | "host", prefix: string, maxConversations: number,
 *   generateTitle: boolean, sync: boolean, present?: boolean, snapshot?: object | string | null, token?: string | null}} ClientConfig
 * @typedef {{name: string, description?: string, parameters?: object,
 *   handler: (args: any) => unknown, approval?: boolean, server?: string}} ToolDefinition
 */

/** Operations that ask the model: the host page's context is read anew before each. */
const ASKS_THE_MODEL = new Set(["send", "retry", "edit"]);
/** Why a worker that never ran most likely did not: the page's policy, and what it must allow. */
const NOT_STARTED = "The chat's worker could not start. If this page has a Content-Security-Policy, "
  + `it must allow ${WORKER_URL.origin} and 'wasm-unsafe-eval' in script-src, and `
  + `${WORKER_URL.origin === location.origin ? "'self'" : `blob: and ${WORKER_URL.origin}`} in worker-src.`;
/** A new conversation's meta, before anything is known. */
const EMPTY = { id: "", title: "", model: "", provider: null, thinking: "off", busy: false, usage: null };

export class WidgetClient extends EventTarget {
  /** @type {SessionState} */
  state = { ...EMPTY, models: [], messages: [] };
  /** @type {Message | null} the answer streaming right now */
  draft = null;
  /** @type {import("./draft.js").Drafting | null} that answer, by the name Python gave it */
  #drafting = null;
  /** @type {HistoryEntry[]} kept conversations, newest first */
  history = [];
  /** the host page's tools */
  tools = new HostTools();
  /** True when Python started from the memory snapshot this browser kept (faster). */
  fromSnapshot = false;
  /** @type {Record<string, Record<string, string>>} operation → argument shapes (from Python) */
  operations = {};
  /** The server keeps shared links (it has a sync store): "Share" is offered. */
  shareOffered = false;

  #config;
  #askedToKeep = false;
  #hostStore;
  /** @type {() => unknown} the element's `pageContext`, as it is when asked */
  #pageContext;
  /** @type {Consent} whether (and where) the page's storage may be written */
  #consent;
  /** @type {Worker | null} */ #worker = null;
  /** @type {Channel | null} */ #channel = null;
  /** settles once Python runs: the client, or why it could not start */
  #ready = deferred();
  /** @type {Promise<boolean>} whether the next visit's snapshot is kept, once ready */
  #snapshotKept = Promise.resolve(false);
  #isReady = false;
  /** messages shown before Python ran, sent once it does */
  #queued = [];
  #stopWatching = () => {};

  /**
   * @param {ClientConfig} config
   * @param {() => any} hostStore  the host page's `historyStore`, for `history: "host"`
   */
  constructor(config, hostStore = () => null, pageContext = () => null, consent = new Consent(false, config.prefix)) {
    super();
    this.#config = config;
    this.#hostStore = hostStore;
    this.#pageContext = pageContext;
    this.#consent = consent;
    this.#ready.promise.catch(() => {}); // reported through `ready`; not an unhandled rejection
    if (config.history === "local") this.history = storedList(config.prefix);
    // What start-up opens, as storage has it, drawn while Python starts.
    storedOpening(config, this.history).then((opening) => {
      if (!opening || this.#isReady || this.state.messages.length) return;
      Object.assign(this.state, { id: opening.id, title: opening.title, messages: opening.messages });
      this.dispatchEvent(new Event(EVENT.meta));
      this.dispatchEvent(new CustomEvent(EVENT.messages, { detail: { at: 0, add: opening.messages } }));
    });
  }

  /** True once `start()` was called: the worker runs (or is starting). */
  get started() {
    return this.#worker !== null;
  }

  /** Starts the worker and Python in it, once; `ready` settles when they run. */
  start() {
    if (this.#worker) return;
    const config = this.#config;
    /** @type {Channel | null} */
    let channel = null;
    try {
      this.#worker = startWorker((message) => {
        channel?.close(message ? `The chat's worker failed: ${message}.` : NOT_STARTED);
      });
    } catch {
      this.#ready.reject(new Error(NOT_STARTED));
      return;
    }
    channel = new Channel(this.#worker, {
      event: (message) => this.#onEvent(message),
      [REQUEST.callTool]: ({ name, arguments: args }) => this.tools.run(name, args),
      [REQUEST.storage]: localStorageHandler(config.prefix, () => this.#consent.area()),
      [REQUEST.historyStore]: hostStoreHandler(this.#hostStore),
    }, "p");
    this.#channel = channel;
    // Python's memory snapshot is storage too: kept only with consent.
    channel.request(KIND.init, { config, keepSnapshot: this.#consent.granted }).then(({ operations, start, fromSnapshot, snapshotKey, serverTools: offered, shareOffered }) => {
      Object.assign(this, { operations, shareOffered: shareOffered === true });
      const alert = (/** @type {any} */ said) => this.dispatchEvent(new CustomEvent(EVENT.alert, { detail: said }));
      for (const tool of serverTools(offered ?? [], config, alert)) this.tools.add(tool, () => {}); // the operator's MCP tools
      this.fromSnapshot = fromSnapshot;
      this.#takeStart(start);
      if (config.history === "local") {
        this.#stopWatching = watchOtherTabs(config.prefix, (key) => {
          this.call("storageChanged", { key }).catch(() => {});
        });
      }
      for (const tool of this.tools.all()) this.#declareTool(tool);
      this.#isReady = true;
      this.#ready.resolve(this);
      // For the next visit, after ready; a page closed before it is kept loses it (the next
      // visit makes it again): `snapshotKept` says when it is safe.
      this.#snapshotKept = fromSnapshot ? Promise.resolve(true)
        : snapshotKey ? keepSnapshotLater(snapshotKey) : Promise.resolve(false);
    }, this.#ready.reject);
  }

  /** Settles when Python runs and the session is ready. */
  get ready() {
    return this.#ready.promise;
  }

  /**
   * Runs an operation of the table Python declared (widget/operations.py).
   * Rejects with the person-readable message of a refusal; a program error is logged to the
   * console and rejects with a generic sentence.
   * @param {string} op
   * @param {Record<string, unknown>} args
   */
  async call(op, args = {}) {
    this.start(); // any operation needs Python
    if (op === "send") this.#keepStorage();
    if (!this.#isReady && op === "send") return this.#sendOnceReady(args);
    if (!this.#isReady && op === "stop" && this.#queued.length) return this.#unsend();
    await this.#ready.promise;
    const shapes = this.operations[op];
    if (!shapes) throw new TypeError(`Chatkeep has no operation "${op}".`);
    const unknown = Object.keys(args).filter((name) => !(name in shapes));
    if (unknown.length) throw new TypeError(`${op} takes no ${unknown.join(", ")}.`);
    if (ASKS_THE_MODEL.has(op)) await this.#tellPageContext();
    try {
      return await /** @type {Channel} */ (this.#channel).request(KIND.call, { op, args });
    } catch (error) {
      if (error.bug) console.error(`Chatkeep: ${op} failed inside the chat.\n${error.bug}`);
      throw Object.assign(new Error(error.message), { code: error.code ?? "", params: error.params ?? {} });
    }
  }

  /** Once a person said something worth keeping, asks the browser not to evict storage (only a page may). */
  #keepStorage() {
    if (this.#askedToKeep || this.#config.history !== "local" || !this.#consent.granted) return;
    this.#askedToKeep = true;
    navigator.storage?.persist?.().catch(() => {});
  }

  get isReady() { // once Python runs
    return this.#isReady;
  }

  /**
   * Asks the worker itself (protocol.js `KIND`: a file made ready), once
   * Python runs; starts it if need be.
   * @param {string} kind @param {Record<string, unknown>} fields
   */
  async ask(kind, fields = {}) {
    this.start();
    await this.#ready.promise;
    return /** @type {Channel} */ (this.#channel).request(kind, fields);
  }

  /** Resolves, once ready, whether this browser keeps the snapshot the next visit boots from. */
  async snapshotKept() {
    this.start();
    await this.#ready.promise;
    return this.#snapshotKept;
  }

  /** @param {ToolDefinition} tool */
  registerTool(tool) {
    return this.tools.add(tool, (changed, added) => {
      if (!this.#isReady) return; // declared once Python runs
      if (added) this.#declareTool(changed);
      else this.call("unregisterTool", { name: changed.name }).catch(() => {});
    });
  }

  /**
   * Tells Python about a tool, posted at once: ahead of any message waiting to be sent.
   * @param {ToolDefinition} tool
   */
  #declareTool(tool) {
    const args = { name: tool.name, description: tool.description ?? "", parameters: tool.parameters ?? null };
    this.#channel?.request(KIND.call, { op: "registerTool", args }).catch(() => {});
  }

  /**
   * Python's whole state at start. What was drawn from storage and is the same stays drawn
   * (`at` past it); messages sent before now stay shown, and are sent next.
   * @param {{meta: Meta, messages: Message[], models: Meta["models"], history: HistoryEntry[], warning?: string}} start
   */
  #takeStart({ meta, messages, models, history, warning }) {
    if (warning) console.warn(warning);
    const shown = this.state.messages;
    const now = [...messages, ...this.#queued];
    const at = sameUpTo(shown, now);
    this.history = history;
    this.state = { ...meta, models, messages: now, busy: meta.busy || this.#queued.length > 0 };
    this.#pickUpUnfinished();
    this.dispatchEvent(new Event(EVENT.meta));
    this.dispatchEvent(new Event(EVENT.history));
    if (at < shown.length || at < now.length) {
      this.dispatchEvent(new CustomEvent(EVENT.messages, { detail: { at, add: now.slice(at) } }));
    }
  }

  /**
   * A message sent before Python runs: shown at once (the composer waits, as while an answer
   * is written), sent once Python is ready; resolves when its answer has settled.
   * @param {Record<string, unknown>} args
   */
  async #sendOnceReady(args) {
    /** @type {Message} */
    const message = { role: "user", content: String(args.text ?? "") };
    if (Array.isArray(args.attachments) && args.attachments.length) message.attachments = args.attachments;
    const at = this.state.messages.length;
    this.state.messages.push(message);
    this.#queued.push(message);
    this.state.busy = true;
    this.dispatchEvent(new CustomEvent(EVENT.messages, { detail: { at, add: [message] } }));
    this.dispatchEvent(new Event(EVENT.meta));
    await this.#ready.promise;
    const queued = this.#queued.indexOf(message);
    if (queued < 0) return undefined; // taken back with Stop
    this.#queued.splice(queued, 1);
    return this.call("send", args);
  }

  /** The host page's context, read now (a function is called), for the request that follows. */
  async #tellPageContext() {
    let context = null;
    try {
      const given = this.#pageContext();
      const value = typeof given === "function" ? await given() : given;
      if (value != null) {
        if (typeof value !== "object" || Array.isArray(value)) throw new TypeError("it must be an object, or a function that returns one");
        context = JSON.stringify(value);
      }
    } catch (error) {
      console.warn(`Chatkeep: pageContext was left out of this message (${error?.message}).`);
    }
    const channel = /** @type {Channel} */ (this.#channel);
    try {
      await channel.request(KIND.call, { op: "setPageContext", args: { context } });
    } catch (error) {
      console.warn(`Chatkeep: pageContext was left out of this message (${error?.message}).`);
      await channel.request(KIND.call, { op: "setPageContext", args: { context: null } });
    }
  }

  #unsend() {
    const texts = this.#queued.map((message) => message.content).join("\n");
    this.state.messages = this.state.messages.filter((message) => !this.#queued.includes(message));
    const at = this.state.messages.length;
    this.#queued = [];
    this.state.busy = false;
    this.dispatchEvent(new CustomEvent(EVENT.messages, { detail: { at, add: [] } }));
    this.dispatchEvent(new Event(EVENT.meta));
    this.dispatchEvent(new CustomEvent("unsent", { detail: texts }));
  }

  /** The page is back: an answer whose connection dropped is asked for again at once. */
  wake() {
    if (this.#isReady) this.#channel?.request(KIND.wake, {}).catch(() => {});
  }

  /** Resolves once no turn runs: at once when idle, else when the running one settles. */
  settled() {
    return this.#ready.promise.then(untilIdle);
  }

  /** Stores the last complete state, then stops the worker (if it ever started). */
  async dispose() {
    this.#stopWatching();
    if (!this.#worker) return;
    try {
      await this.call("dispose");
    } finally {
      this.#channel?.close("The chat was closed.");
      this.#worker.terminate();
    }
  }

  /**
   * The open conversation's answer was still being written when the page went away (or in
   * another tab that closed), and the server kept it: show the rest as it comes.
   */
  #pickUpUnfinished() {
    if (this.state.unfinished) this.call("pickUp").catch(() => {}); // failures arrive as alerts
  }

  #onEvent({ kind, data: value }) {
    if (kind === EVENT.draft) {
      this.#drafting = nextDraft(this.#drafting, value);
      this.draft = this.#drafting?.message ?? null;
      this.dispatchEvent(new Event(EVENT.draft));
      return;
    }
    if (kind === EVENT.meta) {
      Object.assign(this.state, value);
      this.#pickUpUnfinished();
      this.dispatchEvent(new Event(EVENT.meta));
    } else if (kind === EVENT.models) {
      this.state.models = value;
      this.dispatchEvent(new Event(EVENT.meta));
    } else if (kind === EVENT.messages) {
      // An answer the page has just seen streamed comes without its text: take the draft's
      // (the draft of that answer: Python names it).
      for (const message of value.add) {
        if (message.streamed) {
          const streamed = this.#drafting?.answer === message.streamed ? this.#drafting.message : null;
          delete message.streamed;
          message.content = streamed?.content ?? "";
          if (streamed?.reasoning) message.reasoning = streamed.reasoning;
        }
      }
      this.state.messages.splice(value.at, Infinity, ...value.add);
      this.dispatchEvent(new CustomEvent(EVENT.messages, { detail: value }));
    } else if (kind === EVENT.stopping) {
      this.tools.letGo();
    } else if (kind === EVENT.history) {
      this.history = applyListChange(this.history, value);
      this.dispatchEvent(new Event(EVENT.history));
    } else if (kind === EVENT.alert) {
      this.dispatchEvent(new CustomEvent(EVENT.alert, { detail: value }));
    } else if (kind === EVENT.sync) {
      this.dispatchEvent(new CustomEvent(EVENT.sync, { detail: value }));
    }
  }
}

/** Resolves once `client` runs no turn: at once when idle, else when its meta says so. */
function untilIdle(/** @type {WidgetClient} */ client) {
  return new Promise((resolve) => {
    const check = () => {
      if (client.state.busy) return;
      client.removeEventListener(EVENT.meta, check);
      resolve(undefined);
    };
    client.addEventListener(EVENT.meta, check);
    check();
  });
}

/** A promise with its resolve and reject. */
function deferred() {
  /** @type {(value: any) => void} */
  let resolve = () => {};
  /** @type {(error: any) => void} */
  let reject = () => {};
  const promise = new Promise((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}
