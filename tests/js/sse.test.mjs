// Reading an answer (static/sse.js) against a scripted server: node --test tests/js
// With Redis the server names each answer (a turn id) and numbers its events; a dropped
// connection is then picked up from the last event read, and Stop tells the server.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { openStream, wakeStreams } from "../../static/sse.js";

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

const chunk = (text) => JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] });

/** A body of numbered events from `first`, then [DONE] unless `drop` cuts it off. */
function body(texts, { first = 1, drop = false, done = true } = {}) {
  const events = texts.map((text, i) => `id: ${first + i}\ndata: ${chunk(text)}\n\n`);
  if (!drop && done) events.push("data: [DONE]\n\n");
  return new ReadableStream({
    pull(controller) {
      // One event a read; a drop errors only once the events before it were read.
      const event = events.shift();
      if (event) controller.enqueue(new TextEncoder().encode(event));
      else if (drop) controller.error(new TypeError("network error"));
      else controller.close();
    },
  });
}

/** Replaces fetch with `answers` in order; returns the requests made. */
function serve(...answers) {
  const requests = [];
  globalThis.fetch = async (url, init = {}) => {
    requests.push({ url, method: init.method ?? "GET", headers: init.headers ?? {} });
    if (init.method === "DELETE") return new Response(null, { status: 204 });
    const next = answers.shift();
    if (!next) throw new TypeError("no server");
    return typeof next === "function" ? next(init) : next;
  };
  return requests;
}

const stream = (texts, options, headers = { "x-chatkeep-turn": "T1" }) =>
  new Response(body(texts, options), { headers: { "content-type": "text/event-stream", ...headers } });

async function readAll(reader) {
  const chunks = [];
  for (let batch; (batch = await reader.next()) !== undefined; ) chunks.push(...JSON.parse(batch));
  return chunks;
}

const texts = (chunks) => chunks.filter((c) => c.choices).map((c) => c.choices[0].delta.content).join("");

test("a named answer starts with its turn id, and a drop is picked up where it broke off", async () => {
  const requests = serve(
    stream(["The ", "moon "], { drop: true }),
    stream(["pulls ", "the sea."], { first: 3 }),
  );
  const chunks = await readAll(openStream("http://chat/api", { body: "{}" }, { authorization: "Bearer t" }));
  assert.deepEqual(chunks[0], { chatkeep_turn: "T1" });
  assert.equal(texts(chunks), "The moon pulls the sea.");
  assert.equal(requests[0].method, "POST");
  assert.equal(requests[1].url, "http://chat/api/chat/turns/T1?after=2");
  assert.equal(requests[1].headers.authorization, "Bearer t");
  assert.equal(requests.length, 2); // the model was asked once
});

test("without a turn id a dropped answer fails as before, asking nothing again", async () => {
  const requests = serve(stream(["Half"], { drop: true }, {}));
  const reader = openStream("http://chat/api", { body: "{}" });
  assert.deepEqual(JSON.parse(await reader.next()), [JSON.parse(chunk("Half"))]);
  await assert.rejects(reader.next(), /could not be reached/);
  assert.equal(requests.length, 1);
});

test("an answer picked up after a reload is read from its first event", async () => {
  const requests = serve(stream(["Whole ", "answer."], {}, {}));
  const chunks = await readAll(openStream("http://chat/api", { turn: "T9" }));
  assert.equal(texts(chunks), "Whole answer.");
  assert.equal(requests[0].url, "http://chat/api/chat/turns/T9?after=0");
});

test("an answer the server no longer keeps fails with the server's own words", async () => {
  const gone = { error: { message: "This answer is no longer kept on the chat server." } };
  serve(new Response(JSON.stringify(gone), { status: 404 }));
  await assert.rejects(openStream("http://chat/api", { turn: "T9" }).next(), /no longer kept/);
});

test("an error event is the server's last word: nothing is asked again", async () => {
  const failed = '{"error": {"message": "The model service failed."}}';
  const requests = serve(
    new Response(`id: 1\ndata: ${chunk("Hi")}\n\nid: 2\ndata: ${failed}\n\n`, {
      headers: { "x-chatkeep-turn": "T1" },
    }),
  );
  const chunks = await readAll(openStream("http://chat/api", { body: "{}" }));
  assert.deepEqual(chunks.at(-1), JSON.parse(failed));
  assert.equal(requests.length, 1);
});

