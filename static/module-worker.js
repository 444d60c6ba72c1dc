// A module worker started from a page or a worker of any origin: a script of another origin
// is imported from a same-origin `blob:` shim, as browsers start workers only from their own;
// and Pyodide's compiled WebAssembly handed to one.

/** @param {URL} url @returns {Worker} */
export function startModuleWorker(url) {
  if (url.origin === location.origin) return new Worker(url, { type: "module" });
  const shim = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};`], { type: "text/javascript" }));
  try {
    return new Worker(shim, { type: "module" });
  } finally {
    setTimeout(() => URL.revokeObjectURL(shim), 60_000);
  }
}

/**
 * Posts `message`, whose `module` is Pyodide's compiled WebAssembly (or null), to `worker`;
 * with `module: null` where the browser cannot hand a module to a worker.
 * @param {Worker} worker @param {Record<string, unknown> & {module: WebAssembly.Module | null}} message
 */
export function postModule(worker, message) {
  try {
    worker.postMessage(message);
  } catch {
    worker.postMessage({ ...message, module: null });
  }
}
