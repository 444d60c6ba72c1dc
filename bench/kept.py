"""Answers kept for a reload (with Redis): what keeping costs, and how fast a reload catches up.

The same 2,000-token answer, streamed at full speed by the paced upstream, through two
servers in the same run: one without Redis (the baseline) and one that keeps every answer
in a Redis Stream. Runs alternate between the two. Then the kept answer is read again by
turn id, as a reloaded widget does, and its size in Redis is asked of Redis itself.
"""

from __future__ import annotations

import shutil
import statistics
import time
from typing import Any

import httpx
from redis import Redis

from bench import row
from bench.page import paced_upstream
from server.testing import ChatkeepServer, RedisServer

MODEL = "paced-2000-0"  # 2,000 tokens, as fast as the upstream can send them
RUNS = 7


def stream_to_done(url: str) -> tuple[float, str]:
    """Seconds from the request to `[DONE]`, and the turn id (empty when not kept)."""
    body = {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": "Go"}]}
    start = time.perf_counter()
    with httpx.stream("POST", f"{url}/api/chat/completions", json=body, timeout=60) as response:
        done = any(line == "data: [DONE]" for line in response.iter_lines())
        turn = response.headers.get("x-chatkeep-turn", "")
    assert done, "the answer did not complete"
    return time.perf_counter() - start, turn


def read_kept(url: str, turn: str) -> float:
    start = time.perf_counter()
    with httpx.stream("GET", f"{url}/api/chat/turns/{turn}?after=0", timeout=60) as response:
        assert any(line == "data: [DONE]" for line in response.iter_lines())
    return time.perf_counter() - start


def bench_kept() -> list[dict[str, Any]]:
    if shutil.which("redis-server") is None:
        return [row("answers kept in Redis (redis-server missing: make test installs it)",
                    float("inf"), 0, "")]  # fmt: skip
    plain_times, kept_times, catch_up = [], [], []
    with RedisServer() as redis, paced_upstream() as upstream:
        flags = ["--rate-limit", "0", "--upstream", upstream, "--model", MODEL]
        with (
            ChatkeepServer(*flags) as plain,
            ChatkeepServer(*flags, "--redis-url", redis.url) as kept,
        ):
            stream_to_done(plain.url), stream_to_done(kept.url)  # warm both up
            for _ in range(RUNS):
                plain_times.append(stream_to_done(plain.url)[0])
                seconds, turn = stream_to_done(kept.url)
                kept_times.append(seconds)
                catch_up.append(read_kept(kept.url, turn))
            size = Redis.from_url(redis.url).memory_usage(f"chatkeep:turn:{turn}")
    plain_s, kept_s = statistics.median(plain_times), statistics.median(kept_times)
    return [
        row("2,000-token answer kept in Redis vs not kept: time to [DONE]", kept_s / plain_s,
            1.25, "x"),
        row("a reload catching up on a kept 2,000-token answer vs streaming it",
            statistics.median(catch_up) / plain_s, 1.0, "x"),
        row("Redis memory per kept 2,000-token answer", int(size or 0) / 1024, 512, "KiB"),
    ]  # fmt: skip
