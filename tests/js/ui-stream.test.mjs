// The `present` tool's streamed arguments (static/ui-stream.js): each prefix draws what is
// complete and valid of it, never half a component, and more as more arrives.
import assert from "node:assert/strict";
import { test } from "node:test";

import { partialSpec } from "../../static/ui-stream.js";

const WHOLE = JSON.stringify({
  text: "Two jackets",
  root: { type: "Stack", children: [
    { type: "Heading", text: "Jackets" },
    { type: "Table", caption: "Prices", columns: [{ key: "n", label: "Name" }], rows: [{ n: "Alder" }, { n: "Birch" }] },
    { type: "Button", label: "Order", action: { kind: "message", text: "Order one" } },
  ] },
});

test("every prefix draws only complete, valid parts, and they grow", () => {
  let most = 0;
  for (let end = 0; end <= WHOLE.length; end++) {
    const spec = partialSpec(WHOLE.slice(0, end));
    if (!spec) continue;
    const shown = spec.root.children?.length ?? 0;
    assert.ok(shown >= most, `at ${end}: ${shown} components after ${most}`);
    most = shown;
    for (const child of spec.root.children) assert.ok(child.type && (child.text || child.caption || child.label), JSON.stringify(child));
  }
  assert.equal(most, 3);
  const half = partialSpec(WHOLE.slice(0, WHOLE.indexOf("Birch")));
  assert.deepEqual(half?.root.children.map((c) => c.type), ["Heading", "Table"]);
  assert.deepEqual(half?.root.children[1].rows, [{ n: "Alder" }]); // rows as they arrive
});

test("arguments that never make a component draw nothing", () => {
  assert.equal(partialSpec(""), null);
  assert.equal(partialSpec('{"text": "x", "root": {"type": "Blink"'), null);
  assert.equal(partialSpec("not json"), null);
});
