// Reading a streamed Chat Completions answer in JavaScript (about 10 µs a chunk, against
// ~270 µs in Python), handing Python whole batches: every event that arrived since it last
// asked, as the text of one JSON array.

import { SENTENCE, TURN_HEADER, TURN_KEY } from "./protocol.js";
import { refusal, unreachable } from "./refusals.js";

/** Waits (ms) before asking again for an answer whose connection dropped; then it fails. */
const RETRY_DELAYS = [250, 1000, 2000, 4000, 8000];
/** While the browser is offline, it looks again this often (ms) if it is not told sooner. */
const OFFLINE_LOOK_MS = 8000;

/** Pauses that end as soon as the page is back (visible, resumed, online): see `wakeStreams`. */
const sleepers = new Set();

/**
 * The page is back (it was hidden, frozen or offline): every answer waiting to ask again for
 * the rest of a dropped connection asks now, and a connection that may have died silently
 * while the page slept is replaced (from the last event read: nothing shows twice).
 */
export function wakeStreams() {
  for (const wake of [...sleepers]) wake();
}

/**
 * Starts a request for an answer and returns a reader of batches.
 * `request` is `{body}` for a new answer (a POST), or `{turn}` to pick up the answer the
 * server keeps under that turn id, from its start (after a reload).
 *
 * `next()` resolves with `"[chunk, …]"` text, with `undefined` once the answer is complete,
 * or rejects with an Error whose message a person can read. When the server names the
 * answer, `{[TURN_KEY]: id}` comes first; if the connection then drops, the rest is
 * asked for by turn id and the number of the last event read, a few times, before failing.
 * `close()` aborts, and tells the server to stop an answer it would keep writing.
 * @param {string} endpoint  the chat server's API base (`…/api`)
 * @param {{body: string} | {turn: string}} request
 * @param {Record<string, string>} headers  more request headers (the client token)
 * @param {number[]} retryDelays  waits (ms) before each new try after a drop
 */
