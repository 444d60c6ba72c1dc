"""The operator's MCP server's tools in a real browser: the scripted model calls one, the card
names its server, the call reaches the MCP server (the `mcp` SDK's own) with the configured
headers and its answer reaches the model; the browser never sees the headers; a server that
went down ends the call with a clear notice, and the chat goes on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pages import host_page, log, widget
from playwright.sync_api import Page, expect
from servers import RunningServer

from server.scripted_model import ChatkeepModel

pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install chatkeep[mcp])")
from mcp_shop import ShopRecord, serve_shop

pytestmark = pytest.mark.slow
SHOP_TOKEN = "shop-secret-token-456"


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[tuple[ShopRecord, ChatkeepModel, RunningServer, object]]:
    record = ShopRecord()
    with ChatkeepModel(delay=0) as model, serve_shop(record) as mcp_server:
        config = tmp_path / "chatkeep.toml"
        config.write_text(f"""
[providers.kit]
base_url = "{model.url}"
api_key_env = "KIT_KEY"
models = ["scripted"]

[mcp.shop]
url = "{mcp_server.url}/mcp"
headers = {{ Authorization = "Bearer ${{SHOP_TOKEN}}" }}
tools = ["find_product", "show_jackets"]
""")
        chat = RunningServer("--config", str(config), "--rate-limit", "0",
                             env={"KIT_KEY": model.key, "SHOP_TOKEN": SHOP_TOKEN})  # fmt: skip
        chat.wait_until_up()
        try:
            yield record, model, chat, mcp_server
        finally:
            chat.stop()


def test_the_model_calls_an_mcp_tool_through_the_server_after_approval(
    page: Page, shop: tuple[ShopRecord, ChatkeepModel, RunningServer, object]
) -> None:
    record, model, chat, _ = shop
    seen: list[str] = []
    page.on("response", lambda r: seen.append(r.text()) if "/api/" in r.url
            and "event-stream" not in (r.headers.get("content-type") or "") else None)  # fmt: skip
    model.reply(tool_call=("shop__find_product", {"query": "red jacket"}))
    model.reply("Alder, Birch and Cedar.")
    host_page(page, base=chat.url)
    page.get_by_role("textbox", name="Message").fill("Find me a red jacket")
    page.get_by_role("button", name="Send", exact=True).click()
    card = page.get_by_role("group", name="Run shop__find_product?")
    expect(card).to_contain_text("shop")  # the card names the server
    card.get_by_role("button", name="Approve").click()
    widget(page).settled(at_least=4)
    result = log(page).locator("article[data-role=tool]")
    expect(result).to_contain_text("3 jackets match red jacket")
    expect(log(page).locator("article[data-role=assistant]").last).to_have_text(
        "Alder, Birch and Cedar."
    )
    assert record.calls == [("find_product", {"query": "red jacket"})]
    assert record.authorizations == [f"Bearer {SHOP_TOKEN}"]
    tool_result = model.requests[1]["messages"][-1]
    assert tool_result["role"] == "tool" and "Alder (89 EUR)" in tool_result["content"]
    assert seen and not [text for text in seen if SHOP_TOKEN in text]  # never in the browser


def test_an_mcp_tool_s_cards_are_drawn_and_act(
    page: Page, shop: tuple[ShopRecord, ChatkeepModel, RunningServer, object]
) -> None:
    _, model, chat, _ = shop
    model.reply(tool_call=("shop__show_jackets", {}))
    model.reply("Two jackets.")
    model.reply("Alder is light and warm.")
    host_page(page, base=chat.url)
    page.get_by_role("textbox", name="Message").fill("Show me jackets")
    page.get_by_role("button", name="Send", exact=True).click()
    page.get_by_role("group", name="Run shop__show_jackets?").get_by_role(
        "button", name="Approve"
    ).click()
    widget(page).settled(at_least=4)
    result = log(page).locator("article[data-role=tool]")
    expect(result.get_by_role("heading", name="Alder")).to_be_visible()  # structuredContent's UI
    expect(result.get_by_text("120 EUR")).to_be_visible()
    assert model.requests[1]["messages"][-1]["content"] == "Alder (89 EUR), Birch (120 EUR)"
    result.get_by_role("button", name="More about Alder").click()
    widget(page).settled(at_least=6)
    expect(log(page).locator("article[data-role=user]").last).to_have_text(
        "Tell me more about Alder"
    )


def test_a_tool_server_that_went_down_is_a_notice_and_the_chat_goes_on(
    page: Page, shop: tuple[ShopRecord, ChatkeepModel, RunningServer, object]
) -> None:
    _, model, chat, mcp_server = shop
    model.reply(tool_call=("shop__find_product", {"query": "boots"}))
    model.reply("The shop's catalogue is not answering; try again later.")
    host_page(page, base=chat.url)  # the tools were listed
    mcp_server.__exit__()  # type: ignore[attr-defined]  # then the MCP server went away
    page.get_by_role("textbox", name="Message").fill("Find me boots")
    page.get_by_role("button", name="Send", exact=True).click()
    page.get_by_role("button", name="Allow for this conversation").click()
    expect(page.get_by_role("alert")).to_contain_text('The tool server "shop" could not be reached')
    widget(page).settled(at_least=4)
    expect(log(page).locator("article[data-role=tool]")).to_contain_text("Error:")
    expect(log(page).locator("article[data-role=assistant]").last).to_contain_text("not answering")
    assert "could not be reached" in model.requests[1]["messages"][-1]["content"]
