// A module worker started from a page or a worker of any origin: a script of another origin
// is imported from a same-origin `blob:` shim, as browsers start workers only from their own.

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
