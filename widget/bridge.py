"""The only browser-specific module: the session as the widget's Web Worker drives it.

The worker's JavaScript carries (fetch, reading the event stream, storage trips to the page);
Python decides everything about the conversation. One entry point, `Bridge.call`, runs any
operation of `widget.operations.OPERATIONS` and answers JSON text that the page parses once:
`{"result": …}`, `{"error": "…"}` for a person's mistake, or `{"error": "…", "bug": "…"}`
for a program error (the traceback goes to the console, a plain sentence to the person).

Changes go out as events that carry what changed, never the whole state again:
`messages` `{at, add}` (keep the first `at`, append `add`), `meta` (title, model, busy, ...),
`draft` (text appended to the answer being written, via `host.draft`), `history`, `alert`
and `stopping`.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from pyodide.ffi import JsException  # type: ignore[import-not-found]

from .conversations import Conversations, Kept
from .errors import TurnError, WidgetError
from .history import Change, Conflict, History, HostedHistory, MemoryKeyValue, StorageFull
from .messages import Message
from .operations import OPERATIONS, check_arguments, snake_case
from .sessions import STOPPED, Session
from .snapshots import read_snapshot
from .tools import Tool

Json = str
BUG = "Something went wrong inside the chat. The details are in the browser's console."
UNREADABLE = "The model service sent an answer that cannot be read."


class HostTransport:
    """Model requests through the worker's `openStream`, one batch of chunks per await."""

    def __init__(self, host: Any) -> None:
        self.host = host
        self._open: list[Any] = []  # JS proxies are not hashable: a list, not a set

    def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]:
        return self._read(self.host.openStream(json.dumps(request, ensure_ascii=False)))

    def resume(self, turn: str) -> AsyncIterator[list[Any]]:
        return self._read(self.host.resumeStream(turn))

    async def _read(self, stream: Any) -> AsyncIterator[list[Any]]:
        self._open.append(stream)
        try:
            while isinstance(batch := await stream.next(), str):
                try:
                    yield json.loads(batch)
                except ValueError as exc:
                    raise TurnError(UNREADABLE) from exc
        except JsException as exc:
            raise TurnError(_js_message(exc)) from exc
        finally:
            self._open.remove(stream)
            stream.close()

    def cancel(self) -> None:
        """Abort every request in flight (a stop): their `next()` rejects at once, and the
        server is told to stop an answer it would otherwise keep writing for a reload."""
        for stream in list(self._open):
            stream.close()

    async def claim(self, turn: str) -> bool:
        """Take `turn` for this tab, unless another tab is reading it (a Web Lock)."""
        return bool(await self.host.claimTurn(turn))

    def release(self, turn: str) -> None:
        self.host.releaseTurn(turn)


class PageKeyValue:
    """localStorage of the host page, reached through the worker (workers have none)."""

    def __init__(self, host: Any) -> None:
        self.host = host

    async def read_all(self, prefix: str) -> dict[str, str]:
        found = json.loads(await self.host.storage("readAll", prefix))
        return found if isinstance(found, dict) else {}

    async def get(self, key: str) -> str | None:
        value = json.loads(await self.host.storage("get", key))
        return value if isinstance(value, str) else None

    async def write(
        self, changes: Sequence[Change], expect: Mapping[str, str | None] | None = None
    ) -> None:
        batch = json.dumps({"changes": changes, "expect": dict(expect or {})}, ensure_ascii=False)
        answer = await self.host.storage("write", batch)
        if answer == "full":
            raise StorageFull("the browser's storage is full")
        if answer == "conflict":
            raise Conflict("another tab changed this conversation")


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