export function openStream(endpoint, request, headers = {}, retryDelays = RETRY_DELAYS) {
  const controller = new AbortController();
  /** @type {string[]} */
  const queue = [];
  let finished = false;
  /** @type {{message: string, code: string, params: Record<string, unknown>} | null} what the person is told */
  let failure = null;
  /** @type {(() => void) | null} */
  let wake = null;
  const notify = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  /** @type {string | null} */
  let turn = "turn" in request ? request.turn : null;
  let after = 0; // the number of the last event read

  /** @type {AbortController | null} the connection being read, replaced when the page wakes */
  let attempt = null;
  controller.signal.addEventListener("abort", () => attempt?.abort(), { once: true });
  const connect = () => {
    attempt = new AbortController();
    const signal = attempt.signal;
    if ("body" in request && !turn) {
      return fetch(`${endpoint}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
        body: request.body,
        signal,
      });
    }
    const url = `${endpoint}/chat/turns/${encodeURIComponent(turn ?? "")}?after=${after}`;
    return fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal });
  };

  // Woken while reading a named answer: the connection may be dead without knowing it (a
  // phone's line dropped while it was locked), so it is replaced, from the last event read.
  let woken = false;
  const replace = () => {
    if (!turn || !attempt || attempt.signal.aborted) return;
    woken = true;
    attempt.abort();
  };
  sleepers.add(replace);

  (async () => {
    try {
      for (let retries = 0; ; ) {
        try {
          const response = await connect();
          if (!response.ok || !response.body) {
            failure = await refusal(response);
            return;
          }
          const named = turn ? null : response.headers.get(TURN_HEADER);
          if (named) {
            turn = named;
            queue.push(JSON.stringify({ [TURN_KEY]: named }));
          }
          for await (const { id, data } of events(response.body)) {
            if (data === "[DONE]") return;
            if (id) after = Number(id);
            queue.push(data);
            notify();
            retries = 0;
            if (data.startsWith('{"error"')) return; // the server's last word on this answer
          }
          throw new Dropped(CLOSED_EARLY);
        } catch (error) {
          if (controller.signal.aborted) throw error;
          if (!turn) throw error;
          if (woken) {
            woken = false;
            continue; // replaced on waking: at once, and no try is spent
          }
          // Offline (a phone in a tunnel, a dropped line) costs no try: the answer is kept on
          // the server; it is asked for again once the page is back online.
          if (globalThis.navigator?.onLine === false) {
            await pause(OFFLINE_LOOK_MS, controller.signal);
            continue;
          }
          if (retries === retryDelays.length) throw error;
          await pause(retryDelays[retries++], controller.signal);
        }
      }
    } catch (error) {
      failure = controller.signal.aborted
        ? { message: SENTENCE.stopped, code: "stopped", params: {} }
        : error instanceof Dropped
          ? { message: CLOSED_EARLY, code: "connection_closed", params: {} }
          : unreachable(error);
    } finally {
      sleepers.delete(replace);
      finished = true;
      notify();
    }
  })();

  return {
    async next() {
      while (!queue.length && !finished) await new Promise((resolve) => (wake = () => resolve(undefined)));
      if (queue.length) return `[${queue.splice(0).join(",")}]`;
      if (failure) throw Object.assign(new Error(failure.message), { code: failure.code, params: failure.params });
      return undefined; // None in Python (null would arrive as pyodide's JsNull)
    },
    close() {
      if (finished) return;
      controller.abort();
      if (turn) {
        // Leaving no longer ends an answer the server keeps: Stop says so in so many words.
        fetch(`${endpoint}/chat/turns/${encodeURIComponent(turn)}`, { method: "DELETE", headers, keepalive: true }).catch(() => {});
      }
    },
  };
}

class Dropped extends Error {}
const CLOSED_EARLY = "The connection closed before the answer was complete.";

/** Resolves after `ms` or when the page is back (`wakeStreams`), or rejects once `signal` aborts. */
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      sleepers.delete(done);
      resolve(undefined);
    };
    const timer = setTimeout(done, ms);
    sleepers.add(done);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      sleepers.delete(done);
      reject(new Error("aborted"));
    }, { once: true });
  });
}

// The worker hears the browser come back online itself; visible and resumed, from the page.
globalThis.addEventListener?.("online", wakeStreams);

/**
 * Each Server-Sent Event in a byte stream: its `data`, and its `id` ("" without one).
 * @returns {AsyncGenerator<{id: string, data: string}>}
 */
async function* events(body) {
  /** @type {string[]} */
  let data = [];
  let id = "";
  for await (const line of lines(body)) {
    if (line === "") {
      if (data.length) yield { id, data: data.join("\n") };
      data = [];
      id = "";
    } else if (line.startsWith("data:")) {
      data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    } else if (line.startsWith("id:")) {
      id = line.slice(line.startsWith("id: ") ? 4 : 3);
    }
  }
  if (data.length) yield { id, data: data.join("\n") };
}

/**
 * The lines of a byte stream, split at CRLF, LF or CR, in time linear in its length: each
 * chunk is read once from where the last line ended (a replay of many events arrives as one
 * chunk), and a line spread over many chunks is joined once.
 * @param {ReadableStream<any>} body
 * @returns {AsyncGenerator<string>}
 */
export async function* lines(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const newline = /\r\n|\r|\n/g;
  /** @type {string[]} the line being received, in pieces */
  let partial = [];
  let afterCR = false; // a chunk ended in CR: a LF first in the next one ends nothing
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      let at = afterCR && value.startsWith("\n") ? 1 : 0;
      afterCR = value.endsWith("\r");
      newline.lastIndex = at;
      for (let match; (match = newline.exec(value)) !== null; at = newline.lastIndex) {
        const line = value.slice(at, match.index);
        yield partial.length ? partial.join("") + line : line;
        partial = [];
      }
      if (at < value.length) partial.push(value.slice(at));
    }
    if (partial.length) yield partial.join("");
  } finally {
    reader.releaseLock();
  }
}
