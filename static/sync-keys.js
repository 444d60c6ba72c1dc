// Where the worker keeps synced history's keys between visits: IndexedDB, as CryptoKey objects
// made non-extractable. A script of the host page can open the same database (it is the page's
// origin) and use them while it runs, but never read their bytes: what it could take away
// would not read a later conversation. No string from which the code, a site's `syncKey` or
// the keys follow is kept anywhere (docs/history.md, "What each party can get").

const DATABASE = "chatkeep-sync";
const STORE = "keys";

/** @typedef {{space: string, items: CryptoKey, names: CryptoKey, print: string}} SyncKeys */

/** @returns {Promise<IDBDatabase>} */
function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * One request in a transaction of its own.
 * @template T @param {IDBTransactionMode} mode @param {(store: IDBObjectStore) => IDBRequest<T>} act
 * @returns {Promise<T>}
 */
async function run(mode, act) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = act(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = transaction.onabort = () => reject(transaction.error ?? request.error);
    });
  } finally {
    db.close();
  }
}

/** @param {string} name @param {SyncKeys} keys */
export const keepKeys = (name, keys) => run("readwrite", (store) => store.put(keys, name)).then(() => {});

/** @param {string} name @returns {Promise<SyncKeys | null>} */
export async function loadKeys(name) {
  const found = await run("readonly", (store) => store.get(name));
  const usable = found && found.items instanceof CryptoKey && found.names instanceof CryptoKey
    && !found.items.extractable && !found.names.extractable && typeof found.space === "string";
  return usable ? found : null;
}

/** @param {string} name */
export const dropKeys = (name) => run("readwrite", (store) => store.delete(name)).then(() => {});
