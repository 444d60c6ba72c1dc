"""Answers that survive the page going away, without Redis: a stream cut at the server, a
page offline for 20 s, a page frozen (a locked phone) mid-answer (tests/away.py: held, as
Chromium will not freeze a page it shows). Each ends with the whole answer, the model asked
once, nothing shown twice."""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from away import LineCutter, freeze
from live import FakeUpstream, LiveServer
from pages import host_page, log
from playwright.sync_api import Page, expect
from servers import RunningServer

pytestmark = pytest.mark.slow
WHOLE = "Hello" + "".join(f" {n}" for n in range(16))


@pytest.fixture(scope="module")
def line() -> Iterator[tuple[FakeUpstream, LineCutter]]:
    """A chat server without Redis, behind a line that can be cut, before an upstream that
    writes an answer over about five seconds."""
    fake = FakeUpstream(mode="ok", interval=0.3, count=16)
    with LiveServer(fake.app()) as upstream:
        chat = RunningServer("--upstream", f"{upstream.url}/v1", "--model", "gpt-live")
        chat.wait_until_up()
        with LineCutter(urlsplit(chat.url).port or 80) as cutter:
            yield fake, cutter
        chat.stop()


def answer(page: Page) -> object:
    return log(page).locator("article[data-role=assistant]")


def ask(page: Page, fake: FakeUpstream, cutter: LineCutter) -> None:
    fake.mode, fake.received = "ok", []
    host_page(page, base=cutter.url)
    page.get_by_role("textbox", name="Message").fill("Tell me about tides")
    page.get_by_role("button", name="Send").click()
    expect(answer(page)).to_contain_text("Hello 0")


def upstream_done(fake: FakeUpstream) -> None:
    """Until the model has written the whole answer (the page was away meanwhile)."""
    assert fake.seconds_to_end(time.monotonic(), wait=30) < float("inf"), "the upstream never ended"


def whole_once(page: Page, fake: FakeUpstream) -> None:
    expect(answer(page)).to_have_text(WHOLE, timeout=20_000)  # all of it, nothing twice
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    assert len(fake.received) == 1  # the model was asked once
    assert not fake.received[0].client_left  # and nothing cancelled it
    expect(page.get_by_role("alert")).to_be_hidden()


def test_a_stream_cut_at_the_server_is_caught_up(
    page: Page, line: tuple[FakeUpstream, LineCutter]
) -> None:
    fake, cutter = line
    ask(page, fake, cutter)
    assert cutter.cut() >= 1
    whole_once(page, fake)


def test_a_page_offline_for_20_seconds_catches_up_when_back(
    page: Page, line: tuple[FakeUpstream, LineCutter]
) -> None:
    fake, cutter = line
    ask(page, fake, cutter)
    page.context.set_offline(True)
    went = time.monotonic()
    cutter.cut()  # the line drops with the network
    upstream_done(fake)
    # The scenario is a length of time, not a state to wait for: offline longer than the tries
    # a dropped line used to get (about 15 s, then the answer was given up).
    page.wait_for_timeout(max(0, 20_000 - (time.monotonic() - went) * 1000))
    expect(answer(page)).not_to_have_text(WHOLE)
    page.context.set_offline(False)
    whole_once(page, fake)


def test_a_page_frozen_mid_answer_catches_up_when_resumed(
    page: Page, line: tuple[FakeUpstream, LineCutter]
) -> None:
    fake, cutter = line
    ask(page, fake, cutter)
    cutter.cut()  # a locked phone's connection does not last
    freeze(page, 6)  # and nothing of the page runs while the rest of the answer is written
    assert fake.received[0].ended is not None  # the answer ended while the page was away
    whole_once(page, fake)
