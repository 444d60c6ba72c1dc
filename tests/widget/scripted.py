"""Scripted model answers for the widget's tests (a transport that never touches a network)."""

from __future__ import annotations

import json
import types
from collections.abc import AsyncIterator, Coroutine, Generator, Sequence
from typing import Any

from widget import TurnError
from widget.conversations import Conversations
from widget.history import Entry
from widget.protocol import EVENT_DATA, conforms
from widget.texts import Notice


@types.coroutine
def pause() -> Generator[None]:
    """Give control back once, as awaiting a network read does."""
    yield


def run[T](coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end by hand.

    The same on CPython and under Pyodide, where `asyncio.run` needs WebAssembly stack
    switching that Node does not offer. The widget's coroutines only wait on transports.
    """
    try:
        while True:
            coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def text_chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}


def thought_chunk(text: str, field: str = "reasoning_content") -> dict[str, Any]:
    """A piece of the model's reasoning, in the delta field `field` names."""
    return {"choices": [{"index": 0, "delta": {field: text}, "finish_reason": None}]}


def call_chunk(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    call = {"index": 0, "id": call_id, "type": "function",
            "function": {"name": name, "arguments": arguments}}  # fmt: skip
    choice = {"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": "tool_calls"}
    return {"choices": [choice]}


class ScriptedTransport:
    """A transport that answers each request with the next scripted list of batches.

    A batch that is an exception is raised at that point, as a dropped connection would be.
    """

    def __init__(self, *answers: list[Any]) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []
        self.on_batch: Any = None

    async def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]:
        self.requests.append(json.loads(json.dumps(request)))
        if not self.answers:
            raise TurnError("no scripted answer left")
        for batch in self.answers.pop(0):
            if isinstance(batch, Exception):
                raise batch
            await pause()  # a network read: other work runs meanwhile
            yield batch
            if self.on_batch:
                self.on_batch()

    def cancel(self) -> None:
        """A stop: the next batch is not read (the session checks its stop first)."""


def answer(text: str) -> list[Any]:
    """A scripted answer streaming `text` in two batches."""
    middle = len(text) // 2
    return [[text_chunk(text[:middle])], [text_chunk(text[middle:], "stop")]]


class Heard:
    """A `widget.keeper.Listener` that records what the page would hear."""

    def __init__(self, alerts: list[str] | None = None) -> None:
        self.alerts = alerts if alerts is not None else []
        self.entries: list[Entry] = []
        self.stops = 0
        self.waiting = False

    def alert(self, notice: Notice) -> None:
        self.alerts.append(notice["message"])

    def listed(self, entries: Sequence[Entry]) -> None:
        self.entries = list(entries)

    def stopping(self) -> None:
        self.stops += 1

    def unfinished(self, waiting: bool) -> None:
        self.waiting = waiting


def listing(conversations: Conversations) -> list[dict[str, Any]]:
    """The kept conversations as the page lists them, newest first."""
    heard = conversations.listener
    assert isinstance(heard, Heard), "make the Conversations with listener=Heard()"
    return [entry.to_dict() for entry in heard.entries]


def heard_draft(
    change: dict[str, Any], events: list[tuple[str, Any]], thoughts: list[tuple[int, str]]
) -> None:
    """A draft record as the page would hear it, checked against its declared shape:
    `("draft", (at, text, calls_json))`, or `("draft", None)` once it ends; reasoning apart."""
    assert conforms(change, EVENT_DATA["draft"]) == [], change
    calls = json.dumps(change["calls"]) if "calls" in change else ""
    events.append(("draft", None if change.get("end") else (change["at"], change["text"], calls)))
    if change.get("thought"):
        thoughts.append((change["thoughtAt"], change["thought"]))
