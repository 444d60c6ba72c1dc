// Offline use: after one visit from the page's own origin, everything loads without a network.

import { STATIC_FOLDER } from "./served-from.js";

/**
 * Served from the page's own origin, the widget registers its service worker so that, after
 * one visit, the page, the widget and the runtime load offline. Embedded from another origin
 * it does not (a service worker may only serve its own origin).
 */
export function keepForOffline() {
  const script = new URL("./service-worker.js", STATIC_FOLDER);
  if (script.origin !== location.origin || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(script, { scope: new URL("../", script).pathname }).catch((error) => {
    console.warn(`Chatkeep: offline use is not available here (${error.message}).`);
  });
}
