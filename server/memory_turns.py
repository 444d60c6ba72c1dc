"""Kept answers without Redis: the turn store of one process, in its memory.

A page that went away mid-answer (a locked phone, a frozen tab, a dropped line) comes back
to the same server and asks for the rest, as it would with Redis; only another process
cannot answer it. What is kept is bounded twice: each turn for `KEEP_SECONDS` after its last
event, and all of them together to `max_bytes`, the turns that ended longest ago given up
first (a reader of one given up hears that the answer is no longer kept, and may retry).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .turn_store import KEEP_SECONDS

#: what the kept answers of one process may hold together, by default
MAX_BYTES = 64 * 1024 * 1024


@dataclass
class _Kept:
    owner: str
    touched: float
    entries: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    size: int = 0
    ended: bool = False
    stop: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryTurnStore:
    """The same calls as `TurnStore` (Redis), answered from this process's memory."""

    #: nothing here fails as a network store does
    errors: tuple[type[Exception], ...] = ()

    def __init__(
        self, max_bytes: int = MAX_BYTES, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_bytes = max_bytes
        self._clock = clock
        self._turns: dict[str, _Kept] = {}
        self._size = 0

    async def open(self, turn_id: str, owner: str) -> None:
        self._expire()
        self._turns.setdefault(turn_id, _Kept(owner, self._clock()))

    async def owner(self, turn_id: str) -> str | None:
        self._expire()
        kept = self._turns.get(turn_id)
        return None if kept is None else kept.owner

    async def append(self, turn_id: str, first: int, entries: list[dict[str, str]]) -> None:
        kept = self._turns.get(turn_id)
        if kept is None:
            return  # given up for room: its page hears so when it asks
        for number, fields in enumerate(entries, start=first):
            kept.entries.append((number, fields))
            size = sum(len(value) for value in fields.values())
            kept.size += size
            self._size += size
            kept.ended = kept.ended or "end" in fields or "refused" in fields
        kept.touched = self._clock()
        kept.changed.set()
        kept.changed = asyncio.Event()
        self._make_room()

    async def read(
        self, turn_id: str, after: int, block_ms: int | None
    ) -> list[tuple[int, dict[str, str]]]:
        """The entries after number `after`, waiting up to `block_ms` for one (None: not)."""
        kept = self._turns.get(turn_id)
        if kept is None:
            return []
        if block_ms is not None and (not kept.entries or kept.entries[-1][0] <= after):
            try:
                await asyncio.wait_for(kept.changed.wait(), block_ms / 1000)
            except TimeoutError:
                return []
        return [(number, fields) for number, fields in kept.entries if number > after]

    async def ask_to_stop(self, turn_id: str) -> None:
        kept = self._turns.get(turn_id)
        if kept is not None:
            kept.stop = True

    async def stop_asked(self, turn_id: str) -> bool:
        kept = self._turns.get(turn_id)
        return kept is not None and kept.stop

    def failed(self, exc: Exception) -> None:  # never called: nothing here fails
        raise exc

    def worked(self) -> None:
        pass

    async def aclose(self) -> None:
        self._turns.clear()
        self._size = 0

    @property
    def size(self) -> int:
        """The bytes of text kept, all turns together."""
        return self._size

    def _expire(self) -> None:
        stale = self._clock() - KEEP_SECONDS
        for turn_id in [t for t, kept in self._turns.items() if kept.touched < stale]:
            self._forget(turn_id)

    def _make_room(self) -> None:
        """Over the bound, the turns that ended longest ago go first, then the oldest."""
        if self._size <= self.max_bytes:
            return
        by_age = sorted(self._turns.items(), key=lambda item: (not item[1].ended, item[1].touched))
        for turn_id, _ in by_age:
            if self._size <= self.max_bytes:
                return
            self._forget(turn_id)

    def _forget(self, turn_id: str) -> None:
        kept = self._turns.pop(turn_id)
        self._size -= kept.size
        kept.changed.set()  # a reader waiting on it stops waiting
