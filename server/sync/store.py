"""What a sync store promises, and the one decision every write makes.

A space is one person's history (its id a digest of the token derived from their code in the
browser, `access`); an item is ciphertext. Every write names the revision it replaces
(`expect`), so two devices writing at once never lose an update: the second is refused
(`Conflict`) and merges first. A deletion leaves a tombstone, so other devices learn of it.
Each write takes the space's next revision number; `changes(since=n)` returns everything
written after `n`, and the number to ask with next time. The backends differ only in how
they talk to their database; `decide` is the rule both apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..errors import ChatkeepError
from .signals import SpaceSignals

#: items per `changes` answer; a device asks again while `more` is true
PAGE_ITEMS = 500
#: bytes of item data per `changes` answer (a page holds at least one item, whatever its size)
PAGE_BYTES = 4 * 1024 * 1024
#: what an item counts at least against a space's bytes, a tombstone or an empty item too:
#: each is a row the database keeps (counted as nothing, a client filled a space with them)
MIN_ITEM_BYTES = 256
#: items (tombstones included) a space holds at most, unless the operator says otherwise
SPACE_ITEMS = 20_000
#: how long a wiped space answers 410, so that its other devices learn the code changed
WIPED_SECONDS = 30 * 86_400


@dataclass(frozen=True)
class Space:
    #: 1: named by its id alone (before 2.2: read, and deleted, for the move); 2: by its token
    version: int
    #: when it was wiped (seconds since the epoch), None while in use
    wiped: int | None = None
    #: its last revision (what a device that read up to it has seen)
    rev: int = 0

    def gone(self, now: float) -> bool:
        """Wiped less than `WIPED_SECONDS` ago: it answers 410, and takes no write."""
        return self.wiped is not None and now - self.wiped < WIPED_SECONDS


@dataclass(frozen=True)
class Item:
    id: str
    rev: int
    #: the ciphertext; None for a tombstone (the item was deleted at `rev`)
    data: bytes | None


@dataclass(frozen=True)
class Changes:
    items: list[Item]
    #: the revision to ask `since` next time
    cursor: int
    #: more changes wait beyond this page
    more: bool


class Conflict(ChatkeepError):
    """The item is not at the revision the writer expected (another device wrote first)."""

    def __init__(self, current: int | None) -> None:
        super().__init__(f"the item is at revision {current}, not the one expected")
        #: the item's revision now (None: there is no such item)
        self.current = current


class OverQuota(ChatkeepError):
    """The write would take the space past its byte quota."""

    def __init__(self, used: int, limit: int) -> None:
        super().__init__(f"the space would hold {used} bytes; at most {limit} are allowed")
        self.used = used
        self.limit = limit


class TooManyItems(ChatkeepError):
    """A new item would take the space past its number of items."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the space holds {limit} items, the most allowed")
        self.limit = limit


class SpaceWiped(ChatkeepError):
    """The space was wiped (its code changed): nothing is written to it for a while."""

    def __init__(self) -> None:
        super().__init__("the space was wiped")


class SyncStore(Protocol):
    """Items per space, each write a compare-and-set. Both backends pass one test suite."""

    #: bytes a space may hold (each item and tombstone at least `MIN_ITEM_BYTES`)
    space_bytes: int
    #: items a space may hold, tombstones included
    space_items: int
    #: seconds since the epoch (a wipe's time, and when it ends)
    clock: Callable[[], float]
    #: woken by every write and wipe (over PostgreSQL, other servers' too)
    signals: SpaceSignals

    async def changes(self, space: str, since: int) -> Changes:
        """What was written in `space` after revision `since`, oldest first, one page."""
        ...

    async def write(
        self, space: str, item: str, data: bytes | None, expect: int | None, version: int = 2
    ) -> int:
        """Store `data` (None: a tombstone) as `item`, if the item is now at revision
        `expect` (None: if there is no such item yet); its new revision, or `Conflict` /
        `OverQuota` / `TooManyItems` / `SpaceWiped` with nothing changed. A write that
        creates the space makes it of `version`."""
        ...

    async def space(self, space: str) -> Space | None:
        """What the store keeps of `space` itself, or None if nothing was ever written there
        (or it was wiped more than `WIPED_SECONDS` ago)."""
        ...

    async def wipe(self, space: str, version: int = 2) -> None:
        """Every item of `space` goes; it answers `gone` for `WIPED_SECONDS`."""
        ...

    async def put_pairing(self, pairing: str, data: bytes, expires: int) -> bool:
        """Keep a pairing's sealed code until `expires` (seconds); False if the id is taken.
        Pairings past their time go meanwhile."""
        ...

    async def take_pairing(self, pairing: str) -> bytes | None:
        """A pairing's sealed code, once: it goes as it is read; None when unknown, taken or
        past its time."""
        ...

    async def put_share(self, share: str, data: bytes, token: str, expires: int) -> bool:
        """Keep a share's ciphertext and its delete token's hash until `expires` (seconds);
        False if the id is taken. Shares past their time go meanwhile."""
        ...

    async def share(self, share: str) -> tuple[bytes, str] | None:
        """A share's ciphertext and its delete token's hash; None when unknown or past its
        time."""
        ...

    async def delete_share(self, share: str) -> None: ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class Write:
    """What one write does to the space, decided before anything is written."""

    rev: int
    space_bytes: int


def decide(
    current: tuple[int, int] | None,
    space: tuple[int, int],
    data: bytes | None,
    expect: int | None,
    quota: int,
    items: tuple[int, int] | None = None,
) -> Write:
    """The write's revision and the space's new size, or the reason it is refused.

    `current` is the item's (revision, data length) or None; `space` the space's (last
    revision, bytes held); `items`, for a new item, the space's (items held, most allowed).
    Every item and tombstone counts at least `MIN_ITEM_BYTES`. A write that shrinks the space
    is never refused for its size, so a space over its quota (the quota was lowered) can
    still delete its way back.
    """
    rev_now = current[0] if current is not None else None
    if rev_now != expect:
        raise Conflict(rev_now)
    if current is None and items is not None and items[0] >= items[1]:
        raise TooManyItems(items[1])
    last, held = space
    freed = charged(current[1]) if current is not None else 0
    size = max(0, held - freed) + charged(len(data) if data is not None else 0)
    if data is not None and size > quota and size > held:
        raise OverQuota(size, quota)
    return Write(rev=last + 1, space_bytes=size)


def charged(length: int) -> int:
    """What an item of `length` bytes counts against its space."""
    return max(length, MIN_ITEM_BYTES)
