"""Which open devices wait to hear that a space changed (`GET /api/sync/{space}/events`).

A write or a wipe in this process wakes the devices listening to that space here; over
PostgreSQL the store also relays other servers' writes (`NOTIFY`), so a device connected to
one server hears a write made through another. A device wakes, then reads the changes: what
travels here is only that something changed, never what.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

#: event streams one server process holds open at most (each is a socket and a waiter)
MAX_LISTENERS = 10_000


class TooManyListeners(Exception):
    """This process already holds `MAX_LISTENERS` event streams."""


class SpaceSignals:
    def __init__(self, most: int = MAX_LISTENERS) -> None:
        self.most = most
        self._waiting: dict[str, set[asyncio.Event]] = {}
        self._count = 0

    def notify(self, space: str) -> None:
        """`space` changed: every device listening to it here wakes."""
        for changed in self._waiting.get(space, ()):
            changed.set()

    @contextlib.contextmanager
    def listen(self, space: str) -> Iterator[asyncio.Event]:
        """An event set whenever `space` changes, for as long as the block runs."""
        if self._count >= self.most:
            raise TooManyListeners()
        changed = asyncio.Event()
        self._waiting.setdefault(space, set()).add(changed)
        self._count += 1
        try:
            yield changed
        finally:
            self._count -= 1
            waiting = self._waiting[space]
            waiting.discard(changed)
            if not waiting:
                del self._waiting[space]

    @property
    def listeners(self) -> int:
        return self._count
