"""The turn loop: streaming, tools, failures, stop, retry, fork and titles."""

from __future__ import annotations

import json
import pkgutil
from typing import Any, Literal

import pytest
from scripted import ScriptedTransport, answer, call_chunk, run, text_chunk, thought_chunk

import widget
from widget import NoSuchMessage, Session, TurnError
from widget.errors import STOPPED
from widget.forks import fork
from widget.tools import tool_from_callable


def test_a_streamed_answer_becomes_one_assistant_message() -> None:
    session = Session(instructions="Be brief.", model="demo")
    transport = ScriptedTransport(answer("Hello there, Alice."))
    message = run(session.send("Hi, I am Alice", transport))
    assert message == {"role": "assistant", "content": "Hello there, Alice."}
    assert session.get_history() == [
        {"role": "user", "content": "Hi, I am Alice"},
        {"role": "assistant", "content": "Hello there, Alice."},
    ]
    [request] = transport.requests
    assert request["model"] == "demo"
    assert request["stream"] is True
    assert request["messages"][0] == {"role": "system", "content": "Be brief."}


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_from_either_field_is_kept_with_the_seconds_it_took(field: str) -> None:
    now = [1_000_000]  # the session's clock, in milliseconds; each batch takes 2.2 s
    session = Session(clock=lambda: now[0])
    thinking = [[thought_chunk("Tides: ", field)], [thought_chunk("the moon.", field)]]
    transport = ScriptedTransport([*thinking, [text_chunk("The moon", "stop")]])
    transport.on_batch = lambda: now.__setitem__(0, now[0] + 2200)
    message = run(session.send("Why tides?", transport))
    assert message == {"role": "assistant", "content": "The moon", "reasoning": "Tides: the moon.",
                       "reasoning_seconds": 4}  # fmt: skip
    assert "reasoning" not in json.dumps(session.request())  # never sent upstream again


def test_a_stopped_answer_keeps_what_the_model_thought() -> None:
    session = Session()
    transport = ScriptedTransport([[thought_chunk("Let me see")], [thought_chunk(" more")]])
    transport.on_batch = session.stop
    message = run(session.send("Think", transport))
    assert message["error"] == STOPPED and message["reasoning"] == "Let me see"


def test_listeners_see_the_draft_and_save_leaves_it_out() -> None:
    session = Session()
    seen: list[tuple[str, Any, int]] = []
    transport = ScriptedTransport(answer("Half and half"))
    transport.on_batch = lambda: seen.append(
        (
            "batch",
            session.conversation.draft,
            len(json.loads(session.export_snapshot())["messages"]),
        )
    )
    unsubscribe = session.conversation.subscribe(lambda kind: seen.append((kind, None, 0)))
    run(session.send("go", transport))
    unsubscribe()
    drafts = [draft for kind, draft, _ in seen if kind == "batch"]
    assert drafts[0] == {"role": "assistant", "content": "Half a"}
    assert all(saved == 1 for kind, _, saved in seen if kind == "batch")  # only the user message
    assert {"messages", "draft"} <= {kind for kind, _, _ in seen}
    heard = len(seen)
    transport = ScriptedTransport(answer("ok"))
    run(session.send("again", transport))
    assert len(seen) == heard  # unsubscribed: the second turn reached no listener
    assert session.get_history()[-1] == {"role": "assistant", "content": "ok"}


