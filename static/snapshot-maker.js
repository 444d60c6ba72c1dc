// The worker that makes the memory snapshot later visits boot from (./snapshot-store.js),
// started by the page once a first visit is ready (./worker-start.js `keepSnapshotLater`):
// Python started as the chat's worker starts it (./python-runtime.js), the widget imported,
// the memory kept under the key it is sent. On a thread of its own, it does not hold the
// first visit back; it says whether the snapshot was kept, and is then stopped.

import { importLoader, importWidget, loadRuntime, makeSnapshot, requireWebAssembly, useRuntimeFromPage } from "./python-runtime.js";
import { keepSnapshot } from "./snapshot-store.js";

self.onmessage = async ({ data: { module, key } }) => {
  self.onmessage = null;
  let kept = false;
  try {
    const loader = importLoader();
    requireWebAssembly();
    useRuntimeFromPage(Promise.resolve(module instanceof WebAssembly.Module ? module : null));
    const pyodide = await loadRuntime(loader, { _makeSnapshot: true });
    importWidget(pyodide);
    const bytes = makeSnapshot(pyodide);
    kept = bytes ? await keepSnapshot(key, bytes) : false;
  } catch (error) {
    console.warn(`Chatkeep: no runtime snapshot for the next visit (${error.message}).`);
  }
  self.postMessage(kept);
};
