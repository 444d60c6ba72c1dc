// Starting the widget's worker, from any origin, and early: the entry script loads this module
// before the element's, so an inline chat's worker starts Python while the element sets itself
// up, and the element takes it. A launcher starts nothing until it is opened.

import "./sync-link.js"; // first: a sync code leaves the address before anything starts
import { postModule, startModuleWorker } from "./module-worker.js";
import { KIND } from "./protocol.js";

export const WORKER_URL = new URL("./worker.js", import.meta.url);
const MAKER_URL = new URL("./snapshot-maker.js", import.meta.url);
const RUNTIME_WASM = new URL("./runtime/pyodide/pyodide.asm.wasm", import.meta.url);

/** @type {{worker: Worker, failure: string | null} | null} */
let early = null;
/** @type {Promise<WebAssembly.Module | null>} Pyodide's WebAssembly as this page last compiled it */
let compiledRuntime = Promise.resolve(null);

/** Starts the worker now if an element on the page will start it as soon as it connects. */
function startEarly() {
  if (!document.querySelector('chat-widget:not([mode="launcher"]), chat-widget[preload]')) return;
  try {
    const started = { worker: createWorker(WORKER_URL), failure: /** @type {string | null} */ (null) };
    // A worker that fails before the element takes it must still say so then.
    started.worker.addEventListener("error", (event) => { started.failure = event.message ?? ""; }, { once: true });
    early = started;
    setTimeout(() => { // nobody took it (the element did not load): it stops
      if (early === started) started.worker.terminate();
      if (early === started) early = null;
    }, 30_000);
  } catch {
    // the element tries again, and says why it could not
  }
}

/**
 * The worker for an element: the one started early, if left, else a new one.
 * `onFailure` hears a failure to start.
 * @param {(message: string) => void} onFailure
 */
export function startWorker(onFailure) {
  const taken = early;
  early = null;
  const worker = taken?.worker ?? createWorker(WORKER_URL);
  worker.addEventListener("error", (event) => onFailure(event.message ?? ""));
  const failure = taken?.failure;
  if (failure != null) queueMicrotask(() => onFailure(failure));
  return worker;
}

/** The worker, from any origin (./module-worker.js), handed the runtime the page compiles. */
function createWorker(/** @type {URL} */ url) {
  const worker = startModuleWorker(url);
  handRuntime(worker);
  return worker;
}

/**
 * Pyodide's WebAssembly, compiled here and handed to the worker (null if it could not be):
 * Chromium finds a returning visitor's compiled code in its cache only for a page, never for
 * a worker, which would compile 10 MB again on every visit (Firefox gains too). WebKit
 * compiles no faster here, and its first visit was slower: it compiles in the worker.
 * `compileStreaming` compiles off the main thread; the worker starts Python with the module.
 */
function handRuntime(/** @type {Worker} */ worker) {
  const webKit = /AppleWebKit/.test(navigator.userAgent) && !/Chrom(e|ium)\//.test(navigator.userAgent);
  const compiled = typeof WebAssembly?.compileStreaming === "function" && !webKit && !refusedHere()
    ? WebAssembly.compileStreaming(fetch(RUNTIME_WASM)).catch((error) => {
      if (/Content.Security.Policy|unsafe-eval|CSP/i.test(String(error?.message))) noteRefusal();
      return null; // the worker compiles it
    })
    : Promise.resolve(null);
  compiledRuntime = compiled;
  compiled.then((module) => postModule(worker, { id: "runtime", type: KIND.runtime, module }));
}

/**
 * A page whose Content-Security-Policy forbids WebAssembly (no `'wasm-unsafe-eval'`) refuses
 * the compile above, and reports a violation: a site with CSP reporting would get one a visit.
 * After a refusal the page does not try again for `RETRY_REFUSED_MS` (the worker compiles; a
 * policy that forbids it there too is said at once, static/python-runtime.js).
 */
const REFUSED_KEY = "chatkeep:page-webassembly-refused";
const RETRY_REFUSED_MS = 7 * 24 * 3600 * 1000;

function refusedHere() {
  try {
    return Date.now() - Number(localStorage.getItem(REFUSED_KEY) ?? 0) < RETRY_REFUSED_MS;
  } catch {
    return false; // no storage (a sandboxed frame): it tries
  }
}

function noteRefusal() {
  try {
    localStorage.setItem(REFUSED_KEY, String(Date.now()));
  } catch {
    // nowhere to note it: it tries again next visit
  }
}

/** Pyodide's WebAssembly as the page compiled it for the chat's worker (null: it did not). */
export function compiledPyodide() {
  return compiledRuntime;
}

/**
 * The memory snapshot the next visit boots from, made once the chat is ready by a worker of
 * its own (./snapshot-maker.js) that starts Python as the chat's worker did, with the runtime
 * compiled here, on another thread. Started by the page: started inside the chat's worker,
 * Firefox now and then never returned from making it, and the chat never became ready (about
 * 1 first visit in 15, docs/benchmarks.md). True once it is kept under `key`.
 * @param {string} key
 */
export async function keepSnapshotLater(key) {
  /** @type {Worker | null} */
  let maker = null;
  try {
    maker = startModuleWorker(MAKER_URL);
    const started = maker;
    const kept = new Promise((resolve) => {
      started.onmessage = ({ data }) => resolve(data === true);
      started.onerror = () => resolve(false);
    });
    postModule(started, { module: await compiledRuntime, key });
    return await kept;
  } catch (error) {
    console.warn(`Chatkeep: no runtime snapshot for the next visit (${error instanceof Error ? error.message : error}).`);
    return false;
  } finally {
    maker?.terminate();
  }
}

startEarly();