def test_the_session_runs_python_tools_until_the_model_answers() -> None:
    calls: list[str] = []

    def get_weather(city: str, unit: Literal["C", "F"] = "C") -> str:
        """The current weather in a city.

        Args:
            city: The city, e.g. Paris.
            unit: Celsius or Fahrenheit.
        """
        calls.append(city)
        return f"22°{unit}, sunny in {city}"

    session = Session(tools=[get_weather])
    transport = ScriptedTransport(
        [[call_chunk("call_1", "get_weather", '{"city": "Paris"}')]],
        answer("It is 22°C in Paris."),
    )
    final = run(session.send("Weather in Paris?", transport))
    assert final["content"] == "It is 22°C in Paris."
    assert calls == ["Paris"]
    roles = [m["role"] for m in session.get_history()]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert session.get_history()[2] == {
        "role": "tool", "tool_call_id": "call_1", "name": "get_weather",
        "content": "22°C, sunny in Paris"}  # fmt: skip
    assert transport.requests[0]["tools"] == [
        {"type": "function", "function": {
            "name": "get_weather", "description": "The current weather in a city.",
            "parameters": {"type": "object", "required": ["city"], "properties": {
                "city": {"type": "string", "description": "The city, e.g. Paris."},
                "unit": {"enum": ["C", "F"], "description": "Celsius or Fahrenheit."}}}}}
    ]  # fmt: skip
    assert transport.requests[1]["messages"][-1]["role"] == "tool"


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("missing", "{}", 'Error: there is no tool named "missing".'),
        ("boom", "{}", "Error: the sensor is broken"),
        ("boom", "{not json", "Error: the arguments are not valid JSON"),
    ],
)
def test_tool_failures_are_reported_to_the_model(name: str, arguments: str, expected: str) -> None:
    async def boom() -> str:
        raise RuntimeError("the sensor is broken")

    session = Session(tools=[boom])
    transport = ScriptedTransport([[call_chunk("c", name, arguments)]], answer("Sorry."))
    run(session.send("try", transport))
    assert session.get_history()[2]["content"].startswith(expected)


def test_a_failed_turn_keeps_the_partial_answer_marked_and_retry_replaces_it() -> None:
    session = Session()
    broken = ScriptedTransport([[text_chunk("Partial ans")], TurnError("The connection broke.")])
    failed = run(session.send("question", broken))
    assert failed["content"] == "Partial ans"
    assert failed["error"] == "The connection broke."
    assert not session.conversation.busy
    transport = ScriptedTransport(answer("A whole answer."))
    run(session.retry(0, transport))
    assert session.get_history() == [
        {"role": "user", "content": "question"},
        {"role": "assistant", "content": "A whole answer."},
    ]
    assert transport.requests[0]["messages"] == [{"role": "user", "content": "question"}]


def test_an_interrupted_answer_is_sent_as_text_without_its_error() -> None:
    session = Session()
    run(session.send("one", ScriptedTransport([[text_chunk("cut")], TurnError("dropped")])))
    transport = ScriptedTransport(answer("fine"))
    run(session.send("two", transport))
    assert transport.requests[0]["messages"] == [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "cut"},
        {"role": "user", "content": "two"},
    ]


def test_stop_ends_the_turn_and_marks_the_answer() -> None:
    session = Session()
    transport = ScriptedTransport([[text_chunk("a")], [text_chunk("b")], [text_chunk("c", "stop")]])
    transport.on_batch = session.stop
    message = run(session.send("go", transport))
    assert message == {"role": "assistant", "content": "a", "error": STOPPED,
                       "error_code": "stopped", "error_params": {}}  # fmt: skip


def test_a_second_turn_while_busy_is_refused() -> None:
    session = Session()
    transport = ScriptedTransport(answer("slow answer"))
    first = session.send("one", transport)
    first.send(None)  # the first turn is now waiting on the network
    assert session.conversation.busy
    with pytest.raises(TurnError, match="still being written"):
        run(session.send("two", transport))
    with pytest.raises(TurnError):
        session.set_history([])
    run(first)
    assert [m["content"] for m in session.get_history()] == ["one", "slow answer"]


def test_retry_and_fork_need_a_user_message() -> None:
    session = Session()
    session.set_history([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}])
    with pytest.raises(NoSuchMessage, match="no user message at index 1"):
        run(session.retry(1, ScriptedTransport()))
    with pytest.raises(NoSuchMessage, match="no user message at index 7"):
        fork(session.conversation, 7)


