// Drawing a UI spec (cards, tables, forms: widget/ui_spec.py has the format) with native
// elements in the widget's shadow root, styled by its own CSS (no colour, size, CSS or HTML
// from a payload). Checked again first (./ui-spec.js): a spec is drawn whole or not at all,
// its fallback text then drawn as Markdown with the note. Words go in as text; `Markdown`
// through the widget's sanitising renderer; links and images by the spec's URL rules, an
// image only from a host the site lists (or inline data). Loaded when the first UI is drawn.

import { checkSpec, isHttps } from "./ui-spec.js";

/** A table shows this many rows at first; "Show more" shows the rest. */
const FIRST_ROWS = 10;
const ICON_PATHS = {
  check: "M5 12l5 5L20 7", star: "M12 3l2.8 5.8 6.2.9-4.5 4.4 1 6.2L12 17.3 6.5 20.3l1-6.2L3 9.7l6.2-.9z",
  info: "M12 8h.01M11 12h1v5h1M12 3a9 9 0 100 18 9 9 0 000-18z", warning: "M12 4l9 16H3zM12 10v4M12 17h.01",
  cart: "M3 4h2l2 11h11l2-8H6M9 20h.01M17 20h.01", calendar: "M4 6h16v14H4zM4 10h16M8 3v4M16 3v4",
  clock: "M12 7v5l3 2M12 3a9 9 0 100 18 9 9 0 000-18z", pin: "M9 4h6l-1 6 4 4H6l4-4zM12 14v6",
  link: "M10 14a4 4 0 005.7 0l3-3a4 4 0 00-5.7-5.7l-1 1M14 10a4 4 0 00-5.7 0l-3 3a4 4 0 005.7 5.7l1-1",
  mail: "M4 6h16v12H4zM4 7l8 6 8-6",
};

/**
 * @typedef {{kind: string, text?: string, tool?: string, args?: object, url?: string}} Action
 * @typedef {{render: (target: HTMLElement, text: string) => void, t: import("./strings.js").Translate,
 *   imageHosts: Set<string>, state: Record<string, Record<string, string | boolean>>,
 *   act: ((action: Action, details: {label: string, form?: string, values?: Record<string, string | boolean>}) => Promise<boolean | void>) | null}} Drawing
 *   `act`: what a pressed button or a sent form does (null: read-only, as a shared conversation)
 */

/**
 * A tool message's UI, or its fallback text with the note; never half of one.
 * @param {{ui?: unknown, ui_fallback?: string, ui_state?: Record<string, any>, content?: string | null}} message
 * @param {Drawing} drawing @returns {HTMLElement}
 */
export function drawUi(message, drawing) {
  const box = element("div", "ui");
  try {
    if (message.ui_fallback !== undefined) throw new Error("refused by the session");
    const spec = checkSpec(message.ui);
    box.append(component(spec.root, { ...drawing, state: message.ui_state ?? {} }));
  } catch (error) {
    console.warn(`Chatkeep: a tool's UI was not drawn: ${error.message}.`);
    box.replaceChildren(fallback(message, drawing));
  }
  return box;
}

/** The spec's text as Markdown, with the note that says something is missing. */
function fallback(/** @type {any} */ message, /** @type {Drawing} */ { render, t }) {
  const part = element("div", "ui-fallback");
  const note = element("p", "ui-note");
  note.textContent = t("ui.note");
  const body = element("div", "ui-markdown");
  const spec = /** @type {any} */ (message.ui);
  render(body, message.ui_fallback ?? (typeof spec?.text === "string" ? spec.text : message.content ?? ""));
  part.append(body, note);
  return part;
}

/** @param {any} node @param {Drawing} drawing @returns {HTMLElement} */
function component(node, drawing) {
  const drawn = DRAW[node.type](node, drawing);
  if (node.id) drawn.dataset.uiId = node.id;
  return drawn;
}

const children = (/** @type {any} */ node, /** @type {Drawing} */ drawing) => (node.children ?? []).map((/** @type {any} */ child) => component(child, drawing));

