// The one message channel between the page and the widget's worker, used on both sides; the
// kinds of message are declared in ./protocol.js.
//
//   request  {id, type, ...fields}   answered by   {id, type: "reply", result}
//                                               or {id, type: "error", error: {name, message, bug?}}
//   event    {type: "event", kind, data}            (no id, no answer)
//
// Everything crossing is plain data (structured clone), never functions or proxies.

import { KIND } from "./protocol.js";

/** @typedef {(message: any) => unknown | Promise<unknown>} Handler */

/**
 * An error from the other side: what the person is told (`message`, and the `code` and
 * `params` the page says it by in its language), and `bug`, a program error's details (a
 * traceback) for the console.
 */
export class ReplyError extends Error {
  /** @param {string} message @param {string} [bug] @param {string} [code] @param {Record<string, unknown>} [params] */
  constructor(message, bug, code = "", params = {}) {
    super(message);
    this.bug = bug;
    this.code = code;
    this.params = params;
  }
}

export class Channel {
  #port;
  #handlers;
  #pending = new Map();
  #nextId = 1;
  #prefix;

  /**
   * @param {Worker | MessagePort | {postMessage: Function, addEventListener: Function}} port  (a worker's `self` on that side)
   * @param {Record<string, Handler>} handlers  requests this side answers, by type, and `event`
   * @param {string} prefix  distinguishes ids minted on each side
   */
  constructor(port, handlers, prefix) {
    this.#port = port;
    this.#handlers = handlers;
    this.#prefix = prefix;
    port.addEventListener("message", (/** @type {MessageEvent} */ event) => this.#receive(event.data));
    if ("start" in port && typeof port.start === "function") port.start();
  }

  /**
   * Send a request and resolve with its result (or reject with a `ReplyError`).
   * `fields` must not use the names `id` and `type`, which belong to the protocol.
   */
  request(type, fields = {}) {
    if ("id" in fields || "type" in fields) throw new TypeError(`"id" and "type" are reserved in ${type} requests`);
    const id = `${this.#prefix}${this.#nextId++}`;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#port.postMessage({ ...fields, id, type });
    });
  }

  /** Send an event: fire and forget. */
  emit(kind, data) {
    this.#port.postMessage({ type: KIND.event, kind, data });
  }

  /** Reject every request still waiting: the other side is gone. */
  close(reason) {
    for (const { reject } of this.#pending.values()) reject(new Error(reason));
    this.#pending.clear();
  }

  async #receive(message) {
    if (!message || typeof message !== "object") return;
    if (message.type === KIND.event) {
      this.#handlers.event?.(message);
      return;
    }
    if (message.type === KIND.reply || message.type === KIND.error) {
      const waiting = this.#pending.get(message.id);
      if (!waiting) return;
      this.#pending.delete(message.id);
      if (message.type === KIND.error) waiting.reject(toError(message.error));
      else waiting.resolve(message.result);
      return;
    }
    const handler = this.#handlers[message.type];
    try {
      if (!handler) throw new Error(`unknown request type "${message.type}"`);
      const result = await handler(message);
      this.#port.postMessage({ id: message.id, type: KIND.reply, result: result ?? null });
    } catch (error) {
      this.#port.postMessage({ id: message.id, type: KIND.error, error: fromError(error) });
    }
  }
}

/** @param {any} error */
function fromError(error) {
  if (error && typeof error === "object") {
    const plain = {
      name: String(error.name || "Error"), message: String(error.message || error),
      code: typeof error.code === "string" ? error.code : "",
      params: error.params && typeof error.params === "object" ? error.params : {},
    };
    return typeof error.bug === "string" ? { ...plain, bug: error.bug } : plain;
  }
  return { name: "Error", message: String(error), code: "", params: {} };
}

function toError({ name, message, bug, code, params }) {
  const error = new ReplyError(message, bug, code, params);
  error.name = name;
  return error;
}
