"""Answers that act: a page tool's result carries a UI spec beside its text, and the widget
draws it itself (cards, facts, tables, lists, images, links, buttons, forms), found by role and
name; a message button sends a visible message; a form sends once and turns read-only, and
stays so after a reload; a tool button asks first; a spec broken in any way draws its text
and the note instead; hostile words and addresses run and load nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from guards import guard
from pages import host_page, log, stored_conversations, widget
from playwright.sync_api import Page, expect
from test_accessibility import violations
from test_rendering import OWN_PAYLOADS, hostile_inputs, settle_media

from server.scripted_model import ChatkeepModel

PIXEL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNk"
         "YAAAAAYAAjCB0C8AAAAASUVORK5CYII=")  # fmt: skip
FORECAST = {
    "v": 1,
    "text": "Lyon: 18°C and windy. Tomorrow 21°C.",
    "root": {"type": "Card", "title": "Weather in Lyon", "children": [
        {"type": "Stack", "direction": "row", "children": [
            {"type": "Icon", "name": "info", "label": "Windy"},
            {"type": "Badge", "text": "Live"},
            {"type": "Image", "url": PIXEL, "alt": "A map of Lyon"}]},
        {"type": "Markdown", "text": "Wind chill: $T_{wc} < T$ **today**."},
        {"type": "Divider"},
        {"type": "Facts", "items": [{"label": "Humidity", "value": 0.62},
                                    {"label": "Wind", "value": "35 km/h"}]},
        {"type": "Table", "caption": "Forecast", "columns": [
            {"key": "day", "label": "Day", "type": "date"},
            {"key": "high", "label": "High", "type": "number"}],
         "rows": [{"day": "2026-12-07", "high": 21}, {"day": "2026-12-08", "high": 1234.5}]},
        {"type": "List", "children": [
            {"type": "ListItem", "children": [{"type": "Text", "text": "Bring a coat"}]},
            {"type": "ListItem", "children": [{"type": "Text", "text": "Mind the bridges"}]}]},
        {"type": "Link", "label": "Lyon tourism", "url": "https://lyon.example/visit"},
        {"type": "Form", "id": "booking", "children": [
            {"type": "Field", "name": "guest", "label": "Your name", "required": True},
            {"type": "Field", "name": "day", "label": "Day", "kind": "select",
             "options": ["Monday", {"value": "tue", "label": "Tuesday"}]},
            {"type": "Field", "name": "news", "label": "Newsletter", "kind": "checkbox"}],
         "submit": {"type": "Button", "label": "Book a tour",
                    "action": {"kind": "message", "text": "Book me a tour"}}}],
     "actions": [
        {"type": "Button", "label": "Tell me more",
         "action": {"kind": "message", "text": "Tell me more about Lyon"}},
        {"type": "Button", "label": "Paris instead",
         "action": {"kind": "tool", "tool": "get_weather", "args": {"city": "Paris"}}}]},
}  # fmt: skip


def weather_tool(spec: Any) -> str:
    """`get_weather` (which the demo model calls), answering with text and `spec`."""
    inline = json.dumps(spec).replace("<", "\\u003c")  # (inside the page's own <script>)
    return f"""
