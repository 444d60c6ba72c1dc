"""The page's tools as operations: declared, taken back, allowed for a conversation.

A tool registered on the page (`element.registerTool`) is declared here and run there; one
that asks for approval may be allowed for the open conversation only ("Allow for this
conversation"): kept in its snapshot, listed in its header menu, and taken back there.
"""

from __future__ import annotations

from typing import Any, Protocol

from .conversations import Conversations
from .errors import WidgetError
from .tools import Tool


class ToolHost(Protocol):
    async def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """Run a tool the page registered; its result for the model."""
        ...


class ToolOperations:
    """What the page asks about its tools (the third facade of `widget.operations`)."""

    def __init__(self, conversations: Conversations, host: ToolHost | None) -> None:
        self.conversations = conversations
        self.host = host

    async def register_tool(
        self, name: str, description: str | None, parameters: dict[str, Any] | None
    ) -> None:
        host = self.host
        if host is None:
            raise WidgetError("Tools run in the page, and this widget has none.")

        async def run(arguments: dict[str, Any]) -> str:
            return await host.call_tool(name, arguments)

        schema = parameters or {"type": "object", "properties": {}}
        self.conversations.session.add_tool(Tool(name, description or "", schema, run))

    async def unregister_tool(self, name: str) -> None:
        self.conversations.session.remove_tool(name)

    async def allow_tool(self, name: str, allowed: bool) -> None:
        """Run `name` without asking in the open conversation (`allowed`), or ask again."""
        conversation = self.conversations.conversation
        conversation.allow_tool(name, allowed)
        if not conversation.busy:
            await self.conversations.keeper.keep()
