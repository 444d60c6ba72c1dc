"""consent="ask": nothing in the page's storage (localStorage, Cache Storage, a service worker,
IndexedDB) until the person agrees; then the conversation so far is kept; revoking forgets."""

from __future__ import annotations

from pages import host_page, widget
from playwright.sync_api import Page, expect

KEPT = """async () => ({
  local: Object.keys(localStorage).filter(key => key.startsWith('chatkeep:')),
  caches: await caches.keys(),
  workers: (await navigator.serviceWorker.getRegistrations()).length,
  databases: (await indexedDB.databases()).map(database => database.name),
})"""


def test_nothing_is_stored_before_consent_and_all_of_it_after(page: Page) -> None:
    host_page(page, 'history="local" consent="ask"')
    keep = page.get_by_role("button", name="Keep my conversations")
    expect(keep).to_be_visible()
    widget(page).send("My name is Alice")
    # The runtime snapshot the next visit would boot from: not kept, and it says so.
    assert page.evaluate("document.querySelector('chat-widget').session.snapshotKept()") is False
    # The turn settled and stored (in memory): what follows an answer has been written now.
    page.evaluate("document.querySelector('chat-widget').session.settled()")
    assert page.evaluate(KEPT) == {"local": [], "caches": [], "workers": 0, "databases": []}

    page.get_by_role("button", name="New conversation").click()
    keep.click()
    expect(keep).to_be_hidden()
    kept = page.evaluate(KEPT)
    assert "chatkeep:consent" in kept["local"]
    assert any(key.startswith("chatkeep:meta:") for key in kept["local"])  # the conversation
    page.reload()
    widget(page).wait_ready()
    recent = page.get_by_role("list", name="Recent conversations")
    expect(recent.get_by_role("button", name="My name is Alice")).to_be_visible()
    expect(page.get_by_role("button", name="Keep my conversations")).to_be_hidden()

    page.evaluate("document.querySelector('chat-widget').revokeConsent()")
    assert page.evaluate(KEPT)["local"] == []
    page.reload()
    widget(page).wait_ready()
    expect(page.get_by_role("button", name="Keep my conversations")).to_be_visible()
    expect(recent).to_be_hidden()
