"""Hostile input: arbitrary JSON, mutated snapshots, our own broken texts and JSONTestSuite.

Only the documented error type may escape, and a failed call must leave the session
exactly as it was.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from corpora import corpus_path
from hypothesis import example, given
from hypothesis import strategies as st

from widget import HistoryError, Session, SnapshotError, read_snapshot

VALID = {
    "version": 1, "id": "conv1", "title": "Weather", "created": 5, "updated": 9,
    "model": "demo", "thinking": "off",
    "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": "22°C"},
        {"role": "assistant", "content": "Warm."},
        {"role": "user", "content": "file", "attachments": [
            {"name": "a.txt", "mime": "text/plain", "data": "aGVsbG8="}]},
    ],
}  # fmt: skip

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**30, max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
    | st.sampled_from(["user", "assistant", "tool", "system", "\ud800", "c1", ""])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(["role", "content", "tool_calls", "tool_call_id", "name", "id",
                         "function", "arguments", "attachments", "data", "mime", "version",
                         "messages", "error", "x"]) | st.text(max_size=5),
        inner, max_size=5),
    max_leaves=20,
)  # fmt: skip
DEEP = [[[]]]
for _ in range(5000):
    DEEP = [DEEP]


def prepared_session() -> tuple[Session, tuple[Any, ...]]:
    session = Session(instructions="be nice")
    session.import_snapshot(json.dumps(VALID))
    return session, state_of(session)


def state_of(session: Session) -> tuple[Any, ...]:
    live = session.conversation
    return (session.export_snapshot(), session.get_history(), session.pending_tool_calls,
            live.title, live.model, live.thinking, live.id)  # fmt: skip


@given(json_values)
@example([{"role": "user", "content": "\udfff"}])
@example([{"role": "user", "content": "x", "n": 10**5000}])
@example([{"role": "user", "content": float("nan")}])
def test_set_history_raises_only_history_error_and_changes_nothing(value: Any) -> None:
    session, before = prepared_session()
    try:
        session.set_history(value)
    except HistoryError:
        assert state_of(session) == before
    else:
        # Whatever is accepted is a conversation that survives a snapshot round trip.
        assert len(session.get_history()) == len([m for m in value if m["role"] != "system"])
        if session.get_history():
            copy_of = Session()
            copy_of.import_snapshot(session.export_snapshot())
            assert copy_of.get_history() == session.get_history()


def test_deeply_nested_messages_are_refused() -> None:
    session, before = prepared_session()
    with pytest.raises(HistoryError):
        session.set_history([{"role": "user", "content": DEEP}])
    with pytest.raises(HistoryError):
        session.set_history(DEEP)
    assert state_of(session) == before


@st.composite
def mutated_snapshots(draw: st.DrawFn) -> Any:
    """A valid snapshot with one part replaced, removed or added."""
    data = copy.deepcopy(VALID)
    path: list[Any] = []
    node: Any = data
    while isinstance(node, (dict, list)) and node and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        path.append(key)
        node = node[key]
    parent: Any = data
    for key in path[:-1]:
        parent = parent[key]
    action = draw(st.sampled_from(["replace", "delete", "add"]))
    if not path:
        return draw(json_values)
    if action == "replace":
        parent[path[-1]] = draw(json_values)
    elif action == "delete":
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[draw(st.text(max_size=8))] = draw(json_values)
    else:
        parent.insert(path[-1], draw(json_values))
    return data


def as_text(value: Any) -> str:
    return json.dumps(value, allow_nan=True)


@given(mutated_snapshots() | json_values)
def test_import_snapshot_raises_only_snapshot_error_and_changes_nothing(value: Any) -> None:
    session, before = prepared_session()
    try:
        session.import_snapshot(as_text(value))
    except SnapshotError:
        assert state_of(session) == before


@given(mutated_snapshots() | json_values)
def test_read_snapshot_never_raises(value: Any) -> None:
    result = read_snapshot(value)
    assert result is None or result["version"] == 1
    try:
        text = json.dumps(value, allow_nan=False)
    except ValueError:  # NaN or Infinity: not JSON text, so the text form is refused
        assert read_snapshot(as_text(value)) is None
    else:
        assert read_snapshot(text) == result


@pytest.mark.parametrize(
    "text",
    ['{"version": 1e400}', '{"version": -Infinity}', "[" * 50_000, '"\\ud800"',
     '{"version": 1, "id": "\\udc00", "messages": [{"role": "user", "content": "x"}]}',
     "1" * 5000, '{"a": ' * 3000 + "1" + "}" * 3000],
)  # fmt: skip
def test_pathological_json_text(text: str) -> None:
    session, before = prepared_session()
    with pytest.raises(SnapshotError):
        session.import_snapshot(text)
    assert state_of(session) == before
    assert read_snapshot(text) is None


VALID_TEXT = json.dumps(VALID)
BROKEN_SNAPSHOT_TEXTS = {
    # The classes JSONTestSuite covers, written here so they run in every clone.
    "trailing garbage": VALID_TEXT + " x",
    "a second document": VALID_TEXT + VALID_TEXT,
    "trailing comma": VALID_TEXT[:-1] + ",}",
    "unclosed object": VALID_TEXT[:-1],
    "single quotes": VALID_TEXT.replace('"title"', "'title'"),
    "a comment": VALID_TEXT.replace('"title"', '/* x */ "title"'),
    "a byte order mark": "\ufeff" + VALID_TEXT,
    "a raw control character in a string": VALID_TEXT.replace("Weather", "Wea\u0001ther"),
    "an unescaped newline in a string": VALID_TEXT.replace("Weather", "Wea\nther"),
    "a lone high surrogate escape": VALID_TEXT.replace("weather?", "\\ud800"),
    "a lone low surrogate escape": VALID_TEXT.replace("weather?", "x\\udfff"),
    "a huge exponent": VALID_TEXT.replace('"created": 5', '"created": 1e999'),
    "a number with 5000 digits": VALID_TEXT.replace('"created": 5', '"created": ' + "9" * 5000),
    "a leading zero": VALID_TEXT.replace('"created": 5', '"created": 05'),
    "NaN": VALID_TEXT.replace('"created": 5', '"created": NaN'),
    "Infinity": VALID_TEXT.replace('"created": 5', '"created": -Infinity'),
    "deep nesting in a message": VALID_TEXT.replace('"weather?"', "[" * 10_000 + "]" * 10_000),
    "deep nesting at the top": "[" * 100_000,
    "a version from the future": VALID_TEXT.replace('"version": 1', '"version": 999'),
    "a version as text": VALID_TEXT.replace('"version": 1', '"version": "1"'),
    "hex number": VALID_TEXT.replace('"created": 5', '"created": 0x5'),
    "empty": "",
    "only whitespace": " \n\t ",
}
BROKEN_SNAPSHOT_BYTES = {
    "invalid UTF-8": VALID_TEXT.replace("Weather", "W\u00e9ather").encode("latin-1"),
    "an overlong UTF-8 sequence": VALID_TEXT.encode().replace(b"Weather", b"We\xc0\xafther"),
    "UTF-16": VALID_TEXT.encode("utf-16"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_SNAPSHOT_TEXTS))
def test_own_broken_snapshot_texts_are_refused(case: str) -> None:
    session, before = prepared_session()
    text = BROKEN_SNAPSHOT_TEXTS[case]
    with pytest.raises(SnapshotError):
        session.import_snapshot(text)
    assert state_of(session) == before
    assert read_snapshot(text) is None


@pytest.mark.parametrize("case", sorted(BROKEN_SNAPSHOT_BYTES))
def test_own_broken_snapshot_bytes_are_refused(case: str) -> None:
    session, before = prepared_session()
    with pytest.raises(SnapshotError):
        session.import_snapshot(BROKEN_SNAPSHOT_BYTES[case])
    assert state_of(session) == before
    assert read_snapshot(BROKEN_SNAPSHOT_BYTES[case]) is None


def test_the_valid_base_of_the_broken_texts_is_accepted() -> None:
    # Guards the cases above: each is refused for its own flaw, not for a flaw of the base.
    session = Session()
    session.import_snapshot(VALID_TEXT)
    assert read_snapshot(VALID_TEXT) is not None


def parsing_cases() -> list[Path]:
    cases = sorted(corpus_path("json", "test_parsing").iterdir())
    assert len(cases) > 300, "JSONTestSuite's test_parsing looks incomplete"
    return cases


def test_every_json_test_suite_case_is_refused_as_a_snapshot() -> None:
    session, before = prepared_session()
    for case in parsing_cases():
        data = case.read_bytes()
        with pytest.raises(SnapshotError):
            session.import_snapshot(data)
        assert state_of(session) == before, case.name
        assert read_snapshot(data) is None, case.name
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        assert read_snapshot(text) is None, case.name