/** @type {Record<string, (node: any, drawing: Drawing) => HTMLElement>} */
const DRAW = {
  Card(node, drawing) {
    const card = element("div", "ui-card");
    if (node.title) card.append(words("h3", "ui-title", node.title));
    card.append(...children(node, drawing));
    if (node.actions?.length) {
      const row = element("div", "ui-actions");
      row.append(...node.actions.map((/** @type {any} */ action) => component(action, drawing)));
      card.append(row);
    }
    return card;
  },
  List: (node, drawing) => withChildren(element("ul", "ui-list"), children(node, drawing)),
  ListItem: (node, drawing) => withChildren(element("li", ""), children(node, drawing)),
  Stack: (node, drawing) => withChildren(element("div", `ui-stack ${node.direction === "row" ? "row" : ""}`), children(node, drawing)),
  Heading: (node) => words("h3", "ui-heading", node.text),
  Text: (node) => words("p", "ui-text", node.text),
  Markdown(node, { render }) {
    const box = element("div", "ui-markdown");
    render(box, node.text);
    return box;
  },
  Badge: (node) => words("span", "ui-badge", node.text),
  Icon(node) {
    const icon = element("span", "ui-icon");
    icon.innerHTML = `<svg viewBox="0 0 24 24" aria-hidden="true"><path d="${ICON_PATHS[node.name]}"/></svg>`; // the widget's own set
    if (node.label) {
      icon.setAttribute("role", "img");
      icon.setAttribute("aria-label", node.label);
    } else icon.setAttribute("aria-hidden", "true");
    return icon;
  },
  Image(node, { imageHosts, t }) {
    const inline = node.url.startsWith("data:");
    const host = inline ? "" : new URL(node.url).hostname.toLowerCase();
    if (!inline && !imageHosts.has(host)) return words("p", "ui-image-blocked", t("ui.image.blocked", { alt: node.alt, host }));
    const image = /** @type {HTMLImageElement} */ (element("img", "ui-image"));
    Object.assign(image, { alt: node.alt, src: node.url, loading: inline ? "eager" : "lazy", referrerPolicy: "no-referrer" });
    return image;
  },
  Divider: () => element("hr", "ui-divider"),
  Facts(node, { t }) {
    const list = element("dl", "ui-facts");
    for (const item of node.items) list.append(words("dt", "", item.label), words("dd", "", cellText(item.value, "text", t)));
    return list;
  },
  Table: (node, drawing) => table(node, drawing),
  Button(node, drawing) {
    if (node.action.kind === "link") return link(node.label, node.action.url, drawing, "ui-button");
    const button = /** @type {HTMLButtonElement} */ (words("button", "ui-button", node.label));
    button.type = "button";
    if (!drawing.act) button.disabled = true;
    else button.addEventListener("click", () => drawing.act?.(node.action, { label: node.label }));
    return button;
  },
  Form: (node, drawing) => form(node, drawing),
  Field: (node) => field(node),
  Link: (node, drawing) => link(node.label, node.url, drawing, "ui-link"),
};

/** A link says where it goes: its words, then the host it opens. */
function link(/** @type {string} */ label, /** @type {string} */ url, /** @type {Drawing} */ { t }, /** @type {string} */ className) {
  const anchor = /** @type {HTMLAnchorElement} */ (element("a", className));
  if (!isHttps(url)) return words("span", className, label); // (checked already: never reached)
  Object.assign(anchor, { href: url, target: "_blank", rel: "noopener noreferrer" });
  const host = words("span", "ui-host", t("ui.opens", { host: new URL(url).hostname }));
  anchor.append(document.createTextNode(label), " ", host);
  return anchor;
}

/** @param {any} node @param {Drawing} drawing */
function table(node, { t }) {
  const box = element("div", "ui-table");
  const grid = element("table", "");
  const caption = words("caption", "", node.caption);
  const head = element("thead", "");
  const header = element("tr", "");
  for (const column of node.columns) {
    const cell = words("th", column.type === "number" ? "number" : "", column.label);
    cell.setAttribute("scope", "col");
    header.append(cell);
  }
  head.append(header);
  const body = element("tbody", "");
  // The first rows now; the rest only when asked for (a long table costs nothing until then).
  const drawRows = (/** @type {any[]} */ rows) => body.append(...rows.map((row) => {
    const line = element("tr", "");
    for (const column of node.columns) line.append(words("td", column.type === "number" ? "number" : "", cellText(row[column.key], column.type, t)));
    return line;
  }));
  drawRows(node.rows.slice(0, FIRST_ROWS));
  grid.append(caption, head, body);
  box.append(grid);
  if (node.rows.length > FIRST_ROWS) {
    const more = /** @type {HTMLButtonElement} */ (words("button", "ui-more", t("ui.more", { count: node.rows.length - FIRST_ROWS })));
    more.type = "button";
    more.addEventListener("click", () => {
      more.remove();
      drawInSlices(node.rows.slice(FIRST_ROWS), drawRows);
    });
    box.append(more);
  }
  return box;
}

/**
 * `draw(some)` for all of `items`, a few milliseconds a frame: the page keeps its main thread
 * (200 rows drawn at once took 54 ms on a slow run).
 * @param {any[]} items @param {(some: any[]) => void} draw
 */
function drawInSlices(items, draw, from = 0) {
  const until = performance.now() + 8;
  let at = from;
  while (at < items.length && performance.now() < until) {
    draw(items.slice(at, at + 10));
    at += 10;
  }
  if (at < items.length) requestAnimationFrame(() => drawInSlices(items, draw, at));
}

