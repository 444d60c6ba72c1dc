// What a UI drawn from a tool's result does when pressed (./ui-render.js draws it): a
// `message` sends its words as the person's own message (queued while an answer is written);
// a form sends once (Python keeps what was sent, and it is drawn read-only from then on), its
// values written under the message; a `tool` action calls a tool of the source that made the
// UI, always asking the person first, and what it answered goes to the model as a message.
// Links are plain links (they show where they go), and never come here.

import { DECLINED } from "./host-tools.js";

/** @typedef {import("./ui-render.js").Action} Action */
/** @typedef {{label: string, form?: string, values?: Record<string, string | boolean>}} Pressed */

/**
 * The transcript's `drawUi`: the UI drawn in place of a tool result's text, once
 * ./ui-render.js has loaded (the first UI loads it); the text shows meanwhile.
 * @param {{t: () => import("./strings.js").Translate, markdown: () => Promise<(target: HTMLElement, text: string) => void>,
 *   imageHosts: string[], act: ((action: Action, pressed: Pressed, index: number, message: import("./client.js").Message) => Promise<boolean | void>) | null,
 *   drawn?: () => void}} options  `act` null: read-only (a shared conversation)
 * @returns {(target: HTMLElement, message: import("./client.js").Message, index: number) => void}
 */
export function uiDrawer({ t, markdown, imageHosts, act, drawn = () => {} }) {
  const hosts = new Set(imageHosts.map((host) => host.toLowerCase()));
  const slices = new Slices();
  return (target, message, index) => {
    Promise.all([import("./ui-render.js"), markdown()]).then(([{ drawUi }, render]) => slices.add(() => {
      if (!target.parentElement) return; // drawn again since
      const ui = drawUi(message, {
        render, t: t(), imageHosts: hosts, state: {},
        act: act && ((action, pressed) => act(action, pressed, index, message)),
      });
      target.replaceWith(ui);
      drawn();
    }));
  };
}

/**
 * Work done a few milliseconds at a time, the page given its main thread back between: a
 * conversation opened with twenty UIs draws them over several frames, never in one long task.
 */
class Slices {
  /** @type {(() => void)[]} */
  #waiting = [];
  #scheduled = false;

  add(/** @type {() => void} */ work) {
    this.#waiting.push(work);
    if (!this.#scheduled) {
      this.#scheduled = true;
      requestAnimationFrame(() => this.#run());
    }
  }

  #run() {
    const until = performance.now() + 8;
    while (this.#waiting.length && performance.now() < until) this.#waiting.shift()?.();
    this.#scheduled = this.#waiting.length > 0;
    if (this.#scheduled) requestAnimationFrame(() => this.#run());
  }
}

/**
 * Carries out what was pressed; false when nothing was done (the form may be sent again).
 * @param {Action} action @param {Pressed} pressed @param {number} index
 * @param {import("./client.js").Message} made  the tool result whose UI it is
 * @param {{client: import("./client.js").WidgetClient, send: (text: string) => unknown,
 *   alert: (said: any) => void, t: import("./strings.js").Translate}} widget
 */
export async function carryOutUi(action, { label, form, values }, index, made, { client, send, alert, t }) {
  try {
    if (form && !(await client.call("sendForm", { index, form, values: values ?? {} }))) return true; // sent before
  } catch (error) {
    alert({ message: error.message, code: error.code, params: error.params });
    return false;
  }
  const written = values ? Object.entries(values).map(([name, value]) => `${name}: ${shown(value, t)}`).join("\n") : "";
  if (action.kind === "message") {
    send([action.text, written].filter(Boolean).join("\n\n"));
    return true;
  }
  if (action.kind !== "tool" || !action.tool) return false;
  const source = client.tools.source(made.name ?? "");
  if (source === null || client.tools.source(action.tool) !== source) {
    alert({ message: t("ui.tool.elsewhere", { tool: action.tool }), code: "", params: {} });
    return false;
  }
  const answer = await client.tools.run(action.tool, { ...(action.args ?? {}), ...(values ?? {}) }, true);
  if (answer === DECLINED) return false;
  const text = typeof answer === "string" ? answer : answer.text;
  send(`${label}\n\n${text}`); // the model hears what was done, on its next turn
  return true;
}

function shown(/** @type {string | boolean} */ value, /** @type {import("./strings.js").Translate} */ t) {
  return typeof value === "boolean" ? t(value ? "ui.yes" : "ui.no") : value;
}

/**
 * The transcript's `drawPresenting`: the `present` tool's UI as far as its arguments came,
 * drawn read-only in the answer being written (it acts once the tool's result settles).
 * @param {{t: () => import("./strings.js").Translate, markdown: () => Promise<(target: HTMLElement, text: string) => void>,
 *   imageHosts: string[]}} options
 * @returns {(answer: HTMLElement, streamed: string) => void}
 */
export function presentingDrawer({ t, markdown, imageHosts }) {
  const hosts = new Set(imageHosts.map((host) => host.toLowerCase()));
  /** @type {WeakMap<HTMLElement, string>} what each answer's live UI was drawn from */
  const drawnFrom = new WeakMap();
  return (answer, streamed) => {
    Promise.all([import("./ui-stream.js"), import("./ui-render.js"), markdown()]).then(([{ partialSpec }, { drawUi }, render]) => {
      const spec = partialSpec(streamed);
      const key = JSON.stringify(spec);
      if (!spec || drawnFrom.get(answer) === key || !answer.isConnected) return;
      drawnFrom.set(answer, key);
      const live = drawUi({ ui: spec }, { render, t: t(), imageHosts: hosts, state: {}, act: null });
      live.classList.add("ui-live");
      answer.querySelector(".ui-live")?.remove();
      answer.append(live);
    });
  };
}
