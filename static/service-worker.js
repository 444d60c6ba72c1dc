// Chatkeep's service worker: after one visit, the page, the widget and its runtime load with
// the network off. Registered by <chat-widget> only when the page and the widget share an
// origin; its scope is the app's root (the folder above static/).
//
// Every build is cached whole, under its own name (`chatkeep-<build>`, the build id from
// static/offline.json), before any of it is served offline; an older build is dropped only once
// a newer one is complete, so an offline page never mixes files of two builds. Online, the
// network answers first and the cache is only the fallback. API calls are never cached.

/** @type {ServiceWorkerGlobalScope} */
const worker = /** @type {any} */ (self);
const PREFIX = "chatkeep-";
const STATIC = new URL("./", self.location.href); // …/static/
const ROOT = new URL("../", STATIC); //              the app's root, the page's folder
const CURRENT = new Request(new URL("chatkeep-offline-build", STATIC)); // which build is whole

worker.addEventListener("install", (event) => {
  event.waitUntil(cacheBuild().then(() => worker.skipWaiting()));
});

worker.addEventListener("activate", (event) => {
  event.waitUntil(worker.clients.claim());
});

worker.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const page = request.mode === "navigate" && url.href.startsWith(ROOT.href);
  if (!page && !url.href.startsWith(STATIC.href)) return; // the API and everything else: network
  event.respondWith(networkFirst(request, page, event));
});

/**
 * The network's answer when there is one (refreshing the build if it changed), else the cache.
 * @param {Request} request @param {boolean} page @param {FetchEvent} event
 */
async function networkFirst(request, page, event) {
  try {
    const response = await fetch(request);
    if (page && response.ok) event.waitUntil(cacheBuild().catch(() => {}));
    return response;
  } catch (error) {
    const cached = await fromWholeBuild(request, page);
    if (cached) return cached;
    throw error;
  }
}

/** @param {Request} request @param {boolean} page */
async function fromWholeBuild(request, page) {
  const current = await caches.open(`${PREFIX}current`);
  const marker = await current.match(CURRENT);
  if (!marker) return undefined;
  const cache = await caches.open(PREFIX + (await marker.text()));
  // Any page of the app (`/`, `/?x`) is the page that was kept.
  return (await cache.match(request, { ignoreVary: true })) ?? (page ? cache.match(ROOT.href) : undefined);
}

/** Caches the build the server has now, whole, then makes it the current one. */
async function cacheBuild() {
  const manifest = await (await fetch(new URL("offline.json", STATIC), { cache: "no-cache" })).json();
  const current = await caches.open(`${PREFIX}current`);
  const marker = await current.match(CURRENT);
  if (marker && (await marker.text()) === manifest.build) return;
  const name = PREFIX + manifest.build;
  const cache = await caches.open(name);
  const urls = [ROOT.href, ...manifest.files.map((file) => new URL(file, STATIC).href)];
  await cache.addAll(urls.map((url) => new Request(url, { cache: "no-cache" })));
  await current.put(CURRENT, new Response(manifest.build));
  for (const key of await caches.keys()) {
    if (key.startsWith(PREFIX) && key !== name && key !== `${PREFIX}current`) await caches.delete(key);
  }
}
