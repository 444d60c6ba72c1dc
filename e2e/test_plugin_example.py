"""The example from the README: your own page, Chatkeep's `chatkeep_server` fixture, Chromium.

`chatkeep_server` comes from the pytest plugin installed with Chatkeep; nothing here is
specific to this repository.
"""

from chatkeep.testing import ChatkeepServer
from playwright.sync_api import Page, expect


def test_a_visitor_chats_on_my_page(page: Page, chatkeep_server: ChatkeepServer) -> None:
    my_page = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
      <script type="module" src="{chatkeep_server.url}/static/chat-widget.js"></script></head>
      <body><h1>My shop</h1><chat-widget history="memory"></chat-widget></body></html>"""
    # Serve the page from the chat server's origin (another origin needs --allowed-origin).
    page.route(f"{chatkeep_server.url}/my-page", lambda route: route.fulfill(body=my_page))
    page.goto(f"{chatkeep_server.url}/my-page")

    page.get_by_role("textbox", name="Message").fill("My name is Ada")
    page.get_by_role("button", name="Send").click()
    page.get_by_role("textbox", name="Message").fill("What is my name?")
    page.get_by_role("button", name="Send").click()

    answers = page.get_by_role("log", name="Conversation").locator("article[data-role=assistant]")
    expect(answers.nth(1)).to_contain_text("Ada", timeout=60_000)
