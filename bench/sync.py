"""Synced history: a new device receiving a whole history, what a change uploads, how fast the
server answers "what changed since", and whether sync delays the chat's first token.

The store is seeded directly (1,000 spaces of 20 items) so that reads are measured against a
store of some size; the browser rows use the real widget on two devices (browser contexts)
against one server with an SQLite store.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench import row
from bench.host import launch_options
from server.sync import access, open_store
from server.testing import ChatkeepServer

SPACES, ITEMS, ITEM_BYTES = 1_000, 20, 1_024
READS = 600
CONVERSATIONS, TURN_TEXT = 20, 5_000  # 20 conversations of ~10 KB of text: ~200 KB in all
FIRST_TOKEN_RUNS = 9
LIVE_RUNS = 5
#: whether the phone keeps the laptop's conversation with `size` messages (its round took it)
ARRIVED = """([id, size]) => {
  const meta = localStorage.getItem('chatkeep:meta:' + id);
  return meta !== null && JSON.parse(meta).size >= size;
}"""
PAGE = "/bench-sync"


async def seed(url: str) -> list[tuple[str, str, int]]:
    """1,000 spaces of 20 items of random bytes (ciphertext does not compress): each space's
    id, its token (as the header carries it) and its last revision."""
    store = open_store(url, 10**9)
    spaces = []
    try:
        for n in range(SPACES):
            token = hashlib.sha256(f"bench space {n}".encode()).digest()
            space = access.space_of(token)
            rev = 0
            for item in range(ITEMS):
                rev = await store.write(space, f"item{item}", os.urandom(ITEM_BYTES), None)
            spaces.append((space, access.token_text(token), rev))
    finally:
        await store.close()
    return spaces


def p99_since(url: str, spaces: list[tuple[str, str, int]]) -> tuple[float, float]:
    """The p99 of `GET ?since=` (a device three changes behind) and of `/healthz`, in ms."""
    reads, health = [], []
    with httpx.Client(base_url=url, timeout=10) as http:
        for _ in range(READS):
            space, token, last = random.choice(spaces)
            start = time.perf_counter()
            answer = http.get(f"/api/sync/{space}", params={"since": last - 3},
                              headers={access.HEADER: token})  # fmt: skip
            reads.append((time.perf_counter() - start) * 1000)
            assert answer.status_code == 200 and len(answer.json()["items"]) == 3
            start = time.perf_counter()
            http.get("/healthz")
            health.append((time.perf_counter() - start) * 1000)
    cut = int(READS * 0.99)
    return sorted(reads)[cut], sorted(health)[cut]


def bench_sync_reads() -> list[dict[str, Any]]:
    rows = []
    backends: list[tuple[str, Any]] = [("SQLite", None)]
    try:
        from tests.postgres import BIN, PostgresServer

        if BIN is not None:
            backends.append(("PostgreSQL", PostgresServer))
    except ImportError:
        pass
    for name, postgres_type in backends:
        postgres = postgres_type() if postgres_type else None
        with tempfile.TemporaryDirectory() as folder:
            url = postgres.database() if postgres else f"sqlite:///{folder}/sync.db"
            try:
                spaces = asyncio.run(seed(url))
                flags = ["--sync-store", url, "--rate-limit", "0"]
                with ChatkeepServer(*flags) as server:
                    p99_since(server.url, spaces[:50])  # warm up
                    since, health = p99_since(server.url, spaces)
            finally:
                if postgres:
                    postgres.stop()
        rows.append(row(f"sync: GET ?since= p99, {SPACES} spaces x {ITEMS} items, {name} "
                        f"(/healthz p99 {health:.1f} ms)", since, 20, " ms"))  # fmt: skip
    return rows


def planted(n: int) -> dict[str, str]:
    """One stored conversation of ~10 KB of text, as the widget keeps it (plain JSON reads)."""
    conversation_id = f"bench{n:04d}"
    words = " ".join(f"word{(n * 7 + i) % 997}" for i in range(TURN_TEXT // 8))
    messages = [{"role": "user", "content": f"Question {n}: {words}"},
                {"role": "assistant", "content": f"Answer {n}: {words[::-1]}"}]  # fmt: skip
    updated = 1_700_000_000_000 + n * 1000
    snapshot = {"version": 1, "id": conversation_id, "title": f"Conversation {n}",
                "created": updated, "updated": updated, "model": "demo", "thinking": "off",
                "messages": messages}  # fmt: skip
    meta = {"v": 1, "title": f"Conversation {n}", "updated": updated, "rev": f"r{n}", "size": 2}
    return {f"chatkeep:meta:{conversation_id}": json.dumps(meta),
            f"chatkeep:conv:{conversation_id}": json.dumps(snapshot)}  # fmt: skip


LONG_MESSAGES, LONG_TITLE = 200, "A long conversation"
#: the turn last added to the conversation open, compressed as the worker compresses (raw deflate)
TURN_COMPRESSED = """async () => {
  const history = await document.querySelector('chat-widget').session.getHistory();
  const text = JSON.stringify(history.slice(-2));
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return (await new Response(stream).arrayBuffer()).byteLength;
}"""


def planted_long() -> dict[str, str]:
    """A conversation of 200 messages (about 60 KB of text), as the widget keeps it."""
    messages = [{"role": ("user", "assistant")[i % 2],
                 "content": f"Message {i}: " + " ".join(f"word{(i * 13 + j) % 991}"
                                                       for j in range(40))}
                for i in range(LONG_MESSAGES)]  # fmt: skip
    updated = 1_700_000_000_000
    snapshot = {
        "version": 1,
        "id": "bench-long",
        "title": LONG_TITLE,
        "created": updated,
        "updated": updated,
        "model": "demo",
        "thinking": "off",
        "messages": messages,
    }
    meta = {"v": 1, "title": LONG_TITLE, "updated": updated, "rev": "r-long",
            "size": LONG_MESSAGES}  # fmt: skip
    return {"chatkeep:meta:bench-long": json.dumps(meta),
            "chatkeep:conv:bench-long": json.dumps(snapshot)}  # fmt: skip


HOST = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>sync</title>
<script type="module" src="/static/chat-widget.js"></script></head>
<body><chat-widget history="local" ATTRIBUTES style="height:90vh"></chat-widget></body></html>"""

