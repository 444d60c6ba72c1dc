"""Pinned conversations: listed first, never dropped by the limit or a full store."""

from __future__ import annotations

import json
from typing import Any

from pages import (
    fill_storage,
    host_page,
    log,
    new_conversation,
    plant,
    planted_conversation,
    stored_conversations,
    widget,
)
from playwright.sync_api import Page, expect


def rows(page: Page) -> Any:
    return page.get_by_role("list", name="Conversations", exact=True).get_by_role("listitem")


def pin(page: Page, title: str) -> None:
    page.get_by_role("button", name="History").click()
    row = rows(page).filter(has=page.get_by_role("button", name=title, exact=True))
    row.get_by_role("button", name="Pin", exact=True).click()
    expect(row.get_by_role("button", name="Unpin")).to_be_focused()  # the focus moved with it
    page.get_by_role("button", name="Back").click()


def test_a_pinned_conversation_comes_first_and_outlives_the_limit(page: Page) -> None:
    host_page(page, 'history="local" max-conversations="2"')
    widget(page).send("Keep this recipe")
    new_conversation(page)
    pin(page, "Keep this recipe")
    for topic in ("Tides", "Volcanoes", "Comets"):
        widget(page).send(topic)
        new_conversation(page)
    page.get_by_role("button", name="History").click()
    titles = [row.get_by_role("button").first.inner_text() for row in rows(page).all()]
    assert titles == ["Keep this recipe", "Comets", "Volcanoes"]  # 2 unpinned, the pin beside
    page.reload()  # the order and the pin are in storage, drawn before Python runs too
    widget(page).wait_ready()
    recent = page.get_by_role("list", name="Recent conversations").get_by_role("button")
    expect(recent.first).to_have_text("Keep this recipe")
    page.get_by_role("button", name="History").click()
    expect(rows(page).first.get_by_role("button", name="Unpin")).to_be_visible()


def test_a_full_store_gives_up_others_and_then_says_so_rather_than_a_pin(page: Page) -> None:
    page.goto("/healthz")
    pinned = planted_conversation("Pinned chat", 5, padding=20_000)
    meta_key = next(key for key in pinned if ":meta:" in key)
    pinned[meta_key] = json.dumps({**json.loads(pinned[meta_key]), "pinned": True})
    loose = planted_conversation("Loose chat", 6, padding=20_000)
    plant(page, {**pinned, **loose})
    fill_storage(page, 3_000)
    host_page(page)
    # Random text hardly compresses: kept, 9,000 random bytes take about 4,800 characters.
    filler = """n => document.querySelector('chat-widget').session.setHistory([{role: 'user',
      content: Array.from({length: n}, () => btoa(String.fromCharCode(
        ...crypto.getRandomValues(new Uint8Array(9000))))).join('')},
      {role: 'assistant', content: 'ok'}])"""
    page.evaluate(filler, 1)
    titles = [c["title"] for c in stored_conversations(page)]
    assert "Loose chat" not in titles and "Pinned chat" in titles  # the loose one made room
    page.evaluate(filler, 8)  # more than the room the pinned one would free
    widget(page).send("One more")
    expect(page.get_by_role("alert")).to_contain_text("full of pinned conversations")
    for key, value in pinned.items():  # the pinned one, untouched
        assert page.evaluate("k => localStorage.getItem(k)", key) == value
    expect(log(page).locator("article[data-role=user]")).to_have_count(2)  # still open here
