"""The page's tools as operations: declared, taken back, allowed for a conversation, and the
forms their UIs draw, sent.

A tool registered on the page (`element.registerTool`) is declared here and run there; one
that asks for approval may be allowed for the open conversation only ("Allow for this
conversation"): kept in its snapshot, listed in its header menu, and taken back there.
"""

from __future__ import annotations

from typing import Any, Protocol

from .conversations import Conversations
from .errors import WidgetError
from .tools import Tool
from .ui_messages import clean_state, form_fields


class ToolHost(Protocol):
    async def call_tool(self, name: str, arguments: dict[str, Any]) -> str | dict[str, Any]:
        """Run a tool the page registered; its text for the model (and a UI to draw)."""
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

        async def run(arguments: dict[str, Any]) -> str | dict[str, Any]:
            return await host.call_tool(name, arguments)

        schema = parameters or {"type": "object", "properties": {}}
        self.conversations.session.add_tool(Tool(name, description or "", schema, run))

    async def unregister_tool(self, name: str) -> None:
        self.conversations.session.remove_tool(name)

    async def send_form(self, index: int, form: str, values: dict[str, Any]) -> bool:
        """A form of the UI at `index` was sent with `values`: kept with it (drawn read-only
        from now on). False when it had been sent already: a form sends once."""
        conversation = self.conversations.conversation
        settled = conversation.settled
        message = settled[index] if 0 <= index < len(settled) else None
        fields = form_fields(message["ui"], form) if message and "ui" in message else None
        if message is None or fields is None:
            raise WidgetError.said("form_gone")
        if form in message.get("ui_state", {}):
            return False
        state = {**message.get("ui_state", {}), form: values}
        if not set(values) <= set(fields):
            raise WidgetError.said("form_gone")
        conversation.amend(index, {**message, "ui_state": clean_state(state, index, WidgetError)})
        if not conversation.busy:
            await self.conversations.keeper.keep()
        return True

    async def allow_tool(self, name: str, allowed: bool) -> None:
        """Run `name` without asking in the open conversation (`allowed`), or ask again."""
        conversation = self.conversations.conversation
        conversation.allow_tool(name, allowed)
        if not conversation.busy:
            await self.conversations.keeper.keep()