def test_fork_keeps_the_turns_before_the_message_and_returns_its_text() -> None:
    session = Session(model="demo")
    session.conversation.set_thinking("medium")
    history = [
        {"role": "user", "content": "first"}, {"role": "assistant", "content": "1"},
        {"role": "user", "content": "second"}, {"role": "assistant", "content": "2"},
    ]  # fmt: skip
    session.set_history(history)
    forked, text = fork(session.conversation, 2)
    assert text == "second"
    assert list(forked.messages) == history[:2]
    assert (forked.model, forked.thinking) == ("demo", "medium")
    assert forked.id != session.conversation.id
    assert session.get_history() == history


def test_titles_derive_from_the_first_message_and_can_be_generated() -> None:
    session = Session()
    long_question = "Could you please explain " + "very " * 20 + "carefully how tides work?"
    run(session.send(long_question, ScriptedTransport(answer("Tides come from the moon."))))
    assert session.conversation.title.startswith("Could you please explain very")
    assert session.conversation.title.endswith("…") and len(session.conversation.title) <= 60
    transport = ScriptedTransport(answer('"How Tides Work."'))
    assert run(session.generate_title(transport)) == "How Tides Work"
    assert transport.requests[0]["messages"][0]["content"].startswith("Write a title")
    assert json.loads(session.export_snapshot())["title"] == "How Tides Work"


def test_a_failed_title_request_keeps_the_derived_title() -> None:
    session = Session()
    run(session.send("Plan a picnic", ScriptedTransport(answer("Sure."))))
    failing = ScriptedTransport([TurnError("model down")])
    assert run(session.generate_title(failing)) == "Plan a picnic"


def test_thinking_level_is_sent_as_reasoning_effort_and_checked() -> None:
    session = Session()
    session.conversation.set_thinking("high")
    assert session.request()["reasoning_effort"] == "high"
    session.conversation.set_thinking("off")
    assert "reasoning_effort" not in session.request()
    with pytest.raises(widget.WidgetError, match="thinking must be one of"):
        session.conversation.set_thinking("extreme")


def test_attachments_travel_as_content_parts() -> None:
    session = Session()
    png = {"name": "cat.png", "mime": "image/png", "data": "iVBORw0KGgo="}
    text = {"name": "notes.txt", "mime": "text/plain", "data": "aGVsbG8gd29ybGQ="}
    transport = ScriptedTransport(answer("Nice cat."))
    run(session.send("Look", transport, attachments=[png, text]))
    assert transport.requests[0]["messages"][0]["content"] == [
        {"type": "text", "text": "Look"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "text", "text": "File notes.txt:\n\nhello world"},
    ]
    assert session.get_history()[0]["attachments"] == [png, text]


def test_tool_schema_from_a_signature() -> None:
    def search(query: str, limit: int = 5, tags: list[str] | None = None) -> list[str]:
        """Search the notes."""
        return []

    tool = tool_from_callable(search)
    assert tool.parameters == {
        "type": "object",
        "required": ["query"],
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"},
                       "tags": {"type": "array", "items": {"type": "string"}}},
    }  # fmt: skip
    assert run(tool.run({"query": "x"})) == "[]"


def test_the_public_api_is_exactly_the_exported_names() -> None:
    assert widget.__all__ == sorted(widget.__all__)
    # (pytest's assertion rewriting may add "@py_builtins"-like names to a plugin's modules)
    public = {name for name in dir(widget) if not name.startswith(("_", "@"))}
    modules = {module.name for module in pkgutil.iter_modules(widget.__path__)}
    assert public - modules == set(widget.__all__)
    for name in widget.__all__:  # each imported when first asked for (widget/__init__.py)
        assert getattr(widget, name).__name__ == name
    for name in ("Session", "read_snapshot", "HistoryError", "SnapshotError"):
        assert name in widget.__all__
    assert issubclass(widget.HistoryError, ValueError)
    assert issubclass(widget.SnapshotError, ValueError)


