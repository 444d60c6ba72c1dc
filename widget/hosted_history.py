"""History kept by the host page's own store (`element.historyStore`)."""

from __future__ import annotations

from typing import Any, Protocol

from .entries import Entry, newest_first
from .errors import WidgetError
from .snapshots import Snapshot, read_snapshot


class HostStore(Protocol):
    """A store the host page supplies (`element.historyStore`), seen from Python."""

    async def list(self) -> list[dict[str, Any]]: ...
    async def read(self, conversation_id: str) -> object: ...
    async def keep(self, conversation_id: str, snapshot: dict[str, Any], title: str) -> None: ...
    async def forget(self, conversation_id: str) -> None: ...


class HostedHistory:
    """History kept by the host page's own store; the host decides limits and layout."""

    def __init__(self, store: HostStore) -> None:
        self.store = store
        self._entries: dict[str, Entry] = {}

    async def load(self) -> None:
        self._entries = {}
        for item in await self.store.list():
            entry = _entry_from_listing(item)
            if entry:
                self._entries[entry.id] = entry

    def entries(self) -> list[Entry]:
        return newest_first(self._entries.values())

    def __contains__(self, conversation_id: str) -> bool:
        return conversation_id in self._entries

    async def read(self, conversation_id: str) -> dict[str, Any] | None:
        return read_snapshot(await self.store.read(conversation_id))

    peek = read  # the host's store decides what wins: looking is reading

    async def keep(self, snapshot: Snapshot, *, named: bool = False, **_: object) -> Entry:
        # The host's store keeps snapshots only: an unfinished answer is not picked up later,
        # and its own limits decide what to give up (no `spare`).
        await self.store.keep(snapshot.id, snapshot.to_dict(), snapshot.title)
        entry = Entry(snapshot.id, snapshot.title, snapshot.updated, named=named)
        self._entries[snapshot.id] = entry
        return entry

    async def accept(self, conversation_id: str) -> None:
        pass  # the host's store decides what wins

    def entry(self, conversation_id: str) -> Entry | None:
        return self._entries.get(conversation_id)

    async def forget(self, conversation_id: str) -> None:
        await self.store.forget(conversation_id)
        self._entries.pop(conversation_id, None)

    async def pin(self, conversation_id: str, pinned: bool) -> None:
        raise WidgetError.said("host_store_orders")

    async def changed(self, key: str) -> bool:
        before = self.entries()
        await self.load()
        return before != self.entries()


def _entry_from_listing(item: object) -> Entry | None:
    if not isinstance(item, dict):
        return None
    conversation_id, title, updated = item.get("id"), item.get("title"), item.get("updated")
    if not isinstance(conversation_id, str) or not conversation_id:
        return None
    if isinstance(updated, bool) or not isinstance(updated, (int, float)):
        updated = 0
    title = title if isinstance(title, str) else ""
    return Entry(conversation_id, title, int(updated), pinned=item.get("pinned") is True)
