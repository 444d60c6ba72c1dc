// The one memory snapshot of Python (with the widget imported) that this origin keeps, so a
// later visit boots from it: in IndexedDB, database "chatkeep-python", store "snapshot", the
// build's key under "key" and the bytes under "bytes". IndexedDB, not Cache Storage: in
// WebKit's workers, Cache Storage accepts writes and never finds them again.

const DATABASE = "chatkeep-python";
const STORE = "snapshot";
/** Where earlier versions kept it (Cache Storage): emptied once, 20 MB given back. */
const EARLIER = "chatkeep.python-snapshot";

/**
 * The database; with `create` false, one that does not exist yet is not made (reading
 * writes nothing: consent="ask" keeps the page's storage empty until the person agrees).
 * @returns {Promise<IDBDatabase>}
 */
function open(create = true) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      if (create) request.result.createObjectStore(STORE);
      else request.transaction?.abort();
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** @param {IDBDatabase} db @param {string} name @returns {Promise<any>} */
function read(db, name) {
  return new Promise((resolve, reject) => {
    const request = db.transaction(STORE).objectStore(STORE).get(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * The snapshot kept for `key`, its bytes a promise (rejected if damaged), or null: none yet,
 * another build's, no storage. The key is read first, so the bytes load while Pyodide does.
 * @param {string} key
 */
export async function keptSnapshot(key) {
  try {
    const db = await open(false);
    if ((await read(db, "key")) !== key) {
      db.close();
      return null;
    }
    const bytes = read(db, "bytes").then((value) => {
      const kept = value instanceof Uint8Array ? value : new Uint8Array(value ?? 0);
      if (!looksLikeSnapshot(kept)) throw new Error("it is damaged");
      return kept;
    }).finally(() => db.close());
    bytes.catch(() => {}); // said when Pyodide awaits it
    return { bytes };
  } catch {
    return null; // storage refused: boot plainly
  }
}

/**
 * Keeps `bytes` as the one snapshot of this origin, made by the build `key` names: true once
 * the write has committed, false if the browser refused it.
 */
export async function keepSnapshot(/** @type {string} */ key, /** @type {Uint8Array} */ bytes) {
  try {
    const db = await open();
    await new Promise((resolve, reject) => {
      const transaction = db.transaction(STORE, "readwrite");
      transaction.objectStore(STORE).put(bytes, "bytes");
      transaction.objectStore(STORE).put(key, "key");
      transaction.oncomplete = resolve;
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
    db.close();
    self.caches?.delete(EARLIER).catch(() => {});
    return true;
  } catch (error) {
    console.warn(`Chatkeep: this browser could not keep the runtime snapshot (${error?.message}); the next start imports the widget again.`);
    return false;
  }
}

/** Forgets the kept snapshot (it did not load). */
export function forgetSnapshot() {
  indexedDB.deleteDatabase(DATABASE);
}

/**
 * Pyodide sizes its memory from a snapshot before checking it, and a wrong size never settles:
 * so the layout is checked first ("\0snp", a header, then whole 64 KiB pages of at least
 * 16 MiB). A snapshot of another build is refused by Pyodide itself (its build id).
 * @param {Uint8Array} bytes
 */
function looksLikeSnapshot(bytes) {
  if (bytes.byteLength < 64 || bytes.byteOffset % 4) return false;
  const header = new Uint32Array(bytes.buffer, bytes.byteOffset, 4);
  const memory = bytes.byteLength - header[1];
  return header[0] === 0x706e7300 && header[1] >= 48 && memory >= 16 * 2 ** 20 && memory % 65536 === 0;
}
