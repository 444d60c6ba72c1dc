// Synced history, the worker's half (sync version 2). The person's secret (a sync code, or the
// key a site gives) is never stored: the keys derived from it (static/sync-derive.js) are kept
// in IndexedDB for the next visit, the encryption keys non-extractable (static/sync-keys.js).
// Each conversation travels as items: its JSON (written and read by Python alone: the worker
// carries the text), compressed, then sealed with its name and a sequence number
// (static/sync-seal.js); every request carries the space's token. The
// server sees names, sizes and revisions, nothing else. A device that kept version 1's keys
// moves to version 2 by itself: `moving` says so until the round has read the old space,
// merged it, and wiped it (`moved`).

import * as indexedKeys from "./sync-keys.js";
import { base64url, fromBase64url, keysV1, keysV2, utf8 } from "./sync-derive.js";
import { seal, unseal, unsealV1 } from "./sync-seal.js";
import { SpaceEvents } from "./sync-events.js";

/** @typedef {{keepKeys: (name: string, keys: any) => Promise<void>,
 *   loadKeys: (name: string) => Promise<any>,
 *   dropKeys: (name: string) => Promise<void>}} KeyStore */
/** @typedef {import("./sync-derive.js").SyncKeys} SyncKeys */

/** A request where nothing moves for this long counts as no answer: the round ends
 * "offline" and its changes go with a later one. */
const REQUEST_MS = 30_000;
/** An upload is given its size at this pace (bytes a millisecond: 16 KB/s, a poor phone
 * line) on top of `REQUEST_MS`, since nothing shows its progress. */
const SLOW_UPLOAD_BYTES_PER_MS = 16;
/** A cursor past every revision: a read that only asks whether a space is there. */
const NOTHING_SINCE = "999999999999999999";

/**
 * An error the widget can say in the person's language: the server's code and params, or
 * `sync_offline` when no answer came at all (the changes wait for the next round).
 * @param {string} message @param {string} code @param {object} [params]
 */
const failure = (message, code, params) => Object.assign(new Error(message), { code, params });

export class SyncClient {
  /** @type {SyncKeys | null} */ #keys = null;
  #keptAs = "";
  /** the highest revision this device has read or written: an event up to it is its own */
  #seen = -1;

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
    /** tells an open device to read (server-sent events), while connected */
    this.events = new SpaceEvents(endpoint, () => this.#headers());
  }

  /**
   * Derive the keys from `secret` and keep them under `keepAs` for later visits (the secret
   * itself is kept nowhere); returns the space's print. A secret not `fresh` (made in this
   * visit) may have named a version 1 space, which the next round then moves from.
   * @param {string} secret @param {string} keepAs @param {boolean} [fresh]
   */
  async open(secret, keepAs, fresh = false) {
    const keys = await keysV2(await keysV1(secret));
    if (fresh) keys.moving = null;
    await this.keyStore.keepKeys(keepAs, keys);
    return this.#use(keys, keepAs);
  }

  /**
   * Whether `secret` named a space before version 2 (a code made then has no check character):
   * that space answers, or was wiped when it moved.
   * @param {string} secret
   */
  async knownBefore(secret) {
    const { space } = await keysV1(secret);
    const { status } = await this.#fetch(space, `?since=${NOTHING_SINCE}`, {}, { token: false, refusals: [403, 410] });
    return status === 200 || status === 410;
  }

  /**
   * Take up the keys kept under `keptAs`: the space's print, or null when none are kept. Keys
   * kept by version 1 become version 2's (the print stays: it is this device's own note).
   * @param {string} keptAs
   */
  async resume(keptAs) {
    const found = await this.keyStore.loadKeys(keptAs);
    if (!found) return null;
    if (found.version === 2) return this.#use(found, keptAs);
    const keys = { ...(await keysV2(found)), print: found.print };
    await this.keyStore.keepKeys(keptAs, keys);
    return this.#use(keys, keptAs);
  }

  /** This device leaves: the keys kept under `keptAs` go. @param {string} keptAs */
  async forget(keptAs) {
    this.#keys = null;
    this.events.stop();
    await this.keyStore.dropKeys(keptAs);
  }

