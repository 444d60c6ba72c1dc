"""Five ways a conversation was lost or shown stale, each tried as a person (or host) would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pages import choose_files, host_page, plant, planted_conversation, stored_conversations, widget
from playwright.sync_api import Page, Request, Route, expect

SESSION = "document.querySelector('chat-widget').session"


def history_rows(page: Page) -> Any:
    return page.get_by_role("list", name="Conversations", exact=True).get_by_role("listitem")


def test_the_recent_list_follows_every_new_conversation(page: Page) -> None:
    host_page(page)
    for number in range(4):
        page.evaluate(f"async () => {{ await {SESSION}.send('Topic {number}'); "
                      f"await {SESSION}.restore(); }}")  # fmt: skip
        recent = page.get_by_role("list", name="Recent conversations").get_by_role("button")
        expected = [f"Topic {n}" for n in range(number, max(-1, number - 3), -1)]
        expect(recent).to_have_text(expected)  # no reload needed: newest first, three at most


def test_a_history_set_by_the_host_is_stored_at_once_and_survives_closing(page: Page) -> None:
    host_page(page)
    page.evaluate(
        f"""() => {SESSION}.setHistory([{{role: 'user', content: 'Set by the host'}},
                                        {{role: 'assistant', content: 'Fine'}}])"""
    )
    [stored] = stored_conversations(page)
    assert [m["content"] for m in stored["messages"]] == ["Set by the host", "Fine"]

    context = page.context
    page.close(run_before_unload=True)  # the person closes the tab (pagehide)
    reopened = context.new_page()
    host_page(reopened)
    reopened.get_by_role("button", name="History").click()
    expect(history_rows(reopened).get_by_role("button", name="Set by the host")).to_be_visible()


def test_a_person_s_name_wins_over_a_title_still_being_generated(page: Page) -> None:
    held: list[Route] = []

    def is_title_request(request: Request) -> bool:
        body = json.loads(request.post_data or "{}")
        return "/chat/completions" in request.url and body.get("max_tokens") == 32

    def hold_titles(route: Route) -> None:
        if is_title_request(route.request):  # answered later, by hand
            held.append(route)
        else:
            route.fallback()

    page.route("**/api/chat/completions", hold_titles)
    host_page(page, 'history="local" generate-title')
    with page.expect_request(is_title_request):  # it follows the answer, and is held
        widget(page).send("My name is Alice")

    page.get_by_role("button", name="History").click()
    history_rows(page).get_by_role("button", name="Rename").click()
    field = page.get_by_role("textbox", name="New title")
    field.fill("Mine")
    field.press("Enter")
    expect(history_rows(page).get_by_role("button", name="Mine")).to_be_visible()
    page.get_by_role("button", name="Back").click()
    expect(page.get_by_role("heading", level=2)).to_have_text("Mine")

    revision = page.evaluate("Object.entries(localStorage).find(([k]) => k.includes(':meta:'))[1]")
    title = {"choices": [{"index": 0, "delta": {"content": "A generated title"},
                          "finish_reason": "stop"}]}  # fmt: skip
    held[0].fulfill(status=200, content_type="text/event-stream",
                    body=f"data: {json.dumps(title)}\n\ndata: [DONE]\n\n")  # fmt: skip
    # Once the generated title has landed, the conversation is stored again: wait for that.
    page.wait_for_function(
        "r => Object.entries(localStorage).find(([k]) => k.includes(':meta:'))[1] !== r",
        arg=revision,
    )
    expect(page.get_by_role("heading", level=2)).to_have_text("Mine")
    assert stored_conversations(page)[0]["title"] == "Mine"
    page.reload()
    widget(page).wait_ready()
    page.get_by_role("button", name="History").click()
    expect(history_rows(page).get_by_role("button", name="Mine")).to_be_visible()


def test_an_export_from_a_future_version_is_refused_and_changes_nothing(
    page: Page, tmp_path: Path
) -> None:
    host_page(page)
    widget(page).send("Already here")
    before = page.evaluate("JSON.stringify(Object.entries(localStorage).sort())")
    future = tmp_path / "future.json"
    future.write_text(json.dumps({
        "format": "chatkeep-history", "version": 999,
        "conversations": [{"version": 1, "id": "f", "title": "From the future", "created": 1,
                           "updated": 2, "messages": [{"role": "user", "content": "hi"}]}],
    }))  # fmt: skip
    page.get_by_role("button", name="History").click()
    choose_files(page, "Import", future)
    expect(page.get_by_role("alert")).to_contain_text("version 999")
    expect(page.get_by_role("alert")).to_contain_text("nothing was imported")
    expect(history_rows(page)).to_have_count(1)
    assert page.evaluate("JSON.stringify(Object.entries(localStorage).sort())") == before


def test_transcripts_are_stored_compressed_and_older_or_damaged_entries_stay_readable(
    page: Page,
) -> None:
    page.goto("/healthz")
    older = planted_conversation("Written by an earlier version", 5)  # plain JSON
    damaged = planted_conversation("Damaged", 6)
    damaged_key = next(k for k in damaged if ":conv:" in k)
    damaged[damaged_key] = "~z1~999~" + "\u4e00" * 50  # a packed value cut short
    plant(page, {**older, **damaged})
    host_page(page)
    widget(page).send("A fresh one, " + "with words that repeat, " * 40)
    raw = page.evaluate(
        "Object.entries(localStorage).filter(([k]) => k.includes(':conv:'))"
        ".map(([k, v]) => [k, v.slice(0, 4), v.length])"
    )
    fresh = [entry for entry in raw if entry[0] not in older and entry[0] != damaged_key]
    assert fresh and all(prefix == "~z1~" for _, prefix, _ in fresh)
    [fresh_snapshot] = [c for c in stored_conversations(page) if c["title"].startswith("A fresh")]
    assert fresh[0][2] * 3 < len(json.dumps(fresh_snapshot))  # several times smaller
    page.get_by_role("button", name="History").click()
    expect(history_rows(page)).to_have_count(3)
    history_rows(page).get_by_role("button", name="Written by an earlier version").click()
    expect(page.get_by_role("log", name="Conversation").locator("article")).to_have_count(2)
    page.get_by_role("button", name="History").click()
    history_rows(page).get_by_role("button", name="Damaged").click()
    expect(page.get_by_role("alert")).to_contain_text("could not be read")
    assert page.evaluate("k => localStorage.getItem(k)", damaged_key) == damaged[damaged_key]


STARTUP = {
    "version": 1, "id": "from-host", "title": "Opened by the host", "created": 1, "updated": 2,
    "model": "demo-mini", "thinking": "low",
    "messages": [{"role": "user", "content": "My name is Hana"},
                 {"role": "assistant", "content": "Hello Hana"},
                 {"role": "user", "content": "And then?"},
                 {"role": "assistant", "content": "Half an ans", "error": "Stopped."}],
}  # fmt: skip


def test_a_snapshot_set_before_start_opens_at_once(page: Page) -> None:
    script = f"document.querySelector('chat-widget').snapshot = {json.dumps(STARTUP)};"
    host_page(page, 'history="memory"', script=script)
    # Already open when ready: no empty chat was drawn first (the ending was repaired).
    state = page.evaluate("document.querySelector('chat-widget').session.save()")
    assert [m["content"] for m in state["messages"]] == ["My name is Hana", "Hello Hana",
                                                         "And then?"]  # fmt: skip
    assert (state["title"], state["model"], state["thinking"]) == (
        "Opened by the host",
        "demo-mini",
        "low",
    )
    expect(page.get_by_role("log", name="Conversation").locator("article")).to_have_count(3)
    expect(page.get_by_role("heading", level=2)).to_have_text("Opened by the host")
    widget(page).send("What is my name?")
    expect(page.get_by_role("log", name="Conversation").locator("article").last).to_contain_text(
        "Hana"
    )


def test_an_unreadable_start_up_snapshot_opens_a_new_conversation_and_warns(page: Page) -> None:
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    script = "document.querySelector('chat-widget').snapshot = {version: 999, messages: []};"
    host_page(page, 'history="memory"', script=script)
    assert page.evaluate("document.querySelector('chat-widget').session.getHistory()") == []
    assert any("start-up snapshot could not be read" in text for text in warnings)
    expect(page.get_by_role("heading", level=2)).to_have_text("New conversation")


def test_search_matches_message_text_across_kept_conversations(page: Page) -> None:
    page.goto("/healthz")
    for title, answer_text, updated in [("Birds", "Herons wait by the old mill", 10),
                                        ("Bread", "Sourdough needs a slow rise", 20)]:  # fmt: skip
        entries = planted_conversation(title, updated)
        conv = next(k for k in entries if ":conv:" in k)
        snapshot = json.loads(entries[conv])
        snapshot["messages"][1]["content"] = answer_text
        entries[conv] = json.dumps(snapshot)
        plant(page, entries)
    host_page(page)
    page.get_by_role("button", name="History").click()
    search = page.get_by_role("searchbox", name="Search conversations")
    search.fill("sourdough")
    expect(history_rows(page)).to_have_count(1)
    expect(history_rows(page).get_by_role("button", name="Bread")).to_be_visible()
    search.fill("herons mill")
    expect(history_rows(page).get_by_role("button", name="Birds")).to_be_visible()
    expect(history_rows(page)).to_have_count(1)
    search.fill("birds")  # titles match at once too
    expect(history_rows(page)).to_have_count(1)
    search.fill("nothing like this")
    expect(history_rows(page)).to_have_count(0)
    expect(page.get_by_text("No conversation matches.")).to_be_visible()
