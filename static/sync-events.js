// Server-sent events that tell an open device to read synced history now
// (`GET /api/sync/{space}/events`): a change made on another device shows here within
// seconds, without a reload or focus. Each event says the space's last revision (`rev`, null
// when the server cannot say); the round reads as it always does. A stream that ends or breaks is opened again, later each time it fails at
// once; one the server refuses (403, 404, 410) is not: the next round says why. Polling (the
// page's cues, every 30 s) stays as the fallback.

import { lines } from "./sse.js";

/** Milliseconds before opening the stream again after it failed n times in a row. */
const AGAIN_MS = [1_000, 3_000, 10_000, 30_000, 60_000];
const REFUSED = [401, 403, 404, 410];

export class SpaceEvents {
  /** @type {AbortController | null} */ #running = null;

  /**
   * @param {() => string} endpoint  the API's base URL (`…/api`)
   * @param {() => Record<string, string>} headers  the client token's and the space's
   */
  constructor(endpoint, headers) {
    this.endpoint = endpoint;
    this.headers = headers;
  }

  /**
   * Listen to `space`, calling `changed` with each event's revision (the first: what came
   * while no stream was open), until `stop` or another `start`.
   * @param {string} space @param {(rev: number | null) => void} changed
   */
  start(space, changed) {
    this.stop();
    const running = (this.#running = new AbortController());
    this.#listen(space, changed, running.signal).catch(() => {});
  }

  stop() {
    this.#running?.abort();
    this.#running = null;
  }

  /** @param {string} space @param {(rev: number | null) => void} changed @param {AbortSignal} signal */
  async #listen(space, changed, signal) {
    for (let failed = 0; !signal.aborted;) {
      let heard = false;
      try {
        const response = await fetch(`${this.endpoint()}/sync/${space}/events`, { headers: this.headers(), signal });
        if (REFUSED.includes(response.status)) return;
        if (response.ok && response.body) {
          for await (const line of lines(response.body)) {
            if (!line.startsWith("data:")) continue;
            heard = true;
            changed(revisionOf(line.slice(5)));
          }
        }
      } catch {
        if (signal.aborted) return;
      }
      failed = heard ? 0 : failed + 1;
      await new Promise((resolve) => setTimeout(resolve, AGAIN_MS[Math.min(failed, AGAIN_MS.length - 1)]));
    }
  }
}

/** The `rev` an event's data says, or null. @param {string} data */
function revisionOf(data) {
  try {
    const rev = JSON.parse(data)?.rev;
    return Number.isSafeInteger(rev) ? rev : null;
  } catch {
    return null;
  }
}
