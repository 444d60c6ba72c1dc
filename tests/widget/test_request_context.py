"""The host page's context in a request: after the instructions, compact, checked, never kept."""

from __future__ import annotations

import pytest

from widget import Session
from widget.request_bodies import PAGE_CONTEXT_LIMIT, chat_request, page_context


def test_the_context_follows_the_instructions_as_a_system_message() -> None:
    body = chat_request([{"role": "user", "content": "hi"}], instructions="Be brief.",
                        model="m", thinking="off", page_context='{"page":"/shoes"}')  # fmt: skip
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": 'Page context: {"page":"/shoes"}'},
        {"role": "user", "content": "hi"},
    ]


def test_the_context_is_a_compact_json_object_or_a_clear_mistake() -> None:
    assert page_context(None) is None
    assert page_context('{ "page" : "/ß" }') == '{"page":"/ß"}'
    with pytest.raises(TypeError, match="must be an object"):
        page_context('["a list"]')
    with pytest.raises(TypeError, match="not JSON"):
        page_context("{nope")
    with pytest.raises(TypeError, match=f"at most {PAGE_CONTEXT_LIMIT:,}"):
        page_context('{"text": "' + "x" * PAGE_CONTEXT_LIMIT + '"}')


def test_a_session_sends_it_but_its_snapshot_never_holds_it() -> None:
    session = Session(instructions="Be brief.")
    session.page_context = '{"cart":["red shoes"]}'
    session.conversation.add({"role": "user", "content": "hi"})
    assert session.request()["messages"][1]["content"] == 'Page context: {"cart":["red shoes"]}'
    assert "red shoes" not in session.export_snapshot()
