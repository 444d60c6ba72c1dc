// The widget's module Web Worker: boots Pyodide with the widget's Python, and carries what
// the Python session asks for (model requests, storage and tools on the page). It decides
// nothing: every operation of the table Python declares (widget/operations.py) goes to
// `Bridge.call` as it is; Python's JSON reply goes back to the page unparsed, and its error
// as an error reply.

import { pack, streams, unpack } from "./codec.js";
import { EVENT, KIND, REQUEST, STORAGE, storageKey, WORKER_CALLS } from "./protocol.js";
import { Channel, ReplyError } from "./rpc.js";
import { openStream, wakeStreams } from "./sse.js";
import { downscaled } from "./downscale.js";
import { BUILD } from "./served-from.js";
import { importLoader, importWidget, loadRuntime, requireWebAssembly, useRuntimeFromPage } from "./python-runtime.js";
import { forgetSnapshot, keptSnapshot } from "./snapshot-store.js";
import { SyncClient } from "./sync-client.js";
import * as shares from "./share-client.js";

/** Streamed text is sent to the page at most this often (ms): bytes stay near the answer's size. */
const DRAFT_INTERVAL = 40;

/** @type {any} the Python `widget.bridge.Bridge` */
let bridge = null;
/** @type {import("./codec.js").Compression} Python's zlib once it runs (faster), else the browser's */
let compression = streams;
let endpoint = "";
/** @type {Record<string, string>} the client token, when the host gave the widget one */
let credentials = {};

/**
 * Pyodide's WebAssembly module as the page compiled it, or null (static/worker-start.js): the
 * page always says which, when its compiling ends (on a slow network, once the 10 MB arrived:
 * the worker never fetches them a second time).
 */
let receiveRuntime = (/** @type {WebAssembly.Module | null} */ _module) => {};
const fromPage = new Promise((resolve) => (receiveRuntime = resolve));
useRuntimeFromPage(fromPage);

const channel = new Channel(self, {
  [KIND.runtime]: ({ module }) => receiveRuntime(module instanceof WebAssembly.Module ? module : null),
  [KIND.init]: ({ config, keepSnapshot: mayKeep = true }) => boot(config, mayKeep),
  [KIND.downscale]: ({ file }) => downscaled(file),
  [KIND.wake]: () => wakeStreams(),
  [KIND.call]: async ({ op, args }) => {
    if (!bridge) throw Object.assign(new Error("The chat is still starting."), { code: "starting" });
    /** `{"result": …}` or `{"error": {message, bug?}}`: parsed here, once; plain data onwards */
    const reply = JSON.parse(await bridge.call(op, JSON.stringify(args ?? {})));
    if (reply.error) throw new ReplyError(reply.error.message, reply.error.bug, reply.error.code, reply.error.params);
    return reply.result;
  },
}, "w");

// -- streamed text, coalesced -----------------------------------------------------------------

/** @type {import("./protocol.js").DraftChange | null} what is yet to be sent of the answer */
let pendingDraft = null;
let draftTimer = 0;

/**
 * Python's `host.draft(change)` (JSON text of a `DraftChange`): changes of one answer are
 * joined and sent at most every DRAFT_INTERVAL ms; its end goes at once, after the rest.
 * @param {string} json
 */
function draft(json) {
  /** @type {import("./protocol.js").DraftChange} */
  const change = JSON.parse(json);
  if (change.end) {
    flushDraft();
    channel.emit(EVENT.draft, change);
    return;
  }
  if (pendingDraft && pendingDraft.answer === change.answer) {
    pendingDraft.text += change.text;
    if (change.thought) pendingDraft.thought = (pendingDraft.thought ?? "") + change.thought;
    if (change.thoughtAt !== undefined) pendingDraft.thoughtAt ??= change.thoughtAt;
    if (change.calls) pendingDraft.calls = change.calls;
    return;
  }
  flushDraft();
  pendingDraft = change;
  draftTimer = setTimeout(flushDraft, DRAFT_INTERVAL);
}

function flushDraft() {
  clearTimeout(draftTimer);
  if (!pendingDraft) return;
  const change = pendingDraft;
  pendingDraft = null;
  channel.emit(EVENT.draft, change);
}

/** Every other event (JSON text from Python): what was streamed before it goes first. */
function emit(kind, json) {
  flushDraft();
  channel.emit(kind, JSON.parse(json));
}

// -- answers the server keeps for a reload: one tab reads each -------------------------------

/** @type {Map<string, () => void>} turn id → gives its lock back */
const claims = new Map();

/**
 * Takes the Web Lock of a turn for this tab and holds it until `releaseTurn` (or until this
 * worker ends, as on a reload): false when another tab holds it, as while it reads that
 * answer. Without Web Locks every claim succeeds.
 * @param {string} turn
 */
