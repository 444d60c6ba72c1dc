"""Counting requests and tokens: in this process, or in Redis for every worker and server.

Two operations cover the rate limit and the token budgets:

- `hit(key, window, limit)`: one more request in a sliding window; refused (with the seconds
  until one is allowed again) when `limit` requests are already in it;
- `add(key, amount, ttl)` and `total(key)`: a running sum that expires (a day's tokens).

With Redis, a hit is one Lua script (atomic, timed by Redis's own clock, so servers with
different clocks agree) and every key expires by itself. If Redis goes away, counting falls
back to this process, with a warning in the log, and returns to Redis once it answers again:
a chat never fails because the counter did.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger("chatkeep")

# KEYS[1] the window; ARGV: window ms, limit, a unique member. Returns the ms to wait, or 0.
SLIDING_WINDOW = """
local now = redis.call('TIME')
local ms = now[1] * 1000 + math.floor(now[2] / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - ms)
end
redis.call('ZADD', KEYS[1], ms, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0
"""


def redis_client(url: str) -> Any:
    """An asyncio Redis client that gives up within seconds, so a chat never hangs on it."""
    import redis.asyncio as redis  # optional: only with --redis-url

    return redis.Redis.from_url(url, socket_timeout=3, socket_connect_timeout=2)


class Counters(Protocol):
    async def hit(self, key: str, window: float, limit: int) -> float | None: ...
    async def add(self, key: str, amount: int, ttl: float) -> int:
        """Add `amount` (negative to give back); the new total, in one atomic step."""
        ...

    async def total(self, key: str) -> int: ...


class LocalCounters:
    """Counters in this process only (one worker): the default without Redis."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._sums: dict[str, tuple[int, float]] = {}
        self._last_sweep = clock()

    async def hit(self, key: str, window: float, limit: int) -> float | None:
        now = self._clock()
        self._sweep(now, window)
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - window:
            hits.popleft()
        if len(hits) >= limit:
            return max(1.0, math.ceil(hits[0] + window - now))
        hits.append(now)
        return None

    async def add(self, key: str, amount: int, ttl: float) -> int:
        total, _ = self._sums.get(key, (0, 0.0))
        if key not in self._sums or self._sums[key][1] <= self._clock():
            total = 0
        self._sums[key] = (total + amount, self._clock() + ttl)
        return total + amount

    async def total(self, key: str) -> int:
        total, expires = self._sums.get(key, (0, 0.0))
        return total if expires > self._clock() else 0

    def _sweep(self, now: float, window: float) -> None:
        # Forget idle clients now and then, so memory follows active clients only.
        if now - self._last_sweep < window:
            return
        self._last_sweep = now
        for key in [k for k, hits in self._hits.items() if not hits or hits[-1] <= now - window]:
            del self._hits[key]
        for key in [k for k, (_, expires) in self._sums.items() if expires <= now]:
            del self._sums[key]


class RedisCounters:
    """Counters shared through Redis by every worker and server that uses the same one."""

    def __init__(self, url: str, prefix: str = "chatkeep") -> None:
        self.client: Any = redis_client(url)
        self.prefix = prefix
        self.fallback = LocalCounters()
        self._script = self.client.register_script(SLIDING_WINDOW)
        self._failing = False

    async def hit(self, key: str, window: float, limit: int) -> float | None:
        member = uuid.uuid4().hex
        arguments: list[str | int] = [int(window * 1000), limit, member]
        wait = await self._shared(
            self._script(keys=[f"{self.prefix}:hits:{key}"], args=arguments),
            lambda: self.fallback.hit(key, window, limit),
        )
        if isinstance(wait, float) or wait is None:
            return wait  # from the fallback
        return None if int(wait) == 0 else max(1.0, math.ceil(int(wait) / 1000))

    async def add(self, key: str, amount: int, ttl: float) -> int:
        name = f"{self.prefix}:sum:{key}"

        async def in_redis() -> int:
            async with self.client.pipeline(transaction=True) as pipe:
                total, _ = await pipe.incrby(name, amount).expire(name, math.ceil(ttl)).execute()
            return int(total)

        return int(await self._shared(in_redis(), lambda: self.fallback.add(key, amount, ttl)))

    async def total(self, key: str) -> int:
        value = await self._shared(
            self.client.get(f"{self.prefix}:sum:{key}"), lambda: self.fallback.total(key)
        )
        return int(value or 0)

    async def _shared(self, action: Any, fallback: Callable[[], Any]) -> Any:
        import redis.exceptions

        try:
            result = await action
        except (redis.exceptions.RedisError, OSError) as exc:  # away, full (OOM), or broken
            if not self._failing:
                log.warning(
                    "Redis is unreachable (%s): counting in this process until it is back", exc
                )
            self._failing = True
            return await fallback()
        if self._failing:
            log.warning("Redis is back: counting is shared again")
            self._failing = False
        return result

    async def aclose(self) -> None:
        await self.client.aclose()
