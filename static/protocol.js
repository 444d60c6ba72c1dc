// The names that cross between the page, the worker and Python, declared once on this side.
// widget/protocol.py declares the same for Python; tests/widget/test_protocol.py checks that
// the two agree.
//
//   {id, type: "init" | "call", ...}          page → worker: boot, run an operation
//   {id, type: "reply", result}               the answer to a request
//   {id, type: "error", error: {name, message, bug?}}   its failure (`bug`: a traceback)
//   {type: "event", kind, data}               worker → page: a change (one of EVENT)
//   {id, type: "storage" | "historyStore" | "callTool", ...}   worker → page requests

/** The kinds of message between page and worker. */
export const KIND = Object.freeze({ init: "init", call: "call", reply: "reply", error: "error", event: "event" });
/** What the worker asks of the page: localStorage, the host's own history store, a tool. */
export const REQUEST = Object.freeze({ storage: "storage", historyStore: "historyStore", callTool: "callTool" });
/** What Python tells the page changed (widget/changes.py). */
export const EVENT = Object.freeze({
  messages: "messages", draft: "draft", meta: "meta", models: "models", history: "history",
  alert: "alert", stopping: "stopping",
});
/** `storage` requests, and what a `write` answers. */
export const STORAGE = Object.freeze({ readAll: "readAll", get: "get", write: "write" });
export const WRITTEN = Object.freeze({ ok: "ok", full: "full", conflict: "conflict" });
/** `historyStore` requests: the methods of the host page's store. */
export const HOST_STORE = Object.freeze({ list: "list", read: "read", keep: "keep", forget: "forget" });

/** The response header naming an answer the server keeps for a reload (with Redis)... */
export const TURN_HEADER = "x-chatkeep-turn";
/** ...and the chunk the worker puts before its first one, `{chatkeep_turn: id}`, for Python. */
export const TURN_KEY = "chatkeep_turn";

/** Sentences more than one side says. */
export const SENTENCE = Object.freeze({
  stopped: "Stopped before the answer was finished.",
  busy: "An answer is still being written: stop it or wait for it to finish.",
});
