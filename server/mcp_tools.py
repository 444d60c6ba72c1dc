"""The operator's MCP servers' tools, offered to the model and called here, never in a browser.

Each server gets one session, opened on first use (`McpConnection`) with the official `mcp`
SDK as the client, and its tools listed once (listed again when the server says they changed).
A call is checked against the tool's input schema before anything is sent, bounded in time
(`--tool-timeout`) and in size, and its result becomes text the model can read, and a UI
spec when it carries one (server/mcp_results.py).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import APIError
from .mcp_config import McpServer
from .mcp_results import result_text, ui_of

log = logging.getLogger("chatkeep")

#: between a server's name and its tool's: `shop__find_product`
SEPARATOR = "__"
_T = TypeVar("_T")
_CALLABLE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class McpTool:
    server: McpServer
    name: str
    description: str
    parameters: dict[str, Any]

    @property
    def qualified(self) -> str:
        return f"{self.server.name}{SEPARATOR}{self.name}"

    def listed(self) -> dict[str, Any]:
        """As `/api/models` lists it (no URL, no header: those stay here)."""
        return {"name": self.qualified, "description": self.description, "server": self.server.name,
                "approval": self.server.approval, "parameters": self.parameters}  # fmt: skip


class McpConnection:
    """One MCP server's session, in a task of its own (the SDK's session belongs to the task
    that opened it): calls are handed to it and run side by side. A session that fails is
    opened again by the next call, so a restarted MCP server is survived."""

    def __init__(self, server: McpServer) -> None:
        self.server = server
        self.tools: list[McpTool] | None = None  # None: to be listed (again)
        self._calls: asyncio.Queue[tuple[Callable[[Any], Awaitable[Any]], asyncio.Future[Any]]]
        self._task: asyncio.Task[None] | None = None

    async def run(self, work: Callable[[Any], Awaitable[_T]]) -> _T:
        """`work(client)` in the session. A session the server no longer knows (it restarted)
        or could not open is opened again and the work tried once more: the server never ran
        it. A connection lost mid-call is not tried again (the tool may have run)."""
        for attempt in (1, 2):
            if self._task is None or self._task.done():
                self._calls = asyncio.Queue()
                self._task = asyncio.create_task(self._serve(self._calls))
            future: asyncio.Future[_T] = asyncio.get_running_loop().create_future()
            await self._calls.put((work, future))
            try:
                return await future
            except _Broken as exc:
                self.close()
                if attempt == 2 or not exc.unsent:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._task, self.tools = None, None

    async def _serve(self, calls: asyncio.Queue[Any]) -> None:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        try:
            async with (
                httpx2.AsyncClient(headers=dict(self.server.headers)) as http,
                Client(
                    streamable_http_client(self.server.url, http_client=http),
                    message_handler=self._heard,
                ) as client,  # fmt: skip
            ):
                running: set[asyncio.Task[None]] = set()
                watching = asyncio.create_task(self._watch(client))
                try:
                    while True:
                        work, future = await calls.get()
                        task = asyncio.create_task(_settle(work(client), future))
                        running.add(task)
                        task.add_done_callback(running.discard)
                        future.add_done_callback(
                            lambda f, t=task: t.cancel() if f.cancelled() else None
                        )
                finally:  # nothing of this session outlives it
                    watching.cancel()
                    for task in running:
                        task.cancel()
        except asyncio.CancelledError:
            _fail_all(calls, _Broken("closed"))
            raise
        except BaseException as exc:  # the server is down, refused, or answered garbage
            log.warning("The MCP server %s failed: %s", self.server.name, _reason(exc))
            _fail_all(calls, _Broken(_reason(exc), unsent=True))  # no session: nothing ran

    async def _heard(self, message: Any) -> None:
        """A server of the protocol before 2026-07-28 says its tools changed."""
        if type(message).__name__ == "ToolListChangedNotification":
            self.tools = None  # listed again before the next call

    async def _watch(self, client: Any) -> None:
        """A server of 2026-07-28 or later says its tools changed on a stream the client opens
        (`subscriptions/listen`); one that cannot says it as a notification (`_heard`)."""
        try:
            async with client.listen(tools_list_changed=True) as changes:
                async for _ in changes:
                    self.tools = None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # an older server, or the stream dropped: notifications only
            log.debug("MCP server %s: no tool-change stream (%s)", self.server.name, exc)


class _Broken(Exception):
    """The session could not be opened, or broke, or the server failed the request."""

    def __init__(self, reason: str, unsent: bool = False) -> None:
        super().__init__(reason)
        #: the server cannot have run it: a new session may try again
        self.unsent = unsent


async def _settle(work: Awaitable[Any], future: asyncio.Future[Any]) -> None:
    try:
        result = await work
    except asyncio.CancelledError:
        if not future.done():  # the session ended under it (the caller did not give up)
            future.set_exception(_Broken("the connection to the MCP server closed"))
        raise
    except Exception as exc:
        if not future.done():
            future.set_exception(_Broken(_reason(exc), unsent=_unsent(exc)))
        return
    if not future.done():
        future.set_result(result)


def _unsent(exc: Exception) -> bool:
    """Whether a failed request never ran: its session was unknown to the server (it
    restarted and says so), or no connection was made."""
    text = _reason(exc).lower()
    return "session" in text or ("connect" in text and "closed" not in text)


def _fail_all(calls: asyncio.Queue[Any], error: Exception) -> None:
    while not calls.empty():
        _, future = calls.get_nowait()
        if not future.done():
            future.set_exception(error)


def _reason(exc: BaseException) -> str:
    """The innermost cause in a sentence (task groups wrap what failed)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


