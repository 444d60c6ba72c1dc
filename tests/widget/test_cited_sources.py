"""Sources: `url_citation` annotations kept on the answer, safe links only, checked on restore."""

from __future__ import annotations

import json

import pytest

from widget import Session, SnapshotError
from widget.streams import AnswerBuilder


def cite(url: str, title: object = "A title") -> dict[str, object]:
    return {"type": "url_citation", "url_citation": {"url": url, "title": title}}


def test_an_answer_keeps_its_safe_cited_links_once_each_in_order() -> None:
    builder = AnswerBuilder()
    other_kind = {"type": "file_citation", "url_citation": {"url": "x"}}
    first = [cite("https://a.example/1"), cite("javascript:alert(1)"), other_kind]
    second = [cite("https://a.example/1", "again"), cite("http://b.example", None),
              cite("https://c d.example")]  # fmt: skip
    for delta in ({"content": "Hi"}, {"annotations": first}, {"annotations": second}):
        builder.feed({"choices": [{"index": 0, "delta": delta}]})
    assert builder.message()["sources"] == [
        {"url": "https://a.example/1", "title": "A title"},
        {"url": "http://b.example", "title": ""},
    ]


def test_an_answer_without_citations_has_no_sources() -> None:
    builder = AnswerBuilder()
    builder.feed({"choices": [{"index": 0, "delta": {"content": "Hi"}}]})
    assert "sources" not in builder.message()


@pytest.mark.parametrize("sources", [
    [{"url": "javascript:alert(1)", "title": "x"}],
    [{"url": "https://a.example", "title": 3}],
    "https://a.example",
])  # fmt: skip
def test_a_snapshot_with_unsafe_sources_is_refused_whole(sources: object) -> None:
    snapshot = {"version": 1, "messages": [{"role": "user", "content": "q"},
                                           {"role": "assistant", "content": "a",
                                            "sources": sources}]}  # fmt: skip
    session = Session()
    with pytest.raises(SnapshotError, match="source"):
        session.import_snapshot(json.dumps(snapshot))
    assert session.get_history() == []  # nothing restored
