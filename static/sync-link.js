// A link that carries a pairing (`#chatkeep-pair=ID.KEY`, made by "Sync devices": no code,
// once, for 10 minutes), a sync code someone typed (`#chatkeep-sync=CODE`) or a shared
// conversation (`#chatkeep-share=ID.KEY`, ./shared-page.js): read and taken out of the address as this module is evaluated, which
// static/worker-start.js makes the first thing the widget's code does (before a worker
// starts), so the code stays in no address bar, history entry or referrer. It connects nothing
// by itself: the person is asked first (static/sync-panel.js).

const PART = /^chatkeep-(sync|pair|share)=([A-Za-z0-9_.-]{1,200})$/;

/** @typedef {{kind: "sync" | "pair" | "share", value: string}} SyncLink */

/** The element's own event (not bubbling): its `syncKey` changed (static/sync-panel.js). */
export const SYNC_KEY_CHANGED = "chatkeep-synckey";

/** @type {SyncLink | null} the link, until an element takes it */
let found = readAddress();

/** The link the address carries, taken out of it (other parts of the fragment stay). */
function readAddress() {
  if (typeof location === "undefined" || !location.hash) return null;
  /** @type {SyncLink | null} */
  let link = null;
  const parts = location.hash.replace(/^#/, "").split("&");
  const kept = parts.filter((part) => {
    const match = PART.exec(part);
    if (match && !link) link = { kind: /** @type {"sync" | "pair" | "share"} */ (match[1]), value: match[2] };
    return !/^chatkeep-(sync|pair|share)=/.test(part);
  });
  if (kept.length !== parts.length) {
    const rest = kept.filter(Boolean).join("&");
    history.replaceState(history.state, "", location.href.replace(/#.*$/, rest ? `#${rest}` : ""));
  }
  return link;
}

/**
 * The link this page was opened with, to the first element that asks; later, null.
 * @returns {SyncLink | null}
 */
export function takeSyncLink() {
  const link = found;
  found = null;
  return link;
}
