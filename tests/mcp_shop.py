"""A shop's MCP server for the tests: the official `mcp` SDK's own server (`MCPServer`),
served over streamable HTTP on a free port, recording what reached it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from live import LiveServer
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

#: what `show_jackets` draws: a card per jacket, each with a button that asks the model more
JACKETS = {"v": 1, "text": "Alder (89 EUR), Birch (120 EUR)", "root": {"type": "Stack",
           "children": [
    {"type": "Card", "title": name, "children": [{"type": "Badge", "text": price}], "actions": [
        {"type": "Button", "label": f"More about {name}",
         "action": {"kind": "message", "text": f"Tell me more about {name}"}}]}
    for name, price in (("Alder", "89 EUR"), ("Birch", "120 EUR"))]}}  # fmt: skip


@dataclass
class ShopRecord:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)


def shop_server(record: ShopRecord) -> Any:
    shop = MCPServer("shop")

    def seen(ctx: Context, tool: str, arguments: dict[str, Any]) -> None:
        request = ctx.request_context.request
        record.authorizations.append(request.headers.get("authorization") if request else None)
        record.calls.append((tool, arguments))

    @shop.tool()
    def find_product(query: str, ctx: Context) -> str:
        """Find products in the shop's catalogue by what the person asks for."""
        seen(ctx, "find_product", {"query": query})
        return f"3 jackets match {query}: Alder (89 EUR), Birch (120 EUR), Cedar (149 EUR)"

    @shop.tool()
    async def slow(seconds: float, ctx: Context) -> str:
        """Answers after `seconds`."""
        seen(ctx, "slow", {"seconds": seconds})
        await asyncio.sleep(seconds)
        return "done at last"

    @shop.tool()
    def huge(ctx: Context) -> str:
        """A result far larger than a model should read."""
        seen(ctx, "huge", {})
        return "jacket " * 40_000

    def sale_items() -> str:
        """What is on sale today."""
        return "Scarves, 20 % off"

    @shop.tool()
    async def open_sale(ctx: Context) -> str:
        """Opens the sale: a tool appears, and the server says its tools changed."""
        seen(ctx, "open_sale", {})
        if "sale_items" not in {tool.name for tool in await shop.list_tools()}:
            shop.add_tool(sale_items)
        await ctx.notify_tools_changed()
        return "The sale is open."

    @shop.tool()
    def show_jackets(ctx: Context) -> CallToolResult:
        """The jackets as cards the widget draws (`chatkeep_ui`), and as text for the model."""
        seen(ctx, "show_jackets", {})
        return CallToolResult(content=[TextContent(type="text", text=JACKETS["text"])],
                              structured_content={"chatkeep_ui": JACKETS})  # fmt: skip

    @shop.tool()
    def delete_everything(ctx: Context) -> str:
        """A tool the operator did not allow."""
        seen(ctx, "delete_everything", {})
        return "deleted"

    return shop.streamable_http_app()


def serve_shop(record: ShopRecord, port: int | None = None) -> LiveServer:
    """The shop's MCP server (use as a context manager); its endpoint is `.url + "/mcp"`."""
    return LiveServer(shop_server(record), port=port)
