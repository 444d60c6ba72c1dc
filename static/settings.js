// The element's configuration, read from its attributes in this one place. The defaults are
// Python's too (widget/config.py): tests/widget/test_protocol.py checks that both agree.

import { STATIC_FOLDER } from "./served-from.js";

/** Every attribute's default; `endpoint` is beside the script, so it has none here. */
export const DEFAULTS = Object.freeze({
  history: "memory",
  prefix: "chatkeep",
  maxConversations: 20,
  mode: "inline",
  lang: "en",
  maxAttachmentBytes: 512 * 1024,
});
/** The built-in history modes (`host` is chosen by assigning `historyStore`). */
export const HISTORY_MODES = Object.freeze(["local", "memory", "off"]);
/** Attributes whose change after the element is connected takes effect at once. */
export const LIVE_ATTRIBUTES = Object.freeze(["lang", "model", "suggestions"]);

// `api` beside the script's `static/` folder, so a server mounted at /chat is found at /chat/api.
const DEFAULT_ENDPOINT = new URL("../api", STATIC_FOLDER).href;

/**
 * @typedef {{getAttribute(name: string): string | null, hasAttribute(name: string): boolean}} Attributes
 */

/** The language of every visible string: `lang`, else the page's `<html lang>`, else English. */
export function language(/** @type {Attributes} */ element) {
  return element.getAttribute("lang") || document.documentElement.lang || DEFAULTS.lang;
}

/** Where model calls go. */
export function endpoint(/** @type {Attributes} */ element) {
  return element.getAttribute("endpoint") || DEFAULT_ENDPOINT;
}

/** `launcher` or `inline`. */
export function mode(/** @type {Attributes} */ element) {
  return element.getAttribute("mode") === "launcher" ? "launcher" : DEFAULTS.mode;
}

/** What every storage key the widget writes starts with (before its `:`). */
export function storagePrefix(/** @type {Attributes} */ element) {
  return element.getAttribute("storage-prefix") || DEFAULTS.prefix;
}

/** Hosts whose https images answers may show inline. */
export function imageHosts(/** @type {Attributes} */ element) {
  return (element.getAttribute("image-hosts") ?? "").split(/[\s,]+/).filter(Boolean);
}

/** How much the files attached to one message may weigh together. */
export function maxAttachmentBytes(/** @type {Attributes} */ element) {
  const value = Number.parseInt(element.getAttribute("max-attachment-bytes") ?? "", 10);
  return value > 0 ? value : DEFAULTS.maxAttachmentBytes;
}

/** How long reading an attached PDF may take, in seconds (`pdf-timeout`, 30 by default). */
export function pdfSeconds(/** @type {Attributes} */ element) {
  const value = Number.parseFloat(element.getAttribute("pdf-timeout") ?? "");
  return value > 0 ? value : 30;
}

/** The questions the `suggestions` attribute offers (a JSON array of strings). */
export function suggestions(/** @type {Attributes} */ element) {
  try {
    const parsed = JSON.parse(element.getAttribute("suggestions") ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((item) => typeof item === "string") : [];
  } catch {
    return [];
  }
}

/**
 * What the worker needs to know, from the element's attributes and properties.
 * @param {Attributes & {token: string | null, historyStore: unknown, snapshot: unknown}} element
 * @returns {import("./client.js").ClientConfig}
 */
export function clientConfig(element) {
  const history = element.getAttribute("history") ?? DEFAULTS.history;
  const limit = Number.parseInt(element.getAttribute("max-conversations") ?? "", 10);
  return {
    endpoint: endpoint(element),
    model: element.getAttribute("model"),
    instructions: element.getAttribute("instructions"),
    history: element.historyStore ? "host" : HISTORY_MODES.includes(history) ? /** @type {any} */ (history) : DEFAULTS.history,
    prefix: storagePrefix(element),
    maxConversations: Math.max(1, limit || DEFAULTS.maxConversations),
    generateTitle: element.hasAttribute("generate-title"),
    sync: element.hasAttribute("sync"),
    present: element.hasAttribute("present"),
    snapshot: plainOrWarn(element.snapshot),
    token: element.token,
  };
}

/**
 * A start-up snapshot as plain data for the worker; one that is not (a function, a cycle)
 * is unreadable: a new conversation opens, with a warning.
 * @param {unknown} value
 */
function plainOrWarn(value) {
  if (value === null || value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    console.warn("Chatkeep: the start-up snapshot could not be read; a new conversation opens.");
    return null;
  }
}