class McpTools:
    """Every MCP server of the providers file, by name; their tools by `NAME__TOOL`."""

    def __init__(self, servers: Sequence[McpServer], timeout: float) -> None:
        self.connections = {server.name: McpConnection(server) for server in servers}
        self.timeout = timeout

    async def listed(self) -> list[dict[str, Any]]:
        """Every tool offered, as `/api/models` lists them; a server that cannot be reached
        now is left out (and logged), never failing the list."""
        found = await asyncio.gather(*(self._tools_of(c) for c in self.connections.values()),
                                     return_exceptions=True)  # fmt: skip
        return [tool.listed() for tools in found if isinstance(tools, list) for tool in tools]

    async def call(self, qualified: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run `NAME__TOOL` with `arguments`: `{"content"}`, its result as text for the model
        (and `"ui"`, a UI spec its structured content carried as `chatkeep_ui`: the widget checks
        and draws it), or an `APIError` a person understands (400 arguments, 404 tool, 502
        server, 504 time)."""
        name, _, tool_name = qualified.partition(SEPARATOR)
        connection = self.connections.get(name)
        if connection is None:
            raise APIError.said(404, "tool_not_found", tool=qualified[:100])
        try:
            async with asyncio.timeout(self.timeout):
                tools = await self._tools_of(connection)
                tool = next((t for t in tools if t.name == tool_name), None)
                if tool is None:
                    raise APIError.said(404, "tool_not_found", tool=qualified[:100])
                check_arguments(tool, arguments)
                result = await connection.run(lambda client: client.call_tool(tool_name, arguments))
        except TimeoutError as exc:
            raise APIError.said(504, "tool_timeout", tool=qualified,
                                seconds=f"{self.timeout:g}") from exc  # fmt: skip
        except _Broken as exc:
            raise APIError.said(
                502, "tool_server_failed", server=name, detail=str(exc)[:200]
            ) from exc
        text = result_text(result.content)
        if result.is_error:
            return {"content": f"Error: {text}"}
        return {"content": text, **ui_of(result.structured_content)}

    async def _tools_of(self, connection: McpConnection) -> list[McpTool]:
        if connection.tools is None:
            listed: list[Any] = []
            cursor: str | None = None
            for _ in range(100):  # pages; a server that never stops paging cannot hang this
                page = await connection.run(_page_of_tools(cursor))
                listed += page.tools
                cursor = page.next_cursor
                if not cursor:
                    break
            allowed = connection.server.tools
            tools = [McpTool(connection.server, t.name, t.description or "", dict(t.input_schema))
                     for t in listed if allowed is None or t.name in allowed]  # fmt: skip
            # A model calls functions by names of at most 64 letters, digits, "_" or "-".
            connection.tools = [tool for tool in tools if _CALLABLE.match(tool.qualified)]
            for tool in tools:
                if tool not in connection.tools:
                    log.warning(
                        "The MCP tool %s is left out: a model cannot call it by that "
                        "name (at most 64 letters, digits, _ or -)",
                        tool.qualified[:200],
                    )
        return connection.tools

    async def aclose(self) -> None:
        for connection in self.connections.values():
            connection.close()


def _page_of_tools(cursor: str | None) -> Callable[[Any], Awaitable[Any]]:
    return lambda client: client.list_tools(cursor=cursor)


def check_arguments(tool: McpTool, arguments: dict[str, Any]) -> None:
    """400 before any call when the arguments do not fit the tool's input schema."""
    import jsonschema  # type: ignore[import-untyped]  # comes with the mcp SDK

    validator = jsonschema.validators.validator_for(tool.parameters)(tool.parameters)
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "the arguments"
        raise APIError.said(400, "tool_arguments_invalid", tool=tool.qualified,
                            detail=f"{where}: {error.message}"[:300])  # fmt: skip
