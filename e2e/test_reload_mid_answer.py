"""With Redis, an answer still being written survives a reload of the page: the reloaded
widget opens the conversation again and shows the answer continuing to its end, stored
complete, and the model is asked once. Stop still ends it within a second."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from live import FakeUpstream, LiveServer, needs_redis
from pages import host_page, log, screenshot, widget
from playwright.sync_api import Page, expect
from servers import RunningServer

from server.testing import RedisServer

pytestmark = [pytest.mark.slow, needs_redis]
WHOLE = "Hello" + "".join(f" {n}" for n in range(16))


@pytest.fixture(scope="module")
def keeping() -> Iterator[tuple[FakeUpstream, RunningServer]]:
    """A chat server with Redis, before an upstream writing an answer over six seconds."""
    fake = FakeUpstream(mode="ok", interval=0.4, count=16)
    with RedisServer() as redis, LiveServer(fake.app()) as upstream:
        chat = RunningServer("--upstream", f"{upstream.url}/v1", "--model", "gpt-live",
                             "--redis-url", redis.url)  # fmt: skip
        chat.wait_until_up()
        yield fake, chat
        chat.stop()


def answer(page: Page) -> object:
    return log(page).locator("article[data-role=assistant]")


def test_a_reload_mid_answer_shows_it_continuing_to_its_end(
    page: Page, keeping: tuple[FakeUpstream, RunningServer]
) -> None:
    fake, chat = keeping
    fake.mode, fake.received = "ok", []
    host_page(page, base=chat.url)
    page.get_by_role("textbox", name="Message").fill("Tell me about tides")
    page.get_by_role("button", name="Send").click()
    expect(answer(page)).to_contain_text("Hello 0")

    page.reload()  # mid-answer
    widget(page).wait_ready()
    expect(log(page).locator("article[data-role=user]")).to_have_text("Tell me about tides")
    # Still being written: the answer grows in front of the person, with Stop offered.
    expect(page.get_by_role("button", name="Stop")).to_be_visible()
    question = log(page).locator("article[data-role=user]")
    expect(question.get_by_role("button", name="Retry")).to_be_hidden()  # not while it is written
    screenshot(page, "reload-mid-answer")
    expect(answer(page)).to_have_text(WHOLE, timeout=15_000)
    widget(page).settled(at_least=2)
    expect(question.get_by_role("button", name="Retry")).to_be_visible()

    assert len(fake.received) == 1  # the model was asked once
    assert page.get_by_role("alert").count() == 0
    metas = page.evaluate(
        "Object.keys(localStorage).filter(k => k.includes(':meta:'))"
        ".map(k => localStorage.getItem(k))"
    )
    assert len(metas) == 1 and "pending" not in json.loads(metas[0])  # stored complete

    page.reload()  # and it stays so
    widget(page).wait_ready()
    expect(log(page).locator("article")).to_have_count(0)  # a new conversation, as always
    page.get_by_role("button", name="History").click()
    page.get_by_role("list", name="Conversations", exact=True).get_by_role(
        "button", name="Tell me about tides"
    ).click()
    expect(answer(page)).to_have_text(WHOLE)
    assert len(fake.received) == 1


def test_stop_still_ends_a_kept_answer_within_a_second(
    page: Page, keeping: tuple[FakeUpstream, RunningServer]
) -> None:
    fake, chat = keeping
    fake.mode, fake.received = "slow_stream", []
    host_page(page, base=chat.url)
    page.get_by_role("textbox", name="Message").fill("Stream for ever")
    page.get_by_role("button", name="Send").click()
    expect(answer(page)).to_contain_text("Hello 0 1")
    page.get_by_role("button", name="Stop").click()
    stopped = time.monotonic()
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    assert fake.seconds_to_end(stopped) < 1.0
    assert len(fake.received) == 1


def test_a_second_tab_leaves_an_answer_the_first_is_still_reading(
    page: Page, keeping: tuple[FakeUpstream, RunningServer]
) -> None:
    fake, chat = keeping
    fake.mode, fake.received = "ok", []
    log_from = len(chat.output)
    host_page(page, base=chat.url)
    page.get_by_role("textbox", name="Message").fill("Tell me about tides")
    page.get_by_role("button", name="Send").click()
    expect(answer(page)).to_contain_text("Hello 0")

    second = page.context.new_page()  # same origin: the same storage, the same Web Locks
    host_page(second, base=chat.url)
    # The question is stored with its turn id, but the first tab holds the turn: the
    # second opens on a new conversation instead of reading the same answer again.
    expect(log(second).locator("article")).to_have_count(0)
    expect(answer(page)).to_have_text(WHOLE, timeout=15_000)
    second.close()

    assert len(fake.received) == 1
    # Nobody asked for the answer a second time.
    assert "/api/chat/turns/" not in chat.output[log_from:]
