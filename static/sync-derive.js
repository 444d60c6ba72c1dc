// Synced history's keys, from the person's secret (a sync code, or the key a site gives).
//
// Version 2 (docs/history.md, "Synced history"): the secret gives, through version 1's HKDF,
// a key that names items; its HMAC of "chatkeep sync v2" is the version 2 master, from which
// HKDF-SHA-256 derives, one `info` per purpose:
//
//   token   "chatkeep sync v2 auth"   32 bytes, sent in `Chatkeep-Sync-Token` on every request
//   space   base64url(SHA-256("chatkeep space v2" ‖ token)), fixed by the contract
//   items   "chatkeep sync v2 items"  AES-256-GCM, non-extractable
//   names   "chatkeep sync v2 names"  HMAC-SHA-256 naming items, non-extractable
//
// The detour through version 1's key is what lets a device that kept only version 1's keys
// (non-extractable, so no code to derive from again) move by itself to the very space every
// other device of that person reaches from the code.

/** @param {string} text */
export const utf8 = (text) => new TextEncoder().encode(text);

/** @param {Uint8Array} bytes */
export function base64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** @param {string} text */
export function fromBase64url(text) {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * @typedef {{space: string, items: CryptoKey, names: CryptoKey}} KeysV1  what version 1 kept
 * @typedef {{version: 2, space: string, token: string, items: CryptoKey, names: CryptoKey,
 *   print: string, moving?: {space: string, items: CryptoKey} | null}} SyncKeys
 *   `moving`: the version 1 space still to be read, merged and wiped
 */

const V1_SALT = utf8("chatkeep sync v1");
const V2_SALT = utf8("chatkeep sync v2");

/** @param {CryptoKey} material @param {Uint8Array<ArrayBuffer>} salt @param {string} info */
const hkdf = (material, salt, info) => ({ name: "HKDF", hash: "SHA-256", salt, info: utf8(info) });
const AES = { name: "AES-GCM", length: 256 };
const HMAC = { name: "HMAC", hash: "SHA-256", length: 256 };

/** Version 1's keys of `secret`: its space's name, its AES key, its naming key. @param {string} secret @returns {Promise<KeysV1>} */
export async function keysV1(secret) {
  const material = await crypto.subtle.importKey("raw", utf8(secret), "HKDF", false, ["deriveKey", "deriveBits"]);
  const space = base64url(new Uint8Array(await crypto.subtle.deriveBits(hkdf(material, V1_SALT, "space"), material, 256)));
  const items = await crypto.subtle.deriveKey(hkdf(material, V1_SALT, "items"), material, AES, false, ["encrypt", "decrypt"]);
  const names = await crypto.subtle.deriveKey(hkdf(material, V1_SALT, "names"), material, HMAC, false, ["sign"]);
  return { space, items, names };
}

/**
 * Version 2's keys, from version 1's (`moving` keeps what the move still has to read).
 * @param {KeysV1} v1 @returns {Promise<SyncKeys>}
 */
export async function keysV2(v1) {
  const master = await crypto.subtle.sign("HMAC", v1.names, utf8("chatkeep sync v2"));
  const material = await crypto.subtle.importKey("raw", master, "HKDF", false, ["deriveKey", "deriveBits"]);
  const token = new Uint8Array(await crypto.subtle.deriveBits(hkdf(material, V2_SALT, "chatkeep sync v2 auth"), material, 256));
  const space = await spaceOf(token);
  const items = await crypto.subtle.deriveKey(hkdf(material, V2_SALT, "chatkeep sync v2 items"), material, AES, false, ["encrypt", "decrypt"]);
  const names = await crypto.subtle.deriveKey(hkdf(material, V2_SALT, "chatkeep sync v2 names"), material, HMAC, false, ["sign"]);
  return { version: 2, space, token: base64url(token), items, names, print: await spacePrint(space),
    moving: { space: v1.space, items: v1.items } };
}

/** The space a token opens: base64url(SHA-256("chatkeep space v2" ‖ token)). @param {Uint8Array} token */
export async function spaceOf(token) {
  const prefix = utf8("chatkeep space v2");
  const joined = new Uint8Array(prefix.length + token.length);
  joined.set(prefix);
  joined.set(token, prefix.length);
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", joined)));
}

/** A digest naming a space, for this device's notes of it (which space its state is of). @param {string} space */
export async function spacePrint(space) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(`chatkeep space print\0${space}`)));
  return Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}