test("Stop aborts and tells the server to stop an answer it would keep writing", async () => {
  let abortSignal;
  const requests = serve((init) => {
    abortSignal = init.signal;
    const endless = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`id: 1\ndata: ${chunk("Hi")}\n\n`));
        init.signal.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")));
      },
    });
    return new Response(endless, { headers: { "x-chatkeep-turn": "T1" } });
  });
  const reader = openStream("http://chat/api", { body: "{}" });
  await reader.next();
  reader.close();
  await assert.rejects(reader.next(), /Stopped before the answer was finished/);
  assert.ok(abortSignal.aborted);
  assert.deepEqual(requests.map((r) => [r.method, r.url]), [
    ["POST", "http://chat/api/chat/completions"],
    ["DELETE", "http://chat/api/chat/turns/T1"],
  ]);
});

test("closing a finished answer tells the server nothing", async () => {
  const requests = serve(stream(["Done."]));
  const reader = openStream("http://chat/api", { body: "{}" });
  await readAll(reader);
  reader.close();
  assert.equal(requests.length, 1);
});

test("a connection that keeps dropping fails after a few tries", async () => {
  const drops = Array.from({ length: 10 }, () => () => Promise.reject(new TypeError("offline")));
  const requests = serve(stream(["A"], { drop: true }), ...drops);
  const reader = openStream("http://chat/api", { body: "{}" }, {}, [1, 1, 1, 1, 1]);
  await assert.rejects(readAll(reader), /could not be reached/);
  assert.equal(requests.length, 6); // the first request and five tries
});

/** A body of exactly these chunks (text), one a read. */
function chunked(...parts) {
  return new Response(new ReadableStream({
    pull(controller) {
      const part = parts.shift();
      if (part === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(part));
    },
  }), { headers: { "content-type": "text/event-stream" } });
}

test("a CRLF split across two reads ends one line, not two", async () => {
  // Read as two line ends, the LF made an empty line: the event was cut in two.
  const raw = `data: {"choices": [{"index": 0, "delta": {"content": "one"}},\r\ndata:  {"index": 1}]}\r\n\r\ndata: [DONE]\n\n`;
  const cut = raw.indexOf("\r\n") + 1; // between the CR and its LF
  serve(chunked(raw.slice(0, cut), raw.slice(cut)));
  const chunks = await readAll(openStream("http://chat/api", { body: "{}" }));
  assert.equal(texts(chunks), "one");
  assert.equal(chunks[0].choices.length, 2, JSON.stringify(chunks));
});

test("U+2028, U+2029 and U+0085 inside JSON strings end no line", async () => {
  const text = "one\u2028two\u2029three\u0085four";
  serve(chunked(`data: ${chunk(text)}\r\n\r\ndata: [DONE]\n\n`));
  assert.equal(texts(await readAll(openStream("http://chat/api", { body: "{}" }))), text);
});

test("offline costs no try: the answer is asked for again once the browser is back online", async () => {
  const offline = Array.from({ length: 7 }, () => () => {
    setTimeout(wakeStreams, 0); // the browser tells the worker it looked again
    return Promise.reject(new TypeError("offline"));
  });
  const back = () => {
    globalThis.navigator.onLine = true;
    return stream(["the sea."], { first: 2 });
  };
  const requests = serve(stream(["The moon pulls "], { drop: true }), ...offline, back);
  Object.defineProperty(globalThis, "navigator", { value: { onLine: false }, configurable: true, writable: true });
  try {
    const reading = readAll(openStream("http://chat/api", { body: "{}" }, {}, [1]));
    // The drop found the browser offline: it waits to be told the browser looked again.
    while (requests.length < 2) {
      wakeStreams();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const chunks = await reading;
    assert.equal(texts(chunks), "The moon pulls the sea.");
    assert.equal(requests.length, 9); // the first request, seven looks while offline, the rest
    assert.equal(requests.at(-1).url, "http://chat/api/chat/turns/T1?after=1");
  } finally {
    delete globalThis.navigator;
  }
});

test("a page that wakes replaces a connection that died without knowing it, from the last event", async () => {
  let stalled;
  const silent = (init) => {
    const hung = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`id: 1\ndata: ${chunk("The moon ")}\n\n`));
        init.signal.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")));
        stalled = init.signal;
      },
    });
    return new Response(hung, { headers: { "x-chatkeep-turn": "T1" } });
  };
  const requests = serve(silent, stream(["pulls ", "the sea."], { first: 2 }));
  const reader = openStream("http://chat/api", { body: "{}" }, {}, []); // no try to spend
  const first = JSON.parse(await reader.next());
  wakeStreams(); // the phone was unlocked
  const chunks = [...first, ...(await readAll(reader))];
  assert.ok(stalled.aborted);
  assert.equal(texts(chunks), "The moon pulls the sea."); // nothing twice
  assert.deepEqual(requests.map((r) => r.url), [
    "http://chat/api/chat/completions", "http://chat/api/chat/turns/T1?after=1",
  ]);
});