function claimTurn(turn) {
  if (claims.has(turn)) return Promise.resolve(true);
  if (!navigator.locks) return Promise.resolve(true);
  return new Promise((resolve) => {
    navigator.locks.request(`chatkeep-turn:${turn}`, { ifAvailable: true }, (lock) => {
      resolve(lock !== null);
      if (!lock) return undefined;
      return new Promise((release) => claims.set(turn, () => release(undefined)));
    });
  });
}

/** @param {string} turn */
function releaseTurn(turn) {
  claims.get(turn)?.();
  claims.delete(turn);
}

// -- storage: transcripts travel to the page compressed ----------------------------------------

/** What the keys of stored conversations start with (protocol.js `STORAGE_KEYS`), from boot. */
let conversationKeys = "\0";

/**
 * Python's `host.storage(request)`: the page's localStorage, one trip per call (JSON text of
 * a `storage` payload in, of the page's answer out). Stored conversations (the keys that
 * STORAGE_KEYS lays out for them) are packed here on the way out and unpacked on the way in,
 * so Python reads and writes plain JSON and the page stores about five times more: Pyodide's
 * zlib and this codec pack a 200 KB conversation in ~5 ms, where Python alone takes ~30 ms.
 * @param {string} json
 */
async function storage(json) {
  const request = JSON.parse(json);
  const isConversation = (/** @type {string} */ key) => key.startsWith(conversationKeys);
  if (request.op === STORAGE.write) {
    for (const change of request.changes) {
      if (change[1] !== null && isConversation(change[0])) change[1] = await pack(change[1], compression);
    }
  }
  let answer = await channel.request(REQUEST.storage, request);
  if (request.op === STORAGE.get && isConversation(request.key)) answer = await unpack(answer, compression);
  return JSON.stringify(answer);
}

// -- boot, as numbered stages -------------------------------------------------------------

// The memory snapshot of Python with the widget imported (./snapshot-store.js): a first visit
// boots plainly, and once it is ready a worker of its own makes the snapshot; later visits boot
// from it. A snapshot only loads into the identical runtime and Python, hence its key: the
// build's digest, known from this script's own URL before anything is fetched. Files served by
// their plain paths name no build: no snapshot then.

/** Python with the widget imported; its stages are numbered here and in ./python-runtime.js. */
async function startPython() {
  // Pyodide's loader and its glue are fetched and compiled while storage is asked for a snapshot.
  const loader = importLoader();
  requireWebAssembly();
  const key = self.indexedDB ? BUILD : null; // IndexedDB keeps it: some origins have none
  const kept = key ? await keptSnapshot(key) : null;
  if (kept) {
    try {
      // Its bytes are read from storage while the runtime's own files load.
      const pyodide = await loadRuntime(loader, { _loadSnapshot: kept.bytes });
      return { pyodide, fromSnapshot: true, key };
    } catch (error) {
      console.warn(`Chatkeep: the runtime snapshot this browser kept did not load (${error.message}); starting Python without it.`);
      forgetSnapshot();
    }
  }
  const pyodide = await loadRuntime(loader);
  importWidget(pyodide);
  return { pyodide, fromSnapshot: false, key };
}

/** @param {any} config @param {boolean} mayKeep whether the page may keep storage (consent) */
async function boot(config, mayKeep = true) {
  endpoint = config.endpoint.replace(/\/+$/, "");
  conversationKeys = storageKey("conversation", config.prefix);
  credentials = config.token ? { authorization: `Bearer ${config.token}` } : {};
  const [{ pyodide, fromSnapshot, key }, { models, maxToolCalls, syncOffered, serverTools }] =
    await Promise.all([python, fetchModels()]);
  bridge = startBridge(pyodide, { ...config, models, maxToolCalls, syncOffered });
  const start = JSON.parse(await bridge.start());
  // The snapshot for the next visit is made once the page has this reply, by a worker the
  // page starts (static/worker-start.js `keepSnapshotLater`), under this key.
  const snapshotKey = !fromSnapshot && key && mayKeep ? key : null;
  return { operations: JSON.parse(bridge.operations()), start, fromSnapshot, snapshotKey, serverTools, shareOffered: syncOffered };
}

