// Synced history's requests (static/sync-client.js) against a server that never answers:
// node --test tests/js. A round must end ("offline") rather than hang, since "Stop syncing"
// waits for the round running and no other round starts meanwhile.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { SyncClient } from "../../static/sync-client.js";
import { fromBase64url, keysV1, keysV2, spaceOf } from "../../static/sync-derive.js";
import { seal, unseal } from "../../static/sync-seal.js";

let server;
let base = "";
const heard = [];
before(async () => {
  server = createServer((request, response) => {
    if (request.url.includes("/recorded/")) {
      heard.push({ url: request.url, token: request.headers["chatkeep-sync-token"] ?? null });
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"items": [], "cursor": 0, "more": false}');
    } else if (request.url.includes("headers-then-nothing")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"items": [');  // and never the rest
    } else if (request.url.includes("slow-but-moving")) {
      // A long answer on a slow line: longer in all than the client waits, but never still.
      response.writeHead(200, { "content-type": "application/json" });
      const parts = ['{"items": ', "[]", ', "cursor"', ": 7", ', "more": false', "}"];
      const next = () => {
        response.write(parts.shift());
        if (parts.length) setTimeout(next, 100);
        else response.end();
      };
      next();
    }
    // Otherwise nothing at all: the request waits for an answer that never comes.
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** IndexedDB as the worker has it, in memory: what is kept is a structured clone. */
function memoryKeys() {
  const kept = new Map();
  return {
    kept,
    keepKeys: async (name, keys) => void kept.set(name, structuredClone(keys)),
    loadKeys: async (name) => kept.get(name) ?? null,
    dropKeys: async (name) => void kept.delete(name),
  };
}

async function client(path) {
  const sync = new SyncClient(() => `${base}${path}`, () => ({}), () => null, 200, memoryKeys());
  await sync.open("0123456789ABCDEFGHJKMNPQRSTVWXYZ", "chatkeep");
  return sync;
}

test("a request with no answer ends offline, in its time", { timeout: 5_000 }, async () => {
  const sync = await client("/silent");
  const started = performance.now();
  await assert.rejects(sync.pull(0), (error) => {
    assert.equal(error.code, "sync_offline");
    assert.match(error.message, /did not answer in time/);
    return true;
  });
  assert.ok(performance.now() - started < 2_000);
});

test("an answer cut off after its headers ends offline too", { timeout: 5_000 }, async () => {
  const sync = await client("/headers-then-nothing");
  await assert.rejects(sync.pull(0), (error) => {
    assert.equal(error.code, "sync_offline");
    assert.match(error.message, /did not answer in time/);
    return true;
  });
});

test("an answer that keeps arriving is read whole, however long it takes", { timeout: 5_000 }, async () => {
  const sync = await client("/slow-but-moving");
  const started = performance.now();
  assert.deepEqual(await sync.pull(0), { items: [], cursor: 7, more: false });
  assert.ok(performance.now() - started > 400);  // longer than the 200 ms it waits for a stall
});

test("a server that is not there is offline at once", { timeout: 5_000 }, async () => {
  const sync = new SyncClient(() => "http://127.0.0.1:9/api", () => ({}), () => null, 200, memoryKeys());
  await sync.open("0123456789ABCDEFGHJKMNPQRSTVWXYZ", "chatkeep");
  await assert.rejects(sync.pull(0), (error) => {
    assert.equal(error.code, "sync_offline");
    assert.match(error.message, /cannot be reached/);
    return true;
  });
});

test("the keys kept between visits are CryptoKeys whose bytes no script can read", async () => {
  const code = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const keys = memoryKeys();
  const first = new SyncClient(() => `${base}/api`, () => ({}), () => null, 200, keys);
  const print = await first.open(code, "chatkeep");
  const kept = keys.kept.get("chatkeep");
  assert.deepEqual(Object.keys(kept).sort(), ["items", "moving", "names", "print", "space", "token", "version"]);
  for (const key of [kept.items, kept.names, kept.moving.items]) {
    assert.ok(key instanceof CryptoKey && !key.extractable);
    await assert.rejects(crypto.subtle.exportKey("raw", key));  // a host script gets no bytes
  }
  assert.ok(!JSON.stringify(kept).includes(code));
  // A later visit takes them up without the code, and reaches the same space.
  const later = new SyncClient(() => `${base}/api`, () => ({}), () => null, 200, keys);
  assert.equal(await later.resume("chatkeep"), print);
  assert.equal(await later.resume("elsewhere"), null);
  await later.forget("chatkeep");
  assert.equal(keys.kept.size, 0);
  await assert.rejects(later.pull(0), (error) => error.code === "sync_off");
});

test("version 2's token names its space as the contract fixes, and every request carries it", async () => {
  const keys = memoryKeys();
  const sync = new SyncClient(() => `${base}/recorded/api`, () => ({}), () => null, 200, keys);
  await sync.open("0123456789ABCDEFGHJKMNPQRSTVWXYZ", "chatkeep");
  const { token, space } = keys.kept.get("chatkeep");
  const bytes = fromBase64url(token);
  assert.equal(bytes.length, 32);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", Buffer.concat([Buffer.from("chatkeep space v2"), bytes])));
  assert.equal(space, Buffer.from(digest).toString("base64url"));
  assert.equal(await spaceOf(bytes), space);
  heard.length = 0;
  await sync.pull(0);
  assert.deepEqual(heard, [{ url: `/recorded/api/sync/${space}?since=0`, token }]);
});

test("a device that kept only version 1's keys reaches the space the code reaches", async () => {
  const code = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const keys = memoryKeys();
  const v1 = await keysV1(code);
  keys.kept.set("chatkeep", { ...v1, print: "the print it noted" }); // what 2.1 kept: no code
  const moved = new SyncClient(() => `${base}/api`, () => ({}), () => null, 200, keys);
  assert.equal(await moved.resume("chatkeep"), "the print it noted");
  const fromCode = await keysV2(await keysV1(code));
  const kept = keys.kept.get("chatkeep");
  assert.equal(kept.version, 2);
  assert.equal(kept.space, fromCode.space);
  assert.equal(kept.token, fromCode.token);
  assert.equal(kept.moving.space, v1.space); // read, merged and wiped by the next round
  assert.ok(await moved.moving());
});

test("an envelope binds its item's name and sequence number", async () => {
  const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
  const plain = new TextEncoder().encode("a conversation");
  const body = await seal(key, "item-a", 7, plain);
  assert.equal(body[0], 2);
  const opened = await unseal(key, "item-a", body);
  assert.equal(opened.seq, 7);
  assert.deepEqual(opened.plain, plain);
  await assert.rejects(unseal(key, "item-b", body)); // moved under another name
  const renumbered = body.slice();
  renumbered[8] = 9; // an older or newer number claimed
  await assert.rejects(unseal(key, "item-a", renumbered));
  await assert.rejects(unseal(key, "item-a", body.slice(0, 20))); // garbage
  const big = await seal(key, "item-a", 2 ** 40 + 3, plain);
  assert.equal((await unseal(key, "item-a", big)).seq, 2 ** 40 + 3);
});
