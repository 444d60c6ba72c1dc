"""PDFs, on a host page of another origin: what a visit that attaches none fetches of the PDF
support (nothing, by design), what the first PDF fetches, how long its text takes, and the
host page's longest task meanwhile (pypdf runs in a worker of its own, static/pdf-worker.js)."""

from __future__ import annotations

import base64
import statistics
import sys
from pathlib import Path
from typing import Any

from bench import row
from bench.host import open_ready, shop_with_widget

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from sample_pdf import sample_pdf

# A 20-page report, attached as if dropped; resolves with [ms to its chip, longest task].
DROP = """async (data) => {
  window.tasks = [];
  const observer = new PerformanceObserver(list => {
    for (const entry of list.getEntries()) window.tasks.push(entry.duration);
  });
  observer.observe({ type: 'longtask' });
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const files = new DataTransfer();
  files.items.add(new File([bytes], 'report.pdf', { type: 'application/pdf' }));
  const root = document.querySelector('chat-widget').shadowRoot;
  const start = performance.now();
  root.querySelector('.chat').dispatchEvent(new DragEvent('drop',
    { dataTransfer: files, bubbles: true, cancelable: true, composed: true }));
  while (!root.querySelector('.files li')) await new Promise(r => setTimeout(r, 5));
  const took = performance.now() - start;
  await new Promise(r => setTimeout(r, 100));
  observer.disconnect();
  root.querySelector('.files li button').click();
  return [took, Math.max(0, ...window.tasks)];
}"""
RUNS = 5


def bench_pdf() -> list[dict[str, Any]]:
    pages_text = [f"Page {n}: revenue grew by {n} percent in region {n % 7}." for n in range(20)]
    report = base64.b64encode(sample_pdf(*pages_text)).decode()
    with shop_with_widget() as (page, url):
        sizes: dict[str, int] = {}

        def note(request: Any) -> None:
            """The most each URL brought (a later PDF's worker may take it from the cache;
            a worker's request may report no body size: its Content-Length then)."""
            size = request.sizes()["responseBodySize"]
            if size < 0 and (response := request.response()) is not None:
                size = int(response.headers.get("content-length") or 0)
            sizes[request.url] = max(sizes.get(request.url, 0), size)

        page.context.on("requestfinished", note)
        open_ready(page, url)
        page.wait_for_timeout(1000)  # what follows ready (the snapshot, the wheel) is in too
        before = sum(size for url, size in sizes.items() if "/pdf/" in url)
        results = [page.evaluate(DROP, report) for _ in range(RUNS + 1)]
        on_demand = sum(size for url, size in sizes.items() if "/pdf/" in url)
    first, later = results[0], results[1:]
    took = statistics.median(t for t, _ in later)
    longest = max(task for _, task in results)
    print(f"pdf: first PDF {first[0]:.0f} ms (fetching pypdf, {on_demand / 1024:.0f} KB), "
          f"then {took:.0f} ms each (median); longest host-page task {longest:.0f} ms")  # fmt: skip
    return [
        row("a visit attaching no PDF: bytes of PDF support fetched", before / 1024, 0, " KB"),
        row("the first PDF attached: PDF support fetched (on demand)", on_demand / 1024, 1024,
            " KB"),
        row(f"reading a 20-page PDF in its worker: longest task on the host page (of {RUNS + 1})",
            longest, 50, " ms"),
    ]  # fmt: skip
