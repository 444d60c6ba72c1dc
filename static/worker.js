// The widget's module Web Worker: boots Pyodide, loads the widget wheel, and carries out
// what the Python session asks for (model requests, tool calls on the page). The page's
// main thread never runs Python. Protocol: ./rpc.js.

import { Channel } from "./rpc.js";
import { openStream } from "./sse.js";

const RUNTIME = new URL("./runtime/", import.meta.url);

/** @type {any} the Python `widget.bridge.Bridge` */
let bridge = null;
let endpoint = "";
/** @type {Set<AbortController>} requests in flight, aborted by "stop" */
const inFlight = new Set();

/** The turn running now (a send or a retry), so that switching conversations can wait for it. */
let turn = Promise.resolve();

const channel = new Channel(self, {
  init: ({ config }) => boot(config),
  send: ({ text, attachments }) => track(call("send", text, JSON.stringify(attachments ?? []))),
  retry: ({ index }) => track(call("retry", index)),
  stop: () => stop(),
  save: () => call("save"),
  restore: async ({ snapshot }) => {
    await stop();
    return call("restore", snapshot == null ? "" : JSON.stringify(snapshot));
  },
  open: async ({ conversationId }) => {
    await stop();
    return call("open", conversationId);
  },
  fork: async ({ index }) => {
    await stop();
    return call("fork", index);
  },
  forget: ({ conversationId }) => call("forget", conversationId),
  rename: ({ conversationId, title }) => call("rename", conversationId, title),
  history: () => call("history"),
  exportAll: () => call("export_all"),
  importAll: ({ text }) => call("import_all", text),
  storageChanged: ({ key }) => call("storage_changed", key),
  dispose: async () => {
    await stop();
    return call("keep");
  },
  getHistory: () => call("get_history"),
  setHistory: ({ messages }) => call("set_history", JSON.stringify(messages)),
  readSnapshot: ({ value }) => call("read_snapshot", JSON.stringify(value ?? null)),
  setModel: ({ model }) => call("set_model", model),
  setThinking: ({ level }) => call("set_thinking", level),
  registerTool: ({ spec }) => call("register_tool", JSON.stringify(spec)),
  unregisterTool: ({ name }) => call("unregister_tool", name),
  state: () => call("state"),
}, "w");

function track(promise) {
  turn = promise.catch(() => {});
  return promise;
}

/** Ends the running turn, if any, and waits until it has settled. */
async function stop() {
  for (const controller of inFlight) controller.abort();
  await call("stop");
  // Python now knows it is stopping; a tool call waiting for approval can be let go (and cut).
  channel.emit("stopping", "null");
  await turn;
}

/** Calls a bridge method; its JSON answer becomes a result or a rejected Error. */
async function call(method, ...args) {
  if (!bridge) throw new Error("The chat is still starting.");
  const answer = JSON.parse(await bridge[method](...args));
  if ("error" in answer) throw new Error(answer.error);
  return answer.result;
}

// -- boot, as numbered stages -------------------------------------------------------------

async function boot(config) {
  endpoint = config.endpoint.replace(/\/+$/, "");
  const started = performance.now();
  const [pyodide, wheel] = await Promise.all([loadRuntime(), fetchWheel()]);
  installWidget(pyodide, wheel);
  bridge = startBridge(pyodide, config);
  await call("start");
  return {
    bootMs: Math.round(performance.now() - started),
    state: await call("state"),
    history: await call("history"),
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

/** 3. Unpack it into site-packages. */
function installWidget(pyodide, wheel) {
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
}

/** 4. The Python session, given the callbacks it needs from JavaScript. */
function startBridge(pyodide, config) {
  const { Bridge } = pyodide.pyimport("widget.bridge");
  const host = {
    openStream: (body) => {
      const controller = new AbortController();
      inFlight.add(controller);
      const stream = openStream(`${endpoint}/chat/completions`, body, controller);
      return {
        next: () => stream.next(),
        close: () => {
          controller.abort();
          inFlight.delete(controller);
        },
      };
    },
    callTool: (name, args) => channel.request("callTool", { name, arguments: args }),
    storage: (op, key, value) => channel.request("storage", { op, key, value }),
    historyStore: (op, args) => channel.request("historyStore", { op, args }),
    emit: (kind, json) => channel.emit(kind, json),
  };
  return Bridge(host, JSON.stringify(config));
}
