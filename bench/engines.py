"""Boot in Firefox and WebKit, each against bare Pyodide in the same engine and run: the same
host page of another origin as in Chromium (bench/boot.py), driven the way the cross-engine
journey drives them (e2e/drivers.py). Warm is a reload; cold a new browser (a new profile)."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from bench import row
from bench.host import SNAPSHOT_KEPT, bare_page, bare_worker_page, host_site, widget_page
from e2e.drivers import Driver, FirefoxDriver, WebKitDriver, missing
from server.testing import ChatkeepServer

WARM_RUNS = 5
COLD_RUNS = 9  # first visits spread widely in WebKit: five were too few for a 10 % target
#: the page's own clock at ready, once it has set it (bench/host.py READY_MARK)
BOOTED = """new Promise((resolve, reject) => {
  const deadline = Date.now() + 120000;
  const look = () => window.bootDone ? resolve(window.bootAt)
    : Date.now() > deadline ? reject(new Error("not ready in 120 s")) : setTimeout(look, 5);
  look();
})"""
WHY = (
    "as in Chromium: on top of bare Pyodide's start the widget loads its element and starts a "
    "worker (WebKit starts the worker's loads only once the page's first task, drawing the chat, "
    "ends); warm it restores the memory snapshot it kept, cold it imports itself"
)
ENGINES: dict[str, Callable[[], Driver]] = {"Firefox": FirefoxDriver, "WebKit": WebKitDriver}


def boot(driver: Driver, url: str) -> float:
    driver.goto(url)
    try:
        return float(driver.evaluate(BOOTED))
    except AssertionError as error:  # which of the two pages, so a hang can be looked into
        raise AssertionError(f"{url}: {error}") from error


def bench_engines() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with host_site() as (host, pages), ChatkeepServer("--allowed-origin", host) as server:
        pages["/bare"], pages["/widget"] = bare_page(server.url), widget_page(server.url)
        pages["/worker"] = bare_worker_page(server.url)
        urls = {"bare": f"{host}/bare", "worker": f"{host}/worker", "widget": f"{host}/widget"}
        for engine, start in ENGINES.items():
            if why := missing(engine.lower()):
                print(f"{engine}: skipped ({why})")
                continue
            cold: dict[str, list[float]] = {page: [] for page in urls}
            for _ in range(COLD_RUNS):  # alternate, so drift affects both alike
                for page, url in urls.items():
                    driver = start()
                    try:
                        cold[page].append(boot(driver, url))
                    finally:
                        driver.close()
            warm: dict[str, list[float]] = {}
            driver = start()
            try:
                for page, url in urls.items():
                    boot(driver, url)  # the first visit
                    if page == "widget":
                        driver.evaluate(SNAPSHOT_KEPT)
                    warm[page] = [boot(driver, url) for _ in range(WARM_RUNS)]
            finally:
                driver.close()
            for kind, times, runs in (("warm", warm, WARM_RUNS), ("cold", cold, COLD_RUNS)):
                widget, bare = statistics.median(times["widget"]), statistics.median(times["bare"])
                worker = statistics.median(times["worker"])
                print(f"{engine} {kind}: widget {widget:.0f} ms, bare Pyodide {bare:.0f} ms, "
                      f"in a module worker {worker:.0f} ms")  # fmt: skip
                rows.append(row(f"{engine}: boot to ready, {kind}, / bare Pyodide (median of "
                                f"{runs})", widget / bare, 1.1, "x", why=WHY))  # fmt: skip
                rows.append(
                    row(
                        f"{engine}: boot to ready, {kind}, / bare Pyodide in a module "
                        f"worker (median of {runs})",
                        widget / worker,
                        1.1,
                        "x",
                        why=WHY,
                    )
                )
    return rows
