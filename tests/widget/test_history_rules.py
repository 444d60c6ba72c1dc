"""`Session.get_history` / `set_history`: copies, validation word for word, replay."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from scripted import ScriptedTransport, answer, run

from widget import HistoryError, Session

WEATHER_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}
TOOL_CONVERSATION: list[dict[str, Any]] = [
    {"role": "user", "content": "What's the weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL]},
    {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "22°C, sunny"},
    {"role": "assistant", "content": "It is 22°C and sunny in Paris."},
]


def test_get_history_returns_a_copy() -> None:
    session = Session()
    session.set_history(TOOL_CONVERSATION)
    history = session.get_history()
    history[1]["tool_calls"][0]["function"]["name"] = "changed"
    history.append({"role": "user", "content": "extra"})
    assert session.get_history() == TOOL_CONVERSATION


def test_set_history_copies_what_it_keeps() -> None:
    given = copy.deepcopy(TOOL_CONVERSATION)
    session = Session()
    session.set_history(given)
    given[0]["content"] = "changed"
    given[1]["tool_calls"][0]["id"] = "changed"
    assert session.get_history() == TOOL_CONVERSATION


def test_a_leading_system_message_is_accepted_and_stripped() -> None:
    session = Session(instructions="Be brief.")
    session.set_history([{"role": "system", "content": "old prompt"}, *TOOL_CONVERSATION])
    assert session.get_history() == TOOL_CONVERSATION
    assert [m for m in session.request()["messages"] if m["role"] == "system"] == [
        {"role": "system", "content": "Be brief."}
    ]


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ({"role": "user"}, "expected an array of messages"),
        ("[]", "expected an array of messages"),
        (None, "expected an array of messages"),
        ([{"role": "user", "content": "hi"}, "hello"], "message at index 1 is not an object"),
        ([["role", "user"]], "message at index 0 is not an object"),
        ([{"role": "robot", "content": "hi"}], 'message at index 0 has unknown role "robot"'),
        ([{"content": "hi"}], 'message at index 0 has unknown role "None"'),
        (
            [{"role": "system", "content": "a"}, {"role": "user", "content": "b"},
             {"role": "wizard", "content": "c"}],
            'message at index 2 has unknown role "wizard"',
        ),
        (
            [{"role": "user", "content": "hi"}, {"role": "system", "content": "late"}],
            "unexpected system message at index 1",
        ),
        (
            [{"role": "system", "content": "a"}, {"role": "system", "content": "b"}],
            "unexpected system message at index 1",
        ),
        (
            [{"role": "user", "content": "hi"},
             {"role": "tool", "tool_call_id": "call_9", "content": "x"}],
            'orphaned tool_call_id "call_9"',
        ),
        (
            # the result comes before the call: orphaned, since only earlier calls count
            [TOOL_CONVERSATION[0], TOOL_CONVERSATION[2], TOOL_CONVERSATION[1]],
            'orphaned tool_call_id "call_1"',
        ),
    ],
)  # fmt: skip
def test_set_history_errors_word_for_word(messages: object, error: str) -> None:
    session = Session()
    with pytest.raises(HistoryError) as raised:
        session.set_history(messages)
    assert str(raised.value) == error
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"role": "user", "content": 5}, "message at index 0 has content that is not a string"),
        ({"role": "user", "content": None}, "message at index 0 has content that is not a string"),
        ({"role": "assistant", "content": "x", "tool_calls": {}}, "invalid tool_calls"),
        ({"role": "assistant", "content": None, "tool_calls": [{"id": "c"}]}, "invalid tool_calls"),
        ({"role": "user", "content": "x", "attachments": [{"name": "a"}]}, "without a name"),
        (
            {"role": "user", "content": "x",
             "attachments": [{"name": "a.txt", "mime": "text/plain", "data": "not base64!"}]},
            'attachment "a.txt" of message at index 0 is not valid Base64',
        ),
        ({"role": "user", "content": "\ud800"}, "not valid Unicode text"),
    ],
)  # fmt: skip
def test_set_history_checks_each_message_shape(message: dict[str, Any], error: str) -> None:
    with pytest.raises(HistoryError, match=error):
        Session().set_history([message])


def test_a_failed_set_history_changes_nothing() -> None:
    session = Session()
    session.set_history(TOOL_CONVERSATION)
    before = (session.get_history(), session.export_snapshot())
    bad = [*TOOL_CONVERSATION, {"role": "tool", "tool_call_id": "nope", "content": "x"}]
    with pytest.raises(HistoryError):
        session.set_history(bad)
    assert (session.get_history(), session.export_snapshot()) == before


def test_after_a_restore_the_next_request_replays_the_whole_conversation() -> None:
    session = Session(instructions="You are helpful")
    session.set_history(TOOL_CONVERSATION)
    transport = ScriptedTransport(answer("Yes, 22°C is warm."))
    run(session.send("Is that warm?", transport))
    [request] = transport.requests
    assert request["messages"] == [
        {"role": "system", "content": "You are helpful"},
        *TOOL_CONVERSATION,
        {"role": "user", "content": "Is that warm?"},
    ]
    assert session.pending_tool_calls == []


def test_restored_tool_calls_without_results_are_pending_and_not_run() -> None:
    ran: list[str] = []

    def get_weather(city: str) -> str:
        ran.append(city)
        return "sunny"

    session = Session(tools=[get_weather])
    session.set_history(TOOL_CONVERSATION[:2])
    assert session.pending_tool_calls == [WEATHER_CALL]
    assert ran == []
