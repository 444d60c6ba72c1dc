"""Request limits: a bounded body reader, a per-client rate limit, answers in flight per
client, and daily token budgets."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .counters import Counters
from .errors import APIError


async def read_body(request: Request, limit: int, seconds: float = 10.0) -> bytes:
    """The request body, refused with 413 as soon as it is known to exceed `limit`, and with
    408 when it has not arrived whole within `seconds` (a body trickled a byte at a time would
    otherwise hold a connection and a task for ever).

    A declared `Content-Length` over the limit is refused before reading anything; a body
    without one (chunked) is read only until it passes the limit.
    """
    try:
        with anyio.fail_after(seconds):
            return await _read_body(request, limit)
    except TimeoutError as exc:
        raise APIError.said(408, "body_timeout", seconds=f"{seconds:g}") from exc


async def _read_body(request: Request, limit: int) -> bytes:
    too_large = APIError.said(413, "body_too_large", limit=f"{limit:,}")
    declared = request.headers.get("content-length")
    if declared is not None and (
        not (declared.isascii() and declared.isdigit())
        or len(declared.lstrip("0")) > 18
        or int(declared) > limit
    ):
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


class RateLimiter:
    """At most `per_minute` chat requests per client in any sixty-second window.

    Counted by `counters`: in this process, or in Redis across every worker and server.
    """

    WINDOW = 60.0

    def __init__(self, per_minute: int, counters: Counters) -> None:
        self.per_minute = per_minute
        self.counters = counters

    async def check(self, client: str) -> None:
        """Count one request for `client`, or raise 429 with `Retry-After`."""
        if self.per_minute <= 0:
            return
        wait = await self.counters.hit(f"rate:{client}", self.WINDOW, self.per_minute)
        if wait is not None:
            retry_after = int(wait)
            raise APIError.said(429, "rate_limited", {"Retry-After": str(retry_after)},
                                limit=self.per_minute, seconds=retry_after)  # fmt: skip


Release = Callable[[], None]


class StreamSlots:
    """At most `per_client` answers in flight for one client (0: no cap), in this process.

    The rate limit counts starts; this counts what is still running, so one client cannot
    hold every upstream connection while others wait. An answer kept for a reload holds its
    slot until it ends, and a reader of a kept answer holds one while it reads.
    """

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self._open: dict[str, int] = {}

    def take(self, client: str) -> Release:
        """One slot for `client`, or 429; returns the function that gives it back (once)."""
        if self.per_client <= 0:
            return _nothing
        if self._open.get(client, 0) >= self.per_client:
            raise APIError.said(429, "too_many_streams", {"Retry-After": "1"},
                                limit=self.per_client)  # fmt: skip
        self._open[client] = self._open.get(client, 0) + 1
        given_back = False

        def release() -> None:
            nonlocal given_back
            if given_back:
                return
            given_back = True
            left = self._open.pop(client) - 1
            if left:
                self._open[client] = left

        return release

    def open(self, client: str) -> int:
        return self._open.get(client, 0)


class Releasing(Response):
    """A response that gives its slot back once it has been sent (or its client left)."""

    def __init__(self, response: Response, release: Release) -> None:
        super().__init__()
        self.response = response
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.response(scope, receive, send)
        finally:
            self.release()


def _nothing() -> None:
    pass


class Budgets:
    """Tokens a client, and the whole server, may use in a (UTC) day; 0 means no budget.

    Each request reserves an estimate as it is admitted (checked and counted in one step);
    the upstream's reported usage replaces the estimate as the answer ends.
    """

    DAY = 86_400
    #: how long a day's counts are kept: past midnight, for answers still settling
    KEEP = 2 * DAY

    def __init__(
        self, per_client: int, per_server: int, counters: Counters,
        clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        self.per_client = per_client
        self.per_server = per_server
        self.counters = counters
        self._clock = clock

    @property
    def active(self) -> bool:
        return self.per_client > 0 or self.per_server > 0

    async def check(self, client: str) -> None:
        day, retry_after = self._today()
        for budget, key, whose in (
            (self.per_client, f"tokens:{day}:client:{client}", "your"),
            (self.per_server, f"tokens:{day}:server", "this server's"),
        ):
            if budget > 0 and await self.counters.total(key) >= budget:
                raise _used_up(budget, whose, retry_after)

    async def reserve(self, client: str, estimate: int) -> Reservation:
        """Count `estimate` tokens against every budget in the same step as checking it, or
        raise 429: requests sent together cannot all pass a check made before any of them
        spends. The answer's reported usage corrects the estimate (`Reservation.settle`)."""
        day, retry_after = self._today()
        taken: list[str] = []
        for budget, key, whose in (
            (self.per_client, f"tokens:{day}:client:{client}", "your"),
            (self.per_server, f"tokens:{day}:server", "this server's"),
        ):
            if budget <= 0:
                continue
            total = await self.counters.add(key, estimate, self.KEEP)
            taken.append(key)
            if total - estimate >= budget:
                for spent in taken:
                    await self.counters.add(spent, -estimate, self.KEEP)
                raise _used_up(budget, whose, retry_after)
        return Reservation(self.counters, taken, estimate, self.KEEP)

    def _today(self) -> tuple[int, int]:
        now = self._clock()
        day = int(now // self.DAY)
        return day, max(1, math.ceil((day + 1) * self.DAY - now))


class Reservation:
    """Tokens counted for one request before it went upstream; `settle` puts the real number
    in their place, once, however the answer ended."""

    def __init__(self, counters: Counters, keys: list[str], estimate: int, ttl: float) -> None:
        self.counters = counters
        self.keys = keys
        self.estimate = estimate
        self.ttl = ttl
        self._settled = False

    async def settle(self, tokens: int) -> None:
        if self._settled:
            return
        self._settled = True
        if tokens != self.estimate:
            for key in self.keys:
                await self.counters.add(key, tokens - self.estimate, self.ttl)


def _used_up(budget: int, whose: str, retry_after: int) -> APIError:
    code = "budget_exhausted.client" if whose == "your" else "budget_exhausted"
    return APIError.said(429, code, {"Retry-After": str(retry_after)}, budget=f"{budget:,}",
                         hours=retry_after // 3600, minutes=retry_after % 3600 // 60)  # fmt: skip
