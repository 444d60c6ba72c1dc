"""The operator's MCP servers, from the providers file: `[mcp.NAME]` tables.

```toml
[mcp.shop]
url = "https://shop.example/mcp"              # a streamable-HTTP MCP server
headers = { Authorization = "Bearer ${SHOP_MCP_TOKEN}" }   # `${VAR}`: from the environment
tools = ["find_product", "order_status"]      # optional: only these are offered
approval = "ask"                              # or "never": the operator's choice
```

Their tools reach the model as `NAME__TOOL`. The headers (keys, tokens) stay on the server:
they are never listed, logged or sent to a browser.
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

SERVER_NAME = re.compile(r"^[A-Za-z0-9-]{1,32}$")  # no "_": `NAME__TOOL` splits at the first "__"
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
APPROVALS = ("ask", "never")


@dataclass(frozen=True)
class McpServer:
    name: str
    url: str
    #: sent with every request to the server; values with `${VAR}` already filled in
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    #: the tools offered (None: all the server lists)
    tools: tuple[str, ...] | None = None
    approval: str = "ask"


def load_mcp_servers(path: str | Path, environ: Mapping[str, str]) -> tuple[McpServer, ...]:
    """The `[mcp.NAME]` tables of the providers file, in its order; `ConfigError` naming any
    problem (the file itself was read and checked by `load_providers`)."""
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    tables = data.get("mcp", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: [mcp] must hold tables, one per MCP server: [mcp.NAME]")
    if tables and importlib.util.find_spec("mcp") is None:
        raise ConfigError(f"{path}: [mcp] needs the MCP SDK: pip install 'chatkeep[mcp]'")
    return tuple(_server(name, table, f"{path}, [mcp.{name}]", environ)
                 for name, table in tables.items())  # fmt: skip


def _server(name: str, table: Any, where: str, environ: Mapping[str, str]) -> McpServer:
    if not SERVER_NAME.match(name):
        raise ConfigError(f"{where}: an MCP server's name is letters, digits or '-' (at most 32)")
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    unknown = set(table) - {"url", "headers", "tools", "approval"}
    if unknown:
        raise ConfigError(f"{where}: unknown keys {sorted(unknown)}")
    url = table.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: url must be the http:// or https:// URL of the MCP server")
    headers = table.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise ConfigError(f"{where}: headers must be a table of header names and text values")
    tools = table.get("tools")
    if tools is not None and (
        not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools)
    ):
        raise ConfigError(f"{where}: tools must be a list of the tool names to offer")
    approval = table.get("approval", "ask")
    if approval not in APPROVALS:
        raise ConfigError(f'{where}: approval must be "ask" or "never"')
    filled = {
        key: _fill(value, f"{where}, header {key}", environ) for key, value in headers.items()
    }
    return McpServer(name, url, filled, tuple(tools) if tools is not None else None, approval)


def _fill(value: str, where: str, environ: Mapping[str, str]) -> str:
    """`${VAR}` replaced by the variable's value; a variable that is not set stops the start."""

    def variable(match: re.Match[str]) -> str:
        found = environ.get(match[1])
        if found is None:
            raise ConfigError(f"{where}: the environment variable {match[1]} is not set")
        return found

    return _VARIABLE.sub(variable, value)
