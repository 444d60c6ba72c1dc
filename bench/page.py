"""The page ↔ worker path in Chromium: bytes per streamed answer, long tasks on the host page.

A paced fake upstream streams answers of a known length at a known rate (its model id says
which: `paced-<tokens>-<per second>`, 0 for full speed, and `-think` streams the first half as
reasoning), behind the real server and widget.
The page counts every message crossing to and from the worker, and every long task.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from bench import row
from server.testing import CHROMIUM_FLAGS, ChatkeepServer, free_port

TEXT = (
    "the river bends past old mills where herons wait and light falls through the alders "
    "onto water that remembers every season it has carried downstream"
)
WORDS = TEXT.split()
READY = (
    "customElements.whenDefined('chat-widget')"
    ".then(() => document.querySelector('chat-widget').session.ready).then(() => true)"
)
MODELS = ("paced-2000-150", "paced-2000-0", "paced-10000-200", "paced-2000-150-think")

# Counts what crosses between the page and the widget's worker, and the page's long tasks.
PROBE = """
window.__probe = {toPage: 0, toWorker: 0, longTasks: []};
// What a structured clone carries: the characters of every string and key, 8 bytes a number.
const size = (data) => {
  if (typeof data === 'string') return data.length;
  if (data === null || typeof data !== 'object') return 8;
  let total = 0;
  for (const [key, value] of Object.entries(data)) total += key.length + size(value);
  return total;
};
const Original = window.Worker;
window.Worker = class extends Original {
  constructor(...args) {
    super(...args);
    this.addEventListener('message', (event) => { window.__probe.toPage += size(event.data); });
  }
  postMessage(message, transfer) {
    window.__probe.toWorker += size(message);
    return super.postMessage(message, transfer);
  }
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__probe.longTasks.push(Math.round(entry.duration));
}).observe({type: 'longtask', buffered: true});
"""


def token(index: int) -> str:
    word = WORDS[index % len(WORDS)]
    if index % 97 == 96:
        return word + ".\n\n"
    return word + ("," if index % 13 == 12 else "") + " "


async def completions(request: Request) -> Response:
    body = json.loads(await request.body())
    _, tokens, rate, *think = body["model"].split("-")
    count, per_second = int(tokens), int(rate)
    thinking = count // 2 if think else 0

    async def events() -> AsyncIterator[bytes]:
        started = time.monotonic()
        for index in range(count):
            if per_second:
                wait = started + index / per_second - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
            field = "reasoning_content" if index < thinking else "content"
            chunk = {"choices": [{"index": 0, "delta": {field: token(index)}}]}
            yield f"data: {json.dumps(chunk)}\n\n".encode()
        end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        yield f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode()

    return StreamingResponse(events(), media_type="text/event-stream")


def upstream_app() -> Starlette:
    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


@contextmanager
def paced_upstream() -> Iterator[str]:
    port = free_port()
    app = upstream_app()
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(10)


def long_conversation(count: int) -> dict[str, Any]:
    messages = []
    for index in range(count // 2):
        question = " ".join(token(index * 7 + i).strip() for i in range(12)) + "?"
        reply = "".join(token(index * 31 + i) for i in range(80))
        answer = f"**{index}.** {reply}\n\n- one\n- two"
        messages += [{"role": "user", "content": question},
                     {"role": "assistant", "content": answer}]  # fmt: skip
    return {"version": 1, "id": "long", "title": "A long one", "created": 1, "updated": 2,
            "model": MODELS[0], "thinking": "off", "messages": messages}  # fmt: skip


def measure(page: Any, action: str, done: str, timeout: float) -> dict[str, Any]:
    page.evaluate("window.__probe.toPage = 0; window.__probe.toWorker = 0;"
                  "window.__probe.longTasks = [];")  # fmt: skip
    page.evaluate(action)
    page.wait_for_function(done, timeout=timeout)
    # Let the last frames be drawn (and any long task they cause be reported).
    page.evaluate("new Promise(r => requestAnimationFrame(() => setTimeout(r, 200)))")
    probe: dict[str, Any] = page.evaluate("window.__probe")
    return probe


def bench_page() -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    rows = []
    with paced_upstream() as upstream:
        flags = ["--upstream", upstream, *(f for m in MODELS for f in ("--model", m))]
        with ChatkeepServer(*flags) as server, sync_playwright() as playwright:
            launch: dict[str, Any] = {"args": list(CHROMIUM_FLAGS)}
            if Path("/usr/bin/chromium").exists():
                launch["executable_path"] = "/usr/bin/chromium"
            browser = playwright.chromium.launch(**launch)
            page = browser.new_page(viewport={"width": 900, "height": 800}, service_workers="block")
            page.add_init_script(PROBE)
            html = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>b</title>
<script type="module" src="/static/chat-widget.js"></script></head><body>
<chat-widget history="memory" style="height:95vh"></chat-widget></body></html>"""
            page.route(
                "**/bench-page", lambda route: route.fulfill(body=html, content_type="text/html")
            )
            page.goto(f"{server.url}/bench-page")
            page.wait_for_function(
                READY,
                timeout=120_000,
            )
            settled = ("(() => { const s = document.querySelector('chat-widget').client.state;"
                       " return !s.busy && s.messages.length >= 2; })()")  # fmt: skip
            for model, label in [(MODELS[0], "~150 tokens/s"), (MODELS[1], "full speed")]:
                page.evaluate(
                    """async m => { const s = document.querySelector('chat-widget').session;
                    await s.restore(null); await document.querySelector('chat-widget')
                    .client.call('setModel', {model: m}); }""",
                    model,
                )
                probe = measure(page, "void document.querySelector('chat-widget').session"
                                ".send('Tell me about the river')", settled, 120_000)  # fmt: skip
                answer = page.evaluate(
                    "document.querySelector('chat-widget').client.state.messages[1].content"
                )
                ratio = (probe["toPage"] + probe["toWorker"]) / len(answer)
                rows.append(row(f"page<->worker bytes / answer, 2,000 tokens at {label}",
                                ratio, 3, "x"))  # fmt: skip

            page.evaluate(
                """async m => { const w = document.querySelector('chat-widget');
                await w.session.restore(null); await w.client.call('setModel', {model: m}); }""",
                MODELS[3],
            )
            probe = measure(page, "void document.querySelector('chat-widget').session"
                            ".send('Think, then tell me')", settled, 120_000)  # fmt: skip
            answer = page.evaluate("document.querySelector('chat-widget').client.state.messages[1]")
            ratio = (probe["toPage"] + probe["toWorker"]) / (
                len(answer["content"]) + len(answer["reasoning"])
            )
            rows.append(row("page<->worker bytes / answer, 2,000 tokens, half of them reasoning, "
                            "~150 tokens/s", ratio, 3, "x"))  # fmt: skip
            rows.append(row("long tasks streaming 2,000 tokens with reasoning (longest ms)",
                            max(probe["longTasks"], default=0), 50, "ms"))  # fmt: skip

            snapshot = long_conversation(1000)
            shown = ("document.querySelector('chat-widget').shadowRoot"
                     ".querySelectorAll('article').length >= 1000")  # fmt: skip
            probe = measure(page, f"void document.querySelector('chat-widget').session"
                            f".restore({json.dumps(snapshot)})", shown, 120_000)  # fmt: skip
            rows.append(row("long tasks opening 1,000 messages (longest ms)",
                            max(probe["longTasks"], default=0), 50, "ms"))  # fmt: skip

            page.evaluate("document.querySelector('chat-widget').session.restore(null)")
            set_history = "void document.querySelector('chat-widget').session.setHistory({})"
            probe = measure(page, set_history.format(json.dumps(snapshot["messages"])), shown,
                            120_000)  # fmt: skip
            rows.append(row("long tasks setting 1,000 messages with setHistory (longest ms)",
                            max(probe["longTasks"], default=0), 50, "ms"))  # fmt: skip

            page.evaluate(
                """async m => { const w = document.querySelector('chat-widget');
                await w.session.restore(null); await w.client.call('setModel', {model: m}); }""",
                MODELS[2],
            )
            probe = measure(page, "void document.querySelector('chat-widget').session"
                            ".send('Tell me everything')", settled, 180_000)  # fmt: skip
            rows.append(row("long tasks streaming 10,000 tokens at 200/s (longest ms)",
                            max(probe["longTasks"], default=0), 50, "ms"))  # fmt: skip
            rows += bench_hostile_math(page)
            browser.close()
    return rows