/** A number or a date in the person's language; anything else as it is. */
function cellText(/** @type {unknown} */ value, /** @type {string | undefined} */ type, /** @type {import("./strings.js").Translate} */ t) {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return formats(t.lang).number.format(value);
  if (type === "date" && /^\d{4}-\d{2}-\d{2}/.test(String(value))) {
    const date = new Date(String(value));
    if (Number.isFinite(date.getTime())) return formats(t.lang).date.format(date);
  }
  return String(value);
}

/** @type {Map<string, {number: Intl.NumberFormat, date: Intl.DateTimeFormat}>} made once a language */
const FORMATS = new Map();

function formats(/** @type {string} */ lang) {
  let made = FORMATS.get(lang);
  if (!made) {
    made = { number: new Intl.NumberFormat(lang), date: new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeZone: "UTC" }) };
    FORMATS.set(lang, made);
  }
  return made;
}

/** A form sends once: then its fields show what was sent, read-only. @param {any} node @param {Drawing} drawing */
function form(node, drawing) {
  const box = /** @type {HTMLFormElement} */ (element("form", "ui-form"));
  box.noValidate = false;
  box.append(...children(node, drawing));
  const submit = /** @type {HTMLButtonElement} */ (words("button", "ui-button primary", node.submit.label));
  submit.type = "submit";
  const status = element("p", "ui-sent");
  status.setAttribute("role", "status");
  box.append(submit, status);
  const sent = drawing.state[node.id];
  const settle = (/** @type {Record<string, string | boolean>} */ values) => {
    for (const control of box.querySelectorAll("input, select, textarea")) {
      const input = /** @type {HTMLInputElement} */ (control);
      if (values[input.name] !== undefined) {
        if (input.type === "checkbox") input.checked = values[input.name] === true;
        else if (input.type === "radio") input.checked = input.value === values[input.name];
        else input.value = String(values[input.name]);
      }
      input.disabled = true;
    }
    submit.hidden = true;
    status.textContent = drawing.t("ui.sent");
  };
  if (sent) settle(sent);
  else if (!drawing.act) submit.disabled = true;
  box.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (submit.disabled || !drawing.act) return;
    submit.disabled = true; // a double click sends once
    const values = formValues(box);
    const done = await drawing.act(node.submit.action, { label: node.submit.label, form: node.id, values });
    if (done === false) submit.disabled = false;
    else settle(values);
  });
  return box;
}

/** @param {HTMLFormElement} box @returns {Record<string, string | boolean>} */
function formValues(box) {
  /** @type {Record<string, string | boolean>} */
  const values = {};
  for (const control of box.querySelectorAll("input, select, textarea")) {
    const input = /** @type {HTMLInputElement} */ (control);
    if (input.type === "checkbox") values[input.name] = input.checked;
    else if (input.type === "radio") { if (input.checked) values[input.name] = input.value; }
    else values[input.name] = input.value;
  }
  return values;
}

/** @param {any} node */
function field(node) {
  const kind = node.kind ?? "text";
  const options = (node.options ?? []).map((/** @type {any} */ option) => (typeof option === "string" ? { value: option, label: option } : option));
  if (kind === "radio") {
    const group = element("fieldset", "ui-field");
    group.append(words("legend", "", node.label));
    for (const option of options) {
      const label = element("label", "ui-choice");
      const input = /** @type {HTMLInputElement} */ (element("input", ""));
      Object.assign(input, { type: "radio", name: node.name, value: option.value, required: node.required === true, checked: node.value === option.value });
      label.append(input, document.createTextNode(option.label));
      group.append(label);
    }
    return group;
  }
  const label = element("label", kind === "checkbox" ? "ui-field ui-choice" : "ui-field");
  let input;
  if (kind === "select") {
    input = /** @type {HTMLSelectElement} */ (element("select", ""));
    for (const option of options) input.append(Object.assign(document.createElement("option"), { value: option.value, textContent: option.label }));
  } else input = /** @type {HTMLInputElement} */ (element(kind === "textarea" ? "textarea" : "input", ""));
  if (input instanceof HTMLInputElement) input.type = kind === "textarea" ? "text" : kind;
  Object.assign(input, { name: node.name, required: node.required === true });
  if (kind === "checkbox") /** @type {HTMLInputElement} */ (input).checked = node.value === true;
  else if (typeof node.value === "string") input.value = node.value;
  const caption = words("span", "", node.label);
  if (kind === "checkbox") label.append(input, caption);
  else label.append(caption, input);
  return label;
}

/** @param {HTMLElement} parent @param {HTMLElement[]} nodes */
function withChildren(parent, nodes) {
  parent.append(...nodes);
  return parent;
}

/** An element holding `text` as text, in its own direction. */
function words(/** @type {string} */ tag, /** @type {string} */ className, /** @type {string} */ text) {
  const node = element(tag, className);
  node.textContent = text;
  node.dir = "auto";
  return node;
}

function element(/** @type {string} */ tag, /** @type {string} */ className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}
