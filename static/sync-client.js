// Synced history, the worker's half. The person's secret (a sync code, or the key a site
// gives) is never stored: HKDF derives from it the space's name, an AES-GCM key and a key that
// names items, both non-extractable, kept in IndexedDB for the next visit (static/sync-keys.js).
// Each conversation travels as one item: its JSON, compressed, then encrypted with the item's
// name as associated data, so an item moved under another name fails its tag like a tampered
// one. The server sees names, sizes and revisions, nothing else.

import * as indexedKeys from "./sync-keys.js";

/** @typedef {{keepKeys: (name: string, keys: import("./sync-keys.js").SyncKeys) => Promise<void>,
 *   loadKeys: (name: string) => Promise<import("./sync-keys.js").SyncKeys | null>,
 *   dropKeys: (name: string) => Promise<void>}} KeyStore */

const SALT = new TextEncoder().encode("chatkeep sync v1");
const IV_BYTES = 12;
/** A request where nothing moves for this long counts as no answer: the round ends
 * "offline" and its changes go with a later one. */
const REQUEST_MS = 30_000;
/** An upload is given its size at this pace (bytes a millisecond: 16 KB/s, a poor phone
 * line) on top of `REQUEST_MS`, since nothing shows its progress. */
const SLOW_UPLOAD_BYTES_PER_MS = 16;

/** @param {string} text */
const utf8 = (text) => new TextEncoder().encode(text);

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** @param {string} text */
function fromBase64url(text) {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * An error the widget can say in the person's language: the server's code and params, or
 * `sync_offline` when no answer came at all (the changes wait for the next round).
 * @param {string} message @param {string} code @param {object} [params]
 */
const failure = (message, code, params) => Object.assign(new Error(message), { code, params });

/** A digest naming a space, for this device's notes of it (which space its state is of). @param {string} space */
async function spacePrint(space) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(`chatkeep space print\0${space}`)));
  return Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}


export class SyncClient {
  /** @type {CryptoKey | null} */ #key = null;
  /** @type {CryptoKey | null} */ #names = null;
  #space = "";

  /**
   * @param {() => string} endpoint  the API's base URL (`…/api`)
   * @param {() => Record<string, string>} credentials  the client token's header, if any
   * @param {() => import("./codec.js").Compression} compression
   * @param {number} [requestMs]  how long a request may wait for its answer
   * @param {KeyStore} [keyStore]  where the keys stay between visits (IndexedDB)
   */
  constructor(endpoint, credentials, compression, requestMs = REQUEST_MS, keyStore = indexedKeys) {
    this.endpoint = endpoint;
    this.credentials = credentials;
    this.compression = compression;
    this.requestMs = requestMs;
    this.keyStore = keyStore;
  }

  /**
   * Derive the space and the keys from `secret`, and keep them under `keepAs` for later
   * visits (the secret itself is kept nowhere); returns the space's print.
   * @param {string} secret @param {string} keepAs
   */
  async open(secret, keepAs) {
    const material = await crypto.subtle.importKey("raw", utf8(secret), "HKDF", false, ["deriveKey", "deriveBits"]);
    const hkdf = (/** @type {string} */ info) => ({ name: "HKDF", hash: "SHA-256", salt: SALT, info: utf8(info) });
    const space = base64url(new Uint8Array(await crypto.subtle.deriveBits(hkdf("space"), material, 256)));
    const items = await crypto.subtle.deriveKey(hkdf("items"), material, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
    const names = await crypto.subtle.deriveKey(hkdf("names"), material, { name: "HMAC", hash: "SHA-256", length: 256 }, false, ["sign"]);
    const keys = { space, items, names, print: await spacePrint(space) };
    await this.keyStore.keepKeys(keepAs, keys);
    return this.#use(keys);
  }

  /** Take up the keys kept under `keptAs`: the space's print, or null when none are kept. @param {string} keptAs */
  async resume(keptAs) {
    const keys = await this.keyStore.loadKeys(keptAs);
    return keys ? this.#use(keys) : null;
  }

  /** This device leaves: the keys kept under `keptAs` go. @param {string} keptAs */
  async forget(keptAs) {
    this.#space = "";
    this.#key = this.#names = null;
    await this.keyStore.dropKeys(keptAs);
  }

  /** @param {import("./sync-keys.js").SyncKeys} keys */
  #use(keys) {
    this.#space = keys.space;
    this.#key = keys.items;
    this.#names = keys.names;
    return keys.print;
  }

