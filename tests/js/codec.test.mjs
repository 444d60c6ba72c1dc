// The storage codec (static/codec.js) under Node's test runner: node --test tests/js
import assert from "node:assert/strict";
import { test } from "node:test";

import { MAX_INFLATED_BYTES, pack, unpack } from "../../static/codec.js";

const conversation = JSON.stringify({
  version: 1, id: "c", title: "Trip", created: 1, updated: 2, model: "demo", thinking: "off",
  messages: Array.from({ length: 60 }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: `Message ${i}: ünïcödé ✓ 🚀 "quotes" \\ back\nslash ${"river bends ".repeat(i % 7)}`,
  })),
});

test("a packed conversation unpacks to the same text", async () => {
  for (const text of ["", "x", "{}", conversation, "🚀".repeat(1000)]) {
    assert.equal(await unpack(await pack(text)), text);
  }
});

test("packed text has no surrogate or control character and is smaller", async () => {
  const packed = await pack(conversation);
  for (const char of packed.slice(packed.indexOf("~", 4) + 1)) {
    const code = char.charCodeAt(0);
    assert.ok(code >= 0x0800 && code <= 0x87ff, `unit ${code.toString(16)}`);
  }
  assert.ok(packed.length * 3 < conversation.length, `${packed.length} vs ${conversation.length}`);
});

test("plain JSON from earlier versions and null pass through", async () => {
  assert.equal(await unpack(conversation), conversation);
  assert.equal(await unpack(null), null);
});

test("a damaged packed value comes back as it is, never throws", async () => {
  const packed = await pack(conversation);
  const damaged = [
    packed.slice(0, packed.length / 2),
    packed.replace(/~\d+~/, "~x~"),
    packed.slice(0, -3) + "\u0041\u0042\u0043",
    `${packed.slice(0, 20)}\ud800${packed.slice(21)}`,
    "~z1~",
    "~z1~5~",
  ];
  for (const value of damaged) assert.equal(await unpack(value), value);
});

test("a value that inflates past the snapshot size limit is left as it is, unread", async () => {
  const { deflateRawSync } = await import("node:zlib");
  const bomb = new Uint8Array(deflateRawSync(Buffer.alloc(MAX_INFLATED_BYTES + 1024)));
  const packed = await pack("x", { deflate: () => bomb, inflate: (bytes) => bytes });
  assert.ok(packed.length < 200_000, `${packed.length}`); // 100 MB in a few hundred KB
  assert.equal(await unpack(packed), packed);
  const fits = await pack("y", { deflate: () => new Uint8Array(deflateRawSync(Buffer.from("{}"))), inflate: (b) => b });
  assert.equal(await unpack(fits), "{}");
});