def model_choice(offered: dict[str, Any]) -> tuple[str, str | None]:
    """An offered id as (model, provider): `openai/gpt-4o` of provider `openai` is `gpt-4o`."""
    model_id, provider = offered["id"], offered.get("provider")
    if isinstance(provider, str) and model_id.startswith(f"{provider}/"):
        return model_id[len(provider) + 1 :], provider
    return model_id, None


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
        self._startup: object = options.get("snapshot")  # the host's, opened by `start`
        # What the server offers: [{"id", "provider"?}], the first its default.
        self.offered = [m for m in options.get("models") or [] if isinstance(m.get("id"), str)]
        choices = {m["id"]: model_choice(m) for m in self.offered}
        chosen = options.get("model")
        if choices and chosen not in choices:
            chosen = self.offered[0]["id"]  # not offered (or not chosen): the server's default
        model, provider = choices.get(chosen, (chosen, None))
        self.session = Session(instructions=options.get("instructions"), model=model)
        self.session.default_provider = self.session.provider = provider
        self.transport = HostTransport(host)
        self.conversations = Conversations(
            self.session,
            make_history(host, options),
            self.transport,
            generate_title=bool(options.get("generateTitle")),
            models=choices,
            on_alert=lambda message: self._emit("alert", message),
            on_list=lambda: self._emit("history", self.conversations.listing()),
            on_stopping=self._stopping,
            claim=self.transport.claim,
            release=self.transport.release,
        )
        self._shown: Sequence[Message] = ()
        self._meta: dict[str, Any] = {}
        self._answer: object = None
        self._answer_parts = 0
        self._answer_chars = 0
        self._answer_calls: list[Message] = []
        self.session.subscribe(self._changed)

    def operations(self) -> Json:
        """The operations table, for the worker and the page."""
        return json.dumps(OPERATIONS)

    async def start(self) -> Json:
        """Load history (and a start-up snapshot); the whole state once, as the page's start."""
        warning = await self.conversations.start(self._startup)
        self._shown = self.session.settled
        self._meta = self._meta_now()
        return _dumps(
            {
                "meta": self._meta,
                "messages": list(self._shown),
                "history": self.conversations.listing(),
                "warning": warning,
            }
        )

    async def call(self, operation: str, arguments: Json) -> Json:
        """Run one operation; the reply is `{"result"}`, `{"error"}` or `{"error", "bug"}`."""
        try:
            keywords = check_arguments(operation, json.loads(arguments))
            result = await getattr(self, snake_case(operation))(**keywords)
        except WidgetError as exc:
            return _dumps({"error": str(exc)})
        except Exception as exc:
            # A bug, not bad input: the traceback for the console, a sentence for the person.
            detail = "".join(traceback.format_exception(exc))
            return _dumps({"error": BUG, "bug": detail})
        return _dumps({"result": result})

    # -- operations (one per row of OPERATIONS) ------------------------------------------

    # A turn's answer reaches the page as events; the reply only says the turn has settled.
    async def send(self, text: str, attachments: list[Message] | None) -> None:
        self._alert_failure(await self.conversations.send(text, attachments or []))

    async def retry(self, index: int) -> None:
        self._alert_failure(await self.conversations.retry(index))

    async def edit(self, index: int, text: str) -> None:
        self._alert_failure(await self.conversations.edit(index, text))

    async def show_version(self, index: int, version: int) -> None:
        await self.conversations.show_version(index, version)

    async def stop(self) -> None:
        await self.conversations.stop()

    async def pick_up(self) -> None:
        answer = await self.conversations.pick_up()
        if answer is not None:
            self._alert_failure(answer)

    async def save(self) -> dict[str, Any]:
        return self.session.snapshot().to_dict()

    async def restore(self, snapshot: object) -> None:
        await self.conversations.restore(snapshot)

    async def fork(self, index: int) -> str:
        return await self.conversations.fork(index)

    async def get_history(self) -> list[Message]:
        return self.session.get_history()

    async def set_history(self, messages: object) -> None:
        await self.conversations.set_history(messages)

    async def read_snapshot(self, value: object) -> dict[str, Any] | None:
        return read_snapshot(value)

    async def set_model(self, model: str) -> None:
        await self.conversations.choose(model=model)

    async def set_thinking(self, level: str) -> None:
        await self.conversations.choose(thinking=level)

    async def rename(self, conversation_id: str, title: str) -> None:
        await self.conversations.rename(conversation_id, title)

    async def open(self, conversation_id: str) -> None:
        await self.conversations.open(conversation_id)
        self._meta_changed()  # `unfinished`: the page picks the answer up

    async def forget(self, conversation_id: str) -> None:
        await self.conversations.forget(conversation_id)

    async def export_all(self) -> str:
        return await self.conversations.export_all()

    async def import_all(self, text: str) -> int:
        return await self.conversations.import_all(text)

    async def storage_changed(self, key: str) -> None:
        await self.conversations.storage_changed(key)

    async def search(self, query: str) -> list[str]:
        return await self.conversations.search(query)

    async def register_tool(
        self, name: str, description: str | None, parameters: dict[str, Any] | None
    ) -> None:
        async def run(arguments: dict[str, Any]) -> str:
            try:
                return str(await self.host.callTool(name, json.dumps(arguments)))
            except JsException as exc:
                raise RuntimeError(_js_message(exc)) from exc

        schema = parameters or {"type": "object", "properties": {}}
        self.session.add_tool(Tool(name, description or "", schema, run))

    async def unregister_tool(self, name: str) -> None:
        self.session.remove_tool(name)

    async def dispose(self) -> None:
        await self.conversations.dispose()

    # -- events: what changed, never the whole state again --------------------------------

    def _changed(self, kind: str) -> None:
        if kind == "draft":
            self._draft_changed()
            return
        settled = self.session.settled
        at = 0
        limit = min(len(settled), len(self._shown))
        while at < limit and settled[at] is self._shown[at]:
            at += 1
        if at < len(self._shown) or at < len(settled):
            # `turn`: added by a running turn (news for the host), not by opening a conversation.
            change = {"at": at, "add": self._added(settled[at:]), "turn": self.session.busy}
            self._emit("messages", change)
        self._shown = settled
        if self.session.answer is None and self._answer is not None:
            self._answer = None
            self.host.draft(-1, "", "")  # the answer settled (or failed): no draft now
        self._meta_changed()

    def _added(self, messages: Sequence[Message]) -> list[Message]:
        """New messages for the page; an answer it has just seen streamed comes without its
        text (`"streamed": true`), which the page takes from its draft: sent once, not twice."""
        added = list(messages)
        last = added[-1] if added else None
        if (
            self._answer is not None
            and last is not None
            and last["role"] == "assistant"
            and isinstance(last.get("content"), str)
            and len(last["content"]) == self._answer_chars > 0
        ):
            added[-1] = {key: value for key, value in last.items() if key != "content"}
            added[-1]["streamed"] = True
        return added

    def _draft_changed(self) -> None:
        answer = self.session.answer
        if answer is None:
            return
        if answer is not self._answer:
            self._answer, self._answer_parts, self._answer_chars = answer, 0, 0
            self._answer_calls = []
            self._meta_changed()  # busy from the first draft on
        text = "".join(answer.content[self._answer_parts :])
        self._answer_parts = len(answer.content)
        calls = answer.calls() if answer.tool_calls else []
        calls_json = json.dumps(calls) if calls != self._answer_calls else ""
        self._answer_calls = calls
        self.host.draft(self._answer_chars, text, calls_json)
        self._answer_chars += len(text)

    def _meta_changed(self) -> None:
        meta = self._meta_now()
        if meta != self._meta:
            self._meta = meta
            self._emit("meta", meta)

    def _meta_now(self) -> dict[str, Any]:
        session = self.session
        return {
            "id": session.id,
            "title": session.title,
            "model": session.model_id,
            "provider": session.provider,
            "thinking": session.thinking,
            "busy": session.busy,
            "unfinished": self.conversations.unfinished is not None,
            "usage": session.usage,
            "models": self.offered,
        }

    def _stopping(self) -> None:
        self.transport.cancel()
        self._emit("stopping", None)  # a tool call waiting for approval is let go (and cut)

    def _emit(self, kind: str, data: object) -> None:
        self.host.emit(kind, _dumps(data))

    def _alert_failure(self, answer: Message) -> None:
        error = answer.get("error")
        if error and error != STOPPED:
            self._emit("alert", error)


def _dumps(value: object) -> Json:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _js_message(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return str(message).removeprefix("Error: ")
