"""Chromium started plainly, with no DevTools client attached, for the boot rows: start times
as a visitor's browser has them, reported by the page itself to the host site.

Playwright drives Chromium over the DevTools protocol. It holds every new worker until it has
attached to it, and the inspector it enables there makes V8 record a detailed stack trace for
each exception thrown, caught or not. Pyodide throws a few hundred while it starts (probing its
imports, looking up files), and the first trace makes V8 parse its 1 MB glue again for source
positions (33 ms in a trace; none with nothing attached). A page's Pyodide starts unattended and,
warm, takes its glue from the code cache: measured through Playwright, only the widget's worker
paid for being watched (docs/benchmarks.md, "Measured as a visitor has it")."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.host import READY_MARK, HostSite
from server.testing import CHROMIUM_FLAGS

#: After ready, the page posts its own clock to the host site, and its long tasks from load to
#: ready (Chromium buffers them); a widget says whether it started from the snapshot it kept. A
#: visit before the last keeps the snapshot, then opens the next.
REPORT = """
const visit = Number(new URLSearchParams(location.search).get("visit") ?? 0);
const widget = document.querySelector("chat-widget");
const longTasks = await new Promise((resolve) => {
  const seen = [];
  new PerformanceObserver((list) => seen.push(...list.getEntries()))
    .observe({ type: "longtask", buffered: true });
  setTimeout(() => resolve(seen.filter((task) => task.startTime < window.bootAt).length), 100);
});
if (widget && visit < LAST) await widget.session.snapshotKept();
await fetch("/report", { method: "POST", body: JSON.stringify({
  visit, at: window.bootAt, fromSnapshot: widget ? widget.session.startedFromSnapshot : null,
  longTasks }) });
if (visit < LAST) location.search = `?visit=${visit + 1}`;
"""
#: The first page a new browser opens: it waits, then opens the page measured, so that the
#: browser's own start (its profile, its built-in pages) is over, as a visitor's would be.
SETTLE = """<!doctype html><title>settling</title><script>
const then = new URLSearchParams(location.search).get("then");
setTimeout(() => location.replace(then), SECONDS * 1000);
</script>"""
SETTLE_SECONDS = 2
TIMEOUT = 120.0


def reporting(page: str, visits: int) -> str:
    """`page` (bench/host.py) reporting when ready, and opening itself again, `visits` in all."""
    return page.replace(READY_MARK, READY_MARK + REPORT.replace("LAST", str(visits - 1)))


def visits(site: HostSite, path: str, count: int = 1) -> list[dict[str, Any]]:
    """Opens `path` (a page `reporting` `count` visits) in a new browser with a new profile."""
    profile = tempfile.mkdtemp(prefix="chatkeep-bench-")
    site.pages["/settle"] = SETTLE.replace("SECONDS", str(SETTLE_SECONDS))
    first = len(site.reports)
    browser = subprocess.Popen(
        [chromium(), "--headless=new", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
         "--no-first-run", "--no-default-browser-check", f"{site.url}/settle?then={quote(path)}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        reports = site.reports_after(first, count, TIMEOUT)
    finally:
        os.killpg(browser.pid, signal.SIGKILL)  # its renderers and workers too, not only itself
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)
    if reports is None:
        raise RuntimeError(f"{path}: {len(site.reports) - first} of {count} visits were ready "
                           f"within {TIMEOUT:.0f} s")  # fmt: skip
    return reports


def chromium() -> str:
    """Debian's Chromium where installed, else Playwright's own build."""
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        return playwright.chromium.executable_path
