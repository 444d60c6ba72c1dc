"""Attributes changed after the widget is running take effect at once: `lang`, `model`,
`suggestions` (the others configure the start, as the README says)."""

from __future__ import annotations

from pages import host_page
from playwright.sync_api import Page, expect


def test_changing_lang_redraws_every_string(page: Page) -> None:
    host_page(page, 'history="memory"')
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    page.evaluate("document.querySelector('chat-widget').setAttribute('lang', 'de')")
    expect(page.get_by_role("button", name="Senden")).to_be_visible()
    expect(page.get_by_role("textbox", name="Nachricht")).to_be_visible()
    page.evaluate("document.querySelector('chat-widget').removeAttribute('lang')")
    expect(page.get_by_role("button", name="Send")).to_be_visible()


def test_changing_model_picks_that_model(page: Page) -> None:
    host_page(page, 'history="memory"')
    picker = page.get_by_role("combobox", name="Model")
    expect(picker).to_have_value("demo")
    page.evaluate("document.querySelector('chat-widget').setAttribute('model', 'demo-mini')")
    expect(picker).to_have_value("demo-mini")


def test_changing_suggestions_redraws_them(page: Page) -> None:
    host_page(page, 'history="memory" suggestions=\'["Hello"]\'')
    expect(page.get_by_role("button", name="Hello")).to_be_visible()
    page.evaluate("""document.querySelector('chat-widget')
        .setAttribute('suggestions', JSON.stringify(['Where is my order?']))""")
    expect(page.get_by_role("button", name="Where is my order?")).to_be_visible()
    expect(page.get_by_role("button", name="Hello", exact=True)).to_have_count(0)
