"""Languages: every string from one table per language; `lang` picks it, `dir="rtl"` flips."""

from __future__ import annotations

import pytest
from pages import host_page, log, widget
from playwright.sync_api import Page, expect


def test_german_from_the_lang_attribute(page: Page) -> None:
    host_page(page, 'history="memory" lang="de"')
    for role, name in [("textbox", "Nachricht"), ("button", "Senden"), ("button", "Verlauf"),
                       ("button", "Neues Gespräch"), ("combobox", "Modell"),
                       ("combobox", "Denken"), ("button", "Anhängen")]:  # fmt: skip
        expect(page.get_by_role(role, name=name, exact=True)).to_be_attached()  # type: ignore[arg-type]
    expect(page.get_by_role("heading", level=2)).to_have_text("Neues Gespräch")
    widget(page).send("My name is Jonas")
    user = page.get_by_role("log", name="Gespräch").locator("article[data-role=user]")
    expect(user.get_by_role("button", name="Abzweigen")).to_be_visible()
    expect(user.get_by_role("button", name="Wiederholen")).to_be_visible()
    page.get_by_role("button", name="Verlauf").click()
    expect(page.get_by_role("searchbox", name="Gespräche durchsuchen")).to_be_visible()
    expect(page.get_by_role("button", name="Umbenennen")).to_be_visible()
    expect(page.get_by_role("button", name="Exportieren")).to_be_visible()


def test_what_the_server_and_python_say_shows_in_german_too(page: Page) -> None:
    host_page(page, 'history="memory" lang="de"')
    page.route(
        "**/api/chat/completions",
        lambda route: route.fulfill(status=429, json={"error": {
            "message": "Too many requests: the limit is 60 a minute. Try again in 12 seconds.",
            "type": "rate_limit_error", "code": "rate_limited"}}),
    )  # fmt: skip
    widget(page).send("Hallo?")
    expect(page.get_by_role("alert")).to_have_text(
        "Zu viele Anfragen: erlaubt sind 60 pro Minute. Versuch es in 12 Sekunden noch einmal."
    )
    # The failed answer is marked in German as well.
    failed = page.get_by_role("log", name="Gespräch").locator(
        "article[data-role=assistant] .interrupted"
    )
    expect(failed).to_have_text(
        "Zu viele Anfragen: erlaubt sind 60 pro Minute. Versuch es in 12 Sekunden noch einmal."
    )


def test_the_page_s_language_is_the_default_and_an_unknown_one_is_english(page: Page) -> None:
    host_page(page, 'history="memory"', script="document.documentElement.lang = 'de-AT';")
    expect(page.get_by_role("button", name="Senden")).to_be_visible()
    host_page(page, 'history="memory" lang="tlh"')  # no table: English
    expect(page.get_by_role("button", name="Send")).to_be_visible()


def test_right_to_left(page: Page) -> None:
    host_page(page, 'history="memory" dir="rtl"')
    widget(page).send("My name is Dana")
    user = log(page).locator("article[data-role=user]")
    answer = log(page).locator("article[data-role=assistant]")
    user_box, answer_box = user.bounding_box(), answer.bounding_box()
    assert user_box and answer_box
    assert user_box["x"] < answer_box["x"] + answer_box["width"] / 2  # the person's side flips
    assert log(page).evaluate("el => getComputedStyle(el).direction") == "rtl"


# Every control of the widget a person can reach in a conversation and on the history page,
# with the name assistive technology gives it and whether it is visible.
CONTROLS = """() => {
  const root = document.querySelector('chat-widget').shadowRoot;
  const named = (node) => node.getAttribute('aria-label')
    || (node.labels?.[0]?.textContent ?? '').trim() || node.textContent.trim();
  return [...root.querySelectorAll('button, select, textarea, input:not([type=file])')]
    .filter((node) => node.checkVisibility())
    .map((node) => [node.className || node.tagName.toLowerCase(), named(node)]);
}"""
NEW_LANGUAGES = ["fr", "es", "it", "pt", "ja", "zh", "ar"]


def controls_in_every_state(page: Page) -> list[list[str]]:
    """The controls of an empty chat, of a conversation, and of the history page."""
    seen = page.evaluate(CONTROLS)
    widget(page).send("My name is Ana")
    seen += page.evaluate(CONTROLS)
    page.locator("chat-widget .history-button").click()
    expect(page.locator("chat-widget .history-page")).to_be_visible()
    return [*seen, *page.evaluate(CONTROLS)]


@pytest.mark.parametrize("lang", NEW_LANGUAGES)
def test_every_control_is_named_in_the_language(page: Page, lang: str) -> None:
    host_page(page, 'history="memory"')
    english = controls_in_every_state(page)
    host_page(page, f'history="memory" lang="{lang}"')
    translated = controls_in_every_state(page)
    assert [kind for kind, _ in translated] == [kind for kind, _ in english]
    # A name left in English (or none at all) is a string the table misses; "×" and the
    # like are symbols, some words are the same in both (French "Options"), and the
    # conversation's own title is the person's words.
    same = {name for (_, name), (_, said) in zip(english, translated, strict=True)
            if name == said and any(c.isalpha() for c in name)}  # fmt: skip
    assert same <= {"Options", "Message", "Conversation", "My name is Ana"}, same
    assert all(name for _, name in translated)


def test_arabic_is_written_right_to_left_by_itself(page: Page) -> None:
    host_page(page, 'history="memory" lang="ar"')
    expect(page.get_by_role("button", name="إرسال")).to_be_visible()
    widget(page).send("My name is Dana")
    arabic_log = page.get_by_role("log", name="المحادثة")
    user = arabic_log.locator("article[data-role=user]")
    answer = arabic_log.locator("article[data-role=assistant]")
    user_box, answer_box = user.bounding_box(), answer.bounding_box()
    assert user_box and answer_box
    assert user_box["x"] < answer_box["x"] + answer_box["width"] / 2  # the person's side flips
    assert arabic_log.evaluate("el => getComputedStyle(el).direction") == "rtl"
    # What the person wrote in English reads left to right inside it.
    direction = "el => getComputedStyle(el.querySelector('.body')).direction"
    assert user.evaluate(direction) == "ltr"
    # The page's own `dir` wins over the language's.
    host_page(page, 'history="memory" lang="ar" dir="ltr"')
    assert arabic_log.evaluate("el => getComputedStyle(el).direction") == "ltr"


def test_history_counts_take_the_language_s_plural_forms(page: Page) -> None:
    host_page(page, 'history="local" lang="ar"')
    for name in ("Ana", "Badr"):
        widget(page).send(f"My name is {name}")
        page.get_by_role("button", name="محادثة جديدة").first.click()
        # the new chat is open (else the next send would count the last one's messages)
        expect(page.locator("chat-widget article[data-role]")).to_have_count(0)
    page.locator("chat-widget .history-button").click()
    with page.expect_download():
        page.get_by_role("button", name="تصدير").click()
    expect(page.locator("chat-widget .history-page .status")).to_have_text("صُدِّرت محادثتان.")
