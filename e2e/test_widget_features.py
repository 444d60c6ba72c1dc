"""What people expect of a chat widget: events, suggestions, copying an answer, a launcher."""

from __future__ import annotations

import pytest
from pages import host_page, log, screenshot, stored_conversations, widget
from playwright.sync_api import Page, expect

LISTEN = """
window.heard = [];
const types = ['ready', 'message', 'error', 'conversation'].map((name) => 'chatkeep-' + name);
for (const type of types) document.addEventListener(
  type, (event) => window.heard.push([type, event.detail, event.composed]));
"""


def test_events_bubble_out_of_the_element(page: Page) -> None:
    host_page(page, 'history="memory"', script=LISTEN)
    page.wait_for_function("window.heard.some(([type]) => type === 'chatkeep-ready')")
    widget(page).send("My name is Eve")
    heard = page.evaluate("window.heard")
    messages = [detail for kind, detail, _ in heard if kind == "chatkeep-message"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert "Eve" in messages[1]["content"]
    assert all(composed for _, _, composed in heard)
    conversation_id = page.evaluate("document.querySelector('chat-widget').session.conversationId")
    assert ["chatkeep-conversation", conversation_id] in [[k, d.get("id")] for k, d, _ in heard]
    page.evaluate("document.querySelector('chat-widget').session.setHistory([{role: 'robot'}])"
                  ".catch(() => {})")  # fmt: skip
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Back").click()
    page.route("**/api/chat/completions", lambda route: route.fulfill(
        status=500, json={"error": {"message": "The model service failed."}}))  # fmt: skip
    page.get_by_role("textbox", name="Message").fill("Again")
    page.get_by_role("button", name="Send").click()
    page.wait_for_function("window.heard.some(([type]) => type === 'chatkeep-error')")
    errors = [d for k, d, _ in page.evaluate("window.heard") if k == "chatkeep-error"]
    assert "failed" in errors[-1]["message"]


def test_suggestions_send_and_then_go_away(page: Page) -> None:
    host_page(page, """history="memory" suggestions='["My name is Sam", "What can you do?"]'""")
    expect(page.get_by_role("button", name="What can you do?")).to_be_visible()
    page.get_by_role("button", name="My name is Sam").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Sam")
    expect(page.get_by_role("button", name="What can you do?")).to_be_hidden()


def test_copy_under_an_answer_copies_its_markdown_and_says_so(page: Page) -> None:
    host_page(page, 'history="memory"')
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    widget(page).send("My name is Kim")
    answer = log(page).locator("article[data-role=assistant]")
    answer.get_by_role("button", name="Copy").click()
    expect(page.get_by_text("Copied")).to_be_attached()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "Kim" in copied
    assert copied == page.evaluate(
        "document.querySelector('chat-widget').session.getHistory().then(m => m[1].content)"
    )


def test_the_launcher_opens_and_closes_the_chat_and_remembers(page: Page) -> None:
    host_page(page, 'history="memory" mode="launcher"')
    opener = page.get_by_role("button", name="Open chat")
    expect(opener).to_be_visible()
    expect(page.get_by_role("textbox", name="Message")).to_be_hidden()
    opener.click()
    message = page.get_by_role("textbox", name="Message")
    expect(message).to_be_focused()
    page.keyboard.press("Escape")
    expect(message).to_be_hidden()
    expect(opener).to_be_focused()
    opener.click()
    page.reload()
    widget(page).wait_ready()
    expect(page.get_by_role("textbox", name="Message")).to_be_visible()  # still open
    page.get_by_role("button", name="Close chat").click()
    expect(page.get_by_role("button", name="Open chat")).to_be_visible()


@pytest.mark.parametrize("width", [360, 599])
def test_the_launcher_panel_fills_a_screen_narrower_than_600_px(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 740})
    host_page(page, 'history="memory" mode="launcher"')
    page.get_by_role("button", name="Open chat").click()
    box = page.locator("chat-widget").evaluate(
        "el => el.shadowRoot.querySelector('.chat').getBoundingClientRect().toJSON()"
    )
    assert (round(box["width"]), round(box["height"])) == (width, 740)
    composer = page.get_by_role("textbox", name="Message").bounding_box()
    assert composer is not None and composer["y"] + composer["height"] <= 740  # on screen


def test_colours_and_parts_can_be_styled_from_the_page(page: Page) -> None:
    host_page(page, 'history="memory" mode="launcher"')
    page.add_style_tag(
        content="chat-widget { --chatkeep-accent: rgb(10, 125, 79); }"
        "chat-widget::part(launcher) { outline: 3px solid rgb(1, 2, 3); }"
    )
    launcher = page.get_by_role("button", name="Open chat")
    assert launcher.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(10, 125, 79)"
    assert launcher.evaluate("b => getComputedStyle(b).outlineColor") == "rgb(1, 2, 3)"


