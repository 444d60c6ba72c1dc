"""The change feed: what the page hears is what changed, never the whole state again.
Browser-free: a session, its conversations and the feed, with scripted answers."""

from __future__ import annotations

import json
from typing import Any

from scripted import ScriptedTransport, call_chunk, heard_draft, run, text_chunk, thought_chunk

from widget import Session
from widget.changes import ChangeFeed
from widget.conversations import Conversations
from widget.history import History
from widget.key_value import MemoryKeyValue
from widget.models import Offer
from widget.protocol import EVENTS

OFFERED = [{"id": "demo"}, {"id": "mini"}]


class Page:
    """Records every event as the page receives it (drafts as the worker is handed them)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.thoughts: list[tuple[int, str]] = []

    def emit(self, kind: str, data: object) -> None:
        self.events.append((kind, json.loads(json.dumps(data))))

    def draft(self, change: dict[str, Any]) -> None:
        heard_draft(change, self.events, self.thoughts)

    def of(self, kind: str) -> list[Any]:
        return [data for k, data in self.events if k == kind]


def started(*answers: list[Any], store: MemoryKeyValue | None = None) -> tuple[
    Conversations, Page, dict[str, Any]
]:  # fmt: skip
    page = Page()
    offer = Offer(OFFERED)
    ticks = iter(range(1, 10**6))
    session = Session(model="demo", clock=lambda: next(ticks))
    feed = ChangeFeed(session.conversation, page.emit, page.draft, offer.listed)
    conversations = Conversations(
        session, History(store or MemoryKeyValue()), ScriptedTransport(*answers),
        listener=feed, offer=offer,
    )  # fmt: skip
    run(conversations.keeper.start())
    return conversations, page, feed.start()


def streamed(text: str, parts: int) -> list[list[Any]]:
    size = max(1, len(text) // parts)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return [[text_chunk(piece)] for piece in pieces] + [[text_chunk("", "stop")]]


def test_the_start_is_the_whole_state_once_and_nothing_before_it() -> None:
    _, page, state = started()
    assert page.events == []
    assert state["messages"] == [] and state["history"] == []
    assert state["models"] == OFFERED and "models" not in state["meta"]
    assert state["meta"]["model"] == "demo" and state["meta"]["busy"] is False


def test_a_streamed_answer_sends_only_appended_text_and_one_splice() -> None:
    text = "Once upon a time " * 200
    conversations, page, _ = started(streamed(text, 100))
    run(conversations.send("Tell me a story"))
    assert conversations.session.get_history()[1] == {"role": "assistant", "content": text}
    drafts = [data for data in page.of("draft") if data]
    assert "".join(piece for _, piece, _ in drafts) == text
    assert all(at == sum(len(p) for _, p, _ in drafts[:i]) for i, (at, _, _) in enumerate(drafts))
    assert page.of("messages") == [
        {"at": 0, "add": [{"role": "user", "content": "Tell me a story"}], "turn": True},
        {"at": 1, "add": [{"role": "assistant", "streamed": "a1"}], "turn": True},  # drafted
    ]
    assert page.of("meta")[-1]["busy"] is False
    assert page.of("draft")[-1] is None
    assert sum(len(json.dumps(data)) for _, data in page.events) < 3 * len(text)


def test_reasoning_streams_beside_the_answer_and_settles_once() -> None:
    thought = "The person asks about tides; the moon pulls the sea. " * 20
    chunks = [[thought_chunk(thought[i : i + 50])] for i in range(0, len(thought), 50)]
    conversations, page, _ = started([*chunks, *streamed("The moon.", 3)])
    run(conversations.send("Why are there tides?"))
    answer = conversations.session.get_history()[1]
    assert answer["reasoning"] == thought and answer["content"] == "The moon."
    assert "".join(piece for _, piece in page.thoughts) == thought
    assert all(at == sum(len(p) for _, p in page.thoughts[:i])
               for i, (at, _) in enumerate(page.thoughts))  # fmt: skip
    settled = page.of("messages")[-1]["add"][-1]
    assert settled["streamed"] == "a1"
    assert "reasoning" not in settled and "content" not in settled
    assert isinstance(settled["reasoning_seconds"], int)
    sent = sum(len(json.dumps(d)) for _, d in page.events) + sum(len(t) for _, t in page.thoughts)
    assert sent < 3 * (len(thought) + len("The moon."))


def test_meta_never_repeats_the_models_and_a_turn_sends_them_never() -> None:
    conversations, page, _ = started(streamed("Hi", 1))
    run(conversations.send("one"))
    assert page.of("meta") and all("models" not in meta for meta in page.of("meta"))
    assert page.of("models") == []


def test_the_offered_models_are_sent_only_when_they_change() -> None:
    session = Session(model="demo")
    page = Page()
    feed = ChangeFeed(session.conversation, page.emit, page.draft, OFFERED)
    feed.start()
    feed.models(list(OFFERED))
    assert page.of("models") == []
    feed.models([{"id": "mini"}])
    assert page.of("models") == [[{"id": "mini"}]]


def test_a_second_turn_sends_only_its_own_messages() -> None:
    conversations, page, _ = started(streamed("First answer", 2), streamed("Second answer", 2))
    run(conversations.send("one"))
    page.events.clear()
    run(conversations.send("two"))
    splices = page.of("messages")
    assert [s["at"] for s in splices] == [2, 3]
    assert all(len(s["add"]) == 1 for s in splices)


def test_tool_calls_stream_as_calls_and_results_as_new_messages() -> None:
    calls = [[call_chunk("c1", "get_weather", '{"city": "Paris"}')]]

    def get_weather(city: str) -> str:
        """The weather in a city."""
        return "22°C"

    conversations, page, _ = started(calls, streamed("It is 22°C.", 2))
    conversations.session.add_tool(get_weather)
    run(conversations.send("Weather in Paris?"))
    sent_calls = [data[2] for data in page.of("draft") if data and data[2]]
    assert json.loads(sent_calls[0])[0]["function"]["name"] == "get_weather"
    roles = [m["role"] for change in page.of("messages") for m in change["add"]]
    assert roles == ["user", "assistant", "tool", "assistant"]


def test_opening_another_conversation_sends_it_whole_once() -> None:
    conversations, page, _ = started(streamed("Hello", 1))
    run(conversations.send("first"))
    first = run(conversations.save())
    run(conversations.restore(None))
    assert page.of("messages")[-1] == {"at": 0, "add": [], "turn": False}
    page.events.clear()
    run(conversations.open(first["id"]))
    assert page.of("messages") == [{"at": 0, "add": first["messages"], "turn": False}]
    assert len(page.of("meta")) == 1


def test_the_history_list_travels_as_per_entry_changes() -> None:
    conversations, page, _ = started(streamed("one", 1), streamed("two", 1), streamed("3", 1))
    run(conversations.send("first"))
    first = conversations.conversation.id
    [added] = page.of("history")
    entry = {"id": first, "title": "first", "updated": added["set"][0]["updated"], "pinned": False}
    assert added == {"set": [entry], "drop": [], "order": [first]}
    run(conversations.send("again"))
    changed = page.of("history")[-1]
    assert [e["id"] for e in changed["set"]] == [first] and "order" not in changed
    run(conversations.restore(None))
    run(conversations.send("second"))
    second = conversations.conversation.id
    newest = page.of("history")[-1]
    assert [e["id"] for e in newest["set"]] == [second] and newest["order"] == [second, first]
    page.events.clear()
    run(conversations.rename(first, "Renamed"))
    [renamed] = page.of("history")
    assert [(e["id"], e["title"]) for e in renamed["set"]] == [(first, "Renamed")]
    run(conversations.forget(first))
    assert page.of("history")[-1] == {"set": [], "drop": [first], "order": [second]}


def test_a_failed_turn_is_alerted_once() -> None:
    conversations, page, _ = started([[{"error": {"message": "The model is down."}}]])
    run(conversations.send("hi"))
    assert page.of("alert") == [{"message": "The model is down.", "code": "", "params": {}}]


def test_every_event_sent_is_one_the_protocol_declares() -> None:
    conversations, page, _ = started(streamed("Hi", 2), [[{"error": {"message": "Down."}}]])
    run(conversations.send("one"))
    run(conversations.send("two"))
    run(conversations.restore(None))
    assert {kind for kind, _ in page.events} <= set(EVENTS)
