// Synced history's envelopes: what the server keeps of an item, and what binds it.
//
// Version 2:  version byte (2) ‖ seq (8 bytes, big-endian) ‖ nonce (12) ‖ AES-GCM ciphertext
// and tag, with associated data "chatkeep-sync/2" ‖ 0 ‖ item name ‖ 0 ‖ seq. The sequence
// number counts the item's versions: a device never takes one lower than it already took (an
// older copy served again, a replay), and since the name and the number are sealed in, an
// item moved under another name, or given another number, fails its tag like a tampered one.
// Version 1 (read only, to move a space): nonce ‖ ciphertext, with the item name as its data.

import { utf8 } from "./sync-derive.js";

const VERSION = 2;
const NONCE_BYTES = 12;
const HEAD_BYTES = 1 + 8;
const LABEL = "chatkeep-sync/2";

/** @param {number} seq */
function seqBytes(seq) {
  const bytes = new Uint8Array(8);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, Math.floor(seq / 2 ** 32));
  view.setUint32(4, seq >>> 0);
  return bytes;
}

/** @param {string} item @param {Uint8Array} seq */
function associated(item, seq) {
  const name = utf8(`${LABEL}\0${item}\0`);
  const data = new Uint8Array(name.length + seq.length);
  data.set(name);
  data.set(seq, name.length);
  return data;
}

/**
 * @param {CryptoKey} key @param {string} item @param {number} seq
 * @param {Uint8Array<ArrayBuffer>} plain @returns {Promise<Uint8Array<ArrayBuffer>>}
 */
export async function seal(key, item, seq, plain) {
  if (!Number.isSafeInteger(seq) || seq < 1) throw new Error(`A sequence number is a positive integer, not ${seq}.`);
  const number = seqBytes(seq);
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: associated(item, number) }, key, plain));
  const body = new Uint8Array(HEAD_BYTES + NONCE_BYTES + sealed.length);
  body[0] = VERSION;
  body.set(number, 1);
  body.set(nonce, HEAD_BYTES);
  body.set(sealed, HEAD_BYTES + NONCE_BYTES);
  return body;
}

/**
 * What `seal` sealed, and its sequence number; throws when it is not a version 2 envelope of
 * this item under this key (tampered, moved, another person's, or garbage).
 * @param {CryptoKey} key @param {string} item @param {Uint8Array<ArrayBuffer>} body
 */
export async function unseal(key, item, body) {
  if (body.length < HEAD_BYTES + NONCE_BYTES + 16 || body[0] !== VERSION) throw new Error("not a version 2 envelope");
  const number = body.subarray(1, HEAD_BYTES);
  const view = new DataView(body.buffer, body.byteOffset + 1, 8);
  const seq = view.getUint32(0) * 2 ** 32 + view.getUint32(4);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: body.subarray(HEAD_BYTES, HEAD_BYTES + NONCE_BYTES),
    additionalData: associated(item, number) }, key, body.subarray(HEAD_BYTES + NONCE_BYTES));
  return { seq, plain: new Uint8Array(plain) };
}

/** A version 1 item (moving a space): nonce ‖ ciphertext, the item name as associated data. @param {CryptoKey} key @param {string} item @param {Uint8Array<ArrayBuffer>} body */
export async function unsealV1(key, item, body) {
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: body.subarray(0, NONCE_BYTES), additionalData: utf8(item) },
    key, body.subarray(NONCE_BYTES));
  return new Uint8Array(plain);
}
