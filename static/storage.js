// The page's side of history storage. Workers have no localStorage, so the Python session
// in the worker asks the page to read and write it: one trip per batch of writes.

import { HOST_STORE, STORAGE, WRITTEN } from "./protocol.js";

/**
 * localStorage operations confined to keys that start with `<prefix>:`.
 * `write` applies a batch of changes together or not at all: it answers "conflict" when an
 * expected value differs and "full" when the quota is exceeded, having changed nothing.
 * @param {string} prefix
 * @param {() => Storage} area  where, at the moment of each request
 */
export function localStorageHandler(prefix, area = () => localStorage) {
  const own = `${prefix}:`;
  const check = (/** @type {string} */ key) => {
    if (typeof key !== "string" || !key.startsWith(own)) throw new Error(`refusing to touch a key outside "${own}": ${key}`);
  };
  return ({ op, prefix, key, changes, expect }) => {
    const localStorage = area(); // the page's, or its memory until consent (consent.js)
    switch (op) {
      case STORAGE.readAll: {
        check(prefix);
        /** @type {Record<string, string>} */
        const found = {};
        for (let i = 0; i < localStorage.length; i++) {
          const name = localStorage.key(i);
          if (name?.startsWith(prefix)) found[name] = /** @type {string} */ (localStorage.getItem(name));
        }
        return found;
      }
      case STORAGE.get:
        check(key);
        return localStorage.getItem(key);
      case STORAGE.write:
        return writeBatch({ changes, expect }, check, localStorage);
      default:
        throw new Error(`unknown storage operation "${op}"`);
    }
  };
}

/**
 * @param {{changes: [string, string | null][], expect: Record<string, string | null>}} batch
 * @param {(key: string) => void} check
 * @param {Storage} localStorage
 */
function writeBatch({ changes, expect }, check, localStorage) {
  for (const [key] of changes) check(key);
  for (const [key, value] of Object.entries(expect)) {
    check(key);
    if (localStorage.getItem(key) !== value) return WRITTEN.conflict;
  }
  /** @type {[string, string | null][]} */
  const undo = [];
  try {
    for (const [key, value] of changes) {
      undo.push([key, localStorage.getItem(key)]);
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    }
  } catch (error) {
    for (const [key, value] of undo.reverse()) {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    }
    if (isQuotaError(error)) return WRITTEN.full;
    throw error;
  }
  return WRITTEN.ok;
}

/** Calls another tab's changes in with `notify(key)`; returns the function that stops it. */
export function watchOtherTabs(prefix, notify) {
  const listener = (event) => {
    if (event.storageArea === localStorage && event.key?.startsWith(`${prefix}:`)) notify(event.key);
  };
  addEventListener("storage", listener);
  return () => removeEventListener("storage", listener);
}

/**
 * A host-supplied store: `{ready?, list(), read(id), keep(id, snapshot, title), forget(id)}`.
 * @param {() => any} getStore
 */
export function hostStoreHandler(getStore) {
  return async ({ op, args }) => {
    const store = getStore();
    if (op === HOST_STORE.list) await store.ready;
    if (typeof store[op] !== "function") throw new Error(`historyStore has no ${op}() method`);
    const result = await store[op](...args);
    // plain data only (what JSON holds): what the host's store hands back may hold anything
    return op === HOST_STORE.list || op === HOST_STORE.read ? JSON.parse(JSON.stringify(result ?? null)) : null;
  };
}

function isQuotaError(error) {
  return error instanceof DOMException && (error.name === "QuotaExceededError" || error.code === 22);
}
