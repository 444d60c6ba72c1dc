"""A Chromium page holding one `<chat-widget>` on a chat server, ready: for the browser rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.testing import CHROMIUM_FLAGS

PAGE = "/bench-widget"
HOST = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title>
<script type="module" src="/static/chat-widget.js"></script></head>
<body><chat-widget ATTRIBUTES style="height:90vh"></chat-widget></body></html>"""
READY = ("customElements.whenDefined('chat-widget').then(() =>"
         " document.querySelector('chat-widget').session.ready).then(() => true)")  # fmt: skip


def launch(playwright: Any) -> Any:
    """Debian's Chromium where it is installed, else Playwright's own."""
    options: dict[str, Any] = {"args": list(CHROMIUM_FLAGS)}
    if Path("/usr/bin/chromium").exists():
        options["executable_path"] = "/usr/bin/chromium"
    return playwright.chromium.launch(**options)


def widget_page(browser: Any, server_url: str, attributes: str, init_script: str = "") -> Any:
    """A new context's page with the widget (`attributes`), once Python is ready."""
    page = browser.new_context(service_workers="block").new_page()
    if init_script:
        page.add_init_script(init_script)
    html = HOST.replace("ATTRIBUTES", attributes)
    page.route(f"**{PAGE}", lambda route: route.fulfill(body=html, content_type="text/html"))
    page.goto(server_url + PAGE)
    page.wait_for_function(READY, timeout=120_000)
    return page
