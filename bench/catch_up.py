"""Catching up after the page went away, and a queued message's wait, in Chromium.

Catch-up: a page frozen mid-answer (a locked phone: tests/away.py holds it, as Chromium will
not freeze a page it shows), its line dropped meanwhile, is resumed once the answer is whole
on the server; from the resume to the answer settled on screen,
against the same answer streamed at full speed to a page that never left (from Send to
settled), same run, median of 3. Both read and draw the same events; the catch-up also
reconnects. A queued message: the host page's long tasks (over 50 ms) from the moment a
message is queued below a streaming answer until it is sent.
"""

from __future__ import annotations

import statistics
from typing import Any

from bench import row
from bench.scale import upstream_process
from server.testing import CHROMIUM_FLAGS, ChatkeepServer
from tests.away import LineCutter, freeze

TOKENS = 1500
PACE = 300  # tokens a second while the page is frozen: five seconds of answer
RUNS = 3
PAGE = "/bench-catch-up"
HOST = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>catch up</title>
<script type="module" src="/static/chat-widget.js"></script></head>
<body><chat-widget history="local" model="MODEL" style="height:90vh"></chat-widget></body></html>"""
READY = ("customElements.whenDefined('chat-widget').then(() =>"
         " document.querySelector('chat-widget').session.ready).then(() => true)")  # fmt: skip
SETTLED = """() => { const c = document.querySelector('chat-widget').client;
  return !c.state.busy && c.state.messages.length >= 2; }"""
#: the page's own clock at the moment its answer settles (`window.settledAt`)
WATCH = """() => { const c = document.querySelector('chat-widget').client;
  window.settledAt = null;
  c.addEventListener("meta", () => {
    if (window.settledAt === null && !c.state.busy && c.state.messages.length >= 2) {
      window.settledAt = performance.now();
    }
  });
  return performance.now(); }"""
LONG_TASKS = """window.longTasks = [];
new PerformanceObserver((list) => {
  window.longTasks.push(...list.getEntries().map((entry) => entry.duration));
}).observe({ type: "longtask", buffered: false });"""


def bench_catch_up() -> list[dict[str, Any]]:
    from playwright.sync_api import Page, sync_playwright

    with (
        upstream_process() as upstream,
        ChatkeepServer(
            "--upstream",
            upstream,
            "--model",
            f"paced-{TOKENS}-0",
            "--model",
            f"paced-{TOKENS}-{PACE}",
            "--rate-limit",
            "0",
        ) as chat,  # fmt: skip
        LineCutter(int(chat.url.rsplit(":", 1)[1])) as line,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=list(CHROMIUM_FLAGS))  # fmt: skip

        def opened(model: str) -> Page:
            page = browser.new_context(service_workers="block").new_page()
            page.add_init_script(LONG_TASKS)
            html = HOST.replace("MODEL", model)
            page.route(f"**{PAGE}", lambda r: r.fulfill(body=html, content_type="text/html"))
            page.goto(line.url + PAGE)
            page.wait_for_function(READY, timeout=120_000)
            return page

        def send(page: Page, text: str) -> float:
            """Sends `text`; the page's clock just before."""
            page.get_by_role("textbox", name="Message").fill(text)
            started: float = page.evaluate(WATCH)
            page.get_by_role("button", name="Send", exact=True).click()
            return started

        def settled(page: Page) -> float:
            page.wait_for_function(SETTLED, timeout=60_000)
            at: float = page.evaluate("window.settledAt")
            return at

        streamed, caught, waited = [], [], []
        for _ in range(RUNS):
            page = opened(f"paced-{TOKENS}-0")
            started = send(page, "Tell me about the river")
            streamed.append(settled(page) - started)
            page.context.close()

            page = opened(f"paced-{TOKENS}-{PACE}")
            send(page, "Tell me about the river")
            page.locator("chat-widget article[data-role=assistant]").first.wait_for()
            line.cut()
            # The answer is whole on the server meanwhile; the page's thread is free again at
            # `back` on its own clock (its workers' a moment before).
            back = freeze(page, TOKENS / PACE + 1)
            caught.append(settled(page) - back)
            page.context.close()

            page = opened(f"paced-{TOKENS}-{PACE}")
            send(page, "Tell me about the river")
            page.locator("chat-widget article[data-role=assistant]").first.wait_for()
            page.evaluate("window.longTasks.length = 0")
            send(page, "And the sea?")  # queued below the answer
            page.wait_for_function("() => document.querySelector('chat-widget').client.state"
                                   ".messages.length >= 3", timeout=60_000)  # fmt: skip
            waited.append(max(page.evaluate("window.longTasks"), default=0.0))
            page.context.close()
        browser.close()
    ratio = statistics.median(caught) / statistics.median(streamed)
    print(f"catch-up after a freeze {statistics.median(caught):.0f} ms, the same answer "
          f"streamed {statistics.median(streamed):.0f} ms")  # fmt: skip
    caught_up = f"catching up a {TOKENS}-token answer after a freeze / streaming it"
    waiting = f"longest task on the host page while a queued message waits (worst of {RUNS})"
    return [
        row(f"{caught_up} (median of {RUNS}, same run)", ratio, 1.2, "x"),
        row(waiting, max(waited), 50, " ms"),
    ]
