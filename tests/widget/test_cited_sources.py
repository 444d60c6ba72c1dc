"""Sources: `url_citation` annotations kept on the answer, safe links only, checked on restore."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from widget import Session, SnapshotError
from widget.sources import is_safe_link
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


#: hosts and ports a browser's URL parser (WHATWG) refuses, or that Python's `urlsplit` raised on
UNPARSABLE = [
    "http://[::1", "http://[::1]:99999/", "http://host:port/", "http://[fe80::1%25eth0]/",
    "http://%zz/", "http://256.256.256.256/", "http://4294967296/",
    "http://1.2.3.09/", "http://ex<ample.com/", "https://a^b.com/", "http://a|b/",
    "http://a%2fb.com/", "https://xn--a.com/", "http://[1:2:3]/", "http://09/",
]  # fmt: skip
PARSABLE = [
    "http://[::1]/", "http://[::1]:80/", "http://1.2.3.4/", "http://0x7f.1/", "http://1.2.3/",
    "http://4294967295/", "http://0x7g/", "https://user:pw@example.com/x", "https://bücher.example/",
    "https://例え.テスト/", "http://example.com./", "http://example.com:65535/", "http://%41.com/",
    "https://xn--bcher-kva.example/",
]  # fmt: skip


def test_a_source_whose_url_cannot_be_parsed_is_dropped_and_the_answer_kept() -> None:
    """`http://[::1` made Python's urlsplit raise, and the whole turn ended in an error."""
    builder = AnswerBuilder()
    cited = [cite(url) for url in UNPARSABLE] + [cite("https://kept.example/")]
    for delta in ({"content": "The answer"}, {"annotations": cited}, {"content": " goes on."}):
        builder.feed({"choices": [{"index": 0, "delta": delta}]})
    message = builder.message()
    assert message["content"] == "The answer goes on."
    assert message["sources"] == [{"url": "https://kept.example/", "title": "A title"}]


def test_links_kept_are_those_a_browser_parses(tmp_path: Path) -> None:
    """Python's verdict against Node's WHATWG `URL`, the parser a browser uses."""
    urls = UNPARSABLE + PARSABLE
    script = "for (const u of JSON.parse(process.argv[1])) { let ok = true; " \
             "try { ok = /^https?:$/.test(new URL(u).protocol); } catch { ok = false; } " \
             "console.log(ok ? 1 : 0); }"  # fmt: skip
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the WHATWG parser to compare with is missing")
    said = subprocess.run([node, "-e", script, json.dumps(urls)], capture_output=True, text=True,
                          check=True).stdout.split()  # fmt: skip
    browser = {url: verdict == "1" for url, verdict in zip(urls, said, strict=True)}
    assert browser == {url: url in PARSABLE for url in urls}  # the lists say what a browser does
    assert {url: is_safe_link(url) for url in urls} == browser


def test_a_kept_answer_with_a_link_no_browser_parses_is_restored_without_it() -> None:
    """An older version kept such links: the conversation is not refused for it."""
    sources = [{"url": "http://[::1", "title": "x"}, {"url": "https://a.example/", "title": "y"}]
    snapshot = {"version": 1, "id": "abc", "title": "A chat", "created": 1, "updated": 2,
                "model": "demo", "thinking": "low", "messages": [{"role": "user", "content": "q"},
                                           {"role": "assistant", "content": "a",
                                            "sources": sources}]}  # fmt: skip
    session = Session()
    session.import_snapshot(json.dumps(snapshot))
    assert session.get_history()[1]["sources"] == [{"url": "https://a.example/", "title": "y"}]
