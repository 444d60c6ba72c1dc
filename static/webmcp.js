// WebMCP: tools a page gives in-page agents (`document.modelContext.registerTool({name,
// description, inputSchema, execute})`, the browser's own or a polyfill the page loaded) are
// offered to the model like `element.registerTool` ones, always asking the person first, and
// kept in step as the page registers and unregisters them. A page that already uses WebMCP
// needs no Chatkeep-specific code for its tools to reach the chat.

import { toolResult } from "./host-tools.js";

/** @typedef {{name: string, description?: string, inputSchema?: object,
 *   execute: (input: any, client?: object) => unknown}} WebMcpTool */

/**
 * Follows the page's model context, when it has one; returns what stops following.
 * @param {(tool: import("./client.js").ToolDefinition) => () => void} register  the element's
 *   `registerTool`, returning the function that takes the tool back
 * @param {any} context  `document.modelContext` (or `navigator.modelContext`)
 */
export function followWebMcp(register, context = pageContext()) {
  if (!context || typeof context.registerTool !== "function") return () => {};
  /** @type {Map<string, () => void>} */
  const offered = new Map();
  const forget = (/** @type {string} */ name) => {
    offered.get(name)?.();
    offered.delete(name);
  };
  const offer = (/** @type {WebMcpTool} */ tool) => {
    if (!tool || typeof tool.name !== "string" || typeof tool.execute !== "function") return;
    forget(tool.name);
    try {
      offered.set(tool.name, register({
        name: tool.name,
        description: tool.description ?? "",
        parameters: tool.inputSchema ?? { type: "object", properties: {} },
        approval: true, // a page's tool acts for the person: they are asked
        handler: async (args) => {
          return webMcpResult(await tool.execute(args, { requestUserInteraction: async (/** @type {() => unknown} */ ask) => ask() }));
        },
      }));
    } catch (error) {
      console.warn(`Chatkeep: the WebMCP tool "${tool.name}" was left out (${error.message}).`);
    }
  };
  for (const tool of alreadyThere(context)) offer(tool);
  const own = { registerTool: context.registerTool, unregisterTool: context.unregisterTool,
    provideContext: context.provideContext, clearContext: context.clearContext };
  context.registerTool = function (/** @type {WebMcpTool} */ tool, /** @type {any[]} */ ...rest) {
    const registration = own.registerTool.call(this, tool, ...rest);
    offer(tool);
    if (registration && typeof registration.unregister === "function") {
      const unregister = registration.unregister.bind(registration);
      registration.unregister = () => (forget(tool.name), unregister());
    }
    return registration;
  };
  if (typeof own.unregisterTool === "function") {
    context.unregisterTool = function (/** @type {any} */ name, /** @type {any[]} */ ...rest) {
      forget(typeof name === "string" ? name : name?.name);
      return own.unregisterTool.call(this, name, ...rest);
    };
  }
  if (typeof own.provideContext === "function") {
    context.provideContext = function (/** @type {any} */ given, /** @type {any[]} */ ...rest) {
      for (const name of [...offered.keys()]) forget(name);
      for (const tool of given?.tools ?? []) offer(tool);
      return own.provideContext.call(this, given, ...rest);
    };
  }
  if (typeof own.clearContext === "function") {
    context.clearContext = function (/** @type {any[]} */ ...rest) {
      for (const name of [...offered.keys()]) forget(name);
      return own.clearContext.call(this, ...rest);
    };
  }
  return () => {
    Object.assign(context, own);
    for (const name of [...offered.keys()]) forget(name);
  };
}

/**
 * What a WebMCP tool answered, for the model: its text, and a UI when its structured content
 * carries one (`chatkeep_ui`, as an MCP server's would), or `{text, ui}` as a page tool's.
 * @param {any} result @returns {string | {text: string, ui: unknown}}
 */
function webMcpResult(result) {
  const ui = result?.structuredContent?.chatkeep_ui;
  if (ui && Array.isArray(result.content)) {
    const text = result.content.filter((/** @type {any} */ part) => part?.type === "text").map((/** @type {any} */ part) => part.text).join("\n");
    return { text, ui };
  }
  return toolResult(result);
}

/** The page's model context: the browser's, or a polyfill's. @returns {any} */
function pageContext() {
  const page = /** @type {any} */ (globalThis);
  return page.document?.modelContext ?? page.navigator?.modelContext;
}

/** Tools registered before the widget came, where the context lists them (polyfills do). */
function alreadyThere(/** @type {any} */ context) {
  const listed = typeof context.listTools === "function" ? context.listTools()
    : typeof context.getTools === "function" ? context.getTools() : context.tools;
  if (listed instanceof Map) return [...listed.values()];
  return Array.isArray(listed) ? listed : [];
}