  /** What changed since revision `since`: each item decrypted, or marked unreadable. @param {number} since */
  async pull(since) {
    const { answer: page } = await this.#fetch(`?since=${since}`);
    const items = await Promise.all(page.items.map(async (/** @type {any} */ item) => {
      const found = { item: item.id, rev: item.rev, payload: null, readable: true };
      if (item.data === null) return found; // a tombstone
      try {
        return { ...found, payload: await this.#unseal(item.id, item.data) };
      } catch {
        return { ...found, readable: false }; // its tag failed: tampered, or another person's
      }
    }));
    return { items, cursor: page.cursor, more: page.more };
  }

  /** @param {string} conversation @param {number | null} expect @param {object} payload */
  async push(conversation, expect, payload) {
    const item = await this.#itemName(conversation);
    return this.#write(item, "PUT", expect, await this.#seal(item, payload));
  }

  /** @param {string} item @param {number} expect */
  async delete(item, expect) {
    return this.#write(item, "DELETE", expect, null);
  }

  /** @param {string} item @param {string} method @param {number | null} expect @param {Uint8Array<ArrayBuffer> | null} body */
  async #write(item, method, expect, body) {
    const headers = expect === null ? { "if-none-match": "*" } : { "if-match": String(expect) };
    const { status, answer } = await this.#fetch(`/${item}`, { method, headers, body });
    if (status === 412) return { item, rev: answer.rev ?? null, written: false };
    return { item, rev: answer.rev, written: true };
  }

  /**
   * One request and its JSON answer. It ends "offline" when nothing moves for `requestMs`:
   * no answer (the upload given time for its size at a slow phone's pace), or a body that
   * stops arriving. A big conversation on a slow line still goes; a server that never
   * answers does not hold the round (nor "Stop syncing", which waits for it).
   * @param {string} path @param {{method?: string, headers?: Record<string, string>, body?: Uint8Array<ArrayBuffer> | null}} [init]
   */
  async #fetch(path, init = {}) {
    if (!this.#space) throw failure("Sync is not connected.", "sync_off");
    const stall = new AbortController();
    let timer = 0;
    const wait = (/** @type {number} */ ms) => {
      clearTimeout(timer);
      timer = setTimeout(() => stall.abort(), ms);
    };
    wait(this.requestMs + (init.body?.byteLength ?? 0) / SLOW_UPLOAD_BYTES_PER_MS);
    let response;
    let text = "";
    try {
      response = await fetch(`${this.endpoint()}/sync/${this.#space}${path}`, {
        method: init.method ?? "GET",
        headers: { ...this.credentials(), ...init.headers },
        body: init.body ?? undefined,
        signal: stall.signal,
      });
      const chunks = /** @type {Uint8Array<ArrayBuffer>[]} */ ([]);
      const reader = /** @type {ReadableStream<Uint8Array<ArrayBuffer>> | null} */ (response.body)?.getReader();
      for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
        chunks.push(read.value);
        wait(this.requestMs);
      }
      text = await new Blob(chunks).text();
    } catch {
      throw stall.signal.aborted
        ? failure("The sync server did not answer in time: changes sync later.", "sync_offline")
        : failure("The chat server cannot be reached: changes sync later.", "sync_offline");
    } finally {
      clearTimeout(timer);
    }
    const answer = (() => { try { return JSON.parse(text); } catch { return null; } })();
    if (!response.ok && response.status !== 412) {
      const error = answer?.error;
      throw failure(error?.message ?? `Sync failed (${response.status}).`, error?.code ?? "sync_failed", error?.params);
    }
    if (answer === null) throw failure(`Sync failed: the server's answer was not JSON (${response.status}).`, "sync_failed");
    return { status: response.status, answer };
  }

  /** @param {string} conversation */
  async #itemName(conversation) {
    const mac = await crypto.subtle.sign("HMAC", /** @type {CryptoKey} */ (this.#names), utf8(conversation));
    return base64url(new Uint8Array(mac).subarray(0, 16));
  }

  /** @param {string} item @param {object} payload */
  async #seal(item, payload) {
    const plain = await this.compression().deflate(utf8(JSON.stringify(payload)));
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: utf8(item) },
      /** @type {CryptoKey} */ (this.#key), /** @type {Uint8Array<ArrayBuffer>} */ (plain));
    const body = new Uint8Array(IV_BYTES + sealed.byteLength);
    body.set(iv);
    body.set(new Uint8Array(sealed), IV_BYTES);
    return body;
  }

  /** @param {string} item @param {string} data */
  async #unseal(item, data) {
    const bytes = fromBase64url(data);
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: utf8(item) },
      /** @type {CryptoKey} */ (this.#key), bytes.subarray(IV_BYTES));
    return JSON.parse(new TextDecoder().decode(await this.compression().inflate(new Uint8Array(plain))));
  }
}
