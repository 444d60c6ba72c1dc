"""Sharing a conversation by a link, between two browsers (two contexts), on SQLite and on
PostgreSQL: the link opens it read-only exactly as it looked; the store holds no word of it;
"Stop sharing", expiry, a tampered ciphertext and a wrong key all say the one sentence and
store nothing; "Continue this conversation" puts it in the history; a stranger's hostile
conversation runs no script."""

from __future__ import annotations

import contextlib
import re
import sqlite3
from typing import Any

import pytest
from guards import TRAPS
from pages import BOOT_TIMEOUT, host_page, stored_conversations, stored_keys
from playwright.sync_api import Browser, Page, expect
from synced_store import Synced
from test_accessibility import violations
from test_rendering import AUDIT, hostile_inputs, settle_media
from test_synced_history import cued, device, round_done, states

GONE = "This shared conversation is no longer available."
ANSWER = """## Tides

The pull falls off as $r^{-3}$, so the moon wins over the sun.

```python
print("high water")
```
"""
SNAPSHOT = {
    "version": 1, "id": "tides", "title": "Why two tides", "created": 1, "updated": 2,
    "model": "demo", "thinking": "off",
    "messages": [
        {"role": "user", "content": "Why are there two tides a day?"},
        {"role": "assistant", "content": ANSWER, "reasoning": "Think of the moon.",
         "sources": [{"url": "https://tides.example/tables", "title": "Tide tables"}]},
        {"role": "user", "content": "When is high water?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "t1", "type": "function",
         "function": {"name": "tide_times", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "t1", "name": "tide_times", "content": "06:10, 18:32",
         "ui": {"v": 1, "text": "06:10, 18:32", "root": {"type": "Card", "children": [
             {"type": "Table", "caption": "Tide times", "columns": [{"key": "at", "label": "At"}],
              "rows": [{"at": "06:10"}, {"at": "18:32"}]}], "actions": [
             {"type": "Button", "label": "Remind me",
              "action": {"kind": "message", "text": "Remind me"}}]}}},
        {"role": "assistant", "content": "Twice, as the table shows."},
    ],
}  # fmt: skip


pytestmark = pytest.mark.usefixtures("devices_closed")


def browser_of(browser: Browser, synced: Synced, fragment: str = "", script: str = "") -> Page:
    """A browser of its own (its own localStorage) on the server's page."""
    page = browser.new_context(service_workers="block").new_page()
    page.set_default_timeout(BOOT_TIMEOUT)
    if script:
        page.add_init_script(script)
    host_page(page, 'history="local"', base=synced.chat.url, fragment=fragment)
    return page


def shared(page: Page, snapshot: dict[str, Any]) -> str:
    """The conversation opened and shared with the header's "Share": the link's fragment."""
    page.evaluate("s => document.querySelector('chat-widget').session.restore(s)", snapshot)
    page.get_by_role("button", name="Share", exact=True).click()
    dialog = page.get_by_role("dialog", name="Share this conversation")
    link = dialog.get_by_role("textbox", name="Link")
    address = re.escape(page.url.split("#")[0])
    expect(link).to_have_value(re.compile(address + r"#chatkeep-share=[\w-]{24}\.[\w-]{43}$"))
    dialog.get_by_role("button", name="Copy link").click()
    expect(dialog.get_by_role("status")).to_have_text("Link copied.")
    value = link.input_value()
    dialog.get_by_role("button", name="Close").click()
    return value.split("#", 1)[1]


def shared_page(page: Page) -> Any:
    return page.get_by_role("region", name="Shared conversation")


def share_bytes(synced: Synced) -> bytes:
    """Everything the store holds, shares included."""
    if synced.postgres is None:
        return b"".join(p.read_bytes() for p in synced.path.parent.glob("sync.db*"))
    import psycopg

    with psycopg.connect(synced.url) as db:
        rows = db.execute("SELECT id, data, token FROM sync_shares").fetchall()
    return b"".join(r[0].encode() + bytes(r[1]) + r[2].encode() for r in rows)


def in_the_store(synced: Synced, sql: str) -> None:
    if synced.postgres is None:
        with contextlib.closing(sqlite3.connect(synced.path, timeout=10)) as db:
            db.execute(sql.replace("%s", "?"))
            db.commit()
        return
    import psycopg

    with psycopg.connect(synced.url) as db:
        db.execute(sql)


def test_a_shared_conversation_opens_elsewhere_exactly_as_it_looked(
    browser: Browser, synced: Synced
) -> None:
    owner = browser_of(browser, synced)
    fragment = shared(owner, SNAPSHOT)
    assert b"tides" not in share_bytes(synced).lower() and b"moon" not in share_bytes(synced)

    reader = browser_of(browser, synced, fragment)
    assert "#" not in reader.url  # the key left the address before anything else ran
    region = shared_page(reader)
    expect(region.get_by_role("heading", name="Why two tides")).to_be_visible()
    answer = region.locator("article[data-role=assistant] .body").first
    expect(answer.locator(".katex")).to_have_count(1)  # math, code and sources as drawn there
    expect(answer.locator("pre code")).to_contain_text('print("high water")')
    expect(region.get_by_role("link", name="Tide tables")).to_have_attribute(
        "href", "https://tides.example/tables"
    )
    theirs = owner.locator("chat-widget .transcript article[data-role=assistant] .body")
    assert answer.inner_html() == theirs.first.inner_html()
    assert violations(reader) == []  # axe: the shared page as a person meets it
    expect(region.get_by_role("button", name="Edit")).to_have_count(0)  # read-only
    expect(region.get_by_role("table", name="Tide times").get_by_role("row")).to_have_count(3)
    expect(region.get_by_role("button", name="Remind me")).to_be_disabled()  # its UI, inert
    assert stored_keys(reader) == []  # nothing kept before "Continue this conversation"

    region.get_by_role("button", name="Continue this conversation").click()
    expect(region).to_be_hidden()
    [kept] = stored_conversations(reader)
    assert kept["messages"] == SNAPSHOT["messages"] and kept["id"] != "tides"
    assert "shares" not in kept
    reader.get_by_role("button", name="History").click()
    expect(reader.get_by_role("button", name="Why two tides")).to_be_visible()


def test_stopped_expired_tampered_or_wrongly_keyed_links_say_one_sentence(
    browser: Browser, synced: Synced
) -> None:
    owner = browser_of(browser, synced)
    fragment = shared(owner, {**SNAPSHOT, "id": "tides-2"})
    share_id, key = fragment.removeprefix("chatkeep-share=").split(".")
    owner.get_by_role("button", name="History").click()
    row = owner.get_by_role("listitem").filter(has_text="Why two tides")
    expect(row).to_contain_text("Shared")
    row.get_by_role("button", name="Share", exact=True).click()  # unchanged: the same link again
    dialog = owner.get_by_role("dialog", name="Share this conversation")
    expect(dialog.get_by_role("textbox", name="Link")).to_have_value(f"{owner.url}#{fragment}")
    assert violations(owner) == []  # axe: the dialog, over the history page
    dialog.get_by_role("button", name="Close").click()
    owner.get_by_role("button", name="Back").click()

    def opened_says_gone(link: str) -> None:
        reader = browser_of(browser, synced, f"chatkeep-share={link}")
        region = shared_page(reader)
        expect(region.get_by_role("status")).to_have_text(GONE)
        expect(region.get_by_text("Shared with you")).to_be_hidden()  # and nothing else
        expect(region.get_by_role("log")).to_be_hidden()
        expect(region.get_by_role("button", name="Continue this conversation")).to_be_hidden()
        assert stored_keys(reader) == []
        reader.context.close()

    wrong = key[:-2] + ("AA" if not key.endswith("AA") else "BB")
    opened_says_gone(f"{share_id}.{wrong}")
    in_the_store(synced, "UPDATE sync_shares SET data = data || data")  # tampered
    opened_says_gone(f"{share_id}.{key}")

    fragment = shared(owner, {**SNAPSHOT, "id": "tides-3", "title": "Expiring"})
    in_the_store(synced, "UPDATE sync_shares SET expires = 1")  # as time passing would
    opened_says_gone(fragment.removeprefix("chatkeep-share="))

    fragment = shared(owner, {**SNAPSHOT, "id": "tides-4", "title": "Stopped"})
    owner.get_by_role("button", name="Share", exact=True).click()
    dialog = owner.get_by_role("dialog", name="Share this conversation")
    expect(dialog.get_by_role("textbox", name="Link")).to_have_value(
        f"{owner.url.split('#')[0]}#{fragment}"
    )
    dialog.get_by_role("button", name="Stop sharing").click()  # the same link, stopped
    expect(dialog.get_by_role("status")).to_contain_text("Sharing stopped")
    opened_says_gone(fragment.removeprefix("chatkeep-share="))


@pytest.mark.parametrize("source", ["own", "public corpora"])
def test_a_hostile_shared_conversation_runs_nothing(
    browser: Browser, synced: Synced, source: str
) -> None:
    payloads = hostile_inputs(source)
    messages: list[dict[str, Any]] = []
    for payload in payloads:
        messages += [
            {"role": "user", "content": payload},
            {"role": "assistant", "content": payload},
        ]
    hostile = {**SNAPSHOT, "id": "hostile", "title": "<img src=x onerror=alert(1)>",
               "messages": messages}  # fmt: skip
    fragment = shared(browser_of(browser, synced), hostile)
    reader = browser_of(browser, synced, fragment, script=TRAPS)
    outside: list[str] = []
    reader.on("dialog", lambda dialog: (outside.append(dialog.message), dialog.dismiss()))
    region = shared_page(reader)
    expect(region.locator("article")).to_have_count(len(messages))
    expect(region.get_by_role("button", name="Continue this conversation")).to_be_visible()
    settle_media(reader)
    result = reader.evaluate(AUDIT)
    assert result["ran"] == [] and result["problems"] == [] and outside == []
    assert stored_keys(reader) == []


def test_a_share_made_on_one_device_is_listed_and_stopped_on_another(
    browser: Browser, synced: Synced
) -> None:
    script = (
        "document.querySelector('chat-widget').syncKey = 'person-7-secret-from-the-site-backend';"
    )
    laptop, phone = (
        device(browser, synced.chat, script=script),
        device(browser, synced.chat, script=script),
    )
    before = states(laptop)
    fragment = shared(laptop, {**SNAPSHOT, "id": "tides-synced", "title": "Tides from the laptop"})
    round_done(laptop, before)
    phone.get_by_role("button", name="History").click()
    cued(phone)
    row = phone.get_by_role("listitem").filter(has_text="Tides from the laptop")
    expect(row).to_contain_text("Shared")
    row.get_by_role("button", name="Share", exact=True).click()
    dialog = phone.get_by_role("dialog", name="Share this conversation")
    link = dialog.get_by_role("textbox", name="Link")
    expect(link).to_have_value(re.compile(re.escape(f"#{fragment}") + "$"))  # the laptop's link
    dialog.get_by_role("button", name="Stop sharing").click()
    expect(dialog.get_by_role("status")).to_contain_text("Sharing stopped")
    expect(row).not_to_contain_text("Shared")
    reader = browser_of(browser, synced, fragment)
    expect(shared_page(reader).get_by_role("status")).to_have_text(GONE)
