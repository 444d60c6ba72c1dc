"""A page that gives its tools to in-page agents with WebMCP (`document.modelContext`, here a
polyfill the page loaded) gets them into the chat with no Chatkeep-specific code: offered to
the model, asked for, called, and taken back when the page unregisters them."""

from __future__ import annotations

import json

from pages import host_page, log, widget
from playwright.sync_api import Page, expect

from server.scripted_model import ChatkeepModel

#: a minimal WebMCP polyfill, and the shop's own tool registered before the widget came
PAGE_TOOLS = """
document.modelContext = {
  tools: new Map(),
  registerTool(tool) { this.tools.set(tool.name, tool);
    return { unregister: () => this.tools.delete(tool.name) }; },
  unregisterTool(name) { this.tools.delete(name); },
};
window.lookups = [];
document.modelContext.registerTool({
  name: "lookup_order", description: "The state of an order, by its number",
  inputSchema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
  execute: async ({ order }) => {
    window.lookups.push(order);
    return `Order ${order} ships tomorrow`;
  },
});
"""
#: and one registered once the widget runs
LATER = """
window.later = document.modelContext.registerTool({
  name: "store_hours", description: "When the shop is open",
  execute: () => ({ open: "9-18" }),
});
"""


def offered(model: ChatkeepModel) -> list[str]:
    return sorted(t["function"]["name"] for t in model.requests[-1].get("tools", []))


def test_the_page_s_webmcp_tools_are_offered_asked_for_and_called(
    page: Page, chatkeep_model: ChatkeepModel
) -> None:
    chatkeep_model.reply(tool_call=("lookup_order", {"order": "A17"}))
    chatkeep_model.reply("It ships tomorrow.")
    host_page(page, script=PAGE_TOOLS, after=LATER)
    page.get_by_role("textbox", name="Message").fill("Where is order A17?")
    page.get_by_role("button", name="Send", exact=True).click()
    card = page.get_by_role("group", name="Run lookup_order?")
    card.get_by_role("button", name="Approve").click()
    widget(page).settled(at_least=4)
    assert page.evaluate("window.lookups") == ["A17"]
    expect(log(page).locator("article[data-role=tool]")).to_contain_text("Order A17 ships tomorrow")
    assert offered(chatkeep_model) == ["lookup_order", "store_hours"]

    page.evaluate("document.modelContext.unregisterTool('lookup_order'); window.later.unregister()")
    chatkeep_model.reply("Noted.")
    widget(page).send("Thanks")
    assert offered(chatkeep_model) == []  # taken back as the page took them back


def test_a_webmcp_tool_s_structured_ui_is_drawn(page: Page, chatkeep_model: ChatkeepModel) -> None:
    facts = {"type": "Facts", "items": [{"label": "Mon-Sat", "value": "9-18"}]}
    card = {"v": 1, "text": "Open 9-18",
            "root": {"type": "Card", "title": "Opening hours", "children": [facts]}}  # fmt: skip
    hours = f"""
document.modelContext.registerTool({{
  name: "store_hours", description: "When the shop is open",
  execute: () => ({{ content: [{{ type: "text", text: "Open 9-18" }}],
                    structuredContent: {{ chatkeep_ui: {json.dumps(card)} }} }}),
}});"""
    chatkeep_model.reply(tool_call=("store_hours", {}))
    chatkeep_model.reply("Nine to six.")
    host_page(page, script=PAGE_TOOLS, after=hours)
    page.get_by_role("textbox", name="Message").fill("When are you open?")
    page.get_by_role("button", name="Send", exact=True).click()
    page.get_by_role("group", name="Run store_hours?").get_by_role("button", name="Approve").click()
    widget(page).settled(at_least=4)
    result = log(page).locator("article[data-role=tool]")
    expect(result.get_by_role("heading", name="Opening hours")).to_be_visible()
    assert chatkeep_model.requests[1]["messages"][-1]["content"] == "Open 9-18"
