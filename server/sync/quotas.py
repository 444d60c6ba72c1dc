"""What one client may do to synced history in a (UTC) day, across every space.

A space's own quota (`--sync-space-bytes`, `--sync-space-items`) holds one person's history;
spaces are free to make, though, so without these one client filled fresh spaces at 60 MiB a
minute. Per client (its address, or its token's subject) and per day, counted in the same
`Counters` as the rate limit (shared through Redis when there is one):

- new spaces it may start (`--sync-client-spaces`), and
- bytes it may write, across spaces (`--sync-client-bytes`), each item and tombstone counted
  at least `MIN_ITEM_BYTES`.

Each is checked and counted in one step, so requests sent together cannot all pass; a write
refused by the store afterwards gives its count back.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable

from ..counters import Counters
from ..errors import APIError
from .store import charged

DAY = 86_400


class ClientQuotas:
    def __init__(
        self, spaces_a_day: int, bytes_a_day: int, counters: Counters,
        clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        self.spaces_a_day = spaces_a_day
        self.bytes_a_day = bytes_a_day
        self.counters = counters
        self._clock = clock

    async def new_space(self, client: str) -> None:
        """Count a space this client starts, or 429 past its day's number."""
        await self._take(f"sync-spaces:{{day}}:{client}", 1, self.spaces_a_day,
                         "sync_client_spaces")  # fmt: skip

    async def writing(self, client: str, length: int | None) -> Callable[[], Awaitable[int]]:
        """Count a write of `length` bytes (None: a deletion), or 429 past the day's bytes;
        returns what gives the count back (the store refused the write)."""
        amount = charged(length or 0)
        key = await self._take(f"sync-bytes:{{day}}:{client}", amount, self.bytes_a_day,
                               "sync_client_bytes")  # fmt: skip
        return lambda: self.counters.add(key, -amount, 2 * DAY)

    async def _take(self, key: str, amount: int, limit: int, code: str) -> str:
        now = self._clock()
        day = int(now // DAY)
        key = key.format(day=day)
        total = await self.counters.add(key, amount, 2 * DAY)
        if total > limit:
            await self.counters.add(key, -amount, 2 * DAY)
            retry_after = max(1, math.ceil((day + 1) * DAY - now))
            raise APIError.said(429, code, {"Retry-After": str(retry_after)}, limit=limit)
        return key
