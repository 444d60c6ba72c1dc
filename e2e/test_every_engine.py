"""The journey a visitor makes, in each of the three engines: Chromium, Firefox (Gecko) and
WebKit (Safari's engine). Ready, send, a streamed answer, a reload that keeps the conversation
and boots from the kept memory snapshot, the conversation reopened from the history page, and
the launcher on another origin (booting from its snapshot too); no script error on the way.
Each engine is skipped, saying why, only where it is not installed (make test installs Firefox
ESR, WebKitGTK's WebDriver and Xvfb from Debian's packages)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from drivers import ChromiumDriver, Driver, FirefoxDriver, WebKitDriver, missing
from pages import HostSite, host_policy
from playwright.sync_api import Page
from servers import RunningServer

ENGINES = ["chromium", "firefox", "webkit"]


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[RunningServer, HostSite]]:
    """The chat server, and a shop on another origin it allows, embedding it as a launcher."""
    shop = HostSite()
    chat = RunningServer("--allowed-origin", shop.origin).wait_until_up()
    shop.html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script type="module" src="{chat.url}/static/chat-widget.js"></script></head><body><h1>Shop</h1>
<chat-widget endpoint="{chat.url}/api" mode="launcher" history="local"
 storage-prefix="shop"></chat-widget></body></html>""".encode()
    yield chat, shop
    shop.close()
    chat.stop()


def open_driver(engine: str, page: Page) -> Driver:
    if engine == "chromium":
        return ChromiumDriver(page)
    return FirefoxDriver() if engine == "firefox" else WebKitDriver()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_the_journey(engine: str, page: Page, sites: tuple[RunningServer, HostSite]) -> None:
    if (why := missing(engine)) is not None:
        pytest.skip(why)
    chat, shop = sites
    driver = open_driver(engine, page)
    try:
        driver.goto(f"{chat.url}/")  # the demo page: history kept in localStorage
        assert driver.step("ready")
        said = driver.step("send", "My name is Alice")
        assert "Alice" in said["answer"] and "Alice" in said["shown"], said
        assert said["streamed"], "the answer arrived whole, not streamed"
        assert driver.step("snapshotKept")

        driver.reload()
        assert driver.step("ready")
        assert driver.step("startedFromSnapshot")  # a returning visit boots from it
        assert "My name is Alice" in driver.step("recent")  # kept through the reload

        again = driver.step("reopen", "My name is Alice")
        assert "My name is Alice" in again
        assert driver.step("errors") == []

        driver.goto(shop.origin + "/")  # the launcher, on another origin
        assert driver.step("openLauncher")
        said = driver.step("send", "Hello from the shop")
        assert "Hello from the shop" in said["answer"], said
        assert driver.step("snapshotKept")
        driver.reload()  # the worker from another origin (a blob) boots from its snapshot too
        assert driver.step("openLauncher")
        assert driver.step("startedFromSnapshot")
        assert driver.step("errors") == []
    finally:
        driver.close()


#: The widget's alert, once it says something (within 10 s), and whether it still shows loading.
NAMED = """new Promise((resolve) => {
  const deadline = Date.now() + 10000;
  const look = () => {
    const root = document.querySelector("chat-widget")?.shadowRoot;
    const alert = root?.querySelector("[role=alert]")?.textContent ?? "";
    if (alert || Date.now() > deadline) {
      resolve({ alert, loading: Boolean(root?.querySelector("[role=progressbar]")) });
    } else setTimeout(look, 50);
  };
  look();
})"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_policy_that_blocks_webassembly_is_named_at_once(
    engine: str, page: Page, sites: tuple[RunningServer, HostSite]
) -> None:
    """Tried in WebKit: its workers compile WebAssembly under such a policy and refuse only to
    run it, and the widget showed its loading bar for ever, saying nothing."""
    if (why := missing(engine)) is not None:
        pytest.skip(why)
    chat, shop = sites
    usual = shop.html
    shop.html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script type="module" src="{chat.url}/static/chat-widget.js"></script></head><body>
<chat-widget endpoint="{chat.url}/api" history="memory"></chat-widget></body></html>""".encode()
    shop.headers = {"content-security-policy": host_policy(chat.url, webassembly=False)}
    driver = open_driver(engine, page)
    try:
        driver.goto(shop.origin + "/strict")
        said = driver.evaluate(NAMED)
    finally:
        driver.close()
        shop.html, shop.headers = usual, {}
    assert "'wasm-unsafe-eval'" in said["alert"] and "Content-Security-Policy" in said["alert"]
    assert not said["loading"], said
