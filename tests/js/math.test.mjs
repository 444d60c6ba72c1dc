// Which text is TeX (static/math.js): closed math only, and prices are not math.
// node --test tests/js

import assert from "node:assert/strict";
import { test } from "node:test";
import { findMath } from "../../static/math.js";

/** Every piece of math found in `text`, as markdown.js would meet it, left to right. */
function allMath(text) {
  const found = [];
  for (let pos = 0; pos < text.length; pos++) {
    const math = findMath(text, pos);
    if (math) {
      found.push([math.tex, math.display]);
      pos = math.end - 1;
    }
  }
  return found;
}

test("the four delimiters", () => {
  assert.deepEqual(allMath("$$\\int_0^1 x^2\\,dx$$"), [["\\int_0^1 x^2\\,dx", true]]);
  assert.deepEqual(allMath("so \\[a+b\\] and \\(c\\) and $d$."), [["a+b", true], ["c", false], ["d", false]]);
  assert.deepEqual(allMath("$$\na = b\n$$"), [["\na = b\n", true]]);
});

test("prices and lone dollars are not math", () => {
  assert.deepEqual(allMath("It costs $5 and $10."), []);
  assert.deepEqual(allMath("$ 5 $"), []);
  assert.deepEqual(allMath("from $3$5"), []);
  assert.deepEqual(allMath("an escaped \\$ sign $x$"), [["x", false]]);
  assert.deepEqual(allMath("$a\nb$"), []);
});

test("half-written math is not math yet", () => {
  const answer = "The integral $$\\int_0^1 x^2\\,dx$$ is $\\frac{1}{3}$.";
  for (let end = 1; end < answer.length; end++) {
    for (const [tex] of allMath(answer.slice(0, end))) {
      assert.ok(answer.includes(tex), `${JSON.stringify(answer.slice(0, end))} gave ${tex}`);
    }
  }
  assert.deepEqual(allMath("The integral $$\\int_0^1 x^2"), []);
  assert.deepEqual(allMath(answer), [["\\int_0^1 x^2\\,dx", true], ["\\frac{1}{3}", false]]);
});

test("finding math is linear: four times the hostile text takes about four times as long", async () => {
  const { MathFinder } = await import("../../static/math.js");
  // The best of three runs: one run can take 15 times as long when a collection or another
  // process lands on it (a bare clone's `make test` saw 3.1 ms, then 47.2 ms, for linear work).
  const everyPlace = (text) => Math.min(...[1, 2, 3].map(() => {
    const started = performance.now();
    const finder = new MathFinder(text);
    for (let pos = 0; pos < text.length; pos++) finder.at(pos);
    return performance.now() - started;
  }));
  for (const unit of ["$1 ", "\\(", "$$x", "\\[a", "$a\\", "$a \\$"]) {
    everyPlace(unit.repeat(4_000)); // warm up
    const small = everyPlace(unit.repeat(4_000));
    const large = everyPlace(unit.repeat(16_000)); // 64 KB and more: seconds, were it quadratic
    assert.ok(large < Math.max(small, 2) * 10, `${unit}: ${small.toFixed(1)} ms, then ${large.toFixed(1)} ms`);
  }
});

test("a finder answers as a fresh search would, at every place", async () => {
  const { MathFinder } = await import("../../static/math.js");
  const text = "a $b$ c $$d$$ \\(e\\) $5 and $6$ \\$f$ $g\\$h$ $i $\n$j$ \\[k\\] $l$7 $m$.";
  const finder = new MathFinder(text);
  for (let pos = 0; pos < text.length; pos++) assert.deepEqual(finder.at(pos), findMath(text, pos), `at ${pos}`);
  assert.deepEqual(allMath(text).map(([tex]) => tex), ["b", "d", "e", "5 and $6", "f", "g\\$h", "j", "k", "l$7 $m"]);
});
