// The widget's module Web Worker: boots Pyodide, loads the widget wheel, and carries what
// the Python session asks for (model requests, storage and tools on the page). It decides
// nothing: every operation of the table Python declares (widget/operations.py) goes to
// `Bridge.call` as it is, and Python's JSON reply goes back to the page unparsed.

import { Channel } from "./rpc.js";
import { openStream } from "./sse.js";

const RUNTIME = new URL("./runtime/", import.meta.url);
/** Streamed text is sent to the page at most this often (ms): bytes stay near the answer's size. */
const DRAFT_INTERVAL = 40;

/** @type {any} the Python `widget.bridge.Bridge` */
let bridge = null;
let endpoint = "";

const channel = new Channel(self, {
  init: ({ config }) => boot(config),
  call: async ({ op, args }) => {
    if (!bridge) throw new Error("The chat is still starting.");
    return bridge.call(op, JSON.stringify(args ?? {})); // JSON text, parsed once by the page
  },
}, "w");

// -- streamed text, coalesced -----------------------------------------------------------------

/** @type {{at: number, text: string, calls: any[] | null} | null} */
let pendingDraft = null;
let draftTimer = 0;

/** Python's `host.draft(at, text, callsJson)`; `at < 0` means the answer has settled. */
function draft(at, text, callsJson) {
  if (at < 0) {
    flushDraft();
    channel.emit("draft", null);
    return;
  }
  const calls = callsJson ? JSON.parse(callsJson) : null;
  if (pendingDraft) {
    pendingDraft.text += text;
    if (calls) pendingDraft.calls = calls;
  } else {
    pendingDraft = { at, text, calls };
    draftTimer = setTimeout(flushDraft, DRAFT_INTERVAL);
  }
}

/** Sends what was streamed as `[at, text]`, or `[at, text, calls]` when the calls changed. */
function flushDraft() {
  clearTimeout(draftTimer);
  if (!pendingDraft) return;
  const { at, text, calls } = pendingDraft;
  pendingDraft = null;
  channel.emit("draft", calls ? [at, text, calls] : [at, text]);
}

/** Every other event: what was streamed before it goes first, so the page sees them in order. */
function emit(kind, json) {
  flushDraft();
  channel.emit(kind, json);
}

// -- boot, as numbered stages -------------------------------------------------------------

async function boot(config) {
  endpoint = config.endpoint.replace(/\/+$/, "");
  const [pyodide, wheel, models] = await Promise.all([loadRuntime(), fetchWheel(), fetchModels()]);
  installWidget(pyodide, wheel);
  bridge = startBridge(pyodide, { ...config, models });
  return {
    operations: JSON.parse(bridge.operations()),
    start: await bridge.start(),
  };
}

/** 1. Pyodide itself, with a standard library the build compiled to bytecode. */
async function loadRuntime() {
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", RUNTIME).href);
  try {
    return await loadPyodide({
      indexURL: new URL("pyodide/", RUNTIME).href,
      stdLibURL: new URL("pyodide/python_stdlib.zip", RUNTIME).href,
      packages: [],
    });
  } catch (error) {
    throw new Error(`The Python runtime did not load (${error.message}). Check that the server ran "make serve" or "make test" to build it.`);
  }
}

/** 2. The widget wheel's bytes (fetched while Pyodide boots). */
async function fetchWheel() {
  const response = await fetch(new URL("widget.whl", RUNTIME));
  if (!response.ok) throw new Error(`The widget package is missing (${response.status}): rebuild with "make serve".`);
  return new Uint8Array(await response.arrayBuffer());
}

/** 3. The models the server offers (also while Pyodide boots); none when it cannot say. */
async function fetchModels() {
  try {
    const response = await fetch(`${endpoint}/models`);
    const { data } = await response.json();
    return data.map((/** @type {{id: string}} */ model) => model.id).filter((id) => typeof id === "string");
  } catch {
    return [];
  }
}

/** 4. Unpack the wheel into site-packages. */
function installWidget(pyodide, wheel) {
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
}

/** 5. The Python session, given the callbacks it needs from JavaScript. */
function startBridge(pyodide, config) {
  const { Bridge } = pyodide.pyimport("widget.bridge");
  const host = {
    openStream: (body) => {
      const controller = new AbortController();
      const stream = openStream(`${endpoint}/chat/completions`, body, controller);
      return { next: () => stream.next(), close: () => controller.abort() };
    },
    callTool: (name, args) => channel.request("callTool", { name, arguments: args }),
    storage: (op, argument) => channel.request("storage", { op, argument }),
    historyStore: (op, args) => channel.request("historyStore", { op, args }),
    emit,
    draft,
  };
  return Bridge(host, JSON.stringify(config));
}
