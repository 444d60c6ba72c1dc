"""`POST /api/tools/NAME__TOOL`: the widget's turn loop calls an MCP tool through the server,
which holds the MCP servers' addresses and headers (`server.mcp_tools`). The client's token,
its rate limit and the body limit apply as for a chat request; the request log names the
tool, never its arguments."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .errors import APIError
from .limits import read_body
from .mcp_tools import McpTools
from .request_log import record_of
from .settings import Settings


async def call_tool(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    client = request.app.state.identity.of(request)  # 401 without a valid client token
    await request.app.state.rate_limiter.check(client)
    body = await read_body(request, settings.max_body_bytes, settings.body_timeout)
    name = request.path_params["name"]
    record = record_of(request.scope)
    if record is not None:
        record.model = f"tool {name[:100]}"  # the log names the tool, never the arguments
    try:
        arguments = json.loads(body.decode("utf-8")) if body.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise APIError(400, "The tool's arguments are not valid JSON.", "invalid_json") from exc
    if not isinstance(arguments, dict):
        raise APIError(400, "A tool's arguments must be a JSON object.", "invalid_body")
    tools: McpTools = request.app.state.mcp
    status = "ok"
    try:
        answered = await tools.call(name, arguments)
    except APIError as exc:
        status = exc.code
        raise
    finally:
        request.app.state.metrics.tool_call(name[:100] if status != "tool_not_found" else "-",
                                            status)  # fmt: skip
    return JSONResponse(answered)
