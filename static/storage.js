// The page's side of history storage. Workers have no localStorage, so the Python session
// in the worker asks the page to read and write it. Every answer is JSON text.

/**
 * localStorage operations confined to keys that start with `<prefix>:`.
 * @param {string} prefix
 */
export function localStorageHandler(prefix) {
  const own = `${prefix}:`;
  const check = (key) => {
    if (!key.startsWith(own)) throw new Error(`refusing to touch a key outside "${own}": ${key}`);
  };
  return ({ op, key, value }) => {
    switch (op) {
      case "keys": {
        const keys = [];
        for (let i = 0; i < localStorage.length; i++) {
          const name = localStorage.key(i);
          if (name?.startsWith(own)) keys.push(name);
        }
        return JSON.stringify(keys);
      }
      case "get":
        check(key);
        return JSON.stringify(localStorage.getItem(key));
      case "set":
        check(key);
        try {
          localStorage.setItem(key, value);
          return JSON.stringify("ok");
        } catch (error) {
          if (isQuotaError(error)) return JSON.stringify("full");
          throw error;
        }
      case "remove":
        check(key);
        localStorage.removeItem(key);
        return JSON.stringify("ok");
      default:
        throw new Error(`unknown storage operation "${op}"`);
    }
  };
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
    const parsed = JSON.parse(args);
    if (op === "list") await store.ready;
    if (typeof store[op] !== "function") throw new Error(`historyStore has no ${op}() method`);
    const result = await store[op](...parsed);
    return JSON.stringify(op === "list" || op === "read" ? result ?? null : null);
  };
}

function isQuotaError(error) {
  return error instanceof DOMException && (error.name === "QuotaExceededError" || error.code === 22);
}
