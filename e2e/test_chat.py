"""The whole path: the demo page, the worker booting Python, a streamed answer."""

from __future__ import annotations

from typing import Literal

import pytest
from pages import LONGER, READY, host_page, screenshot, widget
from playwright.sync_api import Page, expect

BOOT_TIMEOUT = 60_000


def open_chat(page: Page) -> None:
    page.goto("/")
    page.wait_for_function(
        READY,
        timeout=BOOT_TIMEOUT,
    )


def press_send(page: Page, text: str) -> None:
    """Type `text` and press Send, not waiting for the answer (it may wait for approval)."""
    page.get_by_role("textbox", name="Message").fill(text)
    page.get_by_role("button", name="Send").click()


def test_remembers_a_name_across_turns(page: Page) -> None:
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    open_chat(page)
    press_send(page, "My name is Alice")
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator("article[data-role=assistant]:not([aria-busy])")).to_have_count(1)
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    press_send(page, "What is my name?")
    answer = log.locator("article[data-role=assistant]").nth(1)
    expect(answer).to_contain_text("Alice")
    expect(log.locator("article[data-role=user]")).to_have_count(2)
    assert problems == []  # no CSP violation, no script error on the demo page


def test_shows_progress_until_the_runtime_has_loaded(page: Page) -> None:
    page.goto("/")
    expect(page.get_by_role("progressbar")).to_be_attached()
    # It steps from a timer: no animation runs meanwhile, which would have the compositor
    # draw every frame while Python starts (static/progress.js).
    starting, animations, fill = page.evaluate("""() => {
        const root = document.querySelector("chat-widget").shadowRoot;
        const bar = root.querySelector(".loading span");
        return [bar !== null, root.getAnimations().length, bar && getComputedStyle(bar).transform];
    }""")
    assert starting and animations == 0
    assert fill.startswith("matrix(0.")  # partly filled
    expect(page.get_by_role("progressbar")).to_have_count(0, timeout=BOOT_TIMEOUT)
    expect(page.get_by_role("button", name="Send")).to_be_enabled()


def test_enter_sends_and_stop_ends_a_streaming_answer(page: Page) -> None:
    open_chat(page)
    message = page.get_by_role("textbox", name="Message")
    message.fill("Tell me something long please, about anything at all, many words" + LONGER)
    message.press("Enter")
    stop = page.get_by_role("button", name="Stop")
    expect(stop).to_be_visible()
    stop.click()
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    answer = page.locator("article[data-role=assistant]")
    expect(answer).to_have_count(1)
    expect(answer).to_contain_text("Stopped before the answer was finished.")
    expect(page.get_by_role("alert")).to_be_hidden()


def chat_background(page: Page) -> str:
    background: str = page.evaluate(
        "getComputedStyle(document.querySelector('chat-widget').shadowRoot"
        ".querySelector('.chat')).backgroundColor"
    )
    return background


@pytest.mark.parametrize(
    ("theme", "scheme", "expected"),
    [
        ("auto", "light", "rgb(255, 255, 255)"),
        ("auto", "dark", "rgb(22, 24, 28)"),
        ("light", "dark", "rgb(255, 255, 255)"),
        ("dark", "light", "rgb(22, 24, 28)"),
    ],
)
def test_theme_follows_the_attribute_or_the_system(
    page: Page, theme: str, scheme: Literal["light", "dark"], expected: str
) -> None:
    page.emulate_media(color_scheme=scheme)
    host_page(page, f'theme="{theme}"')
    assert chat_background(page) == expected


def test_a_screenshot_for_the_readme(page: Page) -> None:
    """The README's picture, made from the real page: build/screenshots/chat.png."""
    page.set_viewport_size({"width": 900, "height": 760})
    open_chat(page)
    press_send(page, "My name is Alice")
    log = page.get_by_role("log", name="Conversation")
    expect(log.locator("article[data-role=assistant]:not([aria-busy])")).to_have_count(1)
    page.get_by_role("button", name="Good answer").click()
    page.get_by_role("combobox", name="Thinking").select_option("low")
    press_send(page, "What is the weather in Paris?")
    expect(log.locator("article[data-role=assistant]").last).to_contain_text("22°C")
    expect(log.locator("button.thought").first).to_contain_text("Thought for")
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    screenshot(page, "chat")


