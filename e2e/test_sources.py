"""The links an answer cites (`url_citation` annotations) show as a numbered "Sources" list
under it, kept with the conversation; only http and https links, never `javascript:`."""

from __future__ import annotations

from pages import host_page, route_answers, sse_answer, widget
from playwright.sync_api import Page, expect


def citation(url: str, title: str) -> dict[str, object]:
    cited = {"url": url, "title": title, "start_index": 0, "end_index": 5}
    return {"type": "url_citation", "url_citation": cited}


def test_cited_links_show_as_sources_and_are_kept(page: Page) -> None:
    route_answers(page, sse_answer(
        {"role": "assistant", "content": "Paris is the capital of France."},
        {"annotations": [citation("https://en.wikipedia.org/wiki/Paris", "Paris - Wikipedia"),
                         citation("javascript:alert(document.domain)", "Click me"),
                         citation("data:text/html,<script>alert(1)</script>", "Data"),
                         citation("http://example.com/france", "")]},
        {"annotations": [citation("https://en.wikipedia.org/wiki/Paris", "again, once")]},
    ))  # fmt: skip
    host_page(page, 'history="local"')
    widget(page).send("What is the capital of France?")
    sources = page.get_by_role("region", name="Sources")
    links = sources.get_by_role("link")
    expect(links).to_have_text(["Paris - Wikipedia", "example.com"])
    assert [links.nth(i).get_attribute("href") for i in range(2)] == [
        "https://en.wikipedia.org/wiki/Paris",
        "http://example.com/france",
    ]
    assert links.first.get_attribute("rel") == "noopener noreferrer"
    expect(sources.locator("ol li")).to_have_count(2)  # numbered, each once
    expect(sources.get_by_role("list", name="Sources")).to_be_visible()  # a list with a name
    assert "javascript:" not in page.locator("chat-widget").evaluate("w => w.shadowRoot.innerHTML")
    page.reload()
    widget(page).wait_ready()
    page.get_by_role("list", name="Recent conversations").get_by_role("button").first.click()
    expect(page.get_by_role("region", name="Sources").get_by_role("link")).to_have_text(
        ["Paris - Wikipedia", "example.com"]
    )
