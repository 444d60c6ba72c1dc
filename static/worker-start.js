// Starting the widget's worker, from any origin, and early: the entry script loads this module
// before the element's, so an inline chat's worker starts Python while the element sets itself
// up, and the element takes it. A launcher starts nothing until it is opened.

export const WORKER_URL = new URL("./worker.js", import.meta.url);

/** @type {{worker: Worker, failure: string | null} | null} */
let early = null;

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

/** A module worker from any origin: cross-origin scripts are imported from a same-origin blob. */
function createWorker(/** @type {URL} */ url) {
  if (url.origin === location.origin) return new Worker(url, { type: "module" });
  const blobUrl = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};`], { type: "text/javascript" }));
  try {
    return new Worker(blobUrl, { type: "module" });
  } finally {
    setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000);
  }
}

startEarly();
