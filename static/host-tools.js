// The host page's tools (`element.registerTool`): kept on the page, declared to Python, and
// run here when the model calls one, after the person approves when the tool asks for that.

/** @typedef {import("./client.js").ToolDefinition} ToolDefinition */

/** What the model reads when the person said no. */
export const DECLINED = "The person declined to run this tool.";

export class HostTools {
  /** @type {Map<string, ToolDefinition>} */
  #tools = new Map();
  /** @type {Set<AbortController>} approvals waiting for the person */
  #approvals = new Set();
  /**
   * Asks the person before a tool marked `approval` runs; the view replaces it. The signal
   * aborts when the turn is stopped, which counts as a refusal.
   */
  approve = async (/** @type {{name: string, arguments: Record<string, unknown>, server?: string}} */ _call, /** @type {AbortSignal} */ _signal) =>
    /** @type {boolean | "conversation"} */ (false);
  /** Whether the person allowed `name` for the open conversation: it runs without asking. */
  allowed = (/** @type {string} */ _name) => false;
  /** "Allow for this conversation" was pressed for `name`: the conversation keeps it. */
  allowForConversation = (/** @type {string} */ _name) => {};

  /**
   * Keeps `tool`; returns the function that takes it back. `changed(tool, added)` tells
   * Python (now, or once it runs).
   * @param {ToolDefinition} tool @param {(tool: ToolDefinition, added: boolean) => void} changed
   */
  add(tool, changed) {
    if (!tool || typeof tool.name !== "string" || !/^[\w-]{1,64}$/.test(tool.name)) {
      throw new TypeError("registerTool needs a name of letters, digits, _ or - (at most 64).");
    }
    if (typeof tool.handler !== "function") throw new TypeError(`Tool "${tool.name}" needs a handler function.`);
    this.#tools.set(tool.name, tool);
    changed(tool, true);
    return () => {
      if (this.#tools.get(tool.name) !== tool) return;
      this.#tools.delete(tool.name);
      changed(tool, false);
    };
  }

  /** Where the tool `name` comes from: the operator's MCP server's name, "" for the page's
   * own; null when there is no such tool. */
  source(/** @type {string} */ name) {
    const tool = this.#tools.get(name);
    return tool ? tool.server ?? "" : null;
  }

  /** Every tool kept, to declare to Python once it runs. */
  all() {
    return [...this.#tools.values()];
  }

  /**
   * Runs the tool `name` with the model's arguments (an object); its result as text, or as
   * `{text, ui}` when the handler returned a UI spec beside its text (Python checks it).
   * `asking`: the person is asked even when the tool does not ask (a UI's button calls it).
   * @returns {Promise<string | {text: string, ui: unknown}>}
   */
  async run(/** @type {string} */ name, /** @type {Record<string, unknown>} */ args, asking = false) {
    const tool = this.#tools.get(name);
    if (!tool) return `Error: the tool "${name}" is no longer available.`;
    if ((tool.approval || asking) && !this.allowed(name)) {
      const waiting = new AbortController();
      this.#approvals.add(waiting);
      try {
        const approved = await this.approve({ name, arguments: args, server: tool.server }, waiting.signal);
        if (!approved) return DECLINED;
        if (approved === "conversation") this.allowForConversation(name);
      } finally {
        this.#approvals.delete(waiting);
      }
    }
    return toolResult(await tool.handler(args));
  }

  /** A stop began: every approval still waiting is let go (a refusal). */
  letGo() {
    for (const waiting of this.#approvals) waiting.abort();
  }
}

/**
 * A handler's result for the model: text, or text and a UI spec (`{text, ui}`, nothing else).
 * @param {unknown} result @returns {string | {text: string, ui: unknown}}
 */
export function toolResult(result) {
  if (typeof result === "string") return result;
  const keys = result && typeof result === "object" ? Object.keys(result) : [];
  const withUi = /** @type {any} */ (result);
  if (keys.length === 2 && typeof withUi.text === "string" && "ui" in withUi) return { text: withUi.text, ui: withUi.ui };
  return JSON.stringify(result) ?? String(result);
}
