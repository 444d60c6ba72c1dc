"""Which answers kept on the server this tab reads: each is read by one tab at a time.

In the browser a claim is a Web Lock held by the worker, so a second tab leaves an answer
the first is reading alone; without `Locks` every claim succeeds.
"""

from __future__ import annotations

from typing import Protocol


class Locks(Protocol):
    """Takes a turn for this tab (False: another tab reads it) and gives it back."""

    async def claim(self, turn: str) -> bool: ...
    def release(self, turn: str) -> None: ...


class Claims:
    """The turns this tab holds."""

    def __init__(self, locks: Locks | None = None) -> None:
        self._locks = locks
        self._held: list[str] = []

    async def claim(self, turn: str) -> bool:
        if turn in self._held:
            return True
        if self._locks is not None and not await self._locks.claim(turn):
            return False
        self._held.append(turn)
        return True

    def let_go(self, keep: str | None = None) -> None:
        """Give back the claims of turns no longer read here, all but `keep`."""
        for turn in self._held:
            if turn != keep and self._locks is not None:
                self._locks.release(turn)
        self._held = [keep] if keep in self._held else []