FROM_SNAPSHOT = "document.querySelector('chat-widget').session.startedFromSnapshot"
# The one memory snapshot this origin keeps (static/snapshot-store.js), in IndexedDB.
SNAPSHOT_STORE = """const open = () => new Promise((resolve, reject) => {
  const request = indexedDB.open('chatkeep-python', 1);
  request.onupgradeneeded = () => request.result.createObjectStore('snapshot');
  request.onsuccess = () => resolve(request.result); request.onerror = () => reject(request.error);
});
const kept = (db, name) => new Promise((resolve) => {
  const request = db.transaction('snapshot').objectStore('snapshot').get(name);
  request.onsuccess = () => resolve(request.result); request.onerror = () => resolve(undefined);
});"""
# Kept in the background once ready: the worker says when the write has committed (a key
# seen in the page a moment sooner may still be lost if the page closes first).
SNAPSHOT_KEPT = "document.querySelector('chat-widget').session.snapshotKept()"
# Damaged in the page.
DAMAGE = f"""async damage => {{ {SNAPSHOT_STORE}
  const db = await open();
  const bytes = new Uint8Array(await kept(db, 'bytes'));
  if (damage === 'garbage') bytes.set(new TextEncoder().encode('not a snapshot'), 0);
  else for (let i = 16; i < 20; i++) bytes[i] ^= 0xff; // another build's id
  await new Promise((resolve) => {{
    const transaction = db.transaction('snapshot', 'readwrite');
    transaction.objectStore('snapshot').put(bytes, 'bytes');
    transaction.oncomplete = resolve;
  }});
  db.close();
}}"""


def test_a_first_visit_boots_plainly_and_the_next_from_the_browser_s_snapshot(
    page: Page,
) -> None:
    open_chat(page)
    assert page.evaluate(FROM_SNAPSHOT) is False
    assert page.evaluate(SNAPSHOT_KEPT) is True
    page.reload()
    widget(page).wait_ready()
    assert page.evaluate(FROM_SNAPSHOT) is True
    assert page.evaluate(SNAPSHOT_KEPT) is True  # the one it booted from
    press_send(page, "My name is Noor")
    expect(page.locator("article[data-role=assistant]")).to_contain_text("Noor")


@pytest.mark.parametrize("damage", ["garbage", "another build"])
def test_a_damaged_snapshot_falls_back_to_a_plain_start(page: Page, damage: str) -> None:
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    open_chat(page)
    assert page.evaluate(SNAPSHOT_KEPT) is True
    page.evaluate(DAMAGE, damage)
    page.reload()
    widget(page).wait_ready()
    assert page.evaluate(FROM_SNAPSHOT) is False
    assert any("snapshot" in text for text in warnings), warnings
    press_send(page, "My name is Zoe")
    expect(page.locator("article[data-role=assistant]")).to_contain_text("Zoe")


@pytest.mark.parametrize("page_can", ["compile", "not compile"])
def test_the_worker_starts_python_whether_or_not_the_page_compiled_it(
    page: Page, page_can: str
) -> None:
    """The page compiles Pyodide's WebAssembly and hands it to the worker (Chromium caches the
    compiled code for pages only); a page that cannot leaves the worker to compile it."""
    page.add_init_script(f"""
      const own = WebAssembly.compileStreaming;
      window.compiled = 0;
      WebAssembly.compileStreaming = (source) => {{
        window.compiled++;
        return {"own.call(WebAssembly, source)" if page_can == "compile"
                else "Promise.reject(new Error('no'))"};
      }};""")  # fmt: skip
    host_page(page, 'history="memory"')
    widget(page).send("My name is Ines")
    expect(page.locator("article[data-role=assistant]")).to_contain_text("Ines")
    assert page.evaluate("window.compiled") == 1  # once, by the page, for the worker
