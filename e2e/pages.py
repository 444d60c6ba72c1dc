"""Helpers for browser tests: host pages, sending, waiting on the widget's state."""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from server.demo_wire import chunk, sse_text
from server.page_object import ChatWidget

BOOT_TIMEOUT = 60_000
# True once the widget is defined and its session ready: a promise from the start, so waiting
# needs no polling, which a page's CSP (no eval) would refuse.
READY = (
    "customElements.whenDefined('chat-widget')"
    ".then(() => document.querySelector('chat-widget').session.ready).then(() => true)"
)
# The demo model echoes a question: a long one streams for seconds, time enough to stop it.
LONGER = " and then some more words" * 12
HOST_PAGE = "/e2e-host"
DEFINED = "customElements.get('chat-widget') !== undefined"


def host_page(
    page: Page,
    attributes: str = 'history="local"',
    script: str = "",
    after: str = "",
    base: str = "",
    ready: bool | None = None,
    fragment: str = "",
) -> None:
    """Open a page on the server's origin holding one widget with `attributes`, and wait
    until it is ready; with `ready=False` only until it is defined (the default for a
    launcher, which starts when it is opened).

    `script` runs (as a module) before the widget is defined, e.g. to assign a historyStore;
    `after` runs once it is, e.g. to register tools. `base` is another server's URL;
    `fragment` the address's fragment (after `#`).
    """
    html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Chatkeep test page</title>
<style>body{{margin:0;height:100vh}} chat-widget{{height:100vh}}
h1{{position:absolute;left:-9999px}}</style></head><body><main><h1>Test page</h1>
<chat-widget {attributes}></chat-widget></main>
<script type="module">{script}
await import("/static/chat-widget.js");
{after}
</script></body></html>"""
    page.route(f"**{HOST_PAGE}", lambda route: route.fulfill(body=html, content_type="text/html"))
    page.goto(base + HOST_PAGE + (f"#{fragment}" if fragment else ""))
    if ready is None:
        ready = 'mode="launcher"' not in attributes or "preload" in attributes
    if not ready:
        page.wait_for_function(DEFINED)
    else:
        widget(page).wait_ready()


def widget(page: Page) -> ChatWidget:
    """The testing kit's page object: the one driver of the widget, here as for any page."""
    return ChatWidget(page, timeout=BOOT_TIMEOUT)


def new_conversation(page: Page) -> None:
    page.get_by_role("button", name="New conversation").click()
    page.wait_for_function("document.querySelector('chat-widget').session.messages.length === 0")


def choose_files(page: Page, button: str, *files: Path) -> None:
    """Press a button that opens the file chooser ("Attach", "Import") and pick `files`."""
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name=button, exact=True).click()
    chooser.value.set_files(list(files))


def sse_answer(*deltas: dict[str, Any]) -> str:
    """A streamed answer made of `deltas` (one event each), finished and closed."""
    return sse_text(*(chunk(d) for d in deltas), chunk({}, "stop"), "[DONE]")


def route_answers(page: Page, *bodies: str) -> None:
    """The page's chat requests get the next of `bodies` (Server-Sent Events text) each, from
    Playwright itself: for what the testing kit's model does not stream (other field names,
    whole hostile corpora in one event)."""
    remaining = iter(bodies)
    page.route(
        "**/api/chat/completions",
        lambda route: route.fulfill(
            status=200, content_type="text/event-stream", body=next(remaining)
        ),
    )


def log(page: Page) -> Any:
    return page.get_by_role("log", name="Conversation")


def stored_keys(page: Page, prefix: str = "chatkeep") -> list[str]:
    keys: list[str] = page.evaluate(
        "prefix => Object.keys(localStorage).filter(k => k.startsWith(prefix + ':')).sort()",
        prefix,
    )
    return keys


