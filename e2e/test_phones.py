"""On a phone: the open launcher stays above the on-screen keyboard (it follows the visual
viewport), text fields are at least 16 px (no zoom on focus); and after the first message the
page asks the browser to keep its storage."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pages import host_page, widget
from playwright.sync_api import Browser, BrowserContext, Page, expect

from server.testing import ChatkeepModel

#: A phone's screen (CSS pixels), and what its on-screen keyboard covers.
PHONE, KEYBOARD = {"width": 390, "height": 844}, 336

#: The browser reports a keyboard by shrinking the visual viewport: a stand-in that the test
#: can shrink, as Chromium's mobile emulation has no keyboard to open.
FAKE_VIEWPORT = """
const viewport = new EventTarget();
Object.assign(viewport, { width: innerWidth, height: innerHeight, offsetTop: 0, offsetLeft: 0,
                          scale: 1, pageTop: 0, pageLeft: 0 });
Object.defineProperty(window, "visualViewport", { value: viewport, configurable: true });
window.openKeyboard = (covered) => {
  viewport.height = innerHeight - covered;
  viewport.dispatchEvent(new Event("resize"));
};
"""


@pytest.fixture
def phone(browser: Browser, base_url: str) -> Iterator[Page]:
    context: BrowserContext = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=3,
        base_url=base_url, service_workers="block",
    )  # fmt: skip
    page = context.new_page()
    page.add_init_script(FAKE_VIEWPORT)
    yield page
    context.close()


def phone_page(page: Page, attributes: str, style: str = "") -> None:
    """A page made for phones (`width=device-width`, as mobile sites are) with one widget."""
    html = f"""<!doctype html><html lang="en" style="{style}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<title>Shop</title></head><body><h1>Shop</h1><chat-widget {attributes}></chat-widget>
<script type="module" src="/static/chat-widget.js"></script></body></html>"""
    page.route("**/phone-host", lambda route: route.fulfill(body=html, content_type="text/html"))
    page.goto("/phone-host")


def bottom_of(page: Page, selector: str) -> float:
    box = page.locator("chat-widget").locator(selector).first.bounding_box()
    assert box is not None, selector
    return box["y"] + box["height"]


def test_the_open_launcher_stays_above_the_keyboard(phone: Page) -> None:
    phone_page(phone, 'mode="launcher" history="memory"')
    phone.get_by_role("button", name="Open chat").click()
    widget(phone).wait_ready()
    field = phone.get_by_role("textbox", name="Message")
    expect(field).to_be_visible()
    assert bottom_of(phone, ".composer") <= PHONE["height"] + 0.5
    phone.evaluate(f"openKeyboard({KEYBOARD})")
    field.focus()
    visible = PHONE["height"] - KEYBOARD
    phone.wait_for_function(
        f"""() => {{ const c = document.querySelector('chat-widget').shadowRoot
               .querySelector('.composer').getBoundingClientRect();
             return c.bottom <= {visible} + 0.5 && c.top >= 0; }}""",
        timeout=5_000,
    )
    header = bottom_of(phone, "header")
    assert header > 0  # the top of the panel is still on screen
    widget(phone).send("Typed with the keyboard open")  # and the chat works as ever
    phone.evaluate("openKeyboard(0)")
    phone.wait_for_function(
        f"""() => document.querySelector('chat-widget').shadowRoot
              .querySelector('.composer').getBoundingClientRect().bottom > {visible} + 100""",
        timeout=5_000,
    )


def test_text_fields_are_16_px_at_least_even_on_a_small_type_page(phone: Page) -> None:
    phone_page(phone, 'history="local" style="height: 90vh"', style="font-size: 12px")
    widget(phone).send("Hello")
    phone.get_by_role("button", name="Edit").click()  # the "Edited message" field too
    expect(phone.get_by_role("textbox", name="Edited message")).to_be_focused()
    sizes = phone.evaluate("""() => {
      const root = document.querySelector('chat-widget').shadowRoot;
      return [...root.querySelectorAll('textarea, input:not([type=file])')]
        .map((field) => parseFloat(getComputedStyle(field).fontSize));
    }""")
    assert sizes and min(sizes) >= 16, sizes


def test_after_the_first_message_the_page_asks_to_keep_its_storage(page: Page) -> None:
    page.add_init_script("""window.persistAsked = 0;
      StorageManager.prototype.persist = function () {
        window.persistAsked += 1; return Promise.resolve(true); };""")
    host_page(page, 'history="local"')
    assert page.evaluate("window.persistAsked") == 0  # not for merely visiting
    widget(page).send("Worth keeping")
    widget(page).send("And this")
    assert page.evaluate("window.persistAsked") == 1  # once, from the page


def test_nothing_is_asked_when_nothing_is_kept(page: Page) -> None:
    page.add_init_script("""window.persistAsked = 0;
      StorageManager.prototype.persist = function () {
        window.persistAsked += 1; return Promise.resolve(true); };""")
    host_page(page, 'history="memory"')
    widget(page).send("Gone on reload anyway")
    assert page.evaluate("window.persistAsked") == 0


def test_on_a_phone_a_reader_keeps_their_place_and_a_message_waits_its_turn(
    phone: Page, chatkeep_model: ChatkeepModel
) -> None:
    chatkeep_model.delay = 0.02
    chatkeep_model.reply(" ".join(f"word{n}" for n in range(400)))
    chatkeep_model.reply("Then the tide turned.")
    phone_page(phone, 'history="local" style="height: 90vh"')
    widget(phone).wait_ready()
    phone.get_by_role("textbox", name="Message").fill("Tell me a long story")
    phone.get_by_role("button", name="Send", exact=True).tap()
    transcript = phone.get_by_role("log", name="Conversation")
    phone.wait_for_function("log => log.scrollHeight > log.clientHeight + 300",
                            arg=transcript.element_handle())  # fmt: skip
    transcript.evaluate("log => { log.scrollTop = log.scrollHeight - log.clientHeight - 250; }")
    jump = phone.get_by_role("button", name="Jump to latest")
    expect(jump).to_be_visible()
    held = transcript.evaluate("log => log.scrollTop")

    phone.get_by_role("textbox", name="Message").fill("And then?")
    phone.get_by_role("button", name="Send", exact=True).tap()
    queued = phone.get_by_role("list", name="Queued messages").get_by_role("listitem")
    expect(queued).to_contain_text("And then?")
    assert transcript.evaluate("log => log.scrollTop") == held  # still where the reader was
    jump.tap()
    expect(jump).to_be_hidden()

    users = transcript.locator("article[data-role=user]")
    expect(users).to_have_text(["Tell me a long story", "And then?"], timeout=30_000)
    widget(phone).settled(at_least=4)
    expect(transcript.locator("article[data-role=assistant]").last).to_have_text(
        "Then the tide turned."
    )
    assert [r["messages"][-1]["content"] for r in chatkeep_model.requests] == [
        "Tell me a long story", "And then?",
    ]  # fmt: skip
