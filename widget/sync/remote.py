"""What synced history's rounds say to the server, through the worker (which seals and opens
items): the items read, a page of them, the answer to a write, and the `Remote` that carries
them (`widget.bridge.WorkerSync` in the browser, a fake in the tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Pulled:
    """One item as the worker read it: `payload` None for a bare tombstone (a row no device
    sealed), `readable` False when it failed its tag (tampered, moved, another person's);
    `seq` the sequence number sealed in it (0 when there is none)."""

    item: str
    rev: int
    payload: dict[str, Any] | None
    readable: bool = True
    seq: int = 0


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


@dataclass(frozen=True)
class Moved:
    """A conversation a version 1 space held, opened, for the move to version 2."""

    item: str
    payload: dict[str, Any]


class Remote(Protocol):
    """The server's copy, through the worker (which seals and opens items)."""

    async def pull(self, since: int) -> Page: ...

    async def push(
        self, conversation_id: str, expect: int | None, seq: int, payload: dict[str, Any],
        tail: str = "",
    ) -> Pushed:  # fmt: skip
        """Seal `payload` as version `seq` of the conversation's item (with `tail`, of the
        tail item that name makes: one per turn), if the item is at revision `expect` (None:
        if there is none)."""
        ...

    async def drop(self, item: str, expect: int) -> Pushed:
        """The item goes (a tail a checkpoint took in: no device reads it any more)."""
        ...

    async def delete(
        self, conversation_id: str, expect: int | None, seq: int, payload: dict[str, Any]
    ) -> Pushed:
        """A sealed deletion (`payload` says what it replaced) as version `seq` of the item."""
        ...

    async def moving(self) -> bool:
        """Whether a version 1 space still waits to be moved from."""
        ...

    async def pull_moved(self) -> list[Moved]:
        """Every conversation the version 1 space holds (none once it is gone)."""
        ...

    async def moved(self) -> None:
        """The version 1 space is wiped, and no longer waits."""
        ...
