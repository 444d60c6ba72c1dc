// What the widget shows before Python is ready, read by the page itself: the kept list from
// the meta keys, and the conversation start-up opens (the host's `snapshot`, or one whose
// answer the server was still writing). Tolerant: what it cannot read it leaves out, and
// Python's state replaces all of it once ready (docs/history.md has the keys' format).

import { unpack } from "./codec.js";
import { storageKey } from "./protocol.js";

/** @typedef {import("./client.js").HistoryEntry & {pending?: string}} StoredEntry */
/** @typedef {import("./client.js").Message} Message */

const META_VERSION = 1;
const ROLES = ["user", "assistant", "tool"];

/**
 * The kept conversations, pinned first, then newest first (as Python lists them); none when
 * storage is closed.
 * @param {string} prefix @returns {StoredEntry[]}
 */
export function storedList(prefix) {
  const own = storageKey("meta", prefix);
  /** @type {StoredEntry[]} */
  const entries = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key?.startsWith(own)) continue;
      const entry = readMeta(key.slice(own.length), localStorage.getItem(key));
      if (entry) entries.push(entry);
    }
  } catch {
    return []; // storage blocked: Python will say so, once it runs
  }
  return entries.sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.updated - a.updated
    || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * What start-up opens, drawn before Python runs: the host's snapshot, else the newest
 * conversation with an answer still being written; null for a new conversation.
 * @param {{prefix: string, history: string, snapshot?: unknown}} config @param {StoredEntry[]} listed
 * @returns {Promise<{id: string, title: string, messages: Message[]} | null>}
 */
export async function storedOpening({ prefix, history, snapshot }, listed) {
  if (snapshot !== null && snapshot !== undefined) return readConversation(snapshot);
  if (history !== "local") return null;
  const unfinished = listed.find((entry) => entry.pending);
  if (!unfinished) return null;
  try {
    const text = await unpack(localStorage.getItem(storageKey("conversation", prefix, unfinished.id)));
    const opened = readConversation(text);
    return opened && { ...opened, title: unfinished.title };
  } catch {
    return null;
  }
}

/** @param {string} id @param {string | null} text @returns {StoredEntry | null} */
function readMeta(id, text) {
  try {
    const data = JSON.parse(text ?? "");
    if (data?.v !== META_VERSION || typeof data.title !== "string" || !Number.isInteger(data.updated)) return null;
    const entry = { id, title: data.title, updated: data.updated, pinned: data.pinned === true,
      ...(Number.isSafeInteger(data.shared) && data.shared > 0 ? { shared: data.shared } : {}) };
    return typeof data.pending === "string" && data.pending ? { ...entry, pending: data.pending } : entry;
  } catch {
    return null;
  }
}

/**
 * A conversation's id, title and the messages it can show; null when it is not one.
 * @param {unknown} value  a snapshot, or its JSON text
 */
export function readConversation(value) {
  try {
    const data = typeof value === "string" ? JSON.parse(value) : value;
    if (!data || typeof data !== "object" || !Array.isArray(data.messages)) return null;
    const messages = data.messages.filter(
      (/** @type {any} */ m) => m && typeof m === "object" && ROLES.includes(m.role)
        && (typeof m.content === "string" || m.content === null),
    );
    return { id: typeof data.id === "string" ? data.id : "", title: typeof data.title === "string" ? data.title : "", messages };
  } catch {
    return null;
  }
}
