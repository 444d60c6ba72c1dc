"""'Stop' in the widget closes the upstream request, so nobody pays for unread tokens."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from live import FakeUpstream, LiveServer
from pages import host_page, log
from playwright.sync_api import Page, expect
from servers import RunningServer


@pytest.fixture(scope="module")
def slow_upstream() -> Iterator[tuple[FakeUpstream, RunningServer]]:
    fake = FakeUpstream(mode="slow_stream", interval=0.1)
    with LiveServer(fake.app()) as upstream:
        chat = RunningServer("--upstream", f"{upstream.url}/v1", "--model", "gpt-live",
                             env={"CHATKEEP_API_KEY": "sk-e2e-SECRET"})  # fmt: skip
        chat.wait_until_up()
        yield fake, chat
        chat.stop()
        assert "sk-e2e-SECRET" not in chat.output  # the key never reaches a log line


def test_stop_closes_the_upstream_request(
    page: Page, slow_upstream: tuple[FakeUpstream, RunningServer]
) -> None:
    fake, chat = slow_upstream
    host_page(page, base=chat.url)
    page.get_by_role("textbox", name="Message").fill("Stream for ever")
    page.get_by_role("button", name="Send").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Hello 0 1")
    page.get_by_role("button", name="Stop").click()
    stopped = time.monotonic()
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    assert fake.seconds_to_end(stopped) < 1.0
    assert fake.received[-1].client_left
