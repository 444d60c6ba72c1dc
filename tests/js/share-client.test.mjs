// Sealing and opening shared conversations (static/share-client.js) against a scripted server:
// node --test tests/js. The server sees ciphertext only; a tampered byte, a moved ciphertext
// or a wrong key says the one sentence.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { open, share, SHARE_GONE, stop } from "../../static/share-client.js";

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** A share server in memory: id → bytes; every request recorded. */
function server() {
  const kept = new Map();
  const requests = [];
  globalThis.fetch = async (url, init = {}) => {
    const id = String(url).split("/share/")[1];
    requests.push({ method: init.method ?? "GET", id, headers: init.headers ?? {} });
    if (init.method === "PUT") {
      kept.set(id, new Uint8Array(init.body));
      return Response.json({ token: "delete-token", expires: 1 }, { status: 201 });
    }
    if (init.method === "DELETE") return new Response(null, { status: kept.delete(id) ? 204 : 404 });
    return kept.has(id) ? new Response(kept.get(id)) : Response.json({ error: { code: "share_gone" } }, { status: 404 });
  };
  return { kept, requests };
}

const SNAPSHOT = JSON.stringify({ version: 1, id: "c1", title: "Tides",
  messages: [{ role: "user", content: "Why are there two tides a day?" }, { role: "assistant", content: "The moon pulls the sea." }] });

test("a shared conversation opens with its link and the server holds no word of it", async () => {
  const { kept } = server();
  const made = await share("http://chat/api", SNAPSHOT);
  assert.match(made.fragment, /^chatkeep-share=[\w-]{24}\.[\w-]{43}$/);
  assert.equal(made.token, "delete-token");
  const stored = new TextDecoder("latin1").decode(kept.get(made.id));
  for (const word of ["Tides", "moon", "tides", "version"]) assert.ok(!stored.includes(word), word);
  assert.equal(await open("http://chat/api", `${made.id}.${made.key}`), SNAPSHOT);
});

test("a tampered, moved or wrongly keyed share says the one sentence", async () => {
  const { kept } = server();
  const made = await share("http://chat/api", SNAPSHOT);
  const other = await share("http://chat/api", SNAPSHOT);
  await assert.rejects(open("http://chat/api", `${made.id}.${other.key}`), { message: SHARE_GONE });
  kept.set(other.id, kept.get(made.id)); // moved under another id
  await assert.rejects(open("http://chat/api", `${other.id}.${made.key}`), { message: SHARE_GONE });
  kept.get(made.id)[20] ^= 1; // a byte changed
  await assert.rejects(open("http://chat/api", `${made.id}.${made.key}`), { message: SHARE_GONE });
  await assert.rejects(open("http://chat/api", "not-a-link"), { message: SHARE_GONE });
});

test("stop sharing sends the delete token, and the link then says the sentence", async () => {
  const { requests } = server();
  const made = await share("http://chat/api", SNAPSHOT, { authorization: "Bearer t" });
  await stop("http://chat/api", made.id, made.token, { authorization: "Bearer t" });
  assert.equal(requests.at(-1).headers["chatkeep-share-token"], "delete-token");
  assert.equal(requests.at(-1).headers.authorization, "Bearer t");
  await assert.rejects(open("http://chat/api", `${made.id}.${made.key}`), { message: SHARE_GONE });
});

test("a share the server refuses, or cannot be asked for, says why in the page's words", async () => {
  globalThis.fetch = async () => Response.json(
    { error: { message: "Too many requests.", code: "rate_limited", params: { seconds: 3 } } }, { status: 429 });
  await assert.rejects(share("http://chat/api", SNAPSHOT), { message: "Too many requests.", code: "rate_limited" });
  globalThis.fetch = async () => { throw new TypeError("Failed to fetch"); };
  await assert.rejects(share("http://chat/api", SNAPSHOT), { code: "server_unreachable" });
  await assert.rejects(stop("http://chat/api", "x".repeat(24), "token"), { code: "server_unreachable" });
});
