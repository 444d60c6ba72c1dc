// The operator's MCP tools (`[mcp.NAME]` on the chat server): offered to the model beside the
// page's own tools, asked for as they are ("approval" unless the operator said "never"), and
// run by the chat server (`POST /api/tools/NAME__TOOL`), which alone holds their addresses and
// keys. A failed call is the model's tool result, and the person is told why.

import { refusal, unreachable } from "./refusals.js";

/**
 * @typedef {{name: string, description?: string, server?: string, approval?: string,
 *   parameters?: object}} ServerTool
 */

/**
 * The tools to register on the page, each calling the server.
 * @param {ServerTool[]} listed  as `/api/models` lists them
 * @param {{endpoint: string, token?: string | null}} config
 * @param {(said: {message: string, code: string, params: Record<string, unknown>}) => void} alert
 * @returns {import("./client.js").ToolDefinition[]}
 */
export function serverTools(listed, { endpoint, token }, alert) {
  return listed.map((tool) => ({
    name: tool.name,
    description: tool.description ?? "",
    parameters: tool.parameters ?? { type: "object", properties: {} },
    approval: tool.approval !== "never",
    server: tool.server ?? "",
    handler: async (/** @type {Record<string, unknown>} */ args) => {
      const headers = { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) };
      let response;
      try {
        response = await fetch(`${endpoint}/tools/${encodeURIComponent(tool.name)}`, {
          method: "POST", headers, body: JSON.stringify(args ?? {}),
        });
      } catch (error) {
        const said = unreachable(error);
        alert(said);
        throw new Error(said.message);
      }
      if (response.ok) {
        const answer = await response.json().catch(() => ({}));
        if (typeof answer.content === "string") return "ui" in answer ? { text: answer.content, ui: answer.ui } : answer.content;
      }
      const said = await refusal(response);
      alert(said); // the person hears why; the model gets it as the tool's result
      throw new Error(said.message);
    },
  }));
}
