"""Answers that act: what drawing UIs costs the host page, and what a spec costs in storage.

In Chromium, the host page's long tasks (`PerformanceObserver`, over 50 ms) while a tool
result's 200-row table is drawn, and while a conversation holding 20 UIs is opened (each a
card with facts, a 10-row table, a form and buttons). On CPython, the bytes a spec adds to the
stored conversation (compressed as the worker stores it: raw deflate, Python's zlib) against the
spec's own JSON compressed alone: exact.
"""

from __future__ import annotations

import json
from typing import Any

from bench import row
from bench.widget_page import launch, widget_page
from server.testing import ChatkeepServer
from widget import ui
from widget.compression import deflate
from widget.snapshots import dumps, from_dict

LONG_TASKS = """window.longTasks = [];
new PerformanceObserver((list) => {
  window.longTasks.push(...list.getEntries().map((entry) => entry.duration));
}).observe({ type: "longtask", buffered: false });"""
#: restores `window.nextSnapshot` (put there first: Playwright's handing over of a large
#: argument is a task of the page's, not the widget's), then waits until `count` elements
#: match `drawn` in the widget (each table's "Show more" pressed once it shows: its other rows
#: are drawn only then)
RESTORED = """async ([drawn, count]) => {
  const element = document.querySelector('chat-widget');
  window.longTasks.length = 0;
  await element.session.restore(window.nextSnapshot);
  while (element.shadowRoot.querySelectorAll(drawn).length < count) {
    await new Promise((r) => requestAnimationFrame(r));
    await new Promise((r) => setTimeout(r)); // a press is a task of its own, as a person's is
    for (const more of element.shadowRoot.querySelectorAll('.ui-more')) more.click();
  }
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100)));
  return Math.max(0, ...window.longTasks); }"""


def table_ui(rows: int, title: str = "Stock") -> dict[str, Any]:
    columns = [ui.column("sku", "SKU"), ui.column("name", "Name"),
               ui.column("price", "EUR", "number"), ui.column("on", "Since", "date")]  # fmt: skip
    lines = [{"sku": f"J-{n:04}", "name": f"Jacket {n}", "price": 50 + n * 1.5,
              "on": f"2026-{n % 12 + 1:02}-{n % 28 + 1:02}"} for n in range(rows)]  # fmt: skip
    size = ui.field("size", "Size", "select", options=["S", "M", "L"])
    order = ui.form(f"order-{title.replace(' ', '-')}", size,
                    submit=ui.button("Order", message=f"Order from {title}"))  # fmt: skip
    card = ui.card(title, ui.facts({"Items": rows, "Store": "Lyon"}),
                   ui.table(f"{title} table", columns, lines), order,
                   actions=[ui.button("More", message=f"More about {title}")])  # fmt: skip
    return ui.result(f"{rows} jackets in {title}", card)


def conversation(uis: list[dict[str, Any]]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for number, made in enumerate(uis):
        call = {"id": f"c{number}", "type": "function",
                "function": {"name": "stock", "arguments": "{}"}}  # fmt: skip
        messages += [
            {"role": "user", "content": f"What is in stock, {number}?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{number}", "name": "stock",
             "content": made["text"], "ui": made["ui"]},
            {"role": "assistant", "content": "There it is."},
        ]  # fmt: skip
    return {"version": 1, "id": "uis", "title": "Stock", "created": 1, "updated": 2,
            "model": "demo", "thinking": "off", "messages": messages}  # fmt: skip


def bench_ui_size() -> list[dict[str, Any]]:
    made = table_ui(50)
    with_ui = conversation([made])
    without = json.loads(json.dumps(with_ui))
    del without["messages"][2]["ui"]
    added = len(deflate(dumps(from_dict(with_ui)).encode())) - len(
        deflate(dumps(from_dict(without)).encode())
    )
    alone = len(deflate(json.dumps(made["ui"], ensure_ascii=False, separators=(",", ":")).encode()))
    print(f"a 50-row spec: {added} bytes in the stored conversation, {alone} compressed alone")
    return [row("a spec's bytes in the stored conversation / its JSON compressed alone",
                added / alone, 1.2, "x")]  # fmt: skip


def bench_ui_drawing() -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    with ChatkeepServer() as chat, sync_playwright() as playwright:
        browser = launch(playwright)
        page = widget_page(browser, chat.url, 'history="memory"', LONG_TASKS)

        def restored(snapshot: dict[str, Any], drawn: str, count: int) -> float:
            page.evaluate("s => { window.nextSnapshot = s; }", snapshot)
            longest: float = page.evaluate(RESTORED, [drawn, count])
            return longest

        restored(conversation([table_ui(3, "Warm-up")]), ".ui-card", 1)
        big = restored(conversation([table_ui(200)]), ".ui-table tr", 201)
        many = restored(
            conversation([table_ui(10, f"Store {n}") for n in range(20)]), ".ui-card", 20
        )
        browser.close()
    return [
        row(
            "longest task drawing a tool result's 200-row table (and its Show more)", big, 50, " ms"
        ),
        row("longest task opening a conversation with 20 UIs", many, 50, " ms"),
    ]