def test_on_a_narrow_screen_the_pickers_move_into_a_menu_and_the_title_stays_readable(
    page: Page,
) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    host_page(page, 'history="memory"')
    widget(page).send("Plan a weekend trip")
    title = page.get_by_role("heading", level=2)
    expect(title).to_have_text("Plan a weekend trip")
    assert title.evaluate("h => h.scrollWidth <= h.clientWidth")  # not cut to "P…"
    model = page.get_by_role("combobox", name="Model")
    expect(model).to_be_hidden()
    options = page.get_by_role("button", name="Options")
    options.click()
    expect(model).to_be_visible()
    expect(model).to_be_focused()
    expect(page.get_by_role("combobox", name="Thinking")).to_be_visible()
    page.keyboard.press("Escape")
    expect(model).to_be_hidden()
    expect(options).to_be_focused()
    # Message actions: a quiet row of small icon buttons, names unchanged, by touch or key.
    user = page.get_by_role("log", name="Conversation").locator("article[data-role=user]")
    for name in ("Fork", "Retry"):
        action = user.get_by_role("button", name=name)
        expect(action).to_be_visible()
        box = action.bounding_box()
        assert box is not None and 24 <= box["height"] <= 36
    user.get_by_role("button", name="Retry").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("log", name="Conversation").locator("article")).to_have_count(2)


def test_wide_widgets_show_the_pickers_in_the_header(page: Page) -> None:
    host_page(page, 'history="memory"')
    expect(page.get_by_role("combobox", name="Model")).to_be_visible()
    expect(page.get_by_role("button", name="Options")).to_be_hidden()


def test_a_screenshot_of_launcher_mode_for_the_readme(page: Page) -> None:
    """The README's picture of launcher mode: build/screenshots/launcher.png."""
    page.set_viewport_size({"width": 900, "height": 760})
    host_page(page, """history="memory" mode="launcher" suggestions='["My name is Alice"]'""")
    page.get_by_role("button", name="Open chat").click()
    page.get_by_role("button", name="My name is Alice").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Alice")
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    screenshot(page, "launcher")


def test_edit_resends_a_message_and_keeps_every_version(page: Page) -> None:
    host_page(page, 'history="local"')
    widget(page).send("My name is Alise")
    widget(page).send("What is my name?")
    user = log(page).locator("article[data-role=user]")
    user.first.get_by_role("button", name="Edit").click()
    field = page.get_by_role("textbox", name="Edited message")
    expect(field).to_have_value("My name is Alise")
    field.fill("My name is Alice")
    field.press("Enter")
    expect(log(page).locator("article[data-role=assistant]")).to_have_count(1)
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Alice")
    first = log(page).locator("article[data-role=user]").first
    expect(first).to_contain_text("2 / 2")
    expect(first.get_by_role("button", name="Next version")).to_be_disabled()
    stored = page.evaluate("""() => { const key = Object.keys(localStorage)
        .find(k => k.startsWith('chatkeep:conv:')); return [key, localStorage.getItem(key)]; }""")
    first.get_by_role("button", name="Previous version").click()
    expect(log(page).locator("article[data-role=user]").first).to_contain_text("1 / 2")
    expect(log(page).locator("article")).to_have_count(4)  # the first version, answers and all
    expect(log(page).locator("article[data-role=user]").first).to_contain_text("Alise")

    # Kept: after a reload the conversation opens on the version shown, the other one reachable.
    page.wait_for_function("([key, before]) => localStorage.getItem(key) !== before", arg=stored)
    assert stored_conversations(page)[0]["messages"][0].get("version") == 1
    page.reload()
    widget(page).wait_ready()
    page.get_by_role("button", name="History").click()
    page.get_by_role("list", name="Conversations", exact=True).get_by_role("button").first.click()
    first = log(page).locator("article[data-role=user]").first
    expect(first).to_contain_text("1 / 2")
    first.get_by_role("button", name="Next version").click()
    expect(log(page).locator("article[data-role=user]").first).to_contain_text("Alice")
    saved = page.evaluate("document.querySelector('chat-widget').session.save()")
    assert [m["content"] for m in saved["messages"]] == [
        "My name is Alice",
        saved["messages"][1]["content"],
    ]
    assert saved["messages"][0]["versions"][0]["content"] == "My name is Alise"
