// The starting bar's steps (static/progress.js): what a person sees fill while the chat
// starts, one step a second, and a timer that ends by itself. node --test tests/js

import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { fillAt, fillSteadily, LAST_STEP } from "../../static/progress.js";

test("the bar fills quickly at first, then creeps towards its end, one step a second", () => {
  const fills = Array.from({ length: LAST_STEP + 1 }, (_, second) => fillAt(second));
  assert.equal(fills[0], 0.1);
  assert.equal(fills[2], 0.4);
  assert.equal(fills[5], 0.65);
  assert.ok(Math.abs(fills[10] - 0.85) < 1e-9);
  assert.equal(fills[LAST_STEP], 0.95);
  const steps = fills.slice(1).map((fill, second) => fill - fills[second]);
  assert.ok(steps.every((step) => step > 0), "it always moves on");
  assert.ok(steps[0] > steps[LAST_STEP - 1] * 10, "the first steps are the big ones");
  assert.equal(fillAt(LAST_STEP + 60), 0.95); // never full: full would mean ready
});

test("the timer steps the bar once a second and stops when the bar leaves the page", () => {
  mock.timers.enable({ apis: ["setInterval"] });
  try {
    const set = [];
    const bar = { isConnected: true, style: { setProperty: (name, value) => set.push([name, Number(value)]) } };
    fillSteadily(bar);
    assert.deepEqual(set, [["--ck-fill", 0.1]]);
    mock.timers.tick(1000);
    mock.timers.tick(1000);
    assert.deepEqual(set.map(([, fill]) => fill), [0.1, 0.25, 0.4]);
    bar.isConnected = false; // ready: the bar is removed
    mock.timers.tick(5000);
    assert.equal(set.length, 3);
  } finally {
    mock.timers.reset();
  }
});

test("the timer ends by itself after the last step", () => {
  mock.timers.enable({ apis: ["setInterval"] });
  try {
    const set = [];
    fillSteadily({ isConnected: true, style: { setProperty: (_name, value) => set.push(Number(value)) } });
    mock.timers.tick(1000 * (LAST_STEP + 30));
    assert.equal(set.length, LAST_STEP + 1);
    assert.equal(set.at(-1), 0.95);
  } finally {
    mock.timers.reset();
  }
});
