"""A server with a client secret: the widget chats with the token the host's backend made,
and without one the person is told why nothing works."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pages import host_page, log
from playwright.sync_api import Page, expect
from servers import ChatkeepServer

from server import sign_client_token

SECRET = "e2e-client-secret"


@pytest.fixture(scope="module")
def guarded() -> Iterator[str]:
    with ChatkeepServer(env={"CHATKEEP_CLIENT_SECRET": SECRET}) as server:
        yield server.url


def test_the_widget_chats_with_a_signed_token(page: Page, guarded: str) -> None:
    token = sign_client_token(SECRET, "visitor-7", 300)
    host_page(page, f'history="memory" token="{token}"', base=guarded)
    page.get_by_role("textbox", name="Message").fill("My name is Tom")
    page.get_by_role("button", name="Send").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Tom")


def test_without_a_token_the_person_is_told(page: Page, guarded: str) -> None:
    host_page(page, 'history="memory"', base=guarded)
    page.get_by_role("textbox", name="Message").fill("Hello?")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("alert")).to_contain_text("needs a client token")
