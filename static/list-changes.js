// How the page's copies of Python's lists follow its changes: the kept conversations (a
// `history` event), and the messages already drawn (a new start keeps those it shares).

/** @typedef {import("./client.js").HistoryEntry} HistoryEntry */
/** @typedef {import("./client.js").Message} Message */

/**
 * The kept conversations after a change: `set` entries added or changed, `drop` ids gone,
 * `order` every id in order when it changed.
 * @param {HistoryEntry[]} entries
 * @param {{set: HistoryEntry[], drop: string[], order?: string[]}} change
 */
export function applyListChange(entries, { set, drop, order }) {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  for (const id of drop) byId.delete(id);
  for (const entry of set) byId.set(entry.id, entry);
  const ids = order ?? entries.map((entry) => entry.id).filter((id) => byId.has(id));
  return ids.map((id) => /** @type {HistoryEntry} */ (byId.get(id))).filter(Boolean);
}

/** How many messages from the start two lists share (those drawn stay drawn). */
export function sameUpTo(/** @type {Message[]} */ shown, /** @type {Message[]} */ now) {
  let at = 0;
  while (at < shown.length && at < now.length && JSON.stringify(shown[at]) === JSON.stringify(now[at])) at++;
  return at;
}