  /** @param {SyncKeys} keys @param {string} keptAs */
  #use(keys, keptAs) {
    this.#seen = -1;
    this.#keys = keys;
    this.#keptAs = keptAs;
    return keys.print;
  }

  /** What changed since revision `since`: each item opened, or marked unreadable. @param {number} since */
  async pull(since) {
    const keys = this.#connected();
    const { answer: page } = await this.#fetch(keys.space, `?since=${since}`);
    const items = await Promise.all(page.items.map(async (/** @type {any} */ item) => {
      const found = { item: item.id, rev: item.rev, seq: 0, payload: null, readable: true };
      if (item.data === null) return found; // a bare tombstone: no device sealed it
      try {
        const { seq, plain } = await unseal(keys.items, item.id, fromBase64url(item.data));
        return { ...found, seq, payload: await this.#text(plain) };
      } catch {
        return { ...found, readable: false }; // its tag failed: tampered, moved, or another person's
      }
    }));
    if (!page.more) this.#seen = Math.max(this.#seen, page.cursor);
    return { items, cursor: page.cursor, more: page.more };
  }

  /**
   * Version `seq` of the conversation's item, or with `tail` of a tail item (one per turn:
   * its name follows from the conversation and that fresh word, so no two devices' collide).
   * @param {string} conversation @param {number | null} expect @param {number} seq @param {string} payload  JSON text @param {string} [tail]
   */
  async push(conversation, expect, seq, payload, tail = "") {
    return this.#write(await this.#itemName(tail ? `${conversation}\0tail\0${tail}` : conversation), expect, seq, payload);
  }

  /** A tail a checkpoint took in goes (a bare deletion: no device reads it any more). @param {string} item @param {number} expect */
  async drop(item, expect) {
    const { status, answer } = await this.#fetch(this.#connected().space, `/${item}`, { method: "DELETE", headers: { "if-match": String(expect) } }, { refusals: [412] });
    return { item, rev: answer?.rev ?? null, written: status !== 412 };
  }

  /** An item's name: 128 bits of the naming key's HMAC of the conversation's id. @param {string} conversation */
  async #itemName(conversation) {
    const mac = await crypto.subtle.sign("HMAC", this.#connected().names, utf8(conversation));
    return base64url(new Uint8Array(mac).subarray(0, 16));
  }

  /** A sealed deletion of `conversation` (what it replaced is in `payload`, JSON text). @param {string} conversation @param {number | null} expect @param {number} seq @param {string} payload */
  async delete(conversation, expect, seq, payload) {
    return this.#write(await this.#itemName(conversation), expect, seq, payload);
  }

  /** Whether a version 1 space still waits to be read, merged and wiped. */
  async moving() {
    return Boolean(this.#connected().moving);
  }

  /** Every conversation the version 1 space holds, opened (none once it is gone). */
  async pullMoved() {
    const moving = this.#connected().moving;
    if (!moving) return [];
    const found = [];
    for (let since = 0, more = true; more;) {
      const { status, answer } = await this.#fetch(moving.space, `?since=${since}`, {}, { token: false, refusals: [403, 410] });
      if (status !== 200) break;
      for (const item of answer.items) {
        if (item.data === null) continue;
        try {
          found.push({ item: item.id, payload: await this.#text(await unsealV1(moving.items, item.id, fromBase64url(item.data))) });
        } catch {
          // another person's, or tampered: nothing to move
        }
      }
      more = answer.more && answer.cursor > since;
      since = answer.cursor;
    }
    return found;
  }

  /** The version 1 space is wiped (its devices read it no more), and forgotten here. */
  async moved() {
    const keys = this.#connected();
    if (!keys.moving) return;
    await this.#fetch(keys.moving.space, "", { method: "DELETE" }, { token: false, refusals: [403, 410] });
    const kept = { ...keys, moving: null };
    await this.keyStore.keepKeys(this.#keptAs, kept);
    this.#keys = kept;
  }

  /**
   * From now on, `changed` is called whenever the server says the space changed past what
   * this device read or wrote (its own writes heard back start no round).
   * @param {() => void} changed
   */
  listen(changed) {
    this.events.start(this.#connected().space, (rev) => {
      if (rev === null || rev > this.#seen) changed();
    });
  }

  /**
   * A pairing link's part, `ID.KEY`: `secret` sealed with a fresh key that only the link
   * carries, kept by the server under a fresh id for 10 minutes, to be taken once (`unpair`).
   * @param {string} secret
   */
  async pair(secret) {
    const id = base64url(crypto.getRandomValues(new Uint8Array(16)));
    const raw = crypto.getRandomValues(new Uint8Array(32));
    const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
    const nonce = crypto.getRandomValues(new Uint8Array(12));
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: utf8(`chatkeep pair\0${id}`) }, key, utf8(secret)));
    const body = new Uint8Array(nonce.length + sealed.length);
    body.set(nonce);
    body.set(sealed, nonce.length);
    await this.#request(`${this.endpoint()}/sync-pair/${id}`, { method: "PUT", body }, false);
    return `${id}.${base64url(raw)}`;
  }

  /** The secret a pairing link's part (`pair`) holds, taken from the server (once). @param {string} link */
  async unpair(link) {
    const [id = "", rawKey = ""] = link.split(".");
    const { body } = await this.#request(`${this.endpoint()}/sync-pair/${id}`, {}, true);
    try {
      const key = await crypto.subtle.importKey("raw", fromBase64url(rawKey), "AES-GCM", false, ["decrypt"]);
      const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: body.subarray(0, 12), additionalData: utf8(`chatkeep pair\0${id}`) },
        key, body.subarray(12));
      return new TextDecoder().decode(plain);
    } catch { // damaged (its key mistyped): taken all the same, so spent like a used one
      throw failure("This link to connect a device has expired or was used already (a link works once, for 10 minutes). Ask your other device for a new one.",
        "sync_pairing_gone", { minutes: 10 });
    }
  }

  /** "Change sync code": everything this space holds goes; it answers 410 for 30 days. */
  async wipe() {
    const keys = this.#connected();
    await this.#fetch(keys.space, "", { method: "DELETE" }, { refusals: [410] });
  }

  /** @param {string} item @param {number | null} expect @param {number} seq @param {string} payload  JSON text, as Python wrote it */
  async #write(item, expect, seq, payload) {
    const keys = this.#connected();
    const plain = await this.compression().deflate(utf8(payload));
    const body = await seal(keys.items, item, seq, /** @type {Uint8Array<ArrayBuffer>} */ (plain));
    const headers = expect === null ? { "if-none-match": "*" } : { "if-match": String(expect) };
    const { status, answer } = await this.#fetch(keys.space, `/${item}`, { method: "PUT", headers, body }, { refusals: [412] });
    if (status === 412) return { item, rev: answer.rev ?? null, written: false };
    if (answer.rev === this.#seen + 1) this.#seen = answer.rev; // (nothing else came between)
    return { item, rev: answer.rev, written: true };
  }

  /** An item's JSON text, inflated: Python parses it (JSON is Python's, once each way). @param {Uint8Array} plain */
  async #text(plain) {
    return new TextDecoder().decode(await this.compression().inflate(plain));
  }

  #connected() {
    if (!this.#keys) throw failure("Sync is not connected.", "sync_off");
    return this.#keys;
  }

  /** @returns {Record<string, string>} */
  #headers() {
    return this.#keys ? { ...this.credentials(), "chatkeep-sync-token": this.#keys.token } : this.credentials();
  }

  /**
   * A pairing's request (no space, no token): its body's bytes, or the server's refusal.
   * @param {string} url @param {{method?: string, body?: Uint8Array<ArrayBuffer>}} init @param {boolean} binary
   */
  async #request(url, init, binary) {
    let response;
    try {
      response = await fetch(url, { method: init.method ?? "GET", headers: this.credentials(), body: init.body, signal: AbortSignal.timeout(this.requestMs) });
    } catch {
      throw failure("The chat server cannot be reached: try again in a moment.", "sync_offline");
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!response.ok) {
      const error = (() => { try { return JSON.parse(new TextDecoder().decode(bytes)).error; } catch { return null; } })();
      throw failure(error?.message ?? `Sync failed (${response.status}).`, error?.code ?? "sync_failed", error?.params);
    }
    return { body: binary ? bytes : new Uint8Array() };
  }

  /**
   * One request and its JSON answer. It ends "offline" when nothing moves for `requestMs`:
   * no answer (the upload given time for its size at a slow phone's pace), or a body that
   * stops arriving. A big conversation on a slow line still goes; a server that never
   * answers does not hold the round (nor "Stop syncing", which waits for it). A status other
   * than 2xx is an error the person is told, unless `refusals` lists it.
   * @param {string} space @param {string} path
   * @param {{method?: string, headers?: Record<string, string>, body?: Uint8Array<ArrayBuffer> | null}} [init]
   * @param {{token?: boolean, refusals?: number[]}} [options]
   */
  async #fetch(space, path, init = {}, { token = true, refusals = [] } = {}) {
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
      response = await fetch(`${this.endpoint()}/sync/${space}${path}`, {
        method: init.method ?? "GET",
        headers: { ...(token ? this.#headers() : this.credentials()), ...init.headers },
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
    if (!response.ok && !refusals.includes(response.status)) {
      const error = answer?.error;
      throw failure(error?.message ?? `Sync failed (${response.status}).`, error?.code ?? "sync_failed", error?.params);
    }
    if (answer === null && response.status !== 204 && !refusals.includes(response.status)) {
      throw failure(`Sync failed: the server's answer was not JSON (${response.status}).`, "sync_failed");
    }
    return { status: response.status, answer };
  }
}
