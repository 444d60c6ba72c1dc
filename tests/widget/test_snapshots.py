"""Snapshots: export and import (strict, atomic) and `read_snapshot` (forgiving, repairing)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

import widget
from widget import Session, SnapshotError, read_snapshot
from widget.snapshots import from_dict

CALL = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
PNG = base64.b64encode(b"\x89PNG fake image bytes").decode()


def snapshot(messages: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    data = {"version": 1, "id": "abc", "title": "A chat", "created": 1, "updated": 2,
            "model": "demo", "thinking": "low", "messages": messages}  # fmt: skip
    return {**data, **fields}


CONVERSATIONS = [
    [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi there"}],
    [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": "sunny"},
        {"role": "assistant", "content": "It is sunny."},
    ],
    [{"role": "user", "content": "look", "attachments": [
        {"name": "a.png", "mime": "image/png", "data": PNG}]}],
    [{"role": "user", "content": "ünïcødé ✓ 🚀 \u2028"}, {"role": "assistant", "content": ""}],
]  # fmt: skip


@pytest.mark.parametrize("messages", CONVERSATIONS)
def test_export_then_import_round_trips(messages: list[dict[str, Any]]) -> None:
    original = Session()
    original.set_history(messages)
    original.conversation.set_model("demo")
    original.conversation.set_thinking("high")
    original.conversation.title = "Named"
    text = original.export_snapshot()

    restored = Session()
    restored.import_snapshot(text)
    assert restored.get_history() == messages
    back = restored.conversation
    assert (back.id, back.title, back.model, back.thinking) == (
        original.conversation.id, "Named", "demo", "high")  # fmt: skip
    assert restored.export_snapshot() == text


def test_the_snapshot_has_the_contract_fields_and_no_configuration() -> None:
    def secret_tool() -> str:
        """A tool that must not be exported."""
        return "x"

    session = Session(instructions="SECRET INSTRUCTIONS", tools=[secret_tool], model="demo")
    session.set_history(CONVERSATIONS[0])
    data = json.loads(session.export_snapshot())
    assert list(data) == ["version", "id", "title", "created", "updated", "model", "thinking",
                          "messages"]  # fmt: skip
    assert data["version"] == 1
    assert isinstance(data["created"], int) and data["updated"] >= data["created"] > 0
    text = session.export_snapshot()
    assert "SECRET" not in text and "secret_tool" not in text
    assert all(m["role"] != "system" for m in data["messages"])


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("{not json", "the snapshot is not valid JSON"),
        ('{"version": NaN}', "not valid JSON"),
        ("[1, 2]", "a snapshot must be a JSON object"),
        (json.dumps(snapshot(CONVERSATIONS[0], version=2)), "unsupported snapshot version 2"),
        (json.dumps(snapshot(CONVERSATIONS[0], version="1")), 'unsupported snapshot version "1"'),
        (json.dumps(snapshot(CONVERSATIONS[0], version=True)), "unsupported snapshot version true"),
        (json.dumps(snapshot([])), "the snapshot holds no messages"),
        (json.dumps(snapshot(None)), 'the snapshot has no "messages" array'),
        (json.dumps(snapshot([{"role": "bot", "content": "x"}])), 'unknown role "bot"'),
        (json.dumps(snapshot([{"role": "system", "content": "x"}])), "unexpected system message"),
        (
            json.dumps(snapshot([{"role": "user", "content": "x", "attachments": [
                {"name": "f.bin", "mime": "application/octet-stream", "data": "@@@@"}]}])),
            'attachment "f.bin" of message at index 0 is not valid Base64',
        ),
        (json.dumps(snapshot(CONVERSATIONS[0], created=-1)), '"created" must be a time'),
        (json.dumps(snapshot([{"role": "user", "content": "x"}, {"role": "assistant",
                    "content": "y", "feedback": "meh"}])), 'feedback that is not "good" or "bad"'),
        (json.dumps(snapshot([{"role": "user", "content": "x"}, {"role": "assistant",
                    "content": "y", "reasoning": 42}])), 'invalid "reasoning"'),
        (json.dumps(snapshot([{"role": "user", "content": "x"}, {"role": "assistant",
                    "content": "y", "reasoning_seconds": -3}])), 'invalid "reasoning_seconds"'),
        (json.dumps(snapshot(CONVERSATIONS[0], thinking="max")), '"thinking" must be one of'),
        (json.dumps(snapshot(CONVERSATIONS[0], id="")), '"id" must be text'),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)  # fmt: skip
def test_import_rejects_bad_snapshots_with_a_clear_error(text: str | bytes, error: str) -> None:
    session = Session()
    session.set_history(CONVERSATIONS[1])
    before = session.export_snapshot()
    with pytest.raises(SnapshotError, match=error.replace("(", r"\(")):
        session.import_snapshot(text)
    assert session.export_snapshot() == before


def test_attachments_over_the_budget_are_refused() -> None:
    data = base64.b64encode(b"x" * 3000).decode()
    messages = [{"role": "user", "content": f"file {i}", "attachments": [
        {"name": f"{i}.txt", "mime": "text/plain", "data": data}]} for i in range(2)]  # fmt: skip
    text = json.dumps(snapshot(messages))
    Session().import_snapshot(text, max_size_bytes=6000)
    with pytest.raises(SnapshotError, match="6,000 bytes, over the budget of 5,999 bytes"):
        Session().import_snapshot(text, max_size_bytes=5999)


def test_import_keeps_pending_tool_calls_and_runs_nothing() -> None:
    session = Session(tools=[lambda: pytest.fail("a restored call must not run")])
    session.import_snapshot(json.dumps(snapshot(CONVERSATIONS[1][:2])))
    assert session.pending_tool_calls == [CALL]


def test_no_module_can_execute_what_it_reads() -> None:
    for path in Path(widget.__file__).parent.rglob("*.py"):
        text = path.read_text()
        if path.name == "precompiled.py":
            # The records' methods compiled into the zip with the widget's own modules, read
            # from beside them and trusted as they are; never anything stored or sent.
            assert "os.path.join(os.path.dirname(__file__), SHIPPED)" in text
            continue
        for forbidden in ("import pickle", "import marshal", "eval(", "exec("):
            assert forbidden not in text, f"{path.name} uses {forbidden}"


# -- read_snapshot -----------------------------------------------------------------------


def test_reasoning_and_feedback_round_trip_and_are_never_sent_again() -> None:
    answer = {"role": "assistant", "content": "4", "reasoning": "2 and 2 make 4.",
              "reasoning_seconds": 3, "feedback": "good"}  # fmt: skip
    session = Session()
    session.set_history([{"role": "user", "content": "2+2?"}, answer])
    restored = Session()
    restored.import_snapshot(session.export_snapshot())
    assert restored.get_history()[1] == answer
    request = restored.request()
    assert request["messages"][-1] == {"role": "assistant", "content": "4"}


def test_read_snapshot_accepts_a_dict_or_json_text() -> None:
    data = snapshot(CONVERSATIONS[1])
    assert read_snapshot(data) == read_snapshot(json.dumps(data)) == data


@pytest.mark.parametrize(
    "value",
    [None, 5, "", "nope", [], {}, {"version": 1}, snapshot("x"),
     snapshot(CONVERSATIONS[0], version=2),
     snapshot([{"role": "user", "content": "x"}], version=None), snapshot([]),
     snapshot([{"role": "alien"}]), float("nan")],
)  # fmt: skip
def test_read_snapshot_gives_none_for_unsupported_shapes(value: object) -> None:
    assert read_snapshot(value) is None


def test_read_snapshot_drops_unknown_fields() -> None:
    data = snapshot([{"role": "user", "content": "hi", "mood": "happy"}], colour="red")
    result = read_snapshot(data)
    assert result is not None
    assert "colour" not in result
    assert result["messages"] == [{"role": "user", "content": "hi"}]


def test_read_snapshot_cuts_at_the_first_tool_call_without_a_result() -> None:
    messages = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "user", "content": "hello?"},
        {"role": "assistant", "content": "still here"},
    ]
    result = read_snapshot(snapshot(messages))
    assert result is not None and result["messages"] == messages[:3]


def test_read_snapshot_drops_a_failed_assistant_turn_at_the_end() -> None:
    messages = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "half an ans", "error": "The connection broke."},
        {"role": "user", "content": "two"},
        {"role": "assistant", "content": "", "error": "The model service failed."},
    ]
    result = read_snapshot(snapshot(messages))
    assert result is not None and result["messages"] == messages[:3]


def test_read_snapshot_returns_none_when_nothing_usable_is_left() -> None:
    orphan_start = [{"role": "assistant", "content": None, "tool_calls": [CALL]}]
    assert read_snapshot(snapshot(orphan_start)) is None


def test_allowed_tools_are_tool_names_strictly_and_dropped_forgivingly() -> None:
    base = {"version": 1, "id": "c1", "messages": [{"role": "user", "content": "hi"}]}
    assert from_dict({**base, "allowed_tools": ["book_table", "a-b"]}).allowed_tools == (
        "book_table", "a-b",
    )  # fmt: skip
    for bad in (["<script>"], "book_table", [1], ["x"] * 65, [""]):
        with pytest.raises(SnapshotError, match='"allowed_tools" must be a list'):
            from_dict({**base, "allowed_tools": bad})
    kept = read_snapshot({**base, "allowed_tools": ["<script>"]})
    assert kept is not None and "allowed_tools" not in kept  # the conversation itself is kept
