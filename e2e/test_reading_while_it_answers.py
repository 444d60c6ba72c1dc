"""Never lose your place: a reader scrolled up in a streaming answer stays where they are (to
the pixel) with "Jump to latest" offered; a message written while it answers waits below as
"Queued" and goes once, after the answer; "Send now" stops the answer and sends it; a queued
message survives a reload."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from live import FakeUpstream, LiveServer
from pages import host_page, log, widget
from playwright.sync_api import Page, expect
from servers import RunningServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def answering() -> Iterator[tuple[FakeUpstream, RunningServer]]:
    fake = FakeUpstream(mode="ok", interval=0.1, count=30)
    with LiveServer(fake.app()) as upstream:
        chat = RunningServer("--upstream", f"{upstream.url}/v1", "--model", "gpt-live",
                             "--rate-limit", "0")  # fmt: skip
        chat.wait_until_up()
        yield fake, chat
        chat.stop()


def start(page: Page, answering: tuple[FakeUpstream, RunningServer], mode: str) -> FakeUpstream:
    fake, chat = answering
    fake.mode, fake.received = mode, []
    host_page(page, base=chat.url)
    page.get_by_role("textbox", name="Message").fill("First")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Hello 0")
    return fake


def queue(page: Page, text: str) -> None:
    page.get_by_role("textbox", name="Message").fill(text)
    page.get_by_role("button", name="Send", exact=True).click()
    expect(queued(page).filter(has_text=text)).to_be_visible()


def queued(page: Page) -> object:
    return page.get_by_role("list", name="Queued messages").get_by_role("listitem")


def questions(fake: FakeUpstream) -> list[str]:
    return [r.body["messages"][-1]["content"] for r in fake.received]


def test_a_reader_scrolled_up_stays_where_they_are_until_they_jump(
    page: Page, answering: tuple[FakeUpstream, RunningServer]
) -> None:
    page.set_viewport_size({"width": 360, "height": 420})
    fake = start(page, answering, "slow_stream")
    transcript = log(page)
    page.wait_for_function(  # the answer has run past the screen
        "log => log.scrollHeight > log.clientHeight + 200", arg=transcript.element_handle()
    )
    transcript.evaluate("log => { log.scrollTop = log.scrollHeight - log.clientHeight - 150; }")
    jump = page.get_by_role("button", name="Jump to latest")
    expect(jump).to_be_visible()  # the answer went on below
    held = transcript.evaluate("log => log.scrollTop")
    grown = transcript.evaluate("log => log.scrollHeight")
    page.wait_for_function("([log, h]) => log.scrollHeight > h + 100",
                           arg=[transcript.element_handle(), grown])  # fmt: skip
    assert transcript.evaluate("log => log.scrollTop") == held  # to the pixel

    jump.click()
    expect(jump).to_be_hidden()
    expect(page.get_by_role("textbox", name="Message")).to_be_focused()
    grown = transcript.evaluate("log => log.scrollHeight")
    page.wait_for_function("([log, h]) => log.scrollHeight > h + 50",
                           arg=[transcript.element_handle(), grown])  # fmt: skip
    end = "log => log.scrollHeight - log.scrollTop - log.clientHeight"
    assert transcript.evaluate(end) <= 32  # following again
    page.get_by_role("button", name="Stop").click()
    assert len(fake.received) == 1


def test_a_message_sent_while_it_answers_waits_and_goes_once_after(
    page: Page, answering: tuple[FakeUpstream, RunningServer]
) -> None:
    fake = start(page, answering, "ok")
    queue(page, "Second")
    queue(page, "Never mind")
    expect(queued(page).first).to_contain_text("Queued")
    queued(page).filter(has_text="Never mind").get_by_role("button", name="Remove").click()
    expect(queued(page)).to_have_count(1)
    assert questions(fake) == ["First"]  # nothing goes while the answer is written

    users = log(page).locator("article[data-role=user]")
    expect(users).to_have_text(["First", "Second"], timeout=20_000)
    widget(page).settled(at_least=4)
    expect(page.get_by_role("list", name="Queued messages")).to_be_hidden()
    assert questions(fake) == ["First", "Second"]  # once, after the first answer
    first_answer = fake.received[1].body["messages"][-2]
    assert first_answer["role"] == "assistant" and first_answer["content"].endswith(" 29")


def test_send_now_stops_the_answer_and_sends_at_once(
    page: Page, answering: tuple[FakeUpstream, RunningServer]
) -> None:
    fake = start(page, answering, "slow_stream")
    queue(page, "Actually, tell me about waves")
    queued(page).get_by_role("button", name="Send now").click()
    users = log(page).locator("article[data-role=user]")
    expect(users).to_have_text(["First", "Actually, tell me about waves"])
    answers = log(page).locator("article[data-role=assistant]")
    expect(answers.first).to_contain_text("Hello 0")  # kept as far as it came
    expect(answers.nth(1)).to_contain_text("Hello 0")
    assert fake.received[0].client_left
    assert questions(fake) == ["First", "Actually, tell me about waves"]
    page.get_by_role("button", name="Stop").click()


def test_a_queued_message_survives_a_reload(
    page: Page, answering: tuple[FakeUpstream, RunningServer]
) -> None:
    fake = start(page, answering, "ok")
    queue(page, "Second")
    page.reload()  # mid-answer
    widget(page).wait_ready()
    expect(queued(page).filter(has_text="Second")).to_be_visible()
    users = log(page).locator("article[data-role=user]")
    expect(users).to_have_text(["First", "Second"], timeout=20_000)
    widget(page).settled(at_least=4)
    assert questions(fake) == ["First", "Second"]  # the first answer was not asked again
    kept = page.evaluate("localStorage.getItem('chatkeep:queue')")
    assert kept is None or json.loads(kept)["items"] == []
