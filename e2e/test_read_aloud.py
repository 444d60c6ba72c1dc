"""Answers read aloud with the browser's speech synthesis, one at a time, stopped at will; no
button where the browser has none. Speech is stubbed: a test machine has no voices."""

from __future__ import annotations

from pages import host_page, widget
from playwright.sync_api import Page, expect

SPEECH = """
window.spoken = [];
Object.defineProperty(window, 'speechSynthesis', { configurable: true, value: {
  speak(utterance) {
    window.spoken.push({ text: utterance.text, lang: utterance.lang });
    window.now = utterance;
  },
  cancel() { const was = window.now; window.now = null; was?.dispatchEvent(new Event('end')); },
}});"""
NO_SPEECH = (
    "Object.defineProperty(window, 'speechSynthesis', { configurable: true, value: undefined });"
)


def test_an_answer_is_read_aloud_and_stopped(page: Page) -> None:
    host_page(page, 'history="memory" lang="de"', script=SPEECH)
    widget(page).send("Show me **bold** text")
    answer = page.locator("chat-widget article[data-role=assistant]").last
    expect(answer.locator("strong")).to_have_text("bold")  # the demo echoes it as Markdown
    answer.get_by_role("button", name="Vorlesen").click()
    spoken = page.evaluate("window.spoken")
    assert len(spoken) == 1 and spoken[0]["lang"] == "de"
    assert "bold" in spoken[0]["text"] and "**" not in spoken[0]["text"]  # what is seen
    stop = answer.get_by_role("button", name="Vorlesen beenden")
    expect(stop).to_be_visible()
    stop.click()
    expect(answer.get_by_role("button", name="Vorlesen", exact=True)).to_be_visible()
    assert page.evaluate("window.now") is None  # speech was cancelled
    # Read to its end: the button says so again by itself.
    answer.get_by_role("button", name="Vorlesen", exact=True).click()
    page.evaluate("window.now.dispatchEvent(new Event('end'))")
    expect(answer.get_by_role("button", name="Vorlesen", exact=True)).to_be_visible()


def test_no_read_aloud_where_the_browser_cannot_speak(page: Page) -> None:
    host_page(page, 'history="memory"', script=NO_SPEECH)
    widget(page).send("My name is Alice")
    answer = page.locator("chat-widget article[data-role=assistant]").last
    expect(answer.get_by_role("button", name="Copy")).to_be_visible()
    expect(answer.get_by_role("button", name="Read aloud")).to_have_count(0)
