"""The only browser-specific module: the session as the widget's Web Worker drives it.

The worker's JavaScript owns transport (fetch, reading the event stream, storage calls to
the page) and hands Python plain JSON text; Python owns every decision about the
conversation. Each public method takes and returns JSON text, so nothing but strings and
promises cross between the two runtimes, and an error arrives as `{"error": message}`
rather than as a Python traceback.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from pyodide.ffi import JsException  # type: ignore[import-not-found]

from .conversations import Conversations, Kept
from .errors import TurnError, WidgetError
from .history import History, HostedHistory, MemoryKeyValue, StorageFull
from .sessions import STOPPED, Session
from .snapshots import read_snapshot
from .tools import Tool

Json = str


class HostTransport:
    """Model requests through the worker's `openStream`, one batch of chunks per await."""

    def __init__(self, host: Any) -> None:
        self.host = host

    async def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]:
        stream = self.host.openStream(json.dumps(request, ensure_ascii=False))
        try:
            while isinstance(batch := await stream.next(), str):
                try:
                    yield json.loads(batch)
                except ValueError as exc:
                    raise TurnError(
                        "The model service sent an answer that cannot be read."
                    ) from exc
        except JsException as exc:
            raise TurnError(_js_message(exc)) from exc
        finally:
            stream.close()


class PageKeyValue:
    """localStorage of the host page, reached through the worker (workers have none)."""

    def __init__(self, host: Any) -> None:
        self.host = host

    async def _call(self, op: str, key: str = "", value: str = "") -> Any:
        return json.loads(await self.host.storage(op, key, value))

    async def keys(self) -> list[str]:
        return list(await self._call("keys"))

    async def get(self, key: str) -> str | None:
        value = await self._call("get", key)
        return value if isinstance(value, str) else None

    async def set(self, key: str, value: str) -> None:
        if (await self._call("set", key, value)) == "full":
            raise StorageFull("the browser's storage is full")

    async def remove(self, key: str) -> None:
        await self._call("remove", key)


class PageHostStore:
    """The host page's own `historyStore`, reached through the worker."""

    def __init__(self, host: Any) -> None:
        self.host = host

    async def _call(self, op: str, *args: object) -> Any:
        try:
            return json.loads(await self.host.historyStore(op, json.dumps(args)))
        except JsException as exc:
            raise WidgetError(f"The page's history store failed: {_js_message(exc)}") from exc

    async def list(self) -> list[dict[str, Any]]:
        listed = await self._call("list")
        return listed if isinstance(listed, list) else []

    async def read(self, conversation_id: str) -> object:
        return await self._call("read", conversation_id)

    async def keep(self, conversation_id: str, snapshot: dict[str, Any], title: str) -> None:
        await self._call("keep", conversation_id, snapshot, title)

    async def forget(self, conversation_id: str) -> None:
        await self._call("forget", conversation_id)


def make_history(host: Any, options: dict[str, Any]) -> Kept | None:
    mode = options.get("history", "memory")
    prefix = options.get("prefix") or "chatkeep"
    limit = int(options.get("maxConversations") or 20)
    if mode == "off":
        return None
    if mode == "host":
        return HostedHistory(PageHostStore(host))
    store = PageKeyValue(host) if mode == "local" else MemoryKeyValue()
    return History(store, prefix=prefix, limit=limit)


