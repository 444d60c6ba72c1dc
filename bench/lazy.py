"""Python only when someone chats, measured on a host page of another origin (as a shop embeds
the widget): what a launcher nobody opens costs, how soon a returning visitor sees their
conversations (against bare Pyodide's warm start in the same run), and the host page's long
tasks while the widget boots."""

from __future__ import annotations

import json
import statistics
from typing import Any

from bench import row
from bench.host import SNAPSHOT_KEPT, bare_page, host_site, launch_options
from server.testing import ChatkeepServer

RUNS = 5
#: What the host page says on its console once the conversation is listed and the chat ready.
DONE = "chatkeep-bench: listed and ready"
LONG_TASKS = """
// When the returning visitor's conversation is on screen, by the page's own clock (a look
// every frame).
const listed = () => {
  const widget = document.querySelector("chat-widget");
  const row = widget?.shadowRoot?.querySelector(".recent button[data-id]");
  if (row && row.offsetParent !== null) window.__listedAt = performance.now();
  else requestAnimationFrame(listed);
};
requestAnimationFrame(listed);
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({ type: "longtask", buffered: true });
// Says when it is listed and ready on the console, which the harness hears without running
// anything in the page: waiting with Playwright's locators would inject its 0.5 MB script
// into the page being measured (a 35-46 ms task of its own, traced).
customElements.whenDefined("chat-widget").then(async () => {
  await document.querySelector("chat-widget").session.ready;
  const say = () => {
    if (window.__listedAt === undefined) requestAnimationFrame(say);
    else console.log(DONE);
  };
  say();
});
""".replace("DONE", json.dumps(DONE))


def host_page(server_url: str, attributes: str) -> str:
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>shop</title>
<script>{LONG_TASKS}</script>
<script type="module" src="{server_url}/static/chat-widget.js"></script></head>
<body><h1>A shop</h1><chat-widget endpoint="{server_url}/api" {attributes}></chat-widget>
</body></html>"""


def bench_lazy() -> list[dict[str, Any]]:
    from playwright.sync_api import Page, sync_playwright

    with (
        host_site() as (host, pages),
        ChatkeepServer("--allowed-origin", host) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(**launch_options())
        pages["/launcher"] = host_page(server.url, 'history="local" mode="launcher"')
        pages["/inline"] = host_page(server.url, 'history="local"')
        pages["/bare"] = bare_page(server.url)
        ready = "document.querySelector('chat-widget').session.ready.then(() => true)"

        def open_page() -> Page:
            return browser.new_context(service_workers="block").new_page()

        # 1. A launcher nobody opens: bytes from the chat server, workers started.
        page = open_page()
        sizes: dict[str, int] = {}
        workers: list[str] = []
        page.on("worker", lambda worker: workers.append(worker.url))
        page.on("requestfinished", lambda r: sizes.update({r.url: r.sizes()["responseBodySize"]}))
        page.goto(f"{host}/launcher")
        page.get_by_role("button", name="Open chat").wait_for()
        page.wait_for_load_state("networkidle")
        closed_bytes = sum(size for url, size in sizes.items() if url.startswith(server.url))
        page.context.close()

        # 2. Bare Pyodide's warm start, from the same server (its baseline).
        bare = open_page()
        bare.goto(f"{host}/bare")
        bare.wait_for_function("window.bootDone === true", timeout=120_000)
        bare_warm = []
        for _ in range(RUNS):
            bare.reload()
            bare.wait_for_function("window.bootDone === true", timeout=120_000)
            bare_warm.append(bare.evaluate("window.bootAt"))
        bare.context.close()

        # 3. A returning visitor: their conversation listed, against bare Pyodide warm; and
        #    the host page's long tasks from load to ready.
        page = open_page()
        page.goto(f"{host}/inline")
        page.wait_for_function(ready, timeout=120_000)
        page.evaluate("document.querySelector('chat-widget').session.send('My name is Alice')")
        page.evaluate(SNAPSHOT_KEPT)
        shown, long_tasks = [], []
        for _ in range(RUNS):
            with page.expect_console_message(lambda message: message.text == DONE, timeout=120_000):
                page.reload()
            shown.append(page.evaluate("window.__listedAt"))
            long_tasks.append(len(page.evaluate("window.__longTasks")))
        # What was listed, looked at once measuring is over: the visitor's conversation.
        recent = page.get_by_role("list", name="Recent conversations")
        recent.get_by_role("button", name="My name is Alice").wait_for(timeout=5_000)
        page.context.close()
        browser.close()

    baseline = statistics.median(bare_warm)
    print(f"lazy: bare warm {baseline:.0f} ms; stored conversation on screen "
          f"{statistics.median(shown):.0f} ms; closed launcher {closed_bytes} bytes")  # fmt: skip
    return [
        row("closed launcher, another origin: bytes from the chat server", closed_bytes / 1000,
            60, " KB"),
        row("closed launcher: workers started", len(workers), 0, ""),
        row("returning visitor: their conversation listed / bare Pyodide warm (median of 5)",
            statistics.median(shown) / baseline, 0.3, "x"),
        row("long tasks on the host page, load to ready (most in 5 loads)", max(long_tasks), 0, ""),
    ]  # fmt: skip
