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
