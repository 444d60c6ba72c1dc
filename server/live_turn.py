"""A turn running in this process: what its upstream call writes, kept in memory for readers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from .errors import APIError


class LiveTurn:
    """A turn running in this process: its events in memory, for the page that asked."""

    def __init__(self, turn_id: str, owner: str) -> None:
        self.id = turn_id
        self.owner = owner
        self.events: list[str] = []
        self.refused: APIError | None = None
        self.started = False
        #: None while running; True once complete, False after an error or a stop
        self.done: bool | None = None
        #: pages reading from memory right now
        self.listeners = 0
        #: False once Redis failed for this turn: nobody else can read it
        self.shared = True
        self.stopping = False
        #: True once a page was told the turn's id: only then can anyone pick it up
        self.named = False
        self._cancel: Callable[[], None] = lambda: None
        self._changed = asyncio.Event()

    def stop(self) -> None:
        """End the upstream request now (or as soon as it starts)."""
        self.stopping = True
        self._cancel()

    def on_stop(self, cancel: Callable[[], None]) -> None:
        self._cancel = cancel
        if self.stopping:
            cancel()

    # -- StreamSink: what the upstream call writes ---------------------------------------

    async def refuse(self, error: APIError) -> None:
        self.refused, self.done = error, False
        self._notify()

    async def start(self) -> None:
        self.started = True
        self._notify()

    async def event(self, data: str) -> None:
        self.events.append(data)
        self._notify()

    async def end(self, done: bool) -> None:
        self.done = done
        self._notify()

    # -- readers -------------------------------------------------------------------------

    @property
    def ended(self) -> bool:
        return self.done is not None

    async def wait(self, seen: int | None) -> None:
        """Until the turn has more than `seen` events (None: has started), or has ended."""
        while not self.ended and (not self.started if seen is None else len(self.events) <= seen):
            await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
