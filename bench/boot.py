"""Boot, side by side in one run: the widget to `session.ready` against a bare page that only
calls `loadPyodide()` from the same server, files and caching, both on a host page of another
origin (as a shop embeds the widget). Cold is a new browser profile (empty HTTP and code
caches); warm is a reload. Also the weight of a cold visit, compressed, split into Pyodide's
own files and Chatkeep's."""

from __future__ import annotations

import statistics
import zipfile
from pathlib import Path
from typing import Any

from bench import row
from bench.host import (
    FROM_SNAPSHOT,
    SNAPSHOT_KEPT,
    bare_page,
    host_site,
    launch_options,
    widget_page,
)
from server.testing import ChatkeepServer

RUNS = 5
#: Pyodide's standard library (the modules the widget imports) and the widget's own modules
PYTHON_ZIP = Path(__file__).resolve().parents[1] / "static/runtime/pyodide/widget_python.zip"
COLD_WHY = (
    "on a first visit the widget starts a worker and imports itself, on top of what bare "
    "Pyodide does (the memory snapshot later visits boot from is made after ready, by a "
    "worker of its own); its standard library is a third of the whole, which wins some back"
)
WHY = (
    "bare Pyodide with this build's precompiled standard library starts quickly warm, most of "
    "it WebAssembly instantiation that the widget pays too; on top the widget starts a module "
    "worker, restores the 20 MiB memory snapshot this browser kept, and loads its history"
)


def bench_boot() -> list[dict[str, Any]]:
    from playwright.sync_api import Browser, Page, sync_playwright

    def boot(page: Page, url: str) -> float:
        """Milliseconds from the page's navigation to ready, as the page itself measured."""
        page.goto(url)
        page.wait_for_function("window.bootDone === true", timeout=120_000)
        at: float = page.evaluate("window.bootAt")
        return at

    def cold(browser: Browser, url: str) -> tuple[float, dict[str, int]]:
        context = browser.new_context(service_workers="block")
        page = context.new_page()
        sizes: dict[str, int] = {}
        page.on(
            "requestfinished", lambda r: sizes.__setitem__(r.url, r.sizes()["responseBodySize"])
        )
        elapsed = boot(page, url)
        context.close()
        return elapsed, sizes

    with (
        host_site() as (host, pages),
        ChatkeepServer("--allowed-origin", host) as server,
        sync_playwright() as playwright,
    ):
        pages["/bare"], pages["/widget"] = bare_page(server.url), widget_page(server.url)
        browser = playwright.chromium.launch(**launch_options())
        bare_url, widget_url = f"{host}/bare", f"{host}/widget"
        cold_bare: list[float] = []
        cold_widget: list[float] = []
        weights: dict[str, int] = {}
        for _ in range(RUNS):  # alternate, so drift affects both alike
            cold_bare.append(cold(browser, bare_url)[0])
            elapsed, weights = cold(browser, widget_url)
            cold_widget.append(elapsed)
        warm: dict[str, list[float]] = {}
        for url in (bare_url, widget_url):
            context = browser.new_context(service_workers="block")
            page = context.new_page()
            boot(page, url)  # the first visit
            if url == widget_url:
                page.evaluate(SNAPSHOT_KEPT)
            warm[url] = []
            for _ in range(RUNS):
                warm[url].append(boot(page, url))
                if url == widget_url and not page.evaluate(FROM_SNAPSHOT):
                    raise RuntimeError("a warm visit started without the kept snapshot")
            context.close()
        browser.close()

    pyodide_bytes = sum(size for url, size in weights.items() if "/runtime/pyodide/" in url)
    own_bytes = sum(size for url, size in weights.items()
                    if "/static/" in url and "/runtime/pyodide/" not in url)  # fmt: skip
    # The widget's modules travel inside the Python zip: that part is Chatkeep's.
    zipped = sum(size for url, size in weights.items() if url.endswith("/" + PYTHON_ZIP.name))
    widget_part = round(zipped * widget_share_of_python_zip())
    pyodide_bytes -= widget_part
    own_bytes += widget_part
    total = pyodide_bytes + own_bytes
    warm_ratio = statistics.median(warm[widget_url]) / statistics.median(warm[bare_url])
    cold_ratio = statistics.median(cold_widget) / statistics.median(cold_bare)
    print(f"boot medians: warm {statistics.median(warm[widget_url]):.0f} ms vs bare "
          f"{statistics.median(warm[bare_url]):.0f} ms; cold {statistics.median(cold_widget):.0f} "
          f"ms vs bare {statistics.median(cold_bare):.0f} ms")  # fmt: skip
    return [
        row("boot to ready, warm, / bare Pyodide (median of 5)", warm_ratio, 1.0, "x", why=WHY),
        row("boot to ready, cold, / bare Pyodide (median of 5)", cold_ratio, 1.0, "x",
            why=COLD_WHY),
        row(f"cold visit: Pyodide {pyodide_bytes / 2**20:.2f} MiB + Chatkeep "
            f"{own_bytes / 2**10:.0f} KiB; Chatkeep's share", 100 * own_bytes / total, 10, "%"),
        row("cold inline visit: all bytes, compressed", total / 1e6, 6, " MB"),
    ]  # fmt: skip


def widget_share_of_python_zip() -> float:
    """The part of widget_python.zip that is the widget's own modules (the rest is Pyodide's)."""
    with zipfile.ZipFile(PYTHON_ZIP) as python:
        sizes = [(info.filename.startswith("widget/"), info.compress_size)
                 for info in python.infolist()]  # fmt: skip
    return sum(size for own, size in sizes if own) / sum(size for _, size in sizes)
