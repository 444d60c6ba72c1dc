// What in a message does not fit its declared shape (static/protocol.js PAYLOAD and
// EVENT_DATA), for the tests: the same rule as widget/protocol.py `conforms`.

const TYPES = {
  string: (/** @type {unknown} */ v) => typeof v === "string",
  number: (/** @type {unknown} */ v) => typeof v === "number",
  boolean: (/** @type {unknown} */ v) => typeof v === "boolean",
  object: (/** @type {unknown} */ v) => v !== null && typeof v === "object" && !Array.isArray(v),
  array: (/** @type {unknown} */ v) => Array.isArray(v),
  null: (/** @type {unknown} */ v) => v === null,
  any: () => true,
};

/**
 * What in `value` does not fit `shape` (a payload's or an event's): empty when it fits.
 * @param {unknown} value @param {Record<string, string> | string} shape
 * @returns {string[]}
 */
export function conforms(value, shape) {
  const is = (/** @type {unknown} */ v, /** @type {string} */ kinds) =>
    kinds.split("|").some((kind) => TYPES[/** @type {keyof TYPES} */ (kind)](v));
  if (typeof shape === "string") return is(value, shape) ? [] : [`expected ${shape}`];
  if (!TYPES.object(value)) return ["expected an object"];
  const object = /** @type {Record<string, unknown>} */ (value);
  const problems = [];
  for (const [field, kind] of Object.entries(shape)) {
    const name = field.replace(/\?$/, "");
    if (!(name in object)) {
      if (!field.endsWith("?")) problems.push(`"${name}" is missing`);
    } else if (!is(object[name], kind)) problems.push(`"${name}" is not ${kind}`);
  }
  const known = new Set(Object.keys(shape).map((field) => field.replace(/\?$/, "")));
  for (const name of Object.keys(object)) if (!known.has(name)) problems.push(`"${name}" is not declared`);
  return problems;
}
