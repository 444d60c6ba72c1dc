// UI specs, checked again on the page before anything is drawn: the same rules as
// widget/ui_spec.py (tests/widget/test_ui_specs.py holds the two to the same verdicts over
// generated specs). A spec is drawn whole or not at all: `checkSpec` throws, naming the first
// rule broken, and the fallback text is drawn with the note instead.

export const VERSION = 1;
export const LIMITS = Object.freeze({ bytes: 64 * 1024, depth: 8, nodes: 500, rows: 200, columns: 20, options: 50, items: 50, actions: 6 });
export const ICONS = ["check", "star", "info", "warning", "cart", "calendar", "clock", "pin", "link", "mail"];
export const FIELD_KINDS = ["text", "email", "number", "url", "tel", "date", "textarea", "select", "checkbox", "radio"];
const COLUMN_TYPES = ["text", "number", "date"];
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const HTTPS = /^https:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?#][!-~]*)?$/;
const DATA_IMAGE = /^data:image\/(?:png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+={0,2}$/;
/** a surrogate that is not half of a pair (in `u` mode a pair reads as one code point) */
const SURROGATE = /[\ud800-\udfff]/u;

export class UiSpecError extends Error {}

const fail = (/** @type {string} */ why) => { throw new UiSpecError(why); };
const isObject = (/** @type {unknown} */ value) => typeof value === "object" && value !== null && !Array.isArray(value);
const has = (/** @type {object} */ value, /** @type {string} */ key) => Object.prototype.hasOwnProperty.call(value, key);

/**
 * The spec, when every rule holds; throws `UiSpecError` naming the first that does not.
 * @param {unknown} spec @returns {{v: number, text: string, root: any}}
 */
export function checkSpec(spec) {
  if (!isObject(spec)) fail("a spec is an object");
  const top = /** @type {any} */ (spec);
  keys(top, "spec", ["v", "text", "root"]);
  if (top.v !== VERSION) fail(`this build draws version ${VERSION} specs`);
  text(top.text, "text", 8000);
  values(top, "spec", 0);
  const size = new TextEncoder().encode(JSON.stringify(top)).length;
  if (size > LIMITS.bytes) fail(`the spec is ${size} bytes, more than ${LIMITS.bytes}`);
  node(top.root, "root", 1, { nodes: 0, ids: new Set() });
  return top;
}

/** Every value: no `__proto__` key, no lone surrogate, finite numbers only. */
function values(/** @type {unknown} */ value, /** @type {string} */ where, /** @type {number} */ depth) {
  if (depth > 40) fail(`${where} is nested too deeply`);
  if (Array.isArray(value)) value.forEach((item, index) => values(item, `${where}[${index}]`, depth + 1));
  else if (isObject(value)) {
    for (const key of Object.keys(/** @type {object} */ (value))) {
      if (key === "__proto__" || SURROGATE.test(key)) fail(`${where} has a key that is not allowed`);
      values(/** @type {any} */ (value)[key], `${where}.${key}`, depth + 1);
    }
  } else if (typeof value === "string" && SURROGATE.test(value)) fail(`${where} holds a lone surrogate`);
  else if (typeof value === "number" && !Number.isFinite(value)) fail(`${where} is not a finite number`);
}

/** @param {any} value @param {string} where @param {number} depth @param {{nodes: number, ids: Set<string>}} seen @param {string | null} only */
function node(value, where, depth, seen, only = null) {
  if (depth > LIMITS.depth) fail(`${where} is deeper than ${LIMITS.depth} levels`);
  if (!isObject(value) || typeof value.type !== "string") fail(`${where} is not a component`);
  const kind = value.type;
  if (!has(COMPONENTS, kind)) fail(`${where}: there is no component "${kind.slice(0, 40)}"`);
  if (only !== null && kind !== only) fail(`${where} must be a ${only}, not a ${kind}`);
  seen.nodes += 1;
  if (seen.nodes > LIMITS.nodes) fail(`the spec has more than ${LIMITS.nodes} components`);
  const properties = COMPONENTS[kind];
  const required = Object.keys(properties).filter((key) => properties[key][1]);
  keys(value, where, ["type", ...required], ["id", ...Object.keys(properties)]);
  if (kind === "Form" && !has(value, "id")) fail(`${where} has no "id"`);
  if (has(value, "id")) {
    name(value.id, `${where}.id`);
    if (seen.ids.has(value.id)) fail(`${where}: the id "${value.id}" is used twice`);
    seen.ids.add(value.id);
  }
  for (const [key, [check]] of Object.entries(properties)) if (has(value, key)) check(value[key], `${where}.${key}`);
  const childKind = kind === "List" ? "ListItem" : null;
  list(has(value, "children") ? value.children : [], `${where}.children`, LIMITS.nodes).forEach((child, index) => node(child, `${where}.children[${index}]`, depth + 1, seen, childKind));
  list(has(value, "actions") ? value.actions : [], `${where}.actions`, LIMITS.actions).forEach((action, index) => node(action, `${where}.actions[${index}]`, depth + 1, seen, "Button"));
  if (has(value, "submit")) node(value.submit, `${where}.submit`, depth + 1, seen, "Button");
  if (kind === "Field") field(value, where);
  if (kind === "Table") table(value, where);
}

/** @param {any} value @param {string} where */
function field(value, where) {
  const kind = value.kind ?? "text";
  if ((kind === "select" || kind === "radio") && !value.options?.length) fail(`${where}: a ${kind} field needs options`);
  if (has(value, "value") && (kind === "checkbox") !== (typeof value.value === "boolean")) {
    fail(`${where}.value is ${kind === "checkbox" ? "true or false" : "text"}`);
  }
}

/** @param {any} value @param {string} where */
function table(value, where) {
  const columns = value.columns.map((/** @type {any} */ column) => column.key);
  if (new Set(columns).size !== columns.length) fail(`${where}.columns name a key twice`);
  value.rows.forEach((/** @type {object} */ row, /** @type {number} */ index) => {
    if (Object.keys(row).some((key) => !columns.includes(key))) fail(`${where}.rows[${index}] has a cell no column names`);
  });
}

/** @param {any} value @param {string} where @param {string[]} required @param {string[]} optional */
function keys(value, where, required, optional = []) {
  const missing = required.filter((key) => !has(value, key)).sort();
  if (missing.length) fail(`${where} has no "${missing[0]}"`);
  const unknown = Object.keys(value).filter((key) => !required.includes(key) && !optional.includes(key)).sort();
  if (unknown.length) fail(`${where} has a property "${unknown[0].slice(0, 40)}" this build does not draw`);
}

/** @param {unknown} value @param {string} where @param {number} limit */
function text(value, where, limit) {
  if (typeof value !== "string" || [...value].length > limit) fail(`${where} is text of at most ${limit} characters`);
}
const texts = (/** @type {number} */ limit) => (/** @type {unknown} */ value, /** @type {string} */ where) => text(value, where, limit);

function name(/** @type {unknown} */ value, /** @type {string} */ where) {
  if (typeof value !== "string" || !NAME.test(value)) fail(`${where} is 1 to 64 letters, digits, _ or -`);
}

const oneOf = (/** @type {string[]} */ choices) => (/** @type {unknown} */ value, /** @type {string} */ where) => {
  if (typeof value !== "string" || !choices.includes(value)) fail(`${where} is one of ${choices.join(", ")}`);
};

/** @param {unknown} value @param {string} where @param {number} limit @returns {any[]} */
function list(value, where, limit) {
  if (!Array.isArray(value) || value.length > limit) fail(`${where} is a list of at most ${limit}`);
  return /** @type {any[]} */ (value);
}

/** An https address (the only kind a link or an image may have, besides an inline image). */
export function isHttps(/** @type {unknown} */ value) {
  return typeof value === "string" && value.length <= 2048 && HTTPS.test(value);
}

function https(/** @type {unknown} */ value, /** @type {string} */ where) {
  if (!isHttps(value)) fail(`${where} is an https address`);
}

function imageUrl(/** @type {unknown} */ value, /** @type {string} */ where) {
  if (typeof value === "string" && DATA_IMAGE.test(value)) return;
  https(value, where);
}

function boolean(/** @type {unknown} */ value, /** @type {string} */ where) {
  if (typeof value !== "boolean") fail(`${where} is true or false`);
}

function cell(/** @type {unknown} */ value, /** @type {string} */ where) {
  if (value === null || typeof value === "number") return;
  text(value, where, 500);
}

function items(/** @type {unknown} */ value, /** @type {string} */ where) {
  list(value, where, LIMITS.items).forEach((item, index) => {
    if (!isObject(item)) fail(`${where}[${index}] is an object`);
    keys(item, `${where}[${index}]`, ["label", "value"]);
    text(item.label, `${where}[${index}].label`, 100);
    cell(item.value, `${where}[${index}].value`);
  });
}

function columns(/** @type {unknown} */ value, /** @type {string} */ where) {
  const listed = list(value, where, LIMITS.columns);
  if (!listed.length) fail(`${where} names at least one column`);
  listed.forEach((column, index) => {
    const at = `${where}[${index}]`;
    if (!isObject(column)) fail(`${at} is an object`);
    keys(column, at, ["key", "label"], ["type"]);
    name(column.key, `${at}.key`);
    text(column.label, `${at}.label`, 100);
    if (has(column, "type")) oneOf(COLUMN_TYPES)(column.type, `${at}.type`);
  });
}

function rows(/** @type {unknown} */ value, /** @type {string} */ where) {
  list(value, where, LIMITS.rows).forEach((row, index) => {
    if (!isObject(row)) fail(`${where}[${index}] is an object`);
    for (const key of Object.keys(row)) cell(row[key], `${where}[${index}].${key}`);
  });
}

function options(/** @type {unknown} */ value, /** @type {string} */ where) {
  list(value, where, LIMITS.options).forEach((option, index) => {
    if (isObject(option)) {
      keys(option, `${where}[${index}]`, ["value", "label"]);
      text(option.value, `${where}[${index}].value`, 100);
      text(option.label, `${where}[${index}].label`, 100);
    } else text(option, `${where}[${index}]`, 100);
  });
}

function fieldValue(/** @type {unknown} */ value, /** @type {string} */ where) {
  if (typeof value !== "boolean") text(value, where, 1000);
}

function action(/** @type {any} */ value, /** @type {string} */ where) {
  if (!isObject(value) || !["message", "tool", "link"].includes(value.kind)) fail(`${where} is an action of kind "message", "tool" or "link"`);
  if (value.kind === "message") {
    keys(value, where, ["kind", "text"]);
    text(value.text, `${where}.text`, 2000);
  } else if (value.kind === "tool") {
    keys(value, where, ["kind", "tool"], ["args"]);
    name(value.tool, `${where}.tool`);
    if (has(value, "args") && !isObject(value.args)) fail(`${where}.args is an object`);
  } else {
    keys(value, where, ["kind", "url"]);
    https(value.url, `${where}.url`);
  }
}

const NESTED = () => {}; // children, actions, submit: checked as components, in order

/** @type {Record<string, Record<string, [(value: any, where: string) => void, boolean]>>} */
const COMPONENTS = {
  Card: { title: [texts(200), false], children: [NESTED, false], actions: [NESTED, false] },
  List: { children: [NESTED, true] },
  ListItem: { children: [NESTED, true] },
  Stack: { children: [NESTED, true], direction: [oneOf(["row", "column"]), false] },
  Heading: { text: [texts(200), true] },
  Text: { text: [texts(4000), true] },
  Markdown: { text: [texts(8000), true] },
  Badge: { text: [texts(40), true] },
  Icon: { name: [oneOf(ICONS), true], label: [texts(100), false] },
  Image: { url: [imageUrl, true], alt: [texts(300), true] },
  Divider: {},
  Facts: { items: [items, true] },
  Table: { caption: [texts(200), true], columns: [columns, true], rows: [rows, true] },
  Button: { label: [texts(100), true], action: [action, true] },
  Form: { children: [NESTED, true], submit: [NESTED, true] },
  Field: {
    name: [name, true], label: [texts(100), true], kind: [oneOf(FIELD_KINDS), false],
    options: [options, false], required: [boolean, false], value: [fieldValue, false],
  },
  Link: { label: [texts(100), true], url: [https, true] },
};
