"""What the proxy adds to the first token: the same request straight to the upstream and
through `chatkeep serve`, alternating, timed from the request's last byte to the first
content event, over raw sockets (TCP_NODELAY, the request in one write: an HTTP client that
writes headers and body apart meets Nagle and delayed ACK, 40 ms, on some servers)."""

from __future__ import annotations

import json
import os
import socket
import statistics
import time
from typing import Any

from bench import row
from bench.scale import upstream_process
from server.testing import ChatkeepServer

PROBES = 40
WHY = (
    "one more hop on loopback: uvicorn reads the request, Chatkeep checks it (host, origin, "
    "messages, budget, slot: about 0.3 ms), httpx sends it upstream and reads the answer's "
    "head (about 0.4 ms more than a raw socket), then the relay; on this 2-core machine a run "
    "drifts by a millisecond with the load (docs/benchmarks.md)"
)
MODEL = "paced-50-0"  # a short answer at full speed from the paced upstream


def first_content(host: str, port: int, path: str) -> float:
    """Milliseconds from sending a streamed request to its first content event; the answer
    is read to its end, as the page does (a probe that hung up at the first token would make
    the proxy open a new upstream connection every time, which no page does)."""
    body = json.dumps({"model": MODEL, "stream": True,
                       "messages": [{"role": "user", "content": "hi"}]}).encode()  # fmt: skip
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")  # fmt: skip
    request = head.encode() + body
    with socket.create_connection((host, port), timeout=30) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        start = time.perf_counter()
        connection.sendall(request)
        seen, first = b"", None
        while b"[DONE]" not in seen:  # the whole answer, as a page reads it
            chunk = connection.recv(65536)
            if not chunk:
                raise RuntimeError(f"no [DONE] from {path}: {seen[:300]!r}")
            seen += chunk
            if first is None and b'"content"' in seen:
                first = (time.perf_counter() - start) * 1000
        assert first is not None
        return first


def bench_first_byte() -> list[dict[str, Any]]:
    # The proxy on a core of its own, the upstream and this client on the other: three
    # processes on two cores otherwise share them differently from run to run, and the
    # proxied path (two servers) pays for that more than the direct one.
    everywhere = os.sched_getaffinity(0)
    pinned = len(everywhere) >= 2
    try:
        direct, proxied = probe_both(pinned)
    finally:
        os.sched_setaffinity(0, everywhere)  # what runs next (and its children) is not pinned
    added = statistics.median(proxied) - statistics.median(direct)
    print(f"first content: direct {statistics.median(direct):.2f} ms, "
          f"through the proxy {statistics.median(proxied):.2f} ms")  # fmt: skip
    name = "the proxy's added time to the first token (median of 40"
    name += ", the proxy on a core of its own)" if pinned else ")"
    return [row(name, added, 1.5, " ms", why=WHY)]


def probe_both(pinned: bool) -> tuple[list[float], list[float]]:
    """First-content times straight to the upstream and through the proxy, alternating."""
    with upstream_process({1} if pinned else None) as upstream:
        flags = ["--rate-limit", "0", "--upstream", upstream, "--model", MODEL]
        with ChatkeepServer(*flags) as server:
            if pinned:
                os.sched_setaffinity(server.process.pid, {0})
                os.sched_setaffinity(0, {1})
            up_host, up_port = upstream.removeprefix("http://").removesuffix("/v1").split(":")
            host, port = server.url.removeprefix("http://").split(":")
            for _ in range(5):  # warm both paths
                first_content(up_host, int(up_port), "/v1/chat/completions")
                first_content(host, int(port), "/api/chat/completions")
            direct, proxied = [], []
            for _ in range(PROBES):
                direct.append(first_content(up_host, int(up_port), "/v1/chat/completions"))
                proxied.append(first_content(host, int(port), "/api/chat/completions"))
    return direct, proxied
