// The operator's MCP tools (`[mcp.NAME]` on the chat server): offered to the model beside the
// page's own tools, asked for as they are ("approval" unless the operator said "never"), and
// run by the chat server (`POST /api/tools/NAME__TOOL`), which alone holds their addresses and
// keys. A failed call is the model's tool result, and the person is told why.

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
        const said = { message: `The chat server could not be reached (${error.message}).`, code: "server_unreachable", params: { detail: String(error.message) } };
        alert(said);
        throw new Error(said.message);
      }
      const answer = await response.json().catch(() => ({}));
      if (response.ok && typeof answer.content === "string") return answer.content;
      const error = answer.error ?? {};
      const said = {
        message: typeof error.message === "string" ? error.message : `The chat server answered ${response.status}.`,
        code: typeof error.code === "string" ? error.code : "server_answered",
        params: error.params && typeof error.params === "object" ? error.params : { status: String(response.status) },
      };
      alert(said); // the person hears why; the model gets it as the tool's result
      throw new Error(said.message);
    },
  }));
}
