"""Offline, served from the same origin: after one visit the page, the widget and its history
load with the network off; sending waits for the network and says so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pages import BOOT_TIMEOUT, READY, log
from playwright.sync_api import Browser, Page, expect
from servers import RunningServer

#: a conversation whose tool result carries a UI: drawn again offline too
WITH_UI = {"version": 1, "id": "with-ui", "title": "Stock offline", "created": 1, "updated": 2,
           "model": "demo", "thinking": "off", "messages": [
    {"role": "user", "content": "Stock?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "stock", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "name": "stock", "content": "Alder: 3",
     "ui": {"v": 1, "text": "Alder: 3", "root": {"type": "Table", "caption": "Stock",
            "columns": [{"key": "n", "label": "Name"}], "rows": [{"n": "Alder"}]}}},
    {"role": "assistant", "content": "Three Alders."}]}  # fmt: skip
KEPT = """async () => { const c = await caches.open('chatkeep-current');
  return Boolean(await c.match(new URL('/static/chatkeep-offline-build', location.href))); }"""


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    """A context that allows service workers (the others block them)."""
    context = browser.new_context(base_url=base_url, service_workers="allow")
    yield context.new_page()
    context.close()


def test_after_one_visit_the_chat_and_its_history_work_offline(page: Page) -> None:
    page.goto("/")
    page.wait_for_function(READY, timeout=BOOT_TIMEOUT)
    page.get_by_role("textbox", name="Message").fill("My name is Olga")
    page.get_by_role("button", name="Send").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Olga")
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    page.evaluate("s => document.querySelector('chat-widget').session.restore(s)", WITH_UI)
    page.evaluate("document.querySelector('chat-widget').session.restore(null)")
    page.wait_for_function(KEPT, timeout=60_000)  # the build is cached whole
    build = page.evaluate("fetch('/static/offline.json').then(r => r.json()).then(m => m.build)")
    offline = [key for key in page.evaluate("caches.keys()") if key.startswith("chatkeep-")]
    assert sorted(offline) == sorted(["chatkeep-current", f"chatkeep-{build}"])

    page.context.set_offline(True)
    page.reload()
    page.wait_for_function(READY, timeout=BOOT_TIMEOUT)
    notice = page.get_by_role("status").filter(has_text="offline")
    expect(notice).to_be_visible()
    expect(page.get_by_role("button", name="Send")).to_be_disabled()
    page.get_by_role("button", name="History").click()
    page.get_by_role("list", name="Conversations", exact=True).get_by_role(
        "button", name="My name is Olga"
    ).click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Olga")
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Stock offline").click()
    expect(log(page).get_by_role("table", name="Stock")).to_be_visible()  # its UI, offline

    page.context.set_offline(False)
    expect(notice).to_be_hidden()
    expect(page.get_by_role("button", name="Send")).to_be_enabled()


def test_another_origin_embedding_registers_no_service_worker(page: Page) -> None:
    # The demo page registers one on its own origin; a page that is not the widget's origin
    # is covered by test_embedding.py, where the widget must not try (it could not serve it).
    page.goto("/healthz")
    assert page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)") == 0


def test_a_returning_visit_asks_the_network_for_no_content_hashed_file(
    page: Page, server: RunningServer
) -> None:
    """Kept a year under its build's name, the bundle, the worker and the runtime are not asked
    for again, not even revalidated: the entry and the offline manifest go to the network."""
    page.goto("/")
    page.wait_for_function(READY, timeout=BOOT_TIMEOUT)
    page.wait_for_function(KEPT, timeout=60_000)  # the service worker stored the build too
    seen = len(server.output)
    page.goto("/")
    page.wait_for_function(READY, timeout=BOOT_TIMEOUT)
    asked = [line for line in server.output[seen:].splitlines() if "/static/" in line]
    assert any("/static/chat-widget.js" in line for line in asked)
    assert not [line for line in asked if "/static/v/" in line], asked
