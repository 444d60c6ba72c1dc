// Shared conversations, the browser's half of sealing and opening (issue 54): a snapshot is
// compressed and sealed with a fresh AES-256-GCM key that travels only in the link's fragment
// (`#chatkeep-share=ID.KEY`); the server keeps the ciphertext (`/api/share/{id}`) and answers
// a delete token, which only the sharing device holds.
//
// Envelope: version byte (1) ‖ nonce (12) ‖ ciphertext and tag, with associated data
// "chatkeep-share/1" ‖ 0 ‖ the share's id: a ciphertext moved under another id fails its tag.
// Whatever fails (gone, tampered, a wrong key) is one sentence, `SHARE_GONE`: a person gains
// nothing from telling those apart, and an attacker probing links gains less.

import { streams } from "./codec.js";
import { refusal, unreachable } from "./refusals.js";
import { base64url, fromBase64url } from "./sync-derive.js";

const VERSION = 1;
const NONCE_BYTES = 12;
const LABEL = "chatkeep-share/1";
/** What every failure to open a share says (the server's `share_gone`, word for word). */
export const SHARE_GONE = "This shared conversation is no longer available.";
/** The fragment a share link carries: `#chatkeep-share=ID.KEY`. */
export const SHARE_FRAGMENT = "chatkeep-share";

/**
 * Seals `snapshotText` (a snapshot's JSON) and keeps it on the server.
 * @param {string} endpoint  the chat server's API base (`…/api`)
 * @param {string} snapshotText @param {Record<string, string>} headers  the client token, if any
 * @returns {Promise<{id: string, key: string, token: string, expires: number, fragment: string}>}
 */
export async function share(endpoint, snapshotText, headers = {}) {
  const id = base64url(crypto.getRandomValues(new Uint8Array(18)));
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
  const body = await sealed(key, id, await streams.deflate(new TextEncoder().encode(snapshotText)));
  const response = await asked(`${endpoint}/share/${id}`, { method: "PUT", headers, body });
  const answer = await response.json();
  const keyText = base64url(raw);
  return { id, key: keyText, token: answer.token, expires: answer.expires, fragment: `${SHARE_FRAGMENT}=${id}.${keyText}` };
}

/**
 * The snapshot JSON a link's `ID.KEY` opens; rejects with `SHARE_GONE` for anything else.
 * @param {string} endpoint @param {string} link  `ID.KEY` @param {Record<string, string>} headers
 */
export async function open(endpoint, link, headers = {}) {
  try {
    const [id, keyText] = link.split(".");
    if (!/^[\w-]{22,64}$/.test(id ?? "") || !keyText) throw new Error("not a share link");
    const key = await crypto.subtle.importKey("raw", fromBase64url(keyText), "AES-GCM", false, ["decrypt"]);
    const response = await fetch(`${endpoint}/share/${id}`, { headers });
    if (!response.ok) throw new Error(`answered ${response.status}`);
    const body = new Uint8Array(await response.arrayBuffer());
    return new TextDecoder("utf-8", { fatal: true }).decode(await streams.inflate(await unsealed(key, id, body)));
  } catch {
    throw Object.assign(new Error(SHARE_GONE), { code: "share_gone" });
  }
}

/** "Stop sharing": only the delete token the server answered stops it. */
export async function stop(/** @type {string} */ endpoint, /** @type {string} */ id, /** @type {string} */ token, headers = {}) {
  await asked(`${endpoint}/share/${id}`, { method: "DELETE", headers: { ...headers, "chatkeep-share-token": token } }, [404]);
}

/**
 * A request to the chat server, its refusal (or that it was not reached) thrown as the error
 * the page says in its language: `{message, code, params}`. `fine`: statuses that are not one.
 * @param {string} url @param {RequestInit} init @param {number[]} fine
 */
async function asked(url, init, fine = []) {
  /** @type {Response} */
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw said(unreachable(/** @type {Error} */ (error)));
  }
  if (!response.ok && !fine.includes(response.status)) throw said(await refusal(response));
  return response;
}

/** @param {import("./refusals.js").Said} notice */
function said({ message, code, params }) {
  return Object.assign(new Error(message), { code, params });
}

/** @param {CryptoKey} key @param {string} id @param {Uint8Array} plain */
async function sealed(key, id, plain) {
  const bytes = new Uint8Array(plain); // its own buffer, as WebCrypto wants
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const data = new TextEncoder().encode(`${LABEL}\0${id}`);
  const cipher = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: data }, key, bytes));
  const body = new Uint8Array(1 + NONCE_BYTES + cipher.length);
  body[0] = VERSION;
  body.set(nonce, 1);
  body.set(cipher, 1 + NONCE_BYTES);
  return body;
}

/** @param {CryptoKey} key @param {string} id @param {Uint8Array} body */
async function unsealed(key, id, body) {
  if (body.length < 1 + NONCE_BYTES + 16 || body[0] !== VERSION) throw new Error("not a share envelope");
  const data = new TextEncoder().encode(`${LABEL}\0${id}`);
  const iv = body.slice(1, 1 + NONCE_BYTES);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: data }, key, body.slice(1 + NONCE_BYTES));
  return new Uint8Array(plain);
}
