"""Conversation features in a real browser: fork, retry, titles, model and thinking level,
tools with approval, attachments, errors and usage."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pages import LONGER, choose_files, host_page, log, stored_conversations, widget
from playwright.sync_api import Page, Route, expect

WEATHER_WITH_APPROVAL = """
const widget = document.querySelector('chat-widget');
window.weatherRuns = 0;
widget.registerTool({
  name: 'get_weather', description: 'The weather in a city', approval: true,
  parameters: {type: 'object', properties: {city: {type: 'string'}}, required: ['city']},
  handler: ({city}) => { window.weatherRuns++; return `18°C and windy in ${city}`; },
});"""


def bodies_sent(page: Page) -> list[dict[str, Any]]:
    """Records every chat request body the page sends from now on."""
    sent: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda request: (
            sent.append(json.loads(request.post_data or "{}"))
            if request.url.endswith("/chat/completions")
            else None
        ),
    )
    return sent


def open_history(page: Page) -> None:
    page.get_by_role("button", name="History").click()


def test_fork_opens_the_turns_before_a_message_and_puts_it_back(page: Page) -> None:
    host_page(page)
    widget(page).send("My name is Alice")
    widget(page).send("What is my name?")
    page.get_by_role("combobox", name="Thinking").select_option("medium")
    log(page).locator("article[data-role=user]").nth(1).get_by_role("button", name="Fork").click()
    expect(log(page).locator("article")).to_have_count(2)
    expect(page.get_by_role("textbox", name="Message")).to_have_value("What is my name?")
    expect(page.get_by_role("combobox", name="Thinking")).to_have_value("medium")
    widget(page).send("What is my name?")
    expect(log(page).locator("article[data-role=assistant]").last).to_contain_text("Alice")
    conversations = stored_conversations(page)
    assert len(conversations) == 2
    assert sorted(len(c["messages"]) for c in conversations) == [4, 4]


def test_retry_replaces_the_answer_and_the_stored_conversation_follows(page: Page) -> None:
    host_page(page)
    message = page.get_by_role("textbox", name="Message")
    message.fill("A long question, so that there is time to stop the answer" + LONGER)
    message.press("Enter")
    page.get_by_role("button", name="Stop").click()
    widget(page).settled(at_least=2)
    answer = log(page).locator("article[data-role=assistant]")
    expect(answer).to_contain_text("Stopped before the answer was finished.")
    log(page).get_by_role("button", name="Retry").click()
    expect(answer).to_contain_text("You said")
    expect(answer).not_to_have_attribute("aria-busy", "true")
    widget(page).settled()
    expect(answer).to_have_count(1)
    expect(answer).not_to_contain_text("Stopped")
    [stored] = stored_conversations(page)
    assert len(stored["messages"]) == 2 and "error" not in stored["messages"][1]


def test_a_generated_title_shows_in_the_header_and_the_history(page: Page) -> None:
    host_page(page, 'history="local" generate-title')
    widget(page).send("Please plan a picnic for six people this weekend")
    heading = page.get_by_role("heading", level=2)
    expect(heading).to_have_text("Please plan a picnic for")
    open_history(page)
    expect(page.get_by_role("button", name="Please plan a picnic for", exact=True)).to_be_visible()


def test_a_failed_title_request_keeps_the_derived_title(page: Page) -> None:
    host_page(page, 'history="local" generate-title')

    def fail_titles(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        if body["messages"][0]["content"].startswith("Write a title"):
            route.fulfill(status=502, json={"error": {"message": "down", "type": "x", "code": "x"}})
        else:
            route.continue_()

    page.route("**/api/chat/completions", fail_titles)
    widget(page).send("Please plan a picnic for six people this weekend")
    heading = page.get_by_role("heading", level=2)
    expect(heading).to_have_text("Please plan a picnic for six people this weekend")
    expect(page.get_by_role("alert")).to_be_hidden()


def test_model_and_thinking_level_are_sent_stored_and_restored(page: Page) -> None:
    host_page(page)
    sent = bodies_sent(page)
    model = page.get_by_role("combobox", name="Model")
    expect(model.locator("option")).to_have_text(["demo", "demo-mini"])
    model.select_option("demo-mini")
    page.get_by_role("combobox", name="Thinking").select_option("high")
    widget(page).send("Think hard")
    assert sent[-1]["model"] == "demo-mini" and sent[-1]["reasoning_effort"] == "high"
    [stored] = stored_conversations(page)
    assert (stored["model"], stored["thinking"]) == ("demo-mini", "high")
    page.reload()
    widget(page).wait_ready()
    expect(page.get_by_role("combobox", name="Thinking")).to_have_value("off")
    open_history(page)
    page.get_by_role("list", name="Conversations", exact=True).get_by_role(
        "button", name="Think hard"
    ).click()
    expect(page.get_by_role("combobox", name="Model")).to_have_value("demo-mini")
    expect(page.get_by_role("combobox", name="Thinking")).to_have_value("high")
    page.get_by_role("combobox", name="Thinking").select_option("off")
    widget(page).send("Now quickly")
    assert "reasoning_effort" not in sent[-1]


def test_a_tool_with_approval_runs_only_when_approved(page: Page) -> None:
    host_page(page, 'history="local"', after=WEATHER_WITH_APPROVAL)
    page.get_by_role("textbox", name="Message").fill("What's the weather in Lyon?")
    page.get_by_role("button", name="Send").click()
    page.get_by_role("button", name="Approve").click()
    widget(page).settled(at_least=4)
    assert page.evaluate("window.weatherRuns") == 1
    expect(log(page).locator("article[data-role=tool]")).to_contain_text("18°C and windy in Lyon")
    expect(log(page).locator("article[data-role=assistant]").last).to_contain_text("18°C and windy")

    page.get_by_role("textbox", name="Message").fill("What's the weather in Nice?")
    page.get_by_role("button", name="Send").click()
    page.get_by_role("button", name="Deny").click()
    widget(page).settled(at_least=8)
    assert page.evaluate("window.weatherRuns") == 1
    expect(log(page).locator("article[data-role=tool]").last).to_contain_text("declined")


def test_a_tool_allowed_for_this_conversation_runs_without_asking_until_taken_back(
    page: Page,
) -> None:
    host_page(page, 'history="local"', after=WEATHER_WITH_APPROVAL)
    page.get_by_role("textbox", name="Message").fill("What's the weather in Lyon?")
    page.get_by_role("button", name="Send", exact=True).click()
    page.get_by_role("button", name="Allow for this conversation").click()
    widget(page).settled(at_least=4)
    allowed = page.get_by_role("region", name="Allowed in this conversation")
    expect(allowed.get_by_role("button", name="Stop allowing get_weather")).to_be_visible()

    page.get_by_role("textbox", name="Message").fill("What's the weather in Nice?")
    page.get_by_role("button", name="Send", exact=True).click()
    widget(page).settled(at_least=8)  # no card this time
    assert page.evaluate("window.weatherRuns") == 2
    expect(log(page).locator("article[data-role=tool]").last).to_contain_text("in Nice")
    [stored] = stored_conversations(page)
    assert stored["allowed_tools"] == ["get_weather"]  # kept in its snapshot

    page.reload()  # and kept with it
    widget(page).wait_ready()
    page.get_by_role("list", name="Recent conversations").get_by_role("button").first.click()
    allowed.get_by_role("button", name="Stop allowing get_weather").click()
    expect(allowed).to_be_hidden()
    page.get_by_role("textbox", name="Message").fill("What's the weather in Paris?")
    page.get_by_role("button", name="Send", exact=True).click()
    page.get_by_role("button", name="Deny").click()  # asked again
    widget(page).settled(at_least=12)
    assert page.evaluate("window.weatherRuns") == 0  # counted since the reload: denied
    [stored] = stored_conversations(page)
    assert "allowed_tools" not in stored


def test_a_pending_approval_is_cut_when_the_conversation_is_left(page: Page) -> None:
    host_page(page, 'history="local"', after=WEATHER_WITH_APPROVAL)
    widget(page).send("My name is Alice")
    page.get_by_role("textbox", name="Message").fill("What's the weather in Lyon?")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("button", name="Approve")).to_be_visible()
    page.get_by_role("button", name="New conversation").click()
    expect(page.get_by_role("button", name="Approve")).to_have_count(0)
    expect(log(page).locator("article")).to_have_count(0)
    [stored] = stored_conversations(page)
    assert not any(m.get("tool_calls") for m in stored["messages"])
    assert page.evaluate("window.weatherRuns") == 0


def test_seed_scenario_a_restored_tool_result_is_not_run_again(page: Page) -> None:
    page.goto("/")
    widget(page).wait_ready()
    widget(page).send("What's the weather in Paris?")
    assert page.evaluate("window.chatkeepDemoToolCalls") == 1
    expect(log(page).locator("article[data-role=tool]")).to_contain_text("22°C")
    page.reload()
    widget(page).wait_ready()
    sent = bodies_sent(page)
    open_history(page)
    page.get_by_role("list", name="Conversations", exact=True).get_by_role("button").first.click()
    widget(page).send("Is that warm?")
    expect(log(page).locator("article[data-role=assistant]").last).to_contain_text("22°C is warm")
    assert page.evaluate("window.chatkeepDemoToolCalls ?? 0") == 0
    replayed = [m for m in sent[0]["messages"] if m["role"] == "tool"]
    assert replayed and "22°C" in replayed[0]["content"]


def test_attachments_travel_to_the_model_and_are_stored(page: Page, tmp_path: Path) -> None:
    host_page(page)
    sent = bodies_sent(page)
    notes = tmp_path / "notes.txt"
    notes.write_text("Buy milk")
    choose_files(page, "Attach", notes)
    expect(page.get_by_role("button", name="Remove notes.txt")).to_be_visible()
    widget(page).send("Read this")
    expect(log(page).locator("article[data-role=user]")).to_contain_text("notes.txt")
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text(
        "I received the file notes.txt"
    )
    assert sent[0]["messages"][-1]["content"][1] == {
        "type": "text",
        "text": "File notes.txt:\n\nBuy milk",
    }
    [stored] = stored_conversations(page)
    assert stored["messages"][0]["attachments"] == [
        {"name": "notes.txt", "mime": "text/plain", "data": "QnV5IG1pbGs="}
    ]


def test_a_file_over_the_budget_is_refused_before_anything_is_sent(
    page: Page, tmp_path: Path
) -> None:
    host_page(page, 'history="local" max-attachment-bytes="100"')
    sent = bodies_sent(page)
    big = tmp_path / "big.txt"
    big.write_text("x" * 200)
    choose_files(page, "Attach", big)
    expect(page.get_by_role("alert")).to_contain_text("“big.txt” is 200 bytes")
    expect(page.get_by_role("button", name="Remove big.txt")).to_have_count(0)
    assert sent == []


def test_an_upstream_error_shows_an_alert_a_person_understands(page: Page) -> None:
    host_page(page)
    page.route(
        "**/api/chat/completions",
        lambda route: route.fulfill(status=502, json={"error": {
            "message": "The model service could not be reached. Try again later.",
            "type": "upstream_error", "code": "upstream_unreachable"}}),
    )  # fmt: skip
    widget(page).send("Hello?")
    expect(page.get_by_role("alert")).to_have_text(
        "The model service could not be reached. Try again later."
    )


def test_a_dropped_stream_keeps_the_partial_answer_marked_and_retry_works(page: Page) -> None:
    host_page(page)
    chunk = {"choices": [{"index": 0, "delta": {"content": "Half an ans"}, "finish_reason": None}]}
    page.route(
        "**/api/chat/completions",
        lambda route: route.fulfill(
            status=200, content_type="text/event-stream", body=f"data: {json.dumps(chunk)}\n\n"
        ),
    )
    widget(page).send("Tell me everything")
    answer = log(page).locator("article[data-role=assistant]")
    expect(answer).to_contain_text("Half an ans")
    expect(answer).to_contain_text("closed before the answer was complete")
    expect(page.get_by_role("alert")).to_be_visible()
    [stored] = stored_conversations(page)
    assert stored["messages"][-1]["error"]  # kept, marked, never as a complete turn
    page.unroute("**/api/chat/completions")
    log(page).get_by_role("button", name="Retry").click()
    expect(answer).to_contain_text("You said")
    expect(answer).not_to_have_attribute("aria-busy", "true")
    widget(page).settled()
    expect(answer).to_have_count(1)
    expect(page.get_by_role("alert")).to_be_hidden()


def test_token_usage_is_shown_for_the_turn(page: Page) -> None:
    host_page(page)
    widget(page).send("Count my tokens")
    usage = page.locator("chat-widget").locator(".usage")
    expect(usage).to_have_text(re.compile(r"^[1-9]\d* tokens in, [1-9]\d* out$"))


def test_a_file_the_chat_cannot_read_is_refused_naming_it(page: Page, tmp_path: Path) -> None:
    host_page(page)
    sent = bodies_sent(page)
    archive = tmp_path / "photos.zip"
    archive.write_bytes(b"PK\x03\x04 not for a model")
    notes = tmp_path / "notes.md"
    notes.write_text("# Plan")
    choose_files(page, "Attach", archive, notes)
    expect(page.get_by_role("alert")).to_have_text(
        "“photos.zip” is a kind of file the chat cannot read: attach images, PDFs or text files."
    )
    expect(page.get_by_role("button", name="Remove photos.zip")).to_have_count(0)
    expect(page.get_by_role("button", name="Remove notes.md")).to_be_visible()  # the rest attach
    assert sent == []
