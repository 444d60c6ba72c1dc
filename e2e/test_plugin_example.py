"""The example from the README: your own page, Chatkeep's testing kit, Chromium.

`chatkeep_server`, `chatkeep_model` and `ChatWidget` come from the pytest plugin installed
with Chatkeep; nothing here is specific to this repository. e2e/test_install.py runs this file
in a fresh virtualenv with the built wheel, as a stranger would.
"""

import json

import pytest
from chatkeep.testing import ChatkeepModel, ChatkeepServer, ChatWidget
from playwright.sync_api import Page

MY_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
  <script type="module" src="{url}/static/chat-widget.js"></script></head>
  <body><h1>My shop</h1><chat-widget history="memory"></chat-widget>
  <script type="module">
    await customElements.whenDefined("chat-widget");
    document.querySelector("chat-widget").registerTool({
      name: "order_status", description: "Where an order is",
      parameters: {type: "object", properties: {order: {type: "string"}}},
      handler: ({order}) => `Order ${order} left the warehouse today.`,
    });
  </script></body></html>"""


@pytest.fixture
def chat(page: Page, chatkeep_server: ChatkeepServer) -> ChatWidget:
    """My page with the widget, served from the chat server's origin (another origin needs
    `--allowed-origin`)."""
    url = chatkeep_server.url
    page.route(f"{url}/my-page", lambda route: route.fulfill(body=MY_PAGE.replace("{url}", url)))
    page.goto(f"{url}/my-page")
    return ChatWidget(page)


def test_the_refund_answer(chat: ChatWidget, chatkeep_model: ChatkeepModel) -> None:
    chatkeep_model.reply("Your refund of 20 € is on its way.")
    chat.send("Where is my refund?")
    chat.expect_answer("refund of 20 €")
    chat.send("My name is Ada")  # beyond the queue: the demo model answers
    chat.expect_answer("Nice to meet you, Ada!")
    assert chatkeep_model.requests[0]["messages"][-1]["content"] == "Where is my refund?"


def test_a_tool_result_reaches_the_model(chat: ChatWidget, chatkeep_model: ChatkeepModel) -> None:
    chatkeep_model.reply(tool_call=("order_status", {"order": "A-17"}))
    chatkeep_model.reply("It left the warehouse today.")
    chat.send("Where is order A-17?")
    chat.expect_answer("left the warehouse")
    tool_message = chatkeep_model.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == "Order A-17 left the warehouse today."
    assert [m["role"] for m in chat.history()] == ["user", "assistant", "tool", "assistant"]
    assert json.loads(chat.history()[1]["tool_calls"][0]["function"]["arguments"]) == {
        "order": "A-17"
    }


def test_an_outage_shows_an_alert(chat: ChatWidget, chatkeep_model: ChatkeepModel) -> None:
    chatkeep_model.reply(status=503)
    chat.send("Hello?")
    chat.expect_error("Try again later")


def test_the_reasoning_shows_above_the_answer(
    chat: ChatWidget, chatkeep_model: ChatkeepModel
) -> None:
    chatkeep_model.reply("Four.", reasoning="Two and two make four.")
    chat.send("What is 2+2?")
    chat.expect_answer("Four.")
    assert chat.history()[-1]["reasoning"] == "Two and two make four."
