// The messages that cross between the page, the worker and Python, declared once on this side.
// widget/protocol.py declares the same for Python; tests/widget/test_protocol.py checks that
// the two agree.
//
//   {id, type: "init", config}                   page → worker: boot
//   {id, type: "call", op, args}                 page → worker: run an operation
//   {id, type: "reply", result}                  the answer to a request
//   {id, type: "error", error: {message, bug?}}  its failure (`bug`: a traceback)
//   {type: "event", kind, data}                  worker → page: a change (one of EVENT)
//   {id, type: "storage" | "historyStore" | "callTool", ...}   worker → page requests
//
// Every payload is plain data (never JSON text inside a message), shaped as PAYLOAD and
// EVENT_DATA say: each field a type ("string", "number", "boolean", "object", "array", "null",
// "any", or several joined by "|"); a field whose name ends in "?" may be left out. The tests
// check messages against them (tests/js/conforms.mjs; widget/protocol.py `conforms`).

/** The kinds of message between page and worker. */
export const KIND = Object.freeze({
  init: "init", call: "call", reply: "reply", error: "error", event: "event",
  /** an image to make small for a message (static/downscale.js), off the page's main thread */
  downscale: "downscale",
  /** Pyodide's WebAssembly module, compiled by the page (static/worker-start.js), or null */
  runtime: "runtime",
  /** the page is back (visible, resumed, online): an answer whose line dropped is asked for now */
  wake: "wake",
});
/** What the worker asks of the page: localStorage, the host's own history store, a tool. */
export const REQUEST = Object.freeze({ storage: "storage", historyStore: "historyStore", callTool: "callTool" });
/** What Python tells the page changed (widget/changes.py). */
export const EVENT = Object.freeze({
  messages: "messages", draft: "draft", meta: "meta", models: "models", history: "history",
  alert: "alert", stopping: "stopping", sync: "sync",
});
/** `storage` requests, and what a `write` answers. */
export const STORAGE = Object.freeze({ readAll: "readAll", get: "get", write: "write" });
export const WRITTEN = Object.freeze({ ok: "ok", full: "full", conflict: "conflict" });
/** `historyStore` requests: the methods of the host page's store. */
export const HOST_STORE = Object.freeze({ list: "list", read: "read", keep: "keep", forget: "forget" });

/** The payload of each kind of message, besides its `id` and `type`. */
export const PAYLOAD = Object.freeze({
  init: { config: "object", "keepSnapshot?": "boolean" },
  call: { "op": "string", args: "object" },
  reply: { result: "any" },
  error: { error: "object" },
  event: { kind: "string", data: "any" },
  storage: { "op": "string", "prefix?": "string", "key?": "string", "changes?": "array", "expect?": "object" },
  historyStore: { "op": "string", args: "array" },
  callTool: { name: "string", arguments: "object" },
  downscale: { file: "any" },
  runtime: { module: "any" },
  wake: {},
});

/**
 * The `data` of each event. A draft names its answer: text appended at `at`, reasoning at
 * `thoughtAt` (once the answer has any), the tool calls when they changed, and `end` once
 * the answer has settled.
 * @typedef {{answer: string, at: number, text: string, thoughtAt?: number, thought?: string,
 *   calls?: any[], end?: boolean}} DraftChange
 */
export const EVENT_DATA = Object.freeze({
  messages: { at: "number", add: "array", turn: "boolean" },
  draft: { answer: "string", at: "number", text: "string", "thoughtAt?": "number", "thought?": "string", "calls?": "array", "end?": "boolean" },
  meta: {
    id: "string", title: "string", model: "string", provider: "string|null", thinking: "string",
    busy: "boolean", unfinished: "boolean", usage: "object|null", context: "number",
    allowed: "array",
  },
  models: "array",
  history: { set: "array", "drop": "array", "order?": "array" },
  alert: { message: "string", code: "string", params: "object" },
  stopping: "null",
  sync: { state: "string", reason: "object|null" },
});

/** What Python may call on the worker (widget/protocol.py `WORKER_CALLS`; static/worker.js). */
export const WORKER_CALLS = Object.freeze([
  "openStream", "resumeStream", "claimTurn", "releaseTurn", "callTool", "storage",
  "historyStore", "emit", "draft",
  "syncOpen", "syncKnownBefore", "syncResume", "syncForget", "syncListen", "syncPull",
  "syncPush", "syncDelete", "syncMoving", "syncPullMoved", "syncMoved", "syncWipe",
  "syncPair", "syncUnpair", "syncDrop", "shareSeal", "shareStop",
]);

/** The request of each of synced history's calls on the worker (widget/protocol.py `SYNC_CALLS`). */
export const SYNC_CALLS = Object.freeze({
  syncOpen: { secret: "string", keepAs: "string", fresh: "boolean" },
  syncKnownBefore: { secret: "string" },
  syncResume: { keptAs: "string" },
  syncForget: { keptAs: "string" },
  syncListen: {},
  syncPull: { since: "number" },
  // (a write's item goes beside its request, as the JSON text Python wrote)
  syncPush: { conversation: "string", expect: "number|null", seq: "number", tail: "string" },
  syncDelete: { conversation: "string", expect: "number|null", seq: "number" },
  syncDrop: { item: "string", expect: "number" },
  syncMoving: {},
  syncPullMoved: {},
  syncMoved: {},
  syncWipe: {},
  syncPair: { secret: "string" },
  syncUnpair: { link: "string" },
});

/**
 * The storage keys of one kept conversation, `<prefix>:<kind>:<id>`: its line in the list and
 * its snapshot (packed by the worker). Python writes them; the page reads them before it runs.
 */
export const STORAGE_KEYS = Object.freeze({
  meta: "{prefix}:meta:", conversation: "{prefix}:conv:", sync: "{prefix}:sync:",
});

/**
 * The key of a conversation's `kind` of entry; without an id, what all keys of that kind
 * start with.
 * @param {keyof STORAGE_KEYS} kind @param {string} prefix @param {string} [id]
 */
export function storageKey(kind, prefix, id = "") {
  return STORAGE_KEYS[kind].replace("{prefix}", prefix) + id;
}

/** The response header naming an answer the server keeps for a reload (with Redis)... */
export const TURN_HEADER = "x-chatkeep-turn";
/** ...and the chunk the worker puts before its first one, `{chatkeep_turn: id}`, for Python. */
export const TURN_KEY = "chatkeep_turn";

/** Sentences more than one side says. */
export const SENTENCE = Object.freeze({
  stopped: "Stopped before the answer was finished.",
  busy: "An answer is still being written: stop it or wait for it to finish.",
});
