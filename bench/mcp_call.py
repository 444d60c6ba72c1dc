"""What the server adds to an MCP tool call: the same call to the shop's MCP server (the `mcp`
SDK's own, on loopback) straight from an MCP client session, and through `POST /api/tools/
NAME__TOOL`, alternating, 40 each, after a warm-up (both sessions open)."""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench import row
from server.testing import ChatkeepServer

CALLS = 40
WHY = ("the server checks the client and the arguments against the tool's schema, then calls "
       "the MCP server through a session of its own: one more HTTP hop on loopback")  # fmt: skip


def bench_mcp_call() -> list[dict[str, Any]]:
    try:
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
    except ImportError:
        print("MCP tool calls: skipped (the mcp SDK is not installed)")
        return []
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from mcp_shop import ShopRecord, serve_shop

    with serve_shop(ShopRecord()) as shop, tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "chatkeep.toml"
        config.write_text(f'[providers.a]\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["m"]\n'
                          f'[mcp.shop]\nurl = "{shop.url}/mcp"\n')  # fmt: skip
        with ChatkeepServer("--config", str(config), "--rate-limit", "0") as chat:

            async def measure() -> tuple[list[float], list[float]]:
                direct: list[float] = []
                through: list[float] = []
                arguments = {"query": "red jacket"}
                async with (
                    Client(streamable_http_client(f"{shop.url}/mcp")) as client,
                    httpx.AsyncClient(base_url=chat.url, timeout=30) as http,
                ):
                    for _ in range(5):  # warm both sessions
                        await client.call_tool("find_product", arguments)
                        await http.post("/api/tools/shop__find_product", json=arguments)
                    for _ in range(CALLS):
                        start = time.perf_counter()
                        await client.call_tool("find_product", arguments)
                        direct.append((time.perf_counter() - start) * 1000)
                        start = time.perf_counter()
                        answer = await http.post("/api/tools/shop__find_product", json=arguments)
                        through.append((time.perf_counter() - start) * 1000)
                        assert answer.status_code == 200, answer.text
                return direct, through

            direct, through = asyncio.run(measure())
    added = statistics.median(through) - statistics.median(direct)
    print(f"MCP tool call: direct {statistics.median(direct):.2f} ms, through the server "
          f"{statistics.median(through):.2f} ms")  # fmt: skip
    return [row(f"the server's added time per MCP tool call (median of {CALLS})", added, 5,
                " ms", why=WHY)]  # fmt: skip