class Bridge:
    """What the worker calls. `host` is the worker's object of JavaScript callbacks."""

    def __init__(self, host: Any, config: Json) -> None:
        options = json.loads(config)
        self.host = host
        self.session = Session(instructions=options.get("instructions"), model=options.get("model"))
        self.transport = HostTransport(host)
        self.conversations = Conversations(
            self.session,
            make_history(host, options),
            self.transport,
            generate_title=bool(options.get("generateTitle")),
            on_alert=lambda message: host.emit("alert", json.dumps(message)),
            on_list=lambda: host.emit("history", json.dumps(self.conversations.listing())),
        )
        self.session.subscribe(self._changed)

    async def start(self) -> Json:
        return await _answer(self.conversations.start())

    # Every public method answers JSON text: {"result": …} or {"error": "…"}.

    def state(self) -> Json:
        return _ok(self._state())

    async def send(self, text: str, attachments: Json = "[]") -> Json:
        turn = self.conversations.send(text, json.loads(attachments))
        return await _answer(self._turn(turn))

    async def retry(self, index: int) -> Json:
        return await _answer(self._turn(self.conversations.retry(index)))

    def stop(self) -> Json:
        self.session.stop()
        return _ok(None)

    def save(self) -> Json:
        return _ok(self.session.snapshot().to_dict())

    async def restore(self, snapshot: Json) -> Json:
        return await _answer(self.conversations.restore(json.loads(snapshot) if snapshot else None))

    async def fork(self, index: int) -> Json:
        return await _answer(self.conversations.fork(index))

    async def open(self, conversation_id: str) -> Json:
        return await _answer(self.conversations.open(conversation_id))

    async def forget(self, conversation_id: str) -> Json:
        return await _answer(self.conversations.forget(conversation_id))

    async def rename(self, conversation_id: str, title: str) -> Json:
        return await _answer(self.conversations.rename(conversation_id, title))

    async def export_all(self) -> Json:
        return await _answer(self.conversations.export_all())

    async def import_all(self, text: str) -> Json:
        return await _answer(self.conversations.import_all(text))

    async def keep(self) -> Json:
        return await _answer(self.conversations.keep())

    async def storage_changed(self, key: str) -> Json:
        return await _answer(self.conversations.storage_changed(key))

    def history(self) -> Json:
        return _ok(self.conversations.listing())

    def get_history(self) -> Json:
        return _ok(self.session.get_history())

    def set_history(self, messages: Json) -> Json:
        return _call(lambda: self.session.set_history(json.loads(messages)))

    def read_snapshot(self, value: Json) -> Json:
        """`value` is JSON text of whatever the host passed: an object, or JSON text itself."""
        try:
            decoded = json.loads(value)
        except ValueError:
            return _ok(None)
        return _ok(read_snapshot(decoded))

    async def set_model(self, model: str) -> Json:
        return await _answer(self.conversations.choose(model=model))

    async def set_thinking(self, level: str) -> Json:
        return await _answer(self.conversations.choose(thinking=level))

    def register_tool(self, spec: Json) -> Json:
        data = json.loads(spec)
        name = data["name"]

        async def run(arguments: dict[str, Any]) -> str:
            try:
                return str(await self.host.callTool(name, json.dumps(arguments)))
            except JsException as exc:
                raise RuntimeError(_js_message(exc)) from exc

        description = data.get("description") or ""
        parameters = data.get("parameters") or {"type": "object", "properties": {}}
        self.session.add_tool(Tool(name, description, parameters, run))
        return _ok(None)

    def unregister_tool(self, name: str) -> Json:
        self.session.remove_tool(name)
        return _ok(None)

    # -- internals ---------------------------------------------------------------------

    async def _turn(self, turn: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        message = await turn
        error = message.get("error")
        if error and error != STOPPED:
            self.host.emit("alert", json.dumps(error))
        return message

    def _state(self) -> dict[str, Any]:
        session = self.session
        return {
            "id": session.id,
            "title": session.title,
            "model": session.model,
            "thinking": session.thinking,
            "messages": session.get_history(),
            "draft": session.draft,
            "busy": session.busy,
            "usage": session.usage,
        }

    def _changed(self, kind: str) -> None:
        if kind == "draft":
            self.host.emit("draft", json.dumps(self.session.draft, ensure_ascii=False))
        else:
            self.host.emit("state", json.dumps(self._state(), ensure_ascii=False))


def _ok(result: object) -> Json:
    return json.dumps({"result": result}, ensure_ascii=False)


def _fail(message: str) -> Json:
    return json.dumps({"error": message}, ensure_ascii=False)


def _call(action: Callable[[], object]) -> Json:
    try:
        action()
    except WidgetError as exc:
        return _fail(str(exc))
    except ValueError as exc:  # JSON text from the page that does not parse
        return _fail(f"invalid JSON: {exc}")
    except Exception as exc:
        return _internal_error(exc)
    return _ok(None)


async def _answer(turn: Awaitable[object]) -> Json:
    try:
        return _ok(await turn)
    except ValueError as exc:  # WidgetError, or JSON text from the page that does not parse
        return _fail(str(exc))
    except Exception as exc:
        return _internal_error(exc)


def _internal_error(exc: Exception) -> Json:
    # A bug, not bad input: the traceback goes to the console, a sentence to the person.
    traceback.print_exception(exc)
    return _fail(f"Something went wrong inside the chat ({type(exc).__name__}: {exc}).")


def _js_message(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return str(message).removeprefix("Error: ")