def bench_hostile_math(page: Any) -> list[dict[str, Any]]:
    """A stored 64 KB answer of unclosed `$` opened, against plain text of the same length:
    every `$` once scanned to the end of its line (one 17.7 s task)."""
    longest = {}
    for label, text in (("plain text", "word " * 13_000), ("unclosed $", "$1 " * 21_800)):
        snapshot = {"version": 1, "id": "math", "title": "Math", "created": 1, "updated": 2,
                    "model": MODELS[0], "thinking": "off", "messages": [
                        {"role": "user", "content": "Prices?"},
                        {"role": "assistant", "content": text}]}  # fmt: skip
        page.evaluate("document.querySelector('chat-widget').session.restore(null)")
        shown = ("document.querySelector('chat-widget').shadowRoot"
                 ".querySelectorAll('article').length >= 2")  # fmt: skip
        probe = measure(page, f"void document.querySelector('chat-widget').session"
                        f".restore({json.dumps(snapshot)})", shown, 120_000)  # fmt: skip
        longest[label] = max(probe["longTasks"], default=0)
    return [
        row(
            "long tasks opening a 64 KB answer of plain text (longest ms, the baseline)",
            longest["plain text"],
            200,
            "ms",
        ),
        row(
            "long tasks opening a 64 KB answer of unclosed $ (longest ms)",
            longest["unclosed $"],
            200,
            "ms",
        ),
    ]