def stored_conversations(page: Page, prefix: str = "chatkeep") -> list[dict[str, Any]]:
    """The stored transcripts, unpacked with the widget's own codec (they are compressed)."""
    texts: list[str] = page.evaluate(
        """async prefix => { const { unpack } = await import('/static/codec.js');
           const keys = Object.keys(localStorage).filter(k => k.startsWith(prefix + ':conv:'));
           return Promise.all(keys.map(k => unpack(localStorage.getItem(k)))); }""",
        prefix,
    )
    readable = []
    for text in texts:
        try:
            readable.append(json.loads(text))
        except ValueError:
            continue  # damaged (planted by a test): the widget leaves it alone
    return readable


def planted_conversation(
    title: str, updated: int, *, prefix: str = "chatkeep", padding: int = 0
) -> dict[str, str]:
    """localStorage entries for one kept conversation, as the widget writes them."""
    conversation_id = uuid.uuid4().hex
    snapshot = {
        "version": 1, "id": conversation_id, "title": title, "created": updated,
        "updated": updated, "model": "demo", "thinking": "off",
        "messages": [{"role": "user", "content": title},
                     {"role": "assistant", "content": "Answer to " + title + " " + "x" * padding}],
    }  # fmt: skip
    meta = {"v": 1, "title": title, "updated": updated, "rev": uuid.uuid4().hex}
    return {
        f"{prefix}:conv:{conversation_id}": json.dumps(snapshot, separators=(",", ":")),
        f"{prefix}:meta:{conversation_id}": json.dumps(meta),
    }


def plant(page: Page, entries: dict[str, str]) -> None:
    """Write entries into the origin's localStorage (the page must be on the server)."""
    page.evaluate(
        "entries => { for (const [k, v] of Object.entries(entries)) localStorage.setItem(k, v); }",
        entries,
    )


FILL_STORAGE = """leave => {
  // Fill the origin's localStorage with keys outside any widget prefix, then free `leave`
  // characters: the widget may never give these keys up.
  let n = 0;
  for (let size = 1 << 22; size >= 1; size = Math.floor(size / 2)) {
    for (;;) {
      try { localStorage.setItem('pad-' + n, 'x'.repeat(size)); n++; } catch { break; }
    }
  }
  for (let i = 0; i < n; i++) {
    const value = localStorage.getItem('pad-' + i);
    if (value.length > leave) { localStorage.setItem('pad-' + i, value.slice(leave)); break; }
  }
  return n;
}"""


def fill_storage(page: Page, leave: int) -> None:
    """Leave only about `leave` characters of the origin's quota free."""
    page.evaluate(FILL_STORAGE, leave)


def screenshot(page: Page, name: str) -> Path:
    """A picture of the page for the README, in build/screenshots/<name>.png."""
    path = Path(__file__).resolve().parent.parent / "build" / "screenshots" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=path)
    assert path.stat().st_size > 10_000, "an empty-looking picture"
    return path


class HostSite:
    """Another web site on its own port (so its own origin) serving one page."""

    def __init__(self) -> None:
        self.html = b""
        self.headers: dict[str, str] = {}
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                for name, value in site.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(site.html)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def host_policy(chat_url: str, *, webassembly: bool = True) -> str:
    """The Content-Security-Policy docs/deployment.md gives a host page, word for word (without
    `'wasm-unsafe-eval'` when `webassembly` is off)."""
    wasm = " 'wasm-unsafe-eval'" if webassembly else ""
    return (f"default-src 'none'; script-src {chat_url}{wasm}; style-src {chat_url}; "
            f"connect-src {chat_url}; worker-src blob: {chat_url}; img-src data:")  # fmt: skip


def chat_request_bodies(page: Page) -> list[dict[str, Any]]:
    """The bodies of the chat requests the page's worker sends, as they leave the browser,
    collected from now on."""
    bodies: list[dict[str, Any]] = []

    def note(request: Any) -> None:
        if request.url.endswith("/api/chat/completions") and request.method == "POST":
            bodies.append(json.loads(request.post_data or "{}"))

    page.context.on("request", note)
    return bodies
