"""Streams at scale: 200 answers streaming at once through `chatkeep serve`, with one worker
and with two, next to the same streams straight from the upstream.

A paced fake upstream (bench/page.py's, in a process of its own) streams every answer at 50
tokens a second; a light client (raw sockets, so that measuring costs little) opens all the
streams together and records the gap between consecutive chunks as it receives them, the
errors, and the server's memory per open stream (resident memory of its worker processes
while the streams are open, less before). On a 2-core machine the upstream, the client and
both workers share the cores.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench import row
from server.testing import ChatkeepServer, free_port

STREAMS = 200
TOKENS = 100
RATE = 50  # tokens a second: two seconds an answer


def resident_kib(root_pid: int) -> int:
    """Resident memory of a process and its children (the uvicorn workers), in KiB."""
    pids = [str(root_pid)]
    children = subprocess.run(["pgrep", "-P", str(root_pid)], capture_output=True, text=True)
    pids += children.stdout.split()
    total = 0
    for pid in pids:
        status = Path(f"/proc/{pid}/status")
        if status.exists():
            for line in status.read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


async def one_stream(host: str, port: int, body: bytes, path: bytes) -> tuple[list[float], bool]:
    """One streamed answer over a raw connection; the gaps between its events, and success."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (path, len(body), body)
    )
    await writer.drain()
    gaps: list[float] = []
    last = None
    ok = (await reader.readline()).startswith(b"HTTP/1.1 200")
    done = False
    while line := await reader.readline():
        if line.startswith(b"data:"):
            now = time.perf_counter()
            if last is not None:
                gaps.append(now - last)
            last = now
            ok = ok and b'"error"' not in line
            done = done or b"[DONE]" in line
    writer.close()
    return gaps, ok and done


async def stream_all(url: str, path: bytes = b"/api/chat/completions") -> tuple[list[float], int]:
    question = [{"role": "user", "content": "Tell me about the river"}]
    body = json.dumps({"model": f"paced-{TOKENS}-{RATE}", "stream": True, "messages": question})
    host, port = url.removeprefix("http://").split(":")
    results = await asyncio.gather(
        *(one_stream(host, int(port), body.encode(), path) for _ in range(STREAMS)),
        return_exceptions=True,
    )
    gaps = [gap for result in results if isinstance(result, tuple) for gap in result[0]]
    errors = sum(1 for result in results if not isinstance(result, tuple) or not result[1])
    return gaps, errors


@contextmanager
def upstream_process(cpus: set[int] | None = None) -> Iterator[str]:
    """The paced upstream in a process of its own, so it does not slow the client down;
    on the CPUs `cpus` names, when given."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", "import uvicorn; from bench.page import upstream_app; "
         f"uvicorn.run(upstream_app(), port={port}, log_level='warning')"],
        cwd=Path(__file__).resolve().parent.parent,
    )  # fmt: skip
    if cpus:
        os.sched_setaffinity(process.pid, cpus)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(10)


def streams_through(workers: int) -> tuple[list[float], int, int, int]:
    """Every stream at once through `chatkeep serve --workers N`: the gaps, the errors, and
    the server's resident memory idle and at its peak (KiB)."""
    with upstream_process() as upstream:
        # One client opens every stream here: no rate limit, no cap on answers in flight.
        flags = ["--workers", str(workers), "--rate-limit", "0", "--client-streams", "0",
                 "--upstream", upstream, "--model", f"paced-{TOKENS}-{RATE}"]  # fmt: skip
        with ChatkeepServer(*flags) as server:
            idle = resident_kib(server.process.pid)
            peak = [idle]

            async def measured() -> tuple[list[float], int]:
                async def sample() -> None:
                    while True:
                        peak.append(resident_kib(server.process.pid))
                        await asyncio.sleep(0.5)

                sampler = asyncio.create_task(sample())
                try:
                    return await stream_all(server.url)
                finally:
                    sampler.cancel()

            gaps, errors = asyncio.run(measured())
    return gaps, errors, idle, max(peak)


def direct_gaps() -> list[float]:
    """The same streams straight from the paced upstream: what the machine itself allows."""
    with upstream_process() as upstream:
        gaps, _ = asyncio.run(
            stream_all(upstream.removesuffix("/v1"), path=b"/v1/chat/completions")
        )
    return gaps


def p99(gaps: list[float]) -> float:
    return statistics.quantiles(gaps, n=100)[98] * 1000 if len(gaps) > 100 else float("inf")


def bench_scale() -> list[dict[str, Any]]:
    direct = p99(direct_gaps())
    one, one_errors, _, _ = streams_through(1)
    gaps, errors, idle, peak = streams_through(2)
    print(f"{STREAMS} streams, gap p99: direct {direct:.0f} ms, one worker {p99(one):.0f} ms")
    expected = 1 / RATE
    per_stream = (peak - idle) / STREAMS
    return [
        row(f"{STREAMS} streams, --workers 1: inter-chunk gap p99 (straight from the upstream "
            f"in the same run: {direct:.0f} ms)", p99(one), 128, "ms",
            why="one worker relays 10,000 events a second on one core of two"),
        row(f"{STREAMS} streams, --workers 1: errors", one_errors, 0, ""),
        row(f"{STREAMS} streams, --workers 2: inter-chunk gap p99 (paced every "
            f"{expected * 1000:.0f} ms)", p99(gaps), 50, "ms",
            why="on 2 cores the paced upstream, the client and both workers share the CPU, "
                "10,000 events a second in all; the proxy also parses every event to catch an "
                "upstream error mid-stream"),
        row(f"{STREAMS} streams, --workers 2: errors", errors, 0, ""),
        row(f"{STREAMS} streams, --workers 2: server memory per open stream", per_stream, 256,
            "KiB"),
    ]  # fmt: skip