FIRST_TOKEN = """async (text) => {
  const element = document.querySelector('chat-widget');
  const log = element.shadowRoot.querySelector('.transcript');
  const answers = () => log.querySelectorAll('article[data-role=assistant]').length;
  const before = answers();
  const seen = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      const last = log.querySelectorAll('article[data-role=assistant]')[before];
      if (last && last.textContent.trim()) { observer.disconnect(); resolve(performance.now()); }
    });
    observer.observe(log, { childList: true, subtree: true, characterData: true });
  });
  dispatchEvent(new Event('focus'));  // a round of sync starts as the person sends
  const start = performance.now();
  element.session.send(text);
  const at = await seen;
  await element.session.settled?.();
  return at - start;
}"""


def bench_sync_browser() -> list[dict[str, Any]]:
    from playwright.sync_api import Browser, Page, sync_playwright

    def device(browser: Browser, url: str, attributes: str = "sync") -> Page:
        context = browser.new_context(service_workers="block")
        page = context.new_page()
        html = HOST.replace("ATTRIBUTES", attributes)
        page.route(f"**{PAGE}", lambda r: r.fulfill(body=html, content_type="text/html"))
        page.goto(url + PAGE)
        page.wait_for_function(
            "customElements.whenDefined('chat-widget').then(() =>"
            " document.querySelector('chat-widget').session.ready).then(() => true)",
            timeout=120_000,
        )
        return page

    def status(page: Page, text: str) -> None:
        page.get_by_role("status").filter(has_text=text).wait_for(timeout=60_000)

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        store = f"sqlite:///{Path(folder) / 'sync.db'}"
        with ChatkeepServer("--sync-store", store, "--rate-limit", "0") as server:
            browser = playwright.chromium.launch(**launch_options())
            laptop = device(browser, server.url)
            entries = {k: v for n in range(1, CONVERSATIONS) for k, v in planted(n).items()}
            entries |= planted_long()
            plant = "e => { for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v); }"
            laptop.evaluate(plant, entries)
            laptop.reload()
            laptop.wait_for_function("document.querySelector('chat-widget').session.ready"
                                     ".then(() => true)")  # fmt: skip
            laptop.get_by_role("button", name="History").click()
            laptop.get_by_role("button", name="Sync devices").click()
            dialog = laptop.get_by_role("dialog", name="Sync devices")
            code = dialog.locator(".sync-code").inner_text()
            dialog.get_by_role("button", name="Done").click()
            status(laptop, "Synced")
            text_bytes = sum(len(v) for k, v in entries.items() if ":conv:" in k)

            # A new device receives all of it.
            phone = device(browser, server.url)
            phone.get_by_role("button", name="History").click()
            phone.get_by_role("button", name="Use a sync code").click()
            ask = phone.get_by_role("dialog", name="Use a sync code")
            ask.get_by_role("textbox", name="Sync code").fill(code)
            start = time.perf_counter()
            ask.get_by_role("button", name="Connect").click()
            items = phone.get_by_role("list", name="Conversations", exact=True).get_by_role(
                "listitem"
            )
            phone.wait_for_function(
                "n => document.querySelector('chat-widget').shadowRoot"
                ".querySelectorAll('.conversations li').length >= n", arg=CONVERSATIONS,
                timeout=60_000,
            )  # fmt: skip
            received = time.perf_counter() - start
            assert items.count() == CONVERSATIONS

            # One turn added to the 200-message conversation, on the phone: what it uploads, and
            # what the laptop downloads to take it, against that turn compressed.
            uploads: list[int] = []
            downloads: list[Any] = []
            phone.on("request", lambda r: uploads.append(len(r.post_data_buffer or b""))
                     if r.method == "PUT" and "/api/sync/" in r.url else None)  # fmt: skip
            laptop.on("response", lambda r: downloads.append(r) if r.request.method == "GET"
                      and "/api/sync/" in r.url and "since=" in r.url else None)  # fmt: skip
            phone.get_by_role("list", name="Conversations", exact=True).get_by_role(
                "button", name=LONG_TITLE).click()  # fmt: skip
            session = "document.querySelector('chat-widget').session"
            phone.evaluate(f"t => {session}.send(t).then(() => {session}.settled())",
                           "One more turn")  # fmt: skip
            long_id = phone.evaluate(f"{session}.conversationId")
            laptop.wait_for_function(ARRIVED, arg=[long_id, LONG_MESSAGES + 2], timeout=60_000)
            turn = phone.evaluate(TURN_COMPRESSED)
            uploaded, downloaded = sum(uploads), sum(len(r.body()) for r in downloads)

            # The first token, with a round of sync starting as the person sends, against a
            # page without sync, alternating. That page holds the same history and has the
            # same conversation open, one turn longer, as the phone: only sync differs.
            plain = device(browser, server.url, attributes="")
            plain.evaluate(plant, entries)
            plain.reload()
            plain.wait_for_function("document.querySelector('chat-widget').session.ready"
                                    ".then(() => true)")  # fmt: skip
            plain.get_by_role("button", name="History").click()
            plain.get_by_role("list", name="Conversations", exact=True).get_by_role(
                "button", name=LONG_TITLE).click()  # fmt: skip
            plain.wait_for_function(f"id => {session}.conversationId === id", arg=long_id)
            plain.evaluate(f"t => {session}.send(t).then(() => {session}.settled())",
                           "One more turn")  # fmt: skip
            same = "document.querySelector('chat-widget').session.conversationId"
            assert plain.evaluate(same) == phone.evaluate(same)  # the same conversation
            with_sync, without = [], []
            for n in range(FIRST_TOKEN_RUNS):
                with_sync.append(phone.evaluate(FIRST_TOKEN, f"Question {n}"))
                without.append(plain.evaluate(FIRST_TOKEN, f"Question {n}"))

            # A change made on the laptop shows on the phone, open and left alone (no reload,
            # no focus): the laptop's round after the change, the server's event, the phone's.
            laptop.get_by_role("button", name="Back").click()
            arrivals = []
            for n in range(LIVE_RUNS):
                laptop.evaluate(f"t => {session}.send(t).then(() => {session}.settled())",
                                f"Live change {n}")  # fmt: skip
                kept = time.perf_counter()
                live = laptop.evaluate(f"{session}.conversationId")
                phone.wait_for_function(ARRIVED, arg=[live, 2 * (n + 1)], timeout=60_000)
                arrivals.append(time.perf_counter() - kept)
            browser.close()
    allowed = 2 * turn + 1024
    on, off = statistics.median(with_sync), statistics.median(without)
    return [
        row(f"sync: a new device receives {CONVERSATIONS} conversations "
            f"({text_bytes // 1000} KB of text), loopback", received, 2, " s"),
        row(f"sync: a change shows on another open device, no reload or focus (median of "
            f"{LIVE_RUNS}; spread {min(arrivals):.1f}-{max(arrivals):.1f} s)",
            statistics.median(arrivals), 5, " s"),
        row(f"sync: a turn added to a {LONG_MESSAGES}-message conversation uploads / (2 x the turn"
            f" compressed + 1 KB) ({uploaded} / {allowed} bytes)", uploaded / allowed, 1, "x"),
        row(f"sync: another device downloads it / (2 x the turn compressed + 1 KB) ({downloaded}"
            f" / {allowed} bytes)", downloaded / allowed, 1, "x"),
        row(f"sync: first token with a round starting, against no sync ({on:.0f} / {off:.0f} ms,"
            f" median of {FIRST_TOKEN_RUNS})", on / off if off else float("inf"), 1.1, "x"),
    ]  # fmt: skip


def bench_sync() -> list[dict[str, Any]]:
    return bench_sync_reads() + bench_sync_browser()
