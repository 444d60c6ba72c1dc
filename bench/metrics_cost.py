"""What `--metrics` costs the first token: two proxies on the same upstream, one with metrics
and one without, probed alternately (bench/first_byte.py's probe), in one run."""

from __future__ import annotations

import os
import statistics
from typing import Any

from bench import row
from bench.first_byte import MODEL, first_content
from bench.scale import upstream_process
from server.testing import ChatkeepServer

PROBES = 100


def bench_metrics_cost() -> list[dict[str, Any]]:
    everywhere = os.sched_getaffinity(0)
    pinned = len(everywhere) >= 2
    try:
        plain, metered = probe(pinned)
    finally:
        os.sched_setaffinity(0, everywhere)
    added = statistics.median(metered) - statistics.median(plain)
    print(f"first content: without metrics {statistics.median(plain):.2f} ms, "
          f"with {statistics.median(metered):.2f} ms")  # fmt: skip
    return [row(f"--metrics: added time to the first token (median of {PROBES})", added, 0.1,
                " ms")]  # fmt: skip


def probe(pinned: bool) -> tuple[list[float], list[float]]:
    with upstream_process({1} if pinned else None) as upstream:
        flags = ["--rate-limit", "0", "--upstream", upstream, "--model", MODEL]
        with ChatkeepServer(*flags) as plain, ChatkeepServer(*flags, "--metrics") as metered:
            if pinned:
                os.sched_setaffinity(plain.process.pid, {0})
                os.sched_setaffinity(metered.process.pid, {0})
                os.sched_setaffinity(0, {1})
            where = [s.url.removeprefix("http://").split(":") for s in (plain, metered)]
            for _ in range(5):
                for host, port in where:
                    first_content(host, int(port), "/api/chat/completions")
            times: tuple[list[float], list[float]] = ([], [])
            for _ in range(PROBES):
                for (host, port), into in zip(where, times, strict=True):
                    into.append(first_content(host, int(port), "/api/chat/completions"))
    return times
