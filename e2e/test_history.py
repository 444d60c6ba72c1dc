"""Built-in history in a real browser: storage, limits, tabs, the history page, the host API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pages import (
    LONGER,
    choose_files,
    fill_storage,
    host_page,
    log,
    new_conversation,
    plant,
    planted_conversation,
    stored_conversations,
    stored_keys,
    widget,
)
from playwright.sync_api import BrowserContext, Page, expect


def history_rows(page: Page) -> Any:
    return page.get_by_role("list", name="Conversations", exact=True).get_by_role("listitem")


def open_history(page: Page) -> None:
    page.get_by_role("button", name="History").click()
    expect(page.get_by_role("list", name="Conversations", exact=True)).to_be_visible()


def test_a_reload_keeps_history_and_opens_on_a_new_conversation(page: Page) -> None:
    host_page(page)
    widget(page).send("My name is Alice")
    page.reload()
    widget(page).wait_ready()
    expect(log(page).locator("article")).to_have_count(0)
    open_history(page)
    rows = history_rows(page)
    expect(rows).to_have_count(1)
    rows.get_by_role("button", name="My name is Alice").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Nice to meet you")
    widget(page).send("What is my name?")
    expect(log(page).locator("article[data-role=assistant]").nth(1)).to_contain_text("Alice")


def test_memory_history_is_gone_after_a_reload_and_off_keeps_nothing(page: Page) -> None:
    host_page(page, 'history="memory"')
    widget(page).send("Remember me briefly")
    assert stored_keys(page) == []
    open_history(page)
    expect(history_rows(page)).to_have_count(1)
    page.reload()
    widget(page).wait_ready()
    open_history(page)
    expect(history_rows(page)).to_have_count(0)

    host_page(page, 'history="off"')
    expect(page.get_by_role("button", name="History")).to_be_hidden()
    widget(page).send("Nothing kept")
    assert stored_keys(page) == []


def test_keys_start_with_the_prefix_and_other_keys_are_untouched(page: Page) -> None:
    page.goto("/healthz")
    plant(page, {"mine": "do not touch", "chatkeep:foreign": "also mine"})
    host_page(page, 'history="local" storage-prefix="acme"')
    widget(page).send("Hello there")
    keys = stored_keys(page, "acme")
    assert len(keys) == 2 and all(k.startswith("acme:") for k in keys)
    assert page.evaluate("localStorage.getItem('mine')") == "do not touch"
    assert page.evaluate("localStorage.getItem('chatkeep:foreign')") == "also mine"


def test_the_21st_conversation_drops_the_oldest(page: Page) -> None:
    page.goto("/healthz")
    entries: dict[str, str] = {}
    for i in range(20):
        entries |= planted_conversation(f"Old chat {i:02d}", 1_000_000 + i)
    plant(page, entries)
    host_page(page)
    widget(page).send("The newest chat")
    open_history(page)
    rows = history_rows(page)
    expect(rows).to_have_count(20)
    expect(rows.first).to_contain_text("The newest chat")
    expect(rows.last).to_contain_text("Old chat 01")
    titles = [c["title"] for c in stored_conversations(page)]
    assert len(titles) == 20 and "Old chat 00" not in titles


def test_a_store_near_its_quota_still_keeps_the_live_conversation(page: Page) -> None:
    page.goto("/healthz")
    for i in range(3):
        plant(page, planted_conversation(f"Big chat {i}", 1_000 + i, padding=1_000_000))
    fill_storage(page, 300)
    host_page(page)
    widget(page).send("A question asked when the store is full")
    titles = [c["title"] for c in stored_conversations(page)]
    assert "A question asked when the store is full" in titles
    assert titles.count("Big chat 0") == 0  # the oldest was given up to make room
    assert {"Big chat 1", "Big chat 2"} <= set(titles)
    expect(page.get_by_role("alert")).to_be_hidden()


def test_a_conversation_that_cannot_fit_alone_shows_an_alert_and_stays(page: Page) -> None:
    page.goto("/healthz")
    kept = planted_conversation("Kept chat", 5)
    plant(page, kept)
    fill_storage(page, 40_000)
    host_page(page)
    # Random text does not compress: 200,000 characters stay far above the 40,000 left.
    page.evaluate(
        """() => { const random = Array.from({length: 3}, () => btoa(String.fromCharCode(
             ...crypto.getRandomValues(new Uint8Array(50_000))))).join('');
           return document.querySelector('chat-widget').session.setHistory(
             [{role: 'user', content: random}, {role: 'assistant', content: 'ok'}]); }"""
    )
    widget(page).send("And one more")
    expect(page.get_by_role("alert")).to_contain_text("too large for this browser's storage")
    expect(log(page).locator("article[data-role=user]")).to_have_count(2)
    for key, value in kept.items():
        assert page.evaluate("k => localStorage.getItem(k)", key) == value
    open_history(page)
    expect(history_rows(page)).to_have_count(1)


def test_corrupt_entries_planted_before_load_are_skipped_and_left_as_they_were(page: Page) -> None:
    page.goto("/healthz")
    good = planted_conversation("Readable chat", 10)
    corrupt = {
        "chatkeep:meta:broken": "{not json",
        "chatkeep:meta:cut": '{"v": 1, "title": "Trunc',
        "chatkeep:meta:future": json.dumps(
            {"v": 9, "title": "From the future", "updated": 99, "rev": "r"}
        ),
        "chatkeep:conv:future": json.dumps({"version": 9, "messages": []}),
        "chatkeep:meta:edited": json.dumps(
            {"v": 1, "title": "Hand edited", "updated": 50, "rev": "r"}
        ),
        "chatkeep:conv:edited": '{"version": 1, "id": "edited", "messages": [{"role": "wizard"}]}',
    }
    plant(page, good | corrupt)
    host_page(page)
    open_history(page)
    rows = history_rows(page)
    expect(rows).to_have_count(2)  # the edited entry lists (its meta is fine) ...
    rows.get_by_role("button", name="Hand edited").click()
    expect(page.get_by_role("alert")).to_contain_text("could not be read")  # ... but will not open
    widget(page).send("Still works")
    for key, value in corrupt.items():
        assert page.evaluate("k => localStorage.getItem(k)", key) == value


def test_two_pages_chatting_at_once_both_keep_all_turns(context: BrowserContext) -> None:
    first, second = context.new_page(), context.new_page()
    host_page(first)
    host_page(second)
    for page, name in ((first, "Ann"), (second, "Bob")):
        page.get_by_role("textbox", name="Message").fill(f"My name is {name}")
        page.get_by_role("button", name="Send").click()
    widget(first).settled(at_least=2)
    widget(second).settled(at_least=2)
    for page in (first, second):
        page.get_by_role("textbox", name="Message").fill("What is my name?")
        page.get_by_role("button", name="Send").click()
    widget(first).settled(at_least=4)
    widget(second).settled(at_least=4)
    conversations = stored_conversations(first)
    assert len(conversations) == 2
    for name in ("Ann", "Bob"):
        [mine] = [c for c in conversations if c["messages"][0]["content"] == f"My name is {name}"]
        assert len(mine["messages"]) == 4
        assert f"Your name is {name}." in mine["messages"][3]["content"]
    open_history(first)
    expect(history_rows(first)).to_have_count(2)  # the other tab's conversation arrived


def two_pages_on_one_conversation(context: BrowserContext) -> tuple[Page, Page]:
    """A first page asks a question; a second page opens that conversation from the history."""
    first, second = context.new_page(), context.new_page()
    host_page(first)
    widget(first).send("Shared start")
    host_page(second)
    open_history(second)
    history_rows(second).get_by_role("button", name="Shared start").click()
    return first, second


def test_two_pages_continuing_the_same_conversation_lose_neither(context: BrowserContext) -> None:
    first, second = two_pages_on_one_conversation(context)
    widget(first).send("From the first tab")
    widget(second).send("From the second tab")
    texts = {m["content"] for c in stored_conversations(first) for m in c["messages"]}
    assert {"From the first tab", "From the second tab"} <= texts


def test_a_page_open_on_a_conversation_shows_another_page_s_turns(context: BrowserContext) -> None:
    first, second = two_pages_on_one_conversation(context)
    widget(second).send("From the second tab")
    expect(log(first)).to_contain_text("From the second tab")  # the first page follows it
    widget(first).settled(at_least=4)  # the other page's answer too, not only its question
    widget(first).send("From the first tab")  # and continues it: one conversation
    [stored] = stored_conversations(first)
    assert [m["content"] for m in stored["messages"] if m["role"] == "user"] == [
        "Shared start", "From the second tab", "From the first tab"]  # fmt: skip


def test_the_history_page(page: Page) -> None:
    host_page(page)
    widget(page).send("First chat")
    new_conversation(page)
    widget(page).send("Second chat")
    draft = page.get_by_role("textbox", name="Message")
    draft.fill("an unsent draft")
    open_history(page)
    rows = history_rows(page)
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("Second chat")
    when = rows.first.locator("time")  # when it last changed, as this browser writes a date
    written = when.evaluate(
        'time => new Intl.DateTimeFormat(undefined, {dateStyle: "medium", timeStyle: "short"})'
        ".format(new Date(time.dateTime))"
    )
    expect(when).to_have_text(written)
    assert written.strip()
    expect(rows.first).to_have_attribute("aria-current", "true")
    expect(rows.last).not_to_have_attribute("aria-current", "true")
    element_before = page.evaluate_handle("document.querySelector('chat-widget')")
    rows.get_by_role("button", name="First chat").click()
    expect(page.get_by_role("list", name="Conversations", exact=True)).to_be_hidden()
    expect(log(page).locator("article[data-role=user] .body")).to_have_text(["First chat"])
    expect(page.get_by_role("heading", level=2)).to_have_text("First chat")
    assert page.evaluate("w => w === document.querySelector('chat-widget')", element_before)
    expect(draft).to_have_value("an unsent draft")
    open_history(page)
    page.get_by_role("searchbox", name="Search conversations").fill("second")
    expect(history_rows(page)).to_have_count(1)
    page.get_by_role("searchbox", name="Search conversations").fill("")
    live = history_rows(page).filter(has_text="First chat")
    live.get_by_role("button", name="Forget").click()
    expect(history_rows(page)).to_have_count(1)
    page.get_by_role("button", name="Back").click()
    expect(log(page).locator("article")).to_have_count(0)  # a new, empty conversation
    assert len(stored_conversations(page)) == 1


def test_rename_from_the_history_page(page: Page) -> None:
    host_page(page)
    widget(page).send("Untidy title")
    open_history(page)
    history_rows(page).get_by_role("button", name="Rename").click()
    field = page.get_by_role("textbox", name="New title")
    field.fill("Tidy title")
    field.press("Enter")
    expect(history_rows(page).get_by_role("button", name="Tidy title")).to_be_visible()
    page.reload()
    widget(page).wait_ready()
    open_history(page)
    expect(history_rows(page).get_by_role("button", name="Tidy title")).to_be_visible()
    assert stored_conversations(page)[0]["title"] == "Tidy title"


def test_the_empty_chat_lists_the_three_newest(page: Page) -> None:
    page.goto("/healthz")
    entries: dict[str, str] = {}
    for i in range(5):
        entries |= planted_conversation(f"Chat number {i}", 100 + i)
    plant(page, entries)
    host_page(page)
    recent = page.get_by_role("list", name="Recent conversations")
    expect(recent.get_by_role("button")).to_have_text(
        ["Chat number 4", "Chat number 3", "Chat number 2"]
    )
    page.get_by_role("button", name="All conversations").click()
    expect(history_rows(page)).to_have_count(5)
    page.get_by_role("button", name="Back").click()
    recent.get_by_role("button", name="Chat number 3").click()
    expect(log(page).locator("article[data-role=user]")).to_contain_text(["Chat number 3"])
    expect(recent).to_be_hidden()
    page.get_by_role("button", name="New conversation").click()
    expect(recent).to_be_visible()
    widget(page).send("Fresh")
    expect(recent).to_be_hidden()


def test_the_host_api(page: Page) -> None:
    host_page(page, 'history="local"')
    result = page.evaluate(
        """async () => {
        const w = document.querySelector('chat-widget');
        const s = w.session;
        let changes = 0;
        const unsubscribe = s.subscribe(() => changes++);
        await s.send('My name is Alice');
        const saved = await s.save();
        const history = await s.getHistory();
        history[0].content = 'changed';
        const again = await s.getHistory();
        let error = null;
        try { await s.setHistory([{role: 'tool', tool_call_id: 'nope', content: 'x'}]); }
        catch (e) { error = e.message; }
        const unsupported = await s.readSnapshot({version: 7});
        const read = await s.readSnapshot(JSON.stringify(saved));
        unsubscribe();
        const before = changes;
        await s.restore();
        const afterNew = await s.getHistory();
        await s.restore(saved);
        const restored = await s.getHistory();
        return {saved, again, error, unsupported: unsupported === undefined, read, changes: before,
                quiet: changes === before, afterNew, restored};
    }"""
    )
    saved = result["saved"]
    assert saved["version"] == 1 and saved["messages"][0]["content"] == "My name is Alice"
    assert result["again"][0]["content"] == "My name is Alice"
    assert result["error"] == 'orphaned tool_call_id "nope"'
    assert result["unsupported"] is True
    assert result["read"]["id"] == saved["id"]
    assert result["changes"] > 2 and result["quiet"]
    assert result["afterNew"] == []
    assert result["restored"] == saved["messages"]


def test_save_while_streaming_leaves_the_unfinished_answer_out(page: Page) -> None:
    host_page(page, 'history="local"')
    saved = page.evaluate(
        """async () => {
        const s = document.querySelector('chat-widget').session;
        const sending = s.send('Tell me something long, with many many words in it please');
        await new Promise(resolve => { const off = s.subscribe(() => {
            if (s.draft?.content) { off(); resolve(); } }); });
        const snapshot = await s.save();
        await sending;
        return snapshot;
    }"""
    )
    assert [m["role"] for m in saved["messages"]] == ["user"]


def test_restore_stops_a_running_turn_and_stores_the_one_left(page: Page) -> None:
    host_page(page, 'history="local"')
    page.get_by_role("textbox", name="Message").fill(
        "First conversation, a long question please" + LONGER
    )
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("button", name="Stop")).to_be_visible()
    other = {"version": 1, "id": "other", "title": "Other", "created": 1, "updated": 1,
             "model": "demo", "thinking": "high",
             "messages": [{"role": "user", "content": "Other question"},
                          {"role": "assistant", "content": "Other answer"}]}  # fmt: skip
    page.evaluate("s => document.querySelector('chat-widget').session.restore(s)", other)
    expect(log(page).locator("article[data-role=assistant]")).to_have_text(["Other answer"])
    expect(page.get_by_role("combobox", name="Thinking")).to_have_value("high")
    expect(page.get_by_role("heading", level=2)).to_have_text("Other")
    titles = [c["title"] for c in stored_conversations(page)]
    assert any(t.startswith("First conversation") for t in titles)


def test_a_host_owned_store_with_debounced_subscribe(page: Page) -> None:
    script = """
    const kept = new Map();
    window.hostKept = kept;
    document.querySelector('chat-widget').historyStore = {
      ready: Promise.resolve(),
      list: () => [...kept.values()].map(
        ({id, title, snapshot}) => ({id, title, updated: snapshot.updated})),
      read: async (id) => kept.get(id)?.snapshot,
      keep: (id, snapshot, title) => kept.set(id, {id, title, snapshot}),
      forget: (id) => kept.delete(id),
    };"""
    # The host also keeps its own copy of the live conversation, saved on a debounced
    # subscription (the pattern for host-owned snapshots): one write once a turn settles.
    debounced = """
    const session = document.querySelector('chat-widget').session;
    window.hostSaves = [];
    window.hostHeard = 0;
    let timer;
    window.unsubscribeHost = session.subscribe(() => {
      window.hostHeard++;
      clearTimeout(timer);
      timer = setTimeout(async () => window.hostSaves.push(await session.save()), 300);
    });"""
    host_page(page, "", script, after=debounced)
    widget(page).send("Kept by the host")
    page.wait_for_function("window.hostKept.size === 1")
    assert page.evaluate("[...window.hostKept.values()][0].title") == "Kept by the host"
    assert stored_keys(page) == []
    open_history(page)
    expect(history_rows(page)).to_have_count(1)
    page.wait_for_function("window.hostSaves.some(saved => saved.messages.length === 2)")
    saves = page.evaluate("window.hostSaves")
    assert len(saves) < 4  # a streamed answer's many updates, written once or twice, not per token
    assert [m["role"] for m in saves[-1]["messages"]] == ["user", "assistant"]
    page.evaluate("window.unsubscribeHost()")
    page.get_by_role("button", name="Back").click()
    heard = page.evaluate("window.hostHeard")
    widget(page).send("Not heard by the host any more")  # returns once the turn has settled
    assert page.evaluate("window.hostHeard") == heard


def test_dispose_stores_the_last_complete_state(page: Page) -> None:
    host_page(page, 'history="local"')
    page.evaluate(
        """async () => {
        const s = document.querySelector('chat-widget').session;
        await s.setHistory([{role: 'user', content: 'Set by the host'},
                            {role: 'assistant', content: 'Fine'}]);
        await s.dispose();
    }"""
    )
    assert [c["title"] for c in stored_conversations(page)] == ["Set by the host"]


def test_export_and_import_all_history(page: Page, tmp_path: Path) -> None:
    host_page(page)
    widget(page).send("First to export")
    new_conversation(page)
    widget(page).send("Second to export")
    open_history(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="Export", exact=True).click()
    saved = tmp_path / "history.json"
    download.value.save_as(saved)
    exported = json.loads(saved.read_text())
    assert [c["title"] for c in exported["conversations"]] == [
        "Second to export",
        "First to export",
    ]
    expect(page.get_by_role("status")).to_have_text("Exported 2 conversations.")

    page.evaluate("localStorage.clear()")
    host_page(page)
    open_history(page)
    expect(history_rows(page)).to_have_count(0)
    choose_files(page, "Import", saved)
    expect(page.get_by_role("status")).to_have_text("Imported 2 conversations.")
    expect(history_rows(page)).to_have_count(2)

    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1, "id": "x", "messages": [{"role": "robot"}]}')
    choose_files(page, "Import", broken)
    expect(page.get_by_role("alert")).to_contain_text('unknown role "robot"')
    expect(history_rows(page)).to_have_count(2)
