"""Boot, side by side in one run: the widget to `session.ready` against a bare page that only
calls `loadPyodide()` from the same server, files and caching, both on a host page of another
origin (as a shop embeds the widget), in a Chromium nothing is attached to (bench/plain.py).
Cold is a new browser with a new profile (empty HTTP and code caches); warm is the page opened
again in the same browser. Also the weight of a cold visit, compressed, split into Pyodide's
own files and Chatkeep's."""

from __future__ import annotations

import statistics
import zipfile
from pathlib import Path
from typing import Any

from bench import row
from bench.host import bare_page, bare_worker_page, hosting, launch_options, widget_page
from bench.plain import reporting, visits
from server.testing import ChatkeepServer

WARM_RUNS = 5
#: what the page loads to draw Markdown, right after ready (static/markdown.js)
RENDERER = ("markdown-it.mjs", "dompurify.mjs")
#: a new browser per first visit varies more from run to run than a reload does
COLD_RUNS = 9
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
    with hosting() as site, ChatkeepServer("--allowed-origin", site.url) as server:
        site.pages["/bare"] = reporting(bare_page(server.url), WARM_RUNS + 1)
        site.pages["/widget"] = reporting(widget_page(server.url), WARM_RUNS + 1)
        site.pages["/worker"] = reporting(bare_worker_page(server.url), WARM_RUNS + 1)
        site.pages["/cold/bare"] = reporting(bare_page(server.url), 1)
        site.pages["/cold/worker"] = reporting(bare_worker_page(server.url), 1)
        site.pages["/cold/widget"] = reporting(widget_page(server.url), 1)
        cold: dict[str, list[float]] = {"bare": [], "worker": [], "widget": []}
        cold_long_tasks = []
        for _ in range(COLD_RUNS):  # alternate, so drift affects both alike
            for page in cold:
                [visit] = visits(site, f"/cold/{page}")
                cold[page].append(visit["at"])
                if page == "widget":
                    cold_long_tasks.append(visit["longTasks"])
        warm: dict[str, list[float]] = {}
        for page in ("bare", "worker", "widget"):
            returns = visits(site, f"/{page}", WARM_RUNS + 1)[1:]  # after the first visit
            if page == "widget" and not all(visit["fromSnapshot"] for visit in returns):
                raise RuntimeError("a warm visit started without the kept snapshot")
            warm[page] = [visit["at"] for visit in returns]
        weights = cold_visit_weights(f"{site.url}/cold/widget")

    pyodide_bytes = sum(size for url, size in weights.items() if "/runtime/pyodide/" in url)
    own_bytes = sum(size for url, size in weights.items()
                    if "/static/" in url and "/runtime/pyodide/" not in url)  # fmt: skip
    # The widget's modules travel inside the Python zip: that part is Chatkeep's.
    zipped = sum(size for url, size in weights.items() if url.endswith("/" + PYTHON_ZIP.name))
    widget_part = round(zipped * widget_share_of_python_zip())
    pyodide_bytes -= widget_part
    own_bytes += widget_part
    total = pyodide_bytes + own_bytes
    medians = {kind: {page: statistics.median(times[page]) for page in times}
               for kind, times in (("warm", warm), ("cold", cold))}  # fmt: skip
    for kind, median in medians.items():
        print(f"boot, {kind}: widget {median['widget']:.0f} ms, bare {median['bare']:.0f} ms, "
              f"bare in a module worker {median['worker']:.0f} ms")  # fmt: skip
    return [
        row(f"boot to ready, warm, / bare Pyodide (median of {WARM_RUNS})",
            medians["warm"]["widget"] / medians["warm"]["bare"], 1.0, "x", why=WHY),
        row(f"boot to ready, cold, / bare Pyodide (median of {COLD_RUNS})",
            medians["cold"]["widget"] / medians["cold"]["bare"], 1.0, "x", why=COLD_WHY),
        row(f"boot to ready, warm, / bare Pyodide in a module worker (median of {WARM_RUNS})",
            medians["warm"]["widget"] / medians["warm"]["worker"], 1.1, "x", why=WHY),
        row(f"boot to ready, cold, / bare Pyodide in a module worker (median of {COLD_RUNS})",
            medians["cold"]["widget"] / medians["cold"]["worker"], 1.1, "x", why=COLD_WHY),
        row(f"long tasks on the host page in a cold visit, load to ready (most in {COLD_RUNS})",
            max(cold_long_tasks), 0, ""),
        row(f"cold visit: Pyodide {pyodide_bytes / 2**20:.2f} MiB + Chatkeep "
            f"{own_bytes / 2**10:.0f} KiB; Chatkeep's share", 100 * own_bytes / total, 10, "%"),
        row("cold inline visit: all bytes, compressed", total / 1e6, 6, " MB"),
    ]  # fmt: skip


def cold_visit_weights(url: str) -> dict[str, int]:
    """What a first visit to `url` downloads, compressed: URL → bytes (Playwright counts them)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options())
        page = browser.new_context(service_workers="block").new_page()
        finished: list[Any] = []
        # a function of Python's own: Playwright marks its handlers, a bound builtin cannot be
        page.on("requestfinished", lambda request: finished.append(request))
        page.goto(url)
        page.wait_for_function("window.bootDone === true", timeout=120_000)
        # and the Markdown renderer, which loads right after ready: a first visit fetches it too
        for _ in range(600):
            if all(any(r.url.endswith(f"/{name}") for r in finished) for name in RENDERER):
                break
            page.wait_for_timeout(100)
        else:
            raise RuntimeError(f"the Markdown renderer ({', '.join(RENDERER)}) did not load")
        # Sized here, while the browser runs: a request finishing as it closes (the snapshot's
        # maker fetches after ready) could no longer say its size.
        sizes: dict[str, int] = {}
        for request in finished[:]:  # a file asked again (the snapshot's maker) comes from cache
            size = request.sizes()["responseBodySize"]
            sizes[request.url] = max(size, sizes.get(request.url, 0))
        browser.close()
    return sizes


def widget_share_of_python_zip() -> float:
    """The part of widget_python.zip that is the widget's own modules (the rest is Pyodide's)."""
    with zipfile.ZipFile(PYTHON_ZIP) as python:
        sizes = [(info.filename.startswith("widget/"), info.compress_size)
                 for info in python.infolist()]  # fmt: skip
    return sum(size for own, size in sizes if own) / sum(size for _, size in sizes)
