"""Opening a shared 200-message conversation, against opening it from local history, in
Chromium, same page, same run.

One page keeps a 200-message conversation in its history and shares it (the real "Share":
sealed in the worker, kept by the server's sync store). Then, alternately, RUNS times each:
the conversation opened from the history (`open`: Python reads it from localStorage, the page
draws it), and its link opened (static/shared-page.js as a link opens it: fetched, opened with
the key, drawn read-only), each from the call until its 200 messages are drawn.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench import row
from bench.page import long_conversation
from bench.widget_page import launch, widget_page
from server.testing import ChatkeepServer

RUNS = 7
MESSAGES = 200
#: from the call to every message drawn in `where` (the chat's log, or the shared page's)
TIMED = """async ([start, where, count]) => {
  const element = document.querySelector('chat-widget');
  const log = element.shadowRoot.querySelector(where);
  const t0 = performance.now();
  await new (async () => {}).constructor('element', start)(element);
  while (log.querySelectorAll('article').length < count) {
    await new Promise((r) => requestAnimationFrame(r));
  }
  return performance.now() - t0;
}"""
FROM_HISTORY = "return element.client.call('open', {conversationId: 'long'});"
FROM_LINK = """const { openShared } = await import('/static/shared-page.js');
const { loadStrings } = await import('/static/strings.js');
const { createRenderer } = await import('/static/markdown.js');
const t = await loadStrings('en');
const render = createRenderer();
openShared(element.shadowRoot, { link: LINK, endpoint: '/api', headers: {}, client: element.client,
  t: () => t, markdown: () => render, announce: () => {}, closed: () => {} });"""
CLOSE_SHARED = """() => { const root = document.querySelector('chat-widget').shadowRoot;
  root.querySelector('.shared-page .back').click(); }"""


def bench_shared_open() -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as folder,
        ChatkeepServer("--sync-store", f"sqlite:///{Path(folder) / 'sync.db'}") as chat,
        sync_playwright() as playwright,
    ):
        browser = launch(playwright)
        page = widget_page(browser, chat.url, 'history="local"')
        snapshot = long_conversation(MESSAGES)
        page.evaluate("s => document.querySelector('chat-widget').session.restore(s)", snapshot)
        made = page.evaluate("document.querySelector('chat-widget').client.call('share', "
                             "{conversationId: 'long'})")  # fmt: skip
        link = made["fragment"].removeprefix("chatkeep-share=")
        from_history, from_link = [], []
        for _ in range(RUNS):
            page.evaluate("document.querySelector('chat-widget').session.restore(null)")
            from_history.append(
                page.evaluate(TIMED, [FROM_HISTORY, ".chat > .transcript", MESSAGES])
            )
            opening = FROM_LINK.replace("LINK", repr(link))
            from_link.append(page.evaluate(TIMED, [opening, ".shared-page .transcript", MESSAGES]))
            page.evaluate(CLOSE_SHARED)
        browser.close()
    history_ms, link_ms = statistics.median(from_history), statistics.median(from_link)
    print(f"opening {MESSAGES} messages: from local history {history_ms:.0f} ms, "
          f"from a shared link {link_ms:.0f} ms")  # fmt: skip
    name = f"opening a shared {MESSAGES}-message conversation / from local history"
    return [row(f"{name} (median of {RUNS}, same run)", link_ms / history_ms, 1.5, "x")]
