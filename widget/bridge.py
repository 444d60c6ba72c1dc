"""The only browser-specific module: the widget as its Web Worker drives it.

The worker's JavaScript carries (fetch, reading the event stream, storage trips to the page);
Python decides. `Bridge.call` runs an operation (a public method of
`widget.conversations.Conversations`) and answers JSON text: `{"result": …}`, or
`{"error": {"message": …}}` for a person's mistake, with `"bug"` (the traceback, for the
console) when it was a program error. The worker turns the latter into an error reply.
Changes reach the page as events (`widget.changes`). Between Python and the worker everything
travels as one JSON text per call (a string crosses cheaply); the worker parses it once and
the page receives plain data, shaped as `widget.protocol` declares.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from pyodide.ffi import JsException  # type: ignore[import-not-found]

from .changes import ChangeFeed
from .config import WidgetConfig
from .conversations import Conversations
from .errors import TurnError, WidgetError
from .history import History, Kept
from .hosted_history import HostedHistory
from .key_value import Change, Conflict, MemoryKeyValue, StorageFull
from .models import Offer
from .operations import (
    OPERATIONS,
    SHARE_OPERATIONS,
    SYNC_OPERATIONS,
    TOOL_OPERATIONS,
    check_arguments,
    snake_case,
)
from .protocol import CONFLICT, FULL
from .sessions import Session
from .share_operations import ShareOperations
from .sync.synced import SyncedHistory
from .sync.worker import WorkerSync
from .texts import notice
from .tool_operations import ToolOperations
from .ui_present import PRESENT

Json = str


class WorkerTransport:
    """Model requests through the worker's `openStream`, one batch of chunks per await; and
    the Web Locks by which one tab reads each answer the server keeps."""

    def __init__(self, worker: Any) -> None:
        self.worker = worker
        self._open: list[Any] = []  # JS proxies are not hashable: a list, not a set

    def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]:
        return self._read(self.worker.openStream(json.dumps(request, ensure_ascii=False)))

    def resume(self, turn: str) -> AsyncIterator[list[Any]]:
        return self._read(self.worker.resumeStream(turn))

    async def _read(self, stream: Any) -> AsyncIterator[list[Any]]:
        self._open.append(stream)
        try:
            while isinstance(batch := await stream.next(), str):
                try:
                    yield json.loads(batch)
                except ValueError as exc:
                    raise TurnError.said("answer_unreadable") from exc
        except JsException as exc:
            raise _js_error(exc, TurnError) from exc
        finally:
            self._open.remove(stream)
            stream.close()

    def cancel(self) -> None:
        """Abort every request in flight (a stop): their `next()` rejects at once, and the
        server is told to stop an answer it would otherwise keep writing for a reload."""
        for stream in list(self._open):
            stream.close()

    async def claim(self, turn: str) -> bool:
        return bool(await self.worker.claimTurn(turn))

    def release(self, turn: str) -> None:
        self.worker.releaseTurn(turn)


class PageTools:
    """The tools the host page registered, run on the page."""

    def __init__(self, worker: Any) -> None:
        self.worker = worker

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> str | dict[str, Any]:
        """Its text, or `{"text", "ui"}` (the page's answer, as JSON text)."""
        try:
            answer = await self.worker.callTool(_dumps({"name": name, "arguments": arguments}))
        except JsException as exc:
            raise RuntimeError(_js_message(exc)) from exc
        result: str | dict[str, Any] = json.loads(answer)
        return result


class WorkerShares:
    """Shared links, sealed and kept on the server by the worker (static/share-client.js)."""

    def __init__(self, worker: Any) -> None:
        self.worker = worker

    async def seal(self, text: str) -> dict[str, Any]:
        try:
            sealed: dict[str, Any] = json.loads(await self.worker.shareSeal(text))
        except JsException as exc:
            raise _js_error(exc, WidgetError) from exc
        return sealed

    async def stop(self, share_id: str, token: str) -> None:
        try:
            await self.worker.shareStop(_dumps({"id": share_id, "token": token}))
        except JsException as exc:
            raise _js_error(exc, WidgetError) from exc


class PageKeyValue:
    """localStorage of the host page, reached through the worker (workers have none)."""

    def __init__(self, worker: Any) -> None:
        self.worker = worker

    async def _ask(self, request: dict[str, Any]) -> Any:
        """One `storage` request (`widget.protocol.PAYLOADS`), its answer parsed."""
        return json.loads(await self.worker.storage(_dumps(request)))

    async def read_all(self, prefix: str) -> dict[str, str]:
        found = await self._ask({"op": "readAll", "prefix": prefix})
        return found if isinstance(found, dict) else {}

    async def get(self, key: str) -> str | None:
        value = await self._ask({"op": "get", "key": key})
        return value if isinstance(value, str) else None

    async def write(
        self, changes: Sequence[Change], expect: Mapping[str, str | None] | None = None
    ) -> None:
        request = {"op": "write", "changes": changes, "expect": dict(expect or {})}
        answer = await self._ask(request)
        if answer == FULL:
            raise StorageFull("the browser's storage is full")
        if answer == CONFLICT:
            raise Conflict("another tab changed this conversation")


class PageHostStore:
    """The host page's own `historyStore`, reached through the worker."""

    def __init__(self, worker: Any) -> None:
        self.worker = worker

    async def _call(self, op: str, *args: object) -> Any:
        try:
            return json.loads(await self.worker.historyStore(_dumps({"op": op, "args": args})))
        except JsException as exc:
            raise WidgetError.said("host_store_failed", detail=_js_message(exc)) from exc

    async def list(self) -> list[dict[str, Any]]:
        listed = await self._call("list")
        return listed if isinstance(listed, list) else []

    async def read(self, conversation_id: str) -> object:
        return await self._call("read", conversation_id)

    async def keep(self, conversation_id: str, snapshot: dict[str, Any], title: str) -> None:
        await self._call("keep", conversation_id, snapshot, title)

    async def forget(self, conversation_id: str) -> None:
        await self._call("forget", conversation_id)


def _from_js(exc: Exception) -> Exception | None:
    """A failure the worker threw, as the widget's error (None: not the worker's)."""
    return _js_error(exc, WidgetError) if isinstance(exc, JsException) else None


def make_history(worker: Any, config: WidgetConfig) -> Kept | None:
    if config.history == "off":
        return None
    if config.history == "host":
        return HostedHistory(PageHostStore(worker))
    store = PageKeyValue(worker) if config.history == "local" else MemoryKeyValue()
    return History(store, prefix=config.prefix, limit=config.max_conversations)


class Bridge:
    """What the worker calls. `worker` is its object of JavaScript callbacks: what Python may
    ask of the worker (requests, locks) and, through it, of the host page (storage, tools)."""

    def __init__(self, worker: Any, config: Json) -> None:
        options = WidgetConfig.from_json(config)
        self.worker = worker
        self._startup = options.snapshot
        offer = Offer(options.models)
        model, provider = offer.first_choice(options.model)
        session = Session(instructions=options.instructions, model=model, provider=provider,
                          max_tool_calls=options.max_tool_calls)  # fmt: skip
        if options.present:
            session.add_tool(PRESENT)  # the model may draw a UI itself
        transport = WorkerTransport(worker)
        self.feed = ChangeFeed(session.conversation, self._emit, self._draft, offer.listed)
        self.conversations = Conversations(
            session, make_history(worker, options), transport, listener=self.feed, offer=offer,
            locks=transport, generate_title=options.generate_title,
        )  # fmt: skip
        self.tools = ToolOperations(self.conversations, PageTools(worker))
        self.shares = ShareOperations(self.conversations, WorkerShares(worker))
        self.synced = SyncedHistory(self.conversations, WorkerSync(worker, _from_js),
                                    locks=transport, offered=options.sync,
                                    emit=self._emit)  # fmt: skip

    def operations(self) -> Json:
        """The operations table, for the worker and the page."""
        return json.dumps(OPERATIONS)

    async def start(self) -> Json:
        """Load history (and a start-up snapshot); the whole state once, as the page's start."""
        warning = await self.conversations.keeper.start(self._startup)
        return _dumps(self.feed.start(warning))

    async def call(self, operation: str, arguments: Json) -> Json:
        """Run one operation: `{"result"}`, or `{"error": {"message", "bug"?}}`."""
        try:
            keywords = check_arguments(operation, json.loads(arguments))
            facade: object = (self.synced if operation in SYNC_OPERATIONS
                              else self.tools if operation in TOOL_OPERATIONS
                              else self.shares if operation in SHARE_OPERATIONS
                              else self.conversations)  # fmt: skip
            result = await getattr(facade, snake_case(operation))(**keywords)
        except WidgetError as exc:
            return _dumps({"error": exc.notice()})
        except Exception as exc:
            # A bug, not bad input: the traceback for the console, a sentence for the person.
            detail = "".join(traceback.format_exception(exc))
            return _dumps({"error": {**notice("bug"), "bug": detail}})
        return _dumps({"result": result})

    def _emit(self, kind: str, data: object) -> None:
        self.worker.emit(kind, _dumps(data))

    def _draft(self, change: dict[str, Any]) -> None:
        self.worker.draft(_dumps(change))


def _dumps(value: object) -> Json:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _js_error[E: WidgetError](exc: Exception, kind: type[E]) -> E:
    """A JavaScript error as the widget's own: its message, and the code and params the
    worker's stream gave it (`static/sse.js`), so the page can say it in its language."""
    error = getattr(exc, "js_error", None)
    code = getattr(error, "code", None)
    params = getattr(error, "params", None)
    to_py = getattr(params, "to_py", None)
    found = to_py() if callable(to_py) else params
    return kind(_js_message(exc), code=code if isinstance(code, str) else "",
                params=found if isinstance(found, dict) else None)  # fmt: skip


def _js_message(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return str(message).removeprefix("Error: ")
