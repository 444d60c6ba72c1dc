"""Languages: every string from one table per language; `lang` picks it, `dir="rtl"` flips."""

from __future__ import annotations

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
