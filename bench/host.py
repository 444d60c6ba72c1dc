"""The pages the browser benchmarks load: a host site of its own origin (as a shop embeds the
widget), a bare Pyodide page as the baseline, and the browser they run in."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from server.testing import CHROMIUM_FLAGS

#: Sets `window.bootAt` (the page's own clock) and `window.bootDone` when ready.
READY_MARK = "window.bootAt = performance.now();\nwindow.bootDone = true;"
#: Resolves once the widget has kept Python's memory snapshot (static/snapshot-store.js): a
#: first visit that ends sooner leaves the next one nothing to boot from.
SNAPSHOT_KEPT = "document.querySelector('chat-widget').session.snapshotKept()"


def launch_options() -> dict[str, Any]:
    options: dict[str, Any] = {"args": list(CHROMIUM_FLAGS)}
    if Path("/usr/bin/chromium").exists():
        options["executable_path"] = "/usr/bin/chromium"
    return options


def build_url(server_url: str) -> str:
    """Where the server serves this build, under its digest (kept by browsers a year)."""
    digest = httpx.get(f"{server_url}/static/offline.json").json()["build"]
    return f"{server_url}/static/v/{digest}/"


def bare_page(server_url: str) -> str:
    """Only `loadPyodide()`, from the same server, files and caching as the widget's runtime."""
    runtime = build_url(server_url) + "runtime/pyodide/"
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare</title>
</head><body><script type="module">
const {{ loadPyodide }} = await import("{runtime}pyodide.mjs");
await loadPyodide({{ indexURL: "{runtime}" }});
{READY_MARK}
</script></body></html>"""


def bare_worker_page(server_url: str) -> str:
    """Only `loadPyodide()`, in a module worker (where the widget runs Python), from the same
    server, files and caching: the baseline issue 52 measured the widget against."""
    runtime = build_url(server_url) + "runtime/pyodide/"
    worker = (f'import {{ loadPyodide }} from "{runtime}pyodide.mjs";'
              f'await loadPyodide({{ indexURL: "{runtime}" }}); postMessage("ready");')  # fmt: skip
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare</title>
</head><body><script type="module">
const code = new Blob([{json.dumps(worker)}], {{ type: "text/javascript" }});
const worker = new Worker(URL.createObjectURL(code), {{ type: "module" }});
await new Promise((resolve) => worker.addEventListener("message", resolve, {{ once: true }}));
{READY_MARK}
</script></body></html>"""


def widget_page(server_url: str, attributes: str = 'history="memory"', head: str = "") -> str:
    """A shop's page with the widget, marking when its session is ready."""
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>shop</title>
{head}<script type="module" src="{server_url}/static/chat-widget.js"></script></head>
<body><h1>A shop</h1><chat-widget endpoint="{server_url}/api" {attributes}></chat-widget>
<script type="module">
await customElements.whenDefined("chat-widget");
await document.querySelector("chat-widget").session.ready;
{READY_MARK}
</script></body></html>"""


class HostSite:
    """Another web site on its own port (so its own origin): serves `pages` (path → HTML, the
    query ignored) and keeps what its pages POST, as JSON, in `reports`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pages: dict[str, str] = {}
        self.reports: list[Any] = []
        self.reported = threading.Condition()

    def reports_after(self, first: int, count: int, timeout: float) -> list[Any] | None:
        """The `count` reports after the first `first`, once made; None if not in `timeout` s."""
        with self.reported:
            made = self.reported.wait_for(lambda: len(self.reports) >= first + count, timeout)
            return self.reports[first : first + count] if made else None


@contextmanager
def hosting() -> Iterator[HostSite]:
    site: HostSite

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = site.pages.get(self.path.split("?")[0], "").encode()
            self.send_response(200 if body else 404)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("cache-control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            report = json.loads(self.rfile.read(int(self.headers["content-length"])))
            self.send_response(204)
            self.end_headers()
            with site.reported:
                site.reports.append(report)
                site.reported.notify_all()

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site = HostSite(f"http://127.0.0.1:{httpd.server_address[1]}")
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield site
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def host_site() -> Iterator[tuple[str, dict[str, str]]]:
    """A host site's address and its pages (path → the HTML it serves)."""
    with hosting() as site:
        yield site.url, site.pages


@contextmanager
def shop_with_widget() -> Iterator[tuple[Any, str]]:
    """A Chromium page (no service worker) and the URL of a shop's page of another origin
    embedding the widget from a running chat server: open it with `open_ready`."""
    from playwright.sync_api import sync_playwright

    from server.testing import ChatkeepServer

    with (
        host_site() as (host, pages),
        ChatkeepServer("--allowed-origin", host) as server,
        sync_playwright() as playwright,
    ):
        pages["/widget"] = widget_page(server.url)
        browser = playwright.chromium.launch(**launch_options())
        try:
            yield browser.new_context(service_workers="block").new_page(), f"{host}/widget"
        finally:
            browser.close()


def open_ready(page: Any, url: str) -> None:
    """Opens `url` and waits until its widget is ready."""
    page.goto(url)
    page.wait_for_function("window.bootDone === true", timeout=120_000)
