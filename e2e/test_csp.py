"""Content-Security-Policy without noise: a site with CSP reporting gets no report a visit.

The demo page compiles Pyodide's WebAssembly for its worker (Chromium caches a page's compiled
code, never a worker's), which its own `script-src 'self'` forbade: a violation on every load.
A host page whose policy forbids it gets one refusal, then the page stops trying (the worker
compiles instead)."""

from __future__ import annotations

from pages import HOST_PAGE, widget
from playwright.sync_api import Page, Route, expect

#: every violation the page reports, as `directive blocked-uri`
VIOLATIONS = """window.violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.violations.push(`${e.effectiveDirective} ${e.blockedURI}`));"""


def test_the_demo_page_reports_no_violation(page: Page, base_url: str) -> None:
    page.add_init_script(VIOLATIONS)
    for _ in range(2):  # a first visit, then a returning one
        page.goto(base_url + "/")
        widget(page).wait_ready()
        widget(page).send("Hello")
        expect(page.locator("chat-widget article[data-role=assistant]")).to_contain_text("Hello")
        assert page.evaluate("window.violations") == []


def test_a_page_that_forbids_webassembly_is_refused_once_then_not_asked(
    page: Page, base_url: str
) -> None:
    policy = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
              "worker-src 'self' blob:; img-src 'self' data:")  # fmt: skip
    html = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Strict</title>
<script type="module" src="/static/chat-widget.js"></script></head>
<body><main><h1>Strict</h1><chat-widget history="memory"></chat-widget></main></body></html>"""

    def strict(route: Route) -> None:
        route.fulfill(body=html, content_type="text/html",
                      headers={"content-security-policy": policy})  # fmt: skip

    page.route(f"**{HOST_PAGE}", strict)
    page.add_init_script(VIOLATIONS)
    page.goto(base_url + HOST_PAGE)
    widget(page).wait_ready()  # the worker compiled it: the chat works all the same
    widget(page).send("Still fine?")
    expect(page.locator("chat-widget article[data-role=assistant]")).to_contain_text("fine")
    assert page.evaluate("window.violations") == ["script-src wasm-eval"]
    page.reload()
    widget(page).wait_ready()
    assert page.evaluate("window.violations") == []  # refused once: not asked again
