"""What people meet in every chat product: the model's reasoning, rating answers, math, a
Markdown download, dictation. Pins are in test_history_pins.py."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pages import host_page, log, route_answers, sse_answer, widget
from playwright.sync_api import Page, expect

from server.testing import ChatkeepModel, ChatWidget


def thought(page: Page, nth: int = 0) -> Any:
    return log(page).locator("article[data-role=assistant]").nth(nth).locator("button.thought")


def test_the_demo_model_thinks_aloud_then_folds_its_reasoning(page: Page) -> None:
    host_page(page, 'history="memory"')
    page.get_by_role("combobox", name="Thinking").select_option("medium")
    page.get_by_role("textbox", name="Message").fill("My name is Ada")
    page.get_by_role("button", name="Send").click()
    live = page.get_by_role("button", name="Thinking…")
    expect(live).to_have_attribute("aria-expanded", "true")  # open while it thinks
    widget(page).settled(at_least=2)
    folded = thought(page)
    expect(folded).to_have_accessible_name(re.compile(r"^Thought for (\d+ s|a moment)$"))
    expect(folded).to_have_attribute("aria-expanded", "false")  # closed once the answer came
    text = log(page).locator(".thought-text")
    expect(text).to_be_hidden()
    folded.click()
    expect(text).to_be_visible()
    expect(text).to_contain_text("The person wrote “My name is Ada”")
    expect(log(page).locator("article[data-role=assistant] .body")).to_contain_text("Ada")


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_from_either_field_is_kept_through_a_reload(page: Page, field: str) -> None:
    host_page(page, 'history="local"')
    route_answers(
        page, sse_answer({field: "Two and two: "}, {field: "**four**."}, {"content": "4"})
    )
    widget(page).send("2+2?")
    expect(thought(page)).to_have_accessible_name(re.compile(r"^Thought"))
    stored = page.evaluate("document.querySelector('chat-widget').session.messages[1]")
    assert stored["reasoning"] == "Two and two: **four**." and stored["content"] == "4"
    page.reload()
    widget(page).wait_ready()
    page.get_by_role("button", name="2+2?").click()  # the recent conversation
    expect(thought(page)).to_be_visible()
    thought(page).click()
    expect(log(page).locator(".thought-text strong")).to_have_text("four")
    sent = []
    page.route("**/api/chat/completions", lambda route: (sent.append(route.request.post_data_json),
               route.fulfill(status=200, content_type="text/event-stream",
                             body=sse_answer({"content": "ok"}))))  # fmt: skip
    widget(page).send("And 3+3?")
    assert all("reasoning" not in m for m in sent[0]["messages"])  # never sent upstream again


def test_answers_are_rated_with_an_event_and_the_rating_is_kept(page: Page) -> None:
    host_page(page, 'history="local"')
    page.evaluate(
        """window.__ratings = [];
           document.addEventListener('chatkeep-feedback', e => window.__ratings.push(e.detail));"""
    )
    widget(page).send("Hello")
    good = page.get_by_role("button", name="Good answer")
    bad = page.get_by_role("button", name="Bad answer")
    expect(good).to_have_attribute("aria-pressed", "false")
    good.click()
    expect(good).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="Bad answer").click()
    expect(page.get_by_role("button", name="Bad answer")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("button", name="Good answer")).to_have_attribute(
        "aria-pressed", "false"
    )
    page.get_by_role("button", name="Bad answer").click()  # pressed again: taken back
    expect(page.get_by_role("button", name="Bad answer")).to_have_attribute("aria-pressed", "false")
    page.get_by_role("button", name="Good answer").click()
    expect(page.get_by_role("button", name="Good answer")).to_have_attribute("aria-pressed", "true")
    conversation = page.evaluate("document.querySelector('chat-widget').session.conversationId")
    ratings = page.evaluate("window.__ratings")
    assert ratings == [
        {"conversationId": conversation, "index": 1, "rating": rating}
        for rating in ("good", "bad", None, "good")
    ]
    snapshot = page.evaluate("document.querySelector('chat-widget').session.save()")
    assert snapshot["messages"][1]["feedback"] == "good"
    del bad


def test_math_is_typeset_and_tex_cannot_run_script(
    page: Page, chatkeep_model: ChatkeepModel
) -> None:
    page.add_init_script("window.__ran = []; window.alert = (m) => window.__ran.push(m);")
    host_page(page, 'history="memory"')
    hostile = (
        r"$\href{javascript:alert(1)}{click}$ $\url{javascript:alert(2)}$ "
        r"$\htmlId{x}{y}$ $\htmlData{onclick=alert(3)}{z}$ $\includegraphics{https://x.example/a.png}$"
    )
    chatkeep_model.reply(
        "The area is $$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$ and inline \\(e^{i\\pi}+1=0\\); "
        "prices stay: $5 and $10.\n\n" + hostile
    )
    chat = ChatWidget(page)
    chat.send("Area under x squared?")
    body = chat.answers.last.locator(".body")
    expect(body.locator(".katex-display math")).to_have_count(1)
    expect(body.locator("math mfrac")).to_have_count(1)
    expect(body).to_contain_text("prices stay: $5 and $10.")
    assert body.locator("math [href], a[href^=javascript], img").count() == 0
    assert page.evaluate("window.__ran") == []
    assert "\\int" not in body.inner_text()  # typeset, not shown as TeX


def test_the_open_conversation_downloads_as_markdown(page: Page) -> None:
    host_page(page, 'history="memory"')
    expect(page.get_by_role("button", name="Download")).to_be_hidden()  # nothing to download
    widget(page).send("My name is Ada")
    with page.expect_download() as downloading:
        page.get_by_role("button", name="Download").click()
    download = downloading.value
    assert download.suggested_filename == "My name is Ada.md"
    text = Path(download.path()).read_text(encoding="utf-8")
    assert text.startswith("# My name is Ada\n\n## You\n\nMy name is Ada\n\n## Assistant\n\n")
    assert "Nice to meet you, Ada!" in text


FAKE_RECOGNITION = """
window.__recognitions = [];
window.SpeechRecognition = class {
  constructor() { window.__recognitions.push(this); }
  start() {
    const results = [[{transcript: 'what is the weather'}], [{transcript: ' in Oslo'}]];
    setTimeout(() => this.onresult({results: results.slice(0, 1)}), 20);
    setTimeout(() => this.onresult({results}), 40);
  }
  stop() { setTimeout(() => this.onend(), 0); }
};
"""


def test_dictation_fills_the_composer_in_the_page_language_and_sends_nothing(page: Page) -> None:
    page.add_init_script(FAKE_RECOGNITION)
    host_page(page, 'history="memory" lang="de"')
    field = page.get_by_role("textbox", name="Nachricht")
    field.fill("Sag mal:")
    dictate = page.get_by_role("button", name="Diktieren")
    dictate.click()
    expect(dictate).to_have_attribute("aria-pressed", "true")
    expect(field).to_have_value("Sag mal: what is the weather in Oslo")
    dictate.click()
    expect(dictate).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("window.__recognitions[0].lang") == "de"
    assert page.evaluate("document.querySelector('chat-widget').session.messages.length") == 0


def test_without_speech_recognition_there_is_no_dictate_button(page: Page) -> None:
    page.add_init_script("delete window.SpeechRecognition; delete window.webkitSpeechRecognition;")
    host_page(page, 'history="memory"')
    expect(page.get_by_role("textbox", name="Message")).to_be_visible()
    expect(page.get_by_role("button", name="Dictate")).to_have_count(0)
