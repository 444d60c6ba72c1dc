"""The journey a visitor makes, in each of the three engines: Chromium, Firefox (Gecko) and
WebKit (Safari's engine). Ready, send, a streamed answer, a reload that keeps the conversation,
the conversation reopened from the history page, and the launcher on another origin; no script
error on the way. Each engine is skipped, saying why, only where it is not installed (make test
installs Firefox ESR, WebKitGTK's WebDriver and Xvfb from Debian's packages)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from drivers import ChromiumDriver, Driver, FirefoxDriver, WebKitDriver, missing
from playwright.sync_api import Page
from servers import RunningServer, free_port

ENGINES = ["chromium", "firefox", "webkit"]


class ShopSite:
    """A page on another origin that embeds the chat as a launcher."""

    def __init__(self, port: int, chat_url: str) -> None:
        self.url = f"http://127.0.0.1:{port}/"
        html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script type="module" src="{chat_url}/static/chat-widget.js"></script></head><body><h1>Shop</h1>
<chat-widget endpoint="{chat_url}/api" mode="launcher" history="local"
 storage-prefix="shop"></chat-widget></body></html>""".encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(html)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[RunningServer, ShopSite]]:
    """The chat server, and a shop on another origin it allows."""
    shop_port = free_port()
    chat = RunningServer("--allowed-origin", f"http://127.0.0.1:{shop_port}").wait_until_up()
    shop = ShopSite(shop_port, chat.url)
    yield chat, shop
    shop.close()
    chat.stop()


def open_driver(engine: str, page: Page) -> Driver:
    if engine == "chromium":
        return ChromiumDriver(page)
    return FirefoxDriver() if engine == "firefox" else WebKitDriver()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_the_journey(engine: str, page: Page, sites: tuple[RunningServer, ShopSite]) -> None:
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

        driver.reload()
        assert driver.step("ready")
        assert "My name is Alice" in driver.step("recent")  # kept through the reload

        again = driver.step("reopen", "My name is Alice")
        assert "My name is Alice" in again
        assert driver.step("errors") == []

        driver.goto(shop.url)  # the launcher, on another origin
        assert driver.step("openLauncher")
        said = driver.step("send", "Hello from the shop")
        assert "Hello from the shop" in said["answer"], said
        assert driver.step("errors") == []
    finally:
        driver.close()
