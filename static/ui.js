// Building a UI spec for a page tool's result (`registerTool`'s handler returns `ui.result(...)`),
// the same as widget/ui.py in Python: each function returns one component, and `result` the
// tool's answer, checked now (static/ui-spec.js): a spec the widget would refuse throws here,
// naming why. The format and its limits: docs/features.md ("Answers that act").
//
//   import { ui } from "https://chat.example/static/ui.js";
//   handler: () => ui.result("Alder 89 EUR", ui.card("Jackets", [ui.text("Alder, 89 EUR")],
//     { actions: [ui.button("Order Alder", { message: "Order the Alder jacket" })] })),

import { checkSpec, VERSION } from "./ui-spec.js";

/** @typedef {{type: string, [property: string]: unknown}} Node */

/** @param {string} type @param {Record<string, unknown>} properties @returns {Node} */
const node = (type, properties = {}) => ({ type, ...Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined)) });

export const ui = {
  /** A tool's answer: `text` for the model (drawn when the UI cannot be), and the UI. */
  result: (/** @type {string} */ text, /** @type {Node} */ root) => ({ text, ui: checkSpec({ v: VERSION, text, root }) }),
  card: (/** @type {string | undefined} */ title, /** @type {Node[]} */ children = [], { actions = undefined, id = undefined } = {}) =>
    node("Card", { title, children: children.length ? children : undefined, actions, id }),
  stack: (/** @type {Node[]} */ children, { row = false, id = undefined } = {}) => node("Stack", { children, direction: row ? "row" : undefined, id }),
  /** A list: each item one component or an array of them. */
  list: (/** @type {(Node | Node[])[]} */ items, { id = undefined } = {}) =>
    node("List", { children: items.map((item) => node("ListItem", { children: Array.isArray(item) ? item : [item] })), id }),
  heading: (/** @type {string} */ text) => node("Heading", { text }),
  text: (/** @type {string} */ text) => node("Text", { text }),
  markdown: (/** @type {string} */ text) => node("Markdown", { text }),
  badge: (/** @type {string} */ text) => node("Badge", { text }),
  icon: (/** @type {string} */ name, /** @type {string | undefined} */ label) => node("Icon", { name, label }),
  image: (/** @type {string} */ url, /** @type {string} */ alt) => node("Image", { url, alt }),
  divider: () => node("Divider"),
  facts: (/** @type {Record<string, string | number>} */ items) => node("Facts", { items: Object.entries(items).map(([label, value]) => ({ label, value })) }),
  /** A table's column: `type` "number" or "date" is written in the person's language. */
  column: (/** @type {string} */ key, /** @type {string} */ label, /** @type {string | undefined} */ type) => ({ key, label, ...(type ? { type } : {}) }),
  table: (/** @type {string} */ caption, /** @type {object[]} */ columns, /** @type {object[]} */ rows) => node("Table", { caption, columns, rows }),
  /** A button that sends `message`, calls `tool` (with `args`, always asking), or opens `url`. */
  button(/** @type {string} */ label, /** @type {{message?: string, tool?: string, args?: object, url?: string}} */ does) {
    const action = does.message !== undefined ? { kind: "message", text: does.message }
      : does.tool !== undefined ? { kind: "tool", tool: does.tool, ...(does.args ? { args: does.args } : {}) }
        : { kind: "link", url: does.url };
    return node("Button", { label, action });
  },
  form: (/** @type {string} */ id, /** @type {Node[]} */ fields, /** @type {Node} */ submit) => node("Form", { id, children: fields, submit }),
  field: (/** @type {string} */ name, /** @type {string} */ label, { kind = undefined, options = undefined, required = undefined, value = undefined } = {}) =>
    node("Field", { name, label, kind, options, required, value }),
  link: (/** @type {string} */ label, /** @type {string} */ url) => node("Link", { label, url }),
};
