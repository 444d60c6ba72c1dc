// The page's helper for UI specs (static/ui.js): what it builds passes the widget's own check,
// and what the widget would refuse throws where the spec is made.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ui } from "../../static/ui.js";
import { UiSpecError } from "../../static/ui-spec.js";

test("a tool's answer built with the helper is text and a spec the widget draws", () => {
  const answer = ui.result("Alder 89 EUR", ui.card("Jackets", [
    ui.table("Jackets", [ui.column("name", "Name"), ui.column("eur", "EUR", "number")], [{ name: "Alder", eur: 89 }]),
    ui.list([ui.text("Light"), [ui.badge("New"), ui.icon("star", "Popular")]]),
    ui.form("order", [ui.field("size", "Size", { kind: "select", options: ["S", "M"] })], ui.button("Order", { message: "Order it" })),
  ], { actions: [ui.button("Shop", { url: "https://shop.example" }), ui.button("Refresh", { tool: "find", args: { q: "x" } })] }));
  assert.equal(answer.text, "Alder 89 EUR");
  assert.equal(answer.ui.root.type, "Card");
  assert.deepEqual(answer.ui.root.actions[1].action, { kind: "tool", tool: "find", args: { q: "x" } });
});

test("a spec the widget would refuse throws where it is made", () => {
  assert.throws(() => ui.result("x", ui.link("Shop", "javascript:alert(1)")), UiSpecError);
  assert.throws(() => ui.result("x", ui.image("https://a.example/a.png", undefined)), UiSpecError);
});
