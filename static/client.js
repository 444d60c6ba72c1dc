// The controller: owns the worker, mirrors the session's state for the view, runs the
// host page's tools. It decides nothing about the conversation; Python does.

import { Channel } from "./rpc.js";
import { hostStoreHandler, localStorageHandler, watchOtherTabs } from "./storage.js";

/**
 * @typedef {{role: string, content: string | null, tool_calls?: any[], tool_call_id?: string,
 *   name?: string, attachments?: any[], error?: string}} Message
 * @typedef {{id: string, title: string, model: string, thinking: string, messages: Message[],
 *   draft: Message | null, busy: boolean, usage: Record<string, number> | null}} SessionState
 * @typedef {{id: string, title: string, updated: number}} HistoryEntry
 * @typedef {{endpoint: string, model?: string | null, instructions?: string | null,
 *   history: "local" | "memory" | "off" | "host", prefix: string, maxConversations: number,
 *   generateTitle: boolean}} ClientConfig
 * @typedef {{name: string, description?: string, parameters?: object,
 *   handler: (args: any) => string | Promise<string>, approval?: boolean}} ToolDefinition
 */

const WORKER_URL = new URL("./worker.js", import.meta.url);

export class WidgetClient extends EventTarget {
  /** @type {SessionState} */
  state = { id: "", title: "", model: "", thinking: "off", messages: [], draft: null, busy: false, usage: null };
  /** @type {Message | null} the answer streaming right now */
  draft = null;
  /** @type {HistoryEntry[]} kept conversations, newest first */
  history = [];
  /** @type {Map<string, ToolDefinition>} */
  tools = new Map();
  /**
   * Asks the person before a tool marked `approval` runs; the view replaces it. The signal
   * aborts when the turn is stopped, which counts as a refusal.
   */
  approve = async (/** @type {{name: string, arguments: string}} */ _call, /** @type {AbortSignal} */ _signal) => false;
  #approvals = new Set();

  #worker;
  #channel;
  #ready;
  #stopWatching = () => {};

  /**
   * @param {ClientConfig} config
   * @param {() => any} hostStore  the host page's `historyStore`, for `history: "host"`
   */
  constructor(config, hostStore = () => null) {
    super();
    this.#worker = createWorker(WORKER_URL);
    this.#channel = new Channel(this.#worker, {
      event: (message) => this.#onEvent(message),
      callTool: ({ name, arguments: args }) => this.#runTool(name, args),
      storage: localStorageHandler(config.prefix),
      historyStore: hostStoreHandler(hostStore),
    }, "p");
    this.#worker.addEventListener("error", (event) => {
      this.#channel.close(`The chat's worker failed: ${event.message || "it could not start"}.`);
    });
    this.#ready = this.#channel.request("init", { config }).then(({ state, history }) => {
      this.history = history;
      this.#setState(state);
      if (config.history === "local") {
        this.#stopWatching = watchOtherTabs(config.prefix, (key) => {
          this.#channel.request("storageChanged", { key }).catch(() => {});
        });
      }
      return this;
    });
    this.#ready.catch(() => {}); // reported through `ready`; not an unhandled rejection here
  }

  /** Settles when Python runs and the session is ready. */
  get ready() {
    return this.#ready;
  }

  /** @param {string} type @param {Record<string, unknown>} fields */
  async request(type, fields = {}) {
    await this.#ready;
    return this.#channel.request(type, fields);
  }

  send(text, attachments = []) {
    return this.request("send", { text, attachments });
  }

  stop() {
    return this.request("stop");
  }

  /** @param {ToolDefinition} tool */
  registerTool(tool) {
    if (!tool || typeof tool.name !== "string" || !/^[\w-]{1,64}$/.test(tool.name)) {
      throw new TypeError("registerTool needs a name of letters, digits, _ or - (at most 64).");
    }
    if (typeof tool.handler !== "function") throw new TypeError(`Tool "${tool.name}" needs a handler function.`);
    this.tools.set(tool.name, tool);
    const spec = { name: tool.name, description: tool.description ?? "", parameters: tool.parameters ?? null };
    const registered = this.request("registerTool", { spec });
    registered.catch(() => {});
    return () => {
      if (this.tools.get(tool.name) !== tool) return;
      this.tools.delete(tool.name);
      this.request("unregisterTool", { name: tool.name }).catch(() => {});
    };
  }

  /** Stores the last complete state, then stops the worker. */
  async dispose() {
    this.#stopWatching();
    try {
      await this.request("dispose");
    } finally {
      this.#channel.close("The chat was closed.");
      this.#worker.terminate();
    }
  }

  async #runTool(name, argsText) {
    const tool = this.tools.get(name);
    if (!tool) return `Error: the tool "${name}" is no longer available.`;
    if (tool.approval) {
      const waiting = new AbortController();
      this.#approvals.add(waiting);
      try {
        const approved = await this.approve({ name, arguments: argsText }, waiting.signal);
        if (!approved) return "The person declined to run this tool.";
      } finally {
        this.#approvals.delete(waiting);
      }
    }
    const result = await tool.handler(JSON.parse(argsText));
    return typeof result === "string" ? result : JSON.stringify(result);
  }

  #onEvent({ kind, data }) {
    const value = JSON.parse(data);
    if (kind === "state") this.#setState(value);
    else if (kind === "draft") {
      this.draft = value;
      this.dispatchEvent(new Event("draft"));
    } else if (kind === "stopping") {
      for (const waiting of this.#approvals) waiting.abort();
    } else if (kind === "history") {
      this.history = value;
      this.dispatchEvent(new Event("history"));
    } else if (kind === "alert") {
      this.dispatchEvent(new CustomEvent("alert", { detail: value }));
    }
  }

  #setState(state) {
    this.state = state;
    this.draft = state.draft;
    this.dispatchEvent(new Event("change"));
  }
}

/** A module worker from any origin: cross-origin scripts are imported from a same-origin blob. */
function createWorker(url) {
  if (url.origin === location.origin) return new Worker(url, { type: "module" });
  const shim = new Blob([`import ${JSON.stringify(url.href)};`], { type: "text/javascript" });
  const blobUrl = URL.createObjectURL(shim);
  try {
    return new Worker(blobUrl, { type: "module" });
  } finally {
    setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000);
  }
}