/** Synced history's half in the worker (static/sync-client.js), as Python calls it: JSON in, JSON out. */
function syncCallbacks() {
  const sync = new SyncClient(() => endpoint, () => credentials, () => compression);
  const json = (/** @type {(request: any) => Promise<any>} */ run) => async (/** @type {string} */ text) =>
    JSON.stringify((await run(JSON.parse(text))) ?? null);
  const readNow = () => void bridge?.call("syncNow", "{}");
  /** A write: its request as JSON text, and the item's own JSON text apart (kept as it is). */
  const writing = (/** @type {(request: any, payload: string) => Promise<any>} */ run) =>
    async (/** @type {string} */ text, /** @type {string} */ payload) => JSON.stringify(await run(JSON.parse(text), payload));
  return {
    syncOpen: json(({ secret, keepAs, fresh }) => sync.open(secret, keepAs, fresh)),
    syncKnownBefore: json(({ secret }) => sync.knownBefore(secret)),
    syncResume: json(({ keptAs }) => sync.resume(keptAs)),
    syncForget: json(({ keptAs }) => sync.forget(keptAs)),
    syncListen: json(async () => sync.listen(readNow)),
    syncPull: json(({ since }) => sync.pull(since)),
    syncPush: writing(({ conversation, expect, seq, tail }, payload) => sync.push(conversation, expect, seq, payload, tail)),
    syncDrop: json(({ item, expect }) => sync.drop(item, expect)),
    syncDelete: writing(({ conversation, expect, seq }, payload) => sync.delete(conversation, expect, seq, payload)),
    syncMoving: json(() => sync.moving()),
    syncPullMoved: json(() => sync.pullMoved()),
    syncMoved: json(() => sync.moved()),
    syncWipe: json(() => sync.wipe()),
    syncPair: json(({ secret }) => sync.pair(secret)),
    syncUnpair: json(({ link }) => sync.unpair(link)),
  };
}

/** 2. The models the server offers, `{id, provider?, context_window?}`; none when it cannot say. */
async function fetchModels() {
  try {
    const response = await fetch(`${endpoint}/models`, { headers: credentials });
    const { data, chatkeep, tools } = await response.json();
    const models = data
      .filter((/** @type {any} */ model) => typeof model?.id === "string")
      .map((/** @type {any} */ model) => ({
        id: model.id,
        ...(typeof model.provider === "string" ? { provider: model.provider } : {}),
        // the context meter's window, in tokens
        ...(Number.isSafeInteger(model.context_window) && model.context_window > 0 ? { context_window: model.context_window } : {}),
      }));
    // The operator's MCP tools (`[mcp.NAME]`): the page offers them, asks, and calls the server.
    const serverTools = Array.isArray(tools) ? tools.filter((tool) => typeof tool?.name === "string") : [];
    return { models, maxToolCalls: chatkeep?.max_tool_calls, syncOffered: chatkeep?.sync === true, serverTools };
  } catch {
    return { models: [], maxToolCalls: undefined, syncOffered: false, serverTools: [] };
  }
}

/** 3. The Python session, given the callbacks it needs from JavaScript. */
function startBridge(pyodide, config) {
  const { Bridge } = pyodide.pyimport("widget.bridge");
  const zlib = pyodide.pyimport("widget.compression");
  const viaPython = (/** @type {any} */ run) => (/** @type {Uint8Array} */ bytes) => {
    const result = run(bytes);
    try {
      return result.toJs();
    } finally {
      result.destroy();
    }
  };
  compression = { deflate: viaPython(zlib.deflate), inflate: viaPython(zlib.inflate) };
  const worker = {
    openStream: (body) => openStream(endpoint, { body }, credentials),
    resumeStream: (turn) => openStream(endpoint, { turn }, credentials),
    claimTurn,
    releaseTurn,
    // its text, or {text, ui}: as JSON text for Python
    callTool: async (json) => JSON.stringify(await channel.request(REQUEST.callTool, JSON.parse(json))),
    storage,
    historyStore: async (json) => JSON.stringify((await channel.request(REQUEST.historyStore, JSON.parse(json))) ?? null),
    emit,
    draft,
    ...syncCallbacks(),
    // A shared link: the snapshot's text sealed here, with a key only the link holds.
    shareSeal: async (/** @type {string} */ text) => JSON.stringify(await shares.share(endpoint, text, credentials)),
    shareStop: async (/** @type {string} */ json) => {
      const { id, token } = JSON.parse(json);
      await shares.stop(endpoint, id, token, credentials);
    },
  };
  const names = Object.keys(worker);
  if (names.length !== WORKER_CALLS.length || !WORKER_CALLS.every((name) => names.includes(name))) {
    throw new Error(`The worker's calls for Python are not the ones declared: ${names.join(", ")}`);
  }
  return Bridge(worker, JSON.stringify(config));
}

/**
 * Python starts as soon as this worker runs: none of it depends on the page's configuration,
 * so it overlaps the page's own loading (worker-start.js); `boot` adds what does.
 */
const python = startPython();
python.catch(() => {}); // said by `boot`, when the page asks
