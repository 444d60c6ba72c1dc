"""A server with a client secret: the widget chats with the token the host's backend made,
and without one the person is told why nothing works."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pages import BOOT_TIMEOUT, log
from playwright.sync_api import Page, expect
from servers import ChatkeepServer

from server import sign_client_token

SECRET = "e2e-client-secret"


@pytest.fixture(scope="module")
def guarded() -> Iterator[str]:
    with ChatkeepServer(env={"CHATKEEP_CLIENT_SECRET": SECRET}) as server:
        yield server.url


def open_with(page: Page, url: str, attributes: str) -> None:
    html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title>
<script type="module" src="/static/chat-widget.js"></script></head><body><main><h1>t</h1>
<chat-widget history="memory" {attributes} style="height:90vh"></chat-widget></main>
</body></html>"""
    page.route("**/token-page", lambda route: route.fulfill(body=html, content_type="text/html"))
    page.goto(f"{url}/token-page")
    page.wait_for_function(
        "document.querySelector('chat-widget')?.session?.ready.then(() => true)",
        timeout=BOOT_TIMEOUT,
    )


def test_the_widget_chats_with_a_signed_token(page: Page, guarded: str) -> None:
    open_with(page, guarded, f'token="{sign_client_token(SECRET, "visitor-7", 300)}"')
    page.get_by_role("textbox", name="Message").fill("My name is Tom")
    page.get_by_role("button", name="Send").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Tom")


def test_without_a_token_the_person_is_told(page: Page, guarded: str) -> None:
    open_with(page, guarded, "")
    page.get_by_role("textbox", name="Message").fill("Hello?")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("alert")).to_contain_text("needs a client token")