def test_stopping_while_a_tool_runs_cuts_the_call() -> None:
    session = Session()

    async def slow_tool() -> str:
        """Waits for a person's approval."""
        session.stop()
        return "approved too late"

    session.add_tool(slow_tool)
    transport = ScriptedTransport([[call_chunk("c1", "slow_tool", "{}")]], answer("unused"))
    message = run(session.send("run it", transport))
    assert message["error"] == STOPPED
    assert [m["role"] for m in session.get_history()] == ["user", "assistant"]
    assert "tool_calls" not in session.get_history()[1]
    assert session.pending_tool_calls == []


def test_editing_a_message_keeps_the_earlier_version_reachable() -> None:
    session = Session()
    run(session.send("Weather in Pariss?", ScriptedTransport(answer("Which city?"))))
    run(session.send("Paris", ScriptedTransport(answer("Sunny."))))
    run(session.edit(0, "Weather in Paris?", ScriptedTransport(answer("22°C in Paris."))))
    shown = session.get_history()
    assert [m["content"] for m in shown] == ["Weather in Paris?", "22°C in Paris."]
    assert (shown[0]["version"], len(shown[0]["versions"])) == (2, 1)
    old = shown[0]["versions"][0]
    assert old["content"] == "Weather in Pariss?"
    assert [m["content"] for m in old["after"]] == ["Which city?", "Paris", "Sunny."]
    # A version 1 reader (read_snapshot, or any reader ignoring `versions`) sees what is shown.
    saved = json.loads(session.export_snapshot())
    assert [m["content"] for m in saved["messages"]] == ["Weather in Paris?", "22°C in Paris."]
    restored = Session()
    restored.import_snapshot(session.export_snapshot())
    restored.conversation.show_version(0, 1)
    assert [m["content"] for m in restored.get_history()] == [
        "Weather in Pariss?", "Which city?", "Paris", "Sunny."]  # fmt: skip
    assert restored.get_history()[0]["version"] == 1
    restored.conversation.show_version(0, 2)
    assert restored.get_history() == shown
    # A third version goes last; the request never carries the versions upstream.
    transport = ScriptedTransport(answer("Warm."))
    run(restored.edit(0, "Is Paris warm?", transport))
    assert (restored.get_history()[0]["version"], len(restored.get_history()[0]["versions"])) == (
        3,
        2,
    )
    assert "versions" not in json.dumps(transport.requests[0])
    with pytest.raises(NoSuchMessage):
        restored.conversation.show_version(0, 4)
    with pytest.raises(NoSuchMessage):
        restored.conversation.show_version(1, 1)


def test_an_answer_of_many_tool_calls_runs_only_the_first_sixteen() -> None:
    """The attack: one answer of forty calls ran the page's tool forty times."""
    ran: list[int] = []

    def charge(amount: int) -> str:
        """Charge the card."""
        ran.append(amount)
        return "charged"

    calls = []
    for n in range(40):
        chunk = call_chunk(f"call_{n}", "charge", json.dumps({"amount": n}))
        chunk["choices"][0]["delta"]["tool_calls"][0]["index"] = n
        calls.append(chunk)
    session = Session(tools=[charge])
    run(session.send("Pay", ScriptedTransport([calls], answer("Done."))))
    assert ran == list(range(16))
    results = [m["content"] for m in session.get_history() if m["role"] == "tool"]
    assert results == ["charged"] * 16 + ["too many tool calls"] * 24
    fewer = Session(tools=[charge], max_tool_calls=2)
    ran.clear()
    run(fewer.send("Pay", ScriptedTransport([calls[:3]], answer("Done."))))
    assert ran == [0, 1]


def test_a_file_that_is_not_text_or_an_image_is_named_not_sent() -> None:
    """The server passes only text and image parts upstream (a `file` part is a 400)."""
    session = Session()
    binary = {"name": "data.json", "mime": "application/json", "data": "/+7/"}  # not UTF-8
    transport = ScriptedTransport(answer("I see."))
    run(session.send("Here", transport, attachments=[binary]))
    parts = transport.requests[0]["messages"][0]["content"]
    assert [part["type"] for part in parts] == ["text", "text"]
    assert parts[1]["text"] == (
        "File data.json: (application/json, not text, so its content is left out)"
    )
