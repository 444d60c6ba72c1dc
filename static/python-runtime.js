// Starting Pyodide in a worker, shared by the chat's worker (./worker.js) and the one that
// makes the memory snapshot later visits boot from (./snapshot-maker.js): both must start the
// same runtime with the same Python, or a snapshot would not load into the other.

/** The runtime folder: Pyodide, the widget's Python (beside this script, under the build). */
export const RUNTIME = new URL("./runtime/", import.meta.url);

/**
 * Pyodide's loader (pyodide.mjs) and its 1 MB glue (pyodide.asm.js), both imported now.
 * `loadPyodide` would ask for the glue only once the loader has run; imported here, it is
 * compiled and run while the page's WebAssembly is still on its way. On a first visit in
 * Chromium, Python had been waiting for it (docs/benchmarks.md, "The glue imported with the
 * loader"). The glue defines `_createPyodideModule`, which `loadPyodide` then uses, or it
 * awaits this same import.
 */
export function importLoader() {
  const loader = import(new URL("pyodide/pyodide.mjs", RUNTIME).href);
  loader.catch(() => {}); // said where it is awaited
  import(new URL("pyodide/pyodide.asm.js", RUNTIME).href).catch(() => {}); // loadPyodide's own import says why
  return loader;
}

/**
 * Pyodide instantiates its WebAssembly once: from the page's module when the page compiled it
 * (warm, from Chromium's code cache), else streaming it as Pyodide would. Pyodide's own
 * download of the 10 MB waits for the page's answer and happens only if it brought none:
 * started at once, it took the network and the CPU the page's compile needed (a first visit
 * ready 0.1x later on two cores).
 * @param {Promise<WebAssembly.Module | null>} module
 */
export function useRuntimeFromPage(module) {
  const wasm = new URL("pyodide/pyodide.asm.wasm", RUNTIME).href;
  const ownFetch = self.fetch;
  self.fetch = (input, init) => {
    if (String(input) !== wasm) return ownFetch(input, init);
    self.fetch = ownFetch;
    return module.then((compiled) => (compiled ? new Response(null) : ownFetch(input, init)));
  };
  const own = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (source, imports) => {
    WebAssembly.instantiateStreaming = own;
    const compiled = await module;
    if (!compiled) return own.call(WebAssembly, source, imports);
    return { module: compiled, instance: await WebAssembly.instantiate(compiled, imports) };
  };
}

/**
 * 0. WebAssembly may run here: a worker started from a `blob:` shim (the widget on another
 * origin) inherits the host page's Content-Security-Policy, which may forbid it; then Pyodide
 * would never start, and the person would wait for ever. An empty module says so at once.
 */
export function requireWebAssembly() {
  try {
    // Compiled and run here and now: Firefox queues an asynchronous compile behind the page's
    // compile of Pyodide's 10 MB (it held a first visit back 100-250 ms); WebKit compiles
    // under such a policy and refuses only to run the module.
    new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])));
  } catch (error) {
    if (/content security policy|unsafe-eval|\bCSP\b/i.test(String(error?.message))) {
      throw new Error(`${CSP_BLOCKS} add 'wasm-unsafe-eval' to the page's script-src.`);
    }
  }
}

const CSP_BLOCKS = "The page's Content-Security-Policy keeps the chat's Python from starting:";

/**
 * 1. Pyodide itself, with the widget's Python: the standard library's modules the widget
 * imports and its own, compiled, in one zip (tools/stdlib_subset.mjs) that Pyodide mounts as
 * its standard library, so nothing is fetched or unpacked besides. From a snapshot when
 * `options` has one.
 * @param {Promise<any>} loader  Pyodide's pyodide.mjs, imported
 */
export async function loadRuntime(loader, options = {}) {
  const { loadPyodide } = await loader;
  try {
    return await loadPyodide({
      indexURL: new URL("pyodide/", RUNTIME).href,
      stdLibURL: new URL("pyodide/widget_python.zip", RUNTIME).href,
      packages: [],
      ...options,
    });
  } catch (error) {
    if (options._loadSnapshot) throw error; // the caller starts again without it
    throw new Error(`The Python runtime did not load (${error.message}). Check that the server ran "make serve" or "make test" to build it.`);
  }
}

/**
 * Imports the widget, as a first visit's start and the snapshot's maker both do, with the
 * records' methods compiled when the zip was built (widget/precompiled.py): compiling them here
 * took most of the import. Each module is read from the zip once, from Python's start on (the
 * zip's `sitecustomize`, widget/zip_import.py).
 */
export function importWidget(/** @type {any} */ pyodide) {
  pyodide.runPython("import widget.precompiled\nwidget.precompiled.install_shipped()\nimport widget.bridge, widget.compression");
}

/** Python with the widget imported, as bytes; null if this runtime cannot make one. */
export function makeSnapshot(pyodide) {
  try {
    return pyodide.makeMemorySnapshot();
  } catch (error) {
    console.warn(`Chatkeep: no runtime snapshot for the next visit (${error.message}).`);
    return null;
  }
}