window.weatherRuns = [];
document.querySelector('chat-widget').registerTool({{
  name: 'get_weather', description: 'The weather in a city',
  parameters: {{type: 'object', properties: {{city: {{type: 'string'}}}}, required: ['city']}},
  handler: ({{city}}) => {{ window.weatherRuns.push(city);
    return {{text: `18°C and windy in ${{city}}`, ui: {inline}}}; }},
}});"""


def asked(page: Page, spec: Any) -> Any:
    host_page(page, 'history="local"', after=weather_tool(spec))
    widget(page).send("What's the weather in Lyon?")
    return log(page).locator("article[data-role=tool]").last


def test_each_component_is_drawn_and_found_by_role_and_name(page: Page) -> None:
    result = asked(page, FORECAST)
    expect(result.get_by_role("heading", name="Weather in Lyon")).to_be_visible()
    expect(result.get_by_role("img", name="Windy")).to_be_visible()
    expect(result.get_by_role("img", name="A map of Lyon")).to_be_visible()
    expect(result.locator(".katex")).to_have_count(1)  # Markdown, through the renderer
    expect(result.get_by_role("separator")).to_have_count(1)
    expect(result.get_by_text("Humidity")).to_be_visible()
    table = result.get_by_role("table", name="Forecast")
    expect(table.get_by_role("row")).to_have_count(3)
    expect(table.get_by_role("cell", name="1,234.5")).to_be_visible()  # in the page's locale
    expect(table.get_by_role("cell", name="Dec 8, 2026")).to_be_visible()
    expect(result.get_by_role("list").get_by_role("listitem")).to_have_count(2)
    link = result.get_by_role("link", name="Lyon tourism")
    expect(link).to_contain_text("(opens lyon.example)")  # where it goes
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    assert page.evaluate("document.activeElement.tagName") != "INPUT"  # no focus taken
    assert violations(page) == []  # axe, on every component

    result.get_by_role("button", name="Tell me more").click()
    widget(page).settled(at_least=6)
    expect(log(page).locator("article[data-role=user]").last).to_have_text(
        "Tell me more about Lyon"
    )


def test_a_form_sends_once_turns_read_only_and_stays_so(page: Page) -> None:
    result = asked(page, FORECAST)
    result.get_by_role("textbox", name="Your name").fill("Ada")
    result.get_by_role("combobox", name="Day").select_option("tue")
    result.get_by_role("checkbox", name="Newsletter").check()
    book = result.get_by_role("button", name="Book a tour")
    book.dblclick()  # a double click sends once
    widget(page).settled(at_least=6)
    users = log(page).locator("article[data-role=user]")
    expect(users).to_have_count(2)
    expect(users.last).to_have_text("Book me a tour\n\nguest: Ada\nday: tue\nnews: yes")
    form = log(page).locator("article[data-role=tool]").first
    expect(form.get_by_role("status")).to_have_text("Sent.")
    expect(form.get_by_role("textbox", name="Your name")).to_be_disabled()
    [kept] = stored_conversations(page)
    tool = next(m for m in kept["messages"] if m["role"] == "tool")
    assert tool["ui_state"] == {"booking": {"guest": "Ada", "day": "tue", "news": True}}
    assert tool["content"] == "18°C and windy in Lyon"  # what the model reads

    page.reload()
    widget(page).wait_ready()
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="What's the weather in Lyon?").click()
    again = log(page).locator("article[data-role=tool]").first
    expect(again.get_by_role("textbox", name="Your name")).to_have_value("Ada")
    expect(again.get_by_role("textbox", name="Your name")).to_be_disabled()
    expect(again.get_by_role("checkbox", name="Newsletter")).to_be_checked()
    expect(again.get_by_role("button", name="Book a tour")).to_be_hidden()


def test_a_tool_button_asks_first(page: Page) -> None:
    result = asked(page, FORECAST)
    assert page.evaluate("window.weatherRuns") == ["Lyon"]
    result.get_by_role("button", name="Paris instead").click()
    approve = page.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible()  # the tool does not ask; a button calling it does
    assert page.evaluate("window.weatherRuns") == ["Lyon"]
    approve.click()
    expect(log(page).locator("article[data-role=user]").last).to_contain_text("Paris instead")
    assert page.evaluate("window.weatherRuns") == ["Lyon", "Paris"]


BROKEN = {
    "an unknown component": {**FORECAST, "root": {"type": "Carousel"}},
    "an extra property": {**FORECAST, "root": {**FORECAST["root"], "style": "color:red"}},
    "a newer version": {**FORECAST, "v": 2},
    "too many rows": {**FORECAST, "root": {"type": "Table", "caption": "c",
                      "columns": [{"key": "a", "label": "A"}], "rows": [{"a": "x"}] * 201}},
    "a javascript: link": {**FORECAST, "root": {"type": "Link", "label": "x",
                           "url": "javascript:alert(1)"}},
    "too many components": {**FORECAST, "root": {"type": "Stack",
                            "children": [{"type": "Divider"}] * 500}},
    "too large": {**FORECAST, "root": {"type": "Stack",
                  "children": [{"type": "Markdown", "text": "y" * 8000}] * 9}},
    "a duplicate id": {**FORECAST, "root": {"type": "Stack", "children": [
        {"type": "Divider", "id": "d"}, {"type": "Divider", "id": "d"}]}},
    "too deep": {**FORECAST, "root": json.loads('{"type":"Stack","children":[' * 8
                 + '{"type":"Divider"}' + "]}" * 8)},
}  # fmt: skip


def test_a_broken_spec_draws_its_text_and_the_note(page: Page) -> None:
    for way, spec in BROKEN.items():
        result = asked(page, spec)
        expect(result.get_by_text("Some content could not be shown.")).to_be_visible()
        expect(result).to_contain_text("Lyon: 18°C and windy. Tomorrow 21°C.")
        expect(result.locator(".ui-card, .ui-table, .ui-link")).to_have_count(0), way


def test_the_widget_s_own_words_are_in_the_page_s_language(page: Page) -> None:
    host_page(page, 'history="memory" lang="ar"', after=weather_tool(BROKEN["a newer version"]))
    widget(page).send("What's the weather in Lyon?")
    result = page.locator("chat-widget .transcript article[data-role=tool]").last
    expect(result.get_by_text("تعذّر عرض بعض المحتوى.")).to_be_visible()  # the note, in Arabic
    rows = [{"a": str(n)} for n in range(15)]
    long = {"v": 1, "text": "t", "root": {"type": "Table", "caption": "c",
            "columns": [{"key": "a", "label": "A"}], "rows": rows}}  # fmt: skip
    host_page(page, 'history="memory" lang="de"', after=weather_tool(long))
    widget(page).send("What's the weather in Lyon?")
    shown = page.locator("chat-widget .transcript")  # (its name is German here)
    shown.get_by_role("button", name="Mehr anzeigen (5)").click()
    expect(shown.get_by_role("table", name="c").get_by_role("row")).to_have_count(16)


def hostile_spec(words: list[str], number: int) -> dict[str, Any]:
    """Every text and URL property of every component, holding hostile words."""
    w = [*words, *OWN_PAYLOADS][:12]
    texts = [{"type": kind, "text": word[:limit]} for word in words
             for kind, limit in (("Heading", 200), ("Text", 4000), ("Markdown", 8000),
                                 ("Badge", 40))]  # fmt: skip
    return {"v": 1, "text": w[0][:8000], "root": {"type": "Card", "title": w[1][:200], "children": [
        *texts,
        {"type": "Icon", "name": "star", "label": w[2][:100]},
        {"type": "Image", "url": "https://attacker.example/x.png", "alt": w[2][:300]},
        {"type": "Image", "url": PIXEL, "alt": w[3][:300]},
        {"type": "Facts", "items": [{"label": word[:100], "value": word[:500]} for word in words]},
        {"type": "Table", "caption": w[3][:200], "columns": [{"key": "a", "label": w[4][:100]}],
         "rows": [{"a": word[:500]} for word in words]},
        {"type": "Link", "label": w[5][:100], "url": "https://attacker.example/?q=<script>"},
        {"type": "List", "children": [{"type": "ListItem", "children": [
            {"type": "Text", "text": w[6][:4000]}]}]},
        {"type": "Form", "id": f"f{number}", "children": [
            {"type": "Field", "name": "x", "label": w[6][:100], "value": w[7][:1000]},
            {"type": "Field", "name": "y", "label": w[8][:100], "kind": "select",
             "options": [{"value": word[:100], "label": word[:100]} for word in words]}],
         "submit": {"type": "Button", "label": w[8][:100],
                    "action": {"kind": "message", "text": w[9][:2000]}}}],
        "actions": [{"type": "Button", "label": w[10][:100], "action": {
            "kind": "link", "url": "https://attacker.example/a\"b"}}]}}  # fmt: skip


@pytest.mark.parametrize("source", ["own", "public corpora"])
def test_hostile_words_and_addresses_run_and_load_nothing(page: Page, source: str) -> None:
    guarded = guard(page)
    payloads = hostile_inputs(source)
    batches = [payloads[at : at + 10] for at in range(0, len(payloads), 10)]
    messages: list[dict[str, Any]] = []
    for number, words in enumerate(batches):
        call = {
            "id": f"c{number}",
            "type": "function",
            "function": {"name": "t", "arguments": "{}"},
        }
        messages += [{"role": "user", "content": f"Batch {number}"},
                     {"role": "assistant", "content": None, "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": f"c{number}", "name": "t", "content": "x",
                      "ui": hostile_spec(words, number)}]  # fmt: skip
    host_page(page, 'history="memory"')
    snapshot = {"version": 1, "id": "hostile", "title": "h", "created": 1, "updated": 2,
                "model": "demo", "thinking": "off", "messages": messages}  # fmt: skip
    page.evaluate("s => document.querySelector('chat-widget').session.restore(s)", snapshot)
    expect(log(page).locator(".ui-card")).to_have_count(len(batches))  # each drawn whole
    expect(log(page).get_by_text("Image: ", exact=False)).to_have_count(len(batches))  # not loaded
    settle_media(page)
    found = log(page).evaluate("""node => {
      const bad = node.querySelectorAll(
        'script, iframe, object, embed, style, link, meta, base, svg:not([aria-hidden=true])');
      const handlers = [...node.querySelectorAll('*')].flatMap(n =>
        [...n.attributes].filter(a => /^on/i.test(a.name)).map(a => a.name));
      const hrefs = [...node.querySelectorAll('[href]')].map(n => n.getAttribute('href'))
        .filter(h => !/^(https?:|mailto:)/.test(h));  // (Markdown's own link rules)
      const sources = [...node.querySelectorAll('[src]')].map(n => n.getAttribute('src'))
        .filter(s => !s.startsWith('data:image/png;base64,'));
      return {bad: bad.length, handlers, hrefs, sources, ran: window.__ran,
              focused: document.activeElement.tagName}; }""")
    assert found == {"bad": 0, "handlers": [], "hrefs": [], "sources": [], "ran": [],
                     "focused": "BODY"}  # fmt: skip
    assert guarded == []  # no dialog, no request to another host


def test_the_present_tool_draws_a_streamed_spec_as_it_arrives(
    page: Page, chatkeep_model: ChatkeepModel
) -> None:
    rows = [{"city": city, "high": high} for city, high in
            [("Lyon", 18), ("Paris", 15), ("Nice", 21), ("Brest", 12), ("Lille", 11)]]  # fmt: skip
    spec = {"text": "Highs: Lyon 18, Paris 15, Nice 21, Brest 12, Lille 11.", "root": {
        "type": "Stack", "children": [
            {"type": "Heading", "text": "Highs today"},
            {"type": "Table", "caption": "Highs", "columns": [
                {"key": "city", "label": "City"}, {"key": "high", "label": "°C", "type": "number"}],
             "rows": rows}]}}  # fmt: skip
    chatkeep_model.reply(tool_call=("present", spec))
    chatkeep_model.reply("There they are.")
    host_page(page, 'history="memory" present')
    delay, chatkeep_model.delay = chatkeep_model.delay, 0.25  # a slow stream, to be seen
    try:
        page.get_by_role("textbox", name="Message").fill("Highs today?")
        page.get_by_role("button", name="Send", exact=True).click()
        live = log(page).locator("article[aria-busy=true] .ui-live")
        expect(live.get_by_role("heading", name="Highs today")).to_be_visible()
        assert page.evaluate("document.querySelector('chat-widget').session.busy")
        assert live.get_by_role("row").count() < len(rows) + 1  # the table not whole yet
    finally:
        chatkeep_model.delay = delay
    widget(page).settled(at_least=4)
    table = log(page).locator("article[data-role=tool]").get_by_role("table", name="Highs")
    expect(table.get_by_role("row")).to_have_count(len(rows) + 1)
    assert "present" in json.dumps(chatkeep_model.requests[0]["tools"])
    sent = chatkeep_model.requests[1]["messages"][-1]
    assert sent["role"] == "tool" and sent["content"] == "Shown to the person."
    expect(log(page)).not_to_contain_text('"type": "Stack"')  # the call is drawn, not printed
