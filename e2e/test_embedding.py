"""Embedding on another site: the host page's origin differs from the chat server's."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from pages import BOOT_TIMEOUT, HostSite, host_policy, log, widget
from playwright.sync_api import Page, expect
from servers import RunningServer


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[HostSite, RunningServer]]:
    host = HostSite()
    chat = RunningServer("--allowed-origin", host.origin)
    chat.wait_until_up()
    host.html = f"""<!doctype html><html><head><meta charset="utf-8">
<script type="module" src="{chat.url}/static/chat-widget.js"></script></head>
<body style="margin:0"><chat-widget endpoint="{chat.url}/api" history="local"
 storage-prefix="shopchat" style="height:90vh"></chat-widget></body></html>""".encode()
    yield host, chat
    chat.stop()
    host.close()


def test_the_widget_works_on_another_origin(
    page: Page, sites: tuple[HostSite, RunningServer]
) -> None:
    host, chat = sites
    page.goto(f"{host.origin}/product/42")
    page.wait_for_function(
        "customElements.whenDefined('chat-widget').then(() =>"
        " document.querySelector('chat-widget').session.ready).then(() => true)",
        timeout=BOOT_TIMEOUT,
    )
    widget(page).send("My name is Carol")
    widget(page).send("What is my name?")
    expect(log(page).locator("article[data-role=assistant]").nth(1)).to_contain_text("Carol")
    keys = page.evaluate("Object.keys(localStorage)")
    assert len(keys) == 2 and all(key.startswith("shopchat:") for key in keys)
    assert page.evaluate("location.origin") == host.origin != chat.url
    # A service worker may serve only its own origin: embedded elsewhere, none is registered.
    assert page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)") == 0


def test_an_origin_not_allowed_cannot_use_the_api(
    page: Page, sites: tuple[HostSite, RunningServer]
) -> None:
    _, chat = sites
    other = HostSite()
    other.html = b"<p>another site</p>"
    page.goto(other.origin)
    status = page.evaluate(
        """async url => { try { const r = await fetch(url + '/api/chat/completions', {
           method: 'POST', headers: {'content-type': 'application/json'},
           body: JSON.stringify({model: 'demo',
           messages: [{role: 'user', content: 'hi'}]})}); return r.status; }
           catch (e) { return 'blocked'; } }""",
        chat.url,
    )
    other.close()
    assert status == "blocked"  # refused by the server (403) and unreadable without CORS


def test_the_widget_works_under_the_documented_policy(
    page: Page, sites: tuple[HostSite, RunningServer]
) -> None:
    """Tried on main: under the policy the docs gave, the worker never started."""
    host, chat = sites
    violations: list[str] = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)  # fmt: skip
    usual_page = host.html  # its style attributes would be refused too: the host page's own
    strict_page = re.sub(rb' style="[^"]*"', b"", usual_page)
    host.html, host.headers = strict_page, {"content-security-policy": host_policy(chat.url)}
    try:
        page.goto(f"{host.origin}/strict")
        widget(page).send("My name is Dora")
        expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Dora")
        assert violations == []
    finally:
        host.html, host.headers = usual_page, {}


def test_a_policy_that_blocks_webassembly_is_named_within_seconds(
    page: Page, sites: tuple[HostSite, RunningServer]
) -> None:
    """Tried on main: the widget showed its loading state for three minutes and said nothing."""
    host, chat = sites
    host.headers = {"content-security-policy": host_policy(chat.url, webassembly=False)}
    try:
        page.goto(f"{host.origin}/without-webassembly")
        alert = page.get_by_role("alert")  # not a loading bar for ever: what to allow, at once
        expect(alert).to_contain_text("'wasm-unsafe-eval'", timeout=10_000)
        expect(alert).to_contain_text("Content-Security-Policy")
        expect(page.get_by_role("progressbar")).to_have_count(0)
    finally:
        host.headers = {}


def test_a_runtime_that_does_not_load_is_named(
    page: Page, sites: tuple[HostSite, RunningServer]
) -> None:
    """The worker imports Pyodide's glue early, beside `loadPyodide` (static/python-runtime.js):
    when it cannot load, the person is told so, not left with a bar that never fills."""
    host, _ = sites
    glue = re.compile(r".*/runtime/pyodide/pyodide\.asm\.js$")
    page.context.route(glue, lambda route: route.fulfill(status=404, body="not here"))
    page.goto(f"{host.origin}/without-its-glue")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("The Python runtime did not load", timeout=BOOT_TIMEOUT)
    expect(alert).to_contain_text("make serve")
    expect(page.get_by_role("progressbar")).to_have_count(0)
