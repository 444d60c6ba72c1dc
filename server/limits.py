"""Request limits: a bounded body reader and a per-client rate limiter."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

from starlette.requests import Request

from .errors import APIError


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it is known to exceed `limit`.

    A declared `Content-Length` over the limit is refused before reading anything; a body
    without one (chunked) is read only until it passes the limit.
    """
    too_large = APIError(
        413, f"The request body is larger than the limit of {limit:,} bytes.", "body_too_large"
    )
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
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
    """At most `per_minute` requests per client in any sixty-second window (a sliding log).

    State lives in this process only: behind several workers or instances each keeps its own
    count, so the effective limit is multiplied (the deployment docs say what to do).
    """

    WINDOW = 60.0

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._last_sweep = clock()

    def check(self, client: str) -> None:
        """Count one request for `client`, or raise 429 with `Retry-After`."""
        if self.per_minute <= 0:
            return
        now = self._clock()
        self._sweep(now)
        hits = self._hits.setdefault(client, deque())
        while hits and hits[0] <= now - self.WINDOW:
            hits.popleft()
        if len(hits) >= self.per_minute:
            retry_after = max(1, math.ceil(hits[0] + self.WINDOW - now))
            raise APIError(
                429,
                f"Too many requests: the limit is {self.per_minute} a minute. "
                f"Try again in {retry_after} seconds.",
                "rate_limited",
                headers={"Retry-After": str(retry_after)},
            )
        hits.append(now)

    def _sweep(self, now: float) -> None:
        # Forget idle clients now and then, so memory follows active clients only.
        if now - self._last_sweep < self.WINDOW:
            return
        self._last_sweep = now
        for client in [
            c for c, hits in self._hits.items() if not hits or hits[-1] <= now - self.WINDOW
        ]:
            del self._hits[client]
