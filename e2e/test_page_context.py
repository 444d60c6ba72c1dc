"""What the host page says about itself reaches the model with each message, read fresh at
each send, after the instructions; it is shown nowhere and never kept."""

from __future__ import annotations

import json

from pages import chat_request_bodies, host_page, widget
from playwright.sync_api import Page, expect

CONTEXT = """
window.reads = 0;
document.querySelector('chat-widget').pageContext = () => {
  window.reads += 1;
  return { page: location.pathname, cart: window.cart ?? [], read: window.reads };
};"""


def test_the_page_context_is_read_at_each_send_and_never_shown_or_kept(page: Page) -> None:
    bodies = chat_request_bodies(page)
    host_page(page, 'history="local" instructions="Be brief."', after=CONTEXT)
    widget(page).send("My name is Alice")
    page.evaluate("window.cart = ['red shoes']")
    widget(page).send("What is my name?")
    first, second = bodies[0]["messages"], bodies[-1]["messages"]
    assert first[0] == {"role": "system", "content": "Be brief."}
    assert first[1] == {"role": "system", "content":
                        'Page context: {"page":"/e2e-host","cart":[],"read":1}'}  # fmt: skip
    assert first[2] == {"role": "user", "content": "My name is Alice"}
    assert (
        second[1]["content"] == 'Page context: {"page":"/e2e-host","cart":["red shoes"],"read":2}'
    )
    assert [m["role"] for m in second].count("system") == 2  # the old context is not kept either
    log = page.get_by_role("log", name="Conversation")
    expect(log).to_contain_text("Alice")
    assert "Page context" not in log.inner_text() and "red shoes" not in log.inner_text()
    kept = page.evaluate("JSON.stringify(Object.entries(localStorage))")
    saved = json.dumps(page.evaluate("document.querySelector('chat-widget').session.save()"))
    for stored in (kept, saved):
        assert "red shoes" not in stored and "Page context" not in stored


def test_a_page_context_that_is_not_an_object_is_left_out_with_a_warning(page: Page) -> None:
    bodies = chat_request_bodies(page)
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    host_page(
        page,
        'history="memory"',
        after="document.querySelector('chat-widget').pageContext = () => 'a string';",
    )
    widget(page).send("Hello")
    assert [m["role"] for m in bodies[-1]["messages"]] == ["user"]
    assert any("pageContext was left out" in text for text in warnings), warnings
