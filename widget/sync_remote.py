"""What synced history's rounds say to the server, through the worker (which encrypts and
decrypts): the items read, a page of them, the answer to a write, and the `Remote` that
carries them (`widget.bridge.WorkerSync` in the browser, a fake in the tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Pulled:
    """One item as the worker read it: `payload` None for a tombstone, `readable` False when
    it failed its authentication tag."""

    item: str
    rev: int
    payload: dict[str, Any] | None
    readable: bool = True


@dataclass(frozen=True)
class Page:
    items: list[Pulled]
    cursor: int
    more: bool


@dataclass(frozen=True)
class Pushed:
    item: str
    #: the item's revision now: ours when written, the other device's on a conflict
    rev: int | None
    written: bool


class Remote(Protocol):
    """The server's copy, through the worker (which encrypts and decrypts)."""

    async def pull(self, since: int) -> Page: ...
    async def push(
        self, conversation_id: str, expect: int | None, payload: dict[str, Any]
    ) -> Pushed: ...
    async def delete(self, item: str, expect: int) -> Pushed: ...
