"""axe-core (from npm) on every state a person meets: zero violations, both themes.

The demo page's CSP blocks injected scripts, so these pages open in a context that bypasses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pages import READY, host_page, widget
from playwright.sync_api import Browser, Page, expect
from servers import ROOT

AXE = ROOT / "static" / "node_modules" / "axe-core" / "axe.min.js"
WEATHER_WITH_APPROVAL = """
document.querySelector('chat-widget').registerTool({
  name: 'get_weather', description: 'The weather in a city', approval: true,
  parameters: {type: 'object', properties: {city: {type: 'string'}}, required: ['city']},
  handler: ({city}) => `18°C and windy in ${city}`,
});"""


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    context = browser.new_context(base_url=base_url, bypass_csp=True, service_workers="block")
    yield context.new_page()
    context.close()


def violations(page: Page) -> list[dict[str, Any]]:
    """axe's violations on the whole page, the widget's open shadow root included."""
    if not page.evaluate("'axe' in window"):
        page.add_script_tag(path=AXE)
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
             .map(v => ({id: v.id, help: v.help, nodes: v.nodes.map(n => n.target)}))"""
    )
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_demo_page_empty_and_in_a_conversation(page: Page, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto("/")
    page.wait_for_function(
        READY,
        timeout=60_000,
    )
    assert violations(page) == []
    widget(page).send("My name is Alice")
    widget(page).send("Show me **bold** and `code`")
    assert violations(page) == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_history_page(page: Page, theme: str) -> None:
    host_page(page, f'history="local" theme="{theme}"')
    widget(page).send("My name is Alice")
    page.reload()
    widget(page).wait_ready()
    expect(page.get_by_role("list", name="Recent conversations")).to_be_visible()
    assert violations(page) == []
    page.get_by_role("button", name="History").click()
    expect(page.get_by_role("list", name="Conversations", exact=True)).to_be_visible()
    assert violations(page) == []


def test_a_tool_approval_card(page: Page) -> None:
    host_page(page, 'history="memory"', after=WEATHER_WITH_APPROVAL)
    page.get_by_role("textbox", name="Message").fill("What's the weather in Lyon?")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("button", name="Approve")).to_be_visible()
    assert violations(page) == []
    page.get_by_role("button", name="Approve").click()


@pytest.mark.parametrize(
    ("mode", "lang"), [("inline", "de"), ("launcher", "en"), ("launcher", "de")]
)
def test_both_modes_and_both_languages(page: Page, mode: str, lang: str) -> None:
    host_page(page, f'history="memory" mode="{mode}" lang="{lang}"')
    if mode == "launcher":
        assert violations(page) == []  # closed: only the button
        page.get_by_role("button", name="Chat öffnen" if lang == "de" else "Open chat").click()
    assert violations(page) == []
    widget(page).send("My name is Alice")
    assert violations(page) == []


# Every text the widget's polite live region says, in order (it clears itself after a moment).
HEARD = """() => {
  const region = document.querySelector('chat-widget').shadowRoot.querySelector('.announce');
  window.heard = [];
  new MutationObserver(() => { if (region.textContent) window.heard.push(region.textContent); })
    .observe(region, {childList: true, characterData: true, subtree: true});
}"""


#: resolves once the page has drawn its next frame and is idle after it
IDLE = "() => new Promise((done) => requestAnimationFrame(() => requestIdleCallback(done)))"


@pytest.mark.parametrize(("lang", "said"), [("en", "Answer ready"), ("de", "Antwort fertig")])
def test_a_screen_reader_hears_once_that_each_answer_is_ready(
    page: Page, lang: str, said: str
) -> None:
    host_page(page, f'history="memory" lang="{lang}"')
    page.evaluate(HEARD)
    widget(page).send("My name is Alice")
    page.wait_for_function("window.heard.length >= 1")
    widget(page).send("What is my name?")
    page.wait_for_function("window.heard.length >= 2")
    # Settled, and the page idle after its next frame: a second announcement would be made.
    page.evaluate("document.querySelector('chat-widget').session.settled()")
    page.evaluate(IDLE)
    assert page.evaluate("window.heard") == [said, said]
    region = page.locator("chat-widget .announce")
    assert region.get_attribute("aria-live") == "polite"


@pytest.mark.parametrize(
    ("lang", "names"), [("en", ("Model", "Thinking")), ("de", ("Modell", "Denken"))]
)
def test_every_picker_says_what_it_picks(page: Page, lang: str, names: tuple[str, str]) -> None:
    host_page(page, f'history="memory" lang="{lang}"')
    for name in names:
        picker = page.get_by_role("combobox", name=name, exact=True)
        expect(picker).to_be_visible()
        expect(picker).to_have_attribute("title", name)  # its tooltip
        label = page.locator("chat-widget label.pick").filter(has=picker)
        expect(label).to_be_visible()
        assert label.inner_text().startswith(name)  # "Thinking off", never a bare "off"


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_starting_bar_holds_still_for_people_who_ask_for_less_motion(
    page: Page, motion: str
) -> None:
    page.emulate_media(reduced_motion=motion)  # type: ignore[arg-type]
    page.clock.install()  # the bar steps once a second: seconds pass when the test says
    page.route("**/widget_python.zip", lambda route: None)  # held: the chat stays starting
    host_page(page, 'history="memory"', ready=False)
    expect(page.get_by_role("progressbar")).to_be_visible()
    root = "document.querySelector('chat-widget').shadowRoot"
    bar = f"{root}.querySelector('[role=progressbar] span')"
    fill = f"new DOMMatrix(getComputedStyle({bar}).transform).a"
    before = page.evaluate(fill)
    page.clock.run_for(3_000)
    after = page.evaluate(fill)
    if motion == "reduce":
        assert before == after == 0.5  # half full, and still
    else:
        assert 0 < before < after < 1  # filling, never full before ready
    assert page.evaluate(f"{bar}.getAnimations().length") == 0  # stepped, not animated
