"""Kept conversations: an index in memory over per-conversation storage entries.

Storage is any key-value store (localStorage through the page, or page memory). Each
conversation has two keys of its own, and there is no shared index a tab could overwrite
with a stale copy:

    <prefix>:meta:<id>   {"v": 1, "title", "updated", "rev"}   small, read at start-up
    <prefix>:conv:<id>   the snapshot's JSON text                read when opened

Writes go transcript first, then meta, so a failed write never leaves a listed entry without
its transcript. Entries that cannot be read (corrupt, truncated, hand-edited, from a newer
version) are skipped and never written over or removed.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import WidgetError
from .snapshots import Snapshot, dumps, read_snapshot

META_VERSION = 1


class StorageFull(WidgetError):
    """The store has no room left for a write."""


class KeyValue(Protocol):
    """The few storage operations history needs; `set` raises `StorageFull` when full."""

    async def keys(self) -> list[str]: ...
    async def get(self, key: str) -> str | None: ...
    async def set(self, key: str, value: str) -> None: ...
    async def remove(self, key: str) -> None: ...


class MemoryKeyValue:
    """Page memory: gone on reload. `quota` (characters, keys plus values) is for tests."""

    def __init__(self, quota: int | None = None) -> None:
        self.data: dict[str, str] = {}
        self.quota = quota

    async def keys(self) -> list[str]:
        return list(self.data)

    async def get(self, key: str) -> str | None:
        return self.data.get(key)

    async def set(self, key: str, value: str) -> None:
        if self.quota is not None:
            used = sum(len(k) + len(v) for k, v in self.data.items() if k != key)
            if used + len(key) + len(value) > self.quota:
                raise StorageFull("the store is full")
        self.data[key] = value

    async def remove(self, key: str) -> None:
        self.data.pop(key, None)


@dataclass(frozen=True)
class Entry:
    """One line of the history list."""

    id: str
    title: str
    updated: int
    rev: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "updated": self.updated}


class History:
    """The kept conversations of one store, newest first, listed from memory."""

    def __init__(self, store: KeyValue, *, prefix: str = "chatkeep", limit: int = 20) -> None:
        self.store = store
        self.prefix = prefix
        self.limit = max(1, limit)
        self._entries: dict[str, Entry] = {}
        # The revision this tab last wrote or read of each conversation: a different one in
        # storage means another tab has moved that conversation on since.
        self._known_revs: dict[str, str] = {}

    async def load(self) -> None:
        """Build the list from the meta keys; unreadable entries are skipped."""
        meta_prefix = f"{self.prefix}:meta:"
        self._entries = {}
        for key in await self.store.keys():
            if key.startswith(meta_prefix):
                entry = parse_meta(key[len(meta_prefix) :], await self.store.get(key))
                if entry:
                    self._entries[entry.id] = entry
                    self._known_revs[entry.id] = entry.rev

    def entries(self) -> list[Entry]:
        """Newest first."""
        return newest_first(self._entries.values())

    def __contains__(self, conversation_id: str) -> bool:
        return conversation_id in self._entries

    async def read(self, conversation_id: str) -> dict[str, Any] | None:
        """The stored snapshot, repaired, or `None` when it is missing or unreadable."""
        text = await self.store.get(self._conv_key(conversation_id))
        snapshot = read_snapshot(text) if text is not None else None
        if snapshot is not None and conversation_id in self._entries:
            self._known_revs[conversation_id] = self._entries[conversation_id].rev
        return snapshot

    async def keep(self, snapshot: Snapshot) -> str:
        """Store a conversation; returns the id it was stored under.

        If another tab moved this conversation on since this tab last saw it, this tab's
        version is kept as a new conversation rather than written over the other's turns.
        When the store is full, the oldest other conversations are given up until it fits;
        if it cannot fit alone, `StorageFull` is raised and nothing stored is touched.
        """
        if await self._changed_elsewhere(snapshot.id):
            snapshot = Snapshot(**{**snapshot.__dict__, "id": uuid.uuid4().hex})
        text = dumps(snapshot)
        rev = uuid.uuid4().hex
        meta = json.dumps(
            {"v": META_VERSION, "title": snapshot.title, "updated": snapshot.updated, "rev": rev},
            ensure_ascii=False,
        )
        await self._write_making_room(snapshot.id, text, meta)
        self._entries[snapshot.id] = Entry(snapshot.id, snapshot.title, snapshot.updated, rev)
        self._known_revs[snapshot.id] = rev
        for stale in self.entries()[self.limit :]:
            if stale.id != snapshot.id:
                await self.forget(stale.id)
        return snapshot.id

    async def forget(self, conversation_id: str) -> None:
        await self.store.remove(self._meta_key(conversation_id))
        await self.store.remove(self._conv_key(conversation_id))
        self._entries.pop(conversation_id, None)
        self._known_revs.pop(conversation_id, None)

    async def changed(self, key: str) -> bool:
        """Another tab changed `key`: refresh that entry. True when the list changed."""
        meta_prefix = f"{self.prefix}:meta:"
        if not key.startswith(meta_prefix):
            return False
        conversation_id = key[len(meta_prefix) :]
        entry = parse_meta(conversation_id, await self.store.get(key))
        before = self._entries.get(conversation_id)
        if entry is None:
            self._entries.pop(conversation_id, None)
        else:
            self._entries[conversation_id] = entry
        return before != entry

    async def _changed_elsewhere(self, conversation_id: str) -> bool:
        known = self._known_revs.get(conversation_id)
        if known is None:
            return False
        stored = parse_meta(conversation_id, await self.store.get(self._meta_key(conversation_id)))
        return stored is not None and stored.rev != known

    async def _write_making_room(self, conversation_id: str, text: str, meta: str) -> None:
        """Write, giving up the oldest other conversations while the store is full.

        If the conversation cannot fit even alone, what was given up is written back, so a
        failed attempt damages nothing already stored.
        """
        existed = conversation_id in self._entries
        victims = [e.id for e in reversed(self.entries()) if e.id != conversation_id]
        given_up: list[tuple[Entry, str | None, str | None]] = []
        while True:
            try:
                await self.store.set(self._conv_key(conversation_id), text)
                await self.store.set(self._meta_key(conversation_id), meta)
                return
            except StorageFull:
                if victims:
                    victim = self._entries[victims.pop(0)]
                    meta_text = await self.store.get(self._meta_key(victim.id))
                    conv_text = await self.store.get(self._conv_key(victim.id))
                    given_up.append((victim, meta_text, conv_text))
                    await self.forget(victim.id)
                    continue
            if not existed:
                await self.store.remove(self._conv_key(conversation_id))
            await self._put_back(given_up)
            raise StorageFull(
                "This conversation is too large for this browser's storage. It stays open "
                "here, but it will not be kept after you close the page."
            )

    async def _put_back(self, given_up: list[tuple[Entry, str | None, str | None]]) -> None:
        for entry, meta_text, conv_text in given_up:
            if meta_text is None or conv_text is None:
                continue
            try:
                await self.store.set(self._conv_key(entry.id), conv_text)
                await self.store.set(self._meta_key(entry.id), meta_text)
            except StorageFull:
                await self.store.remove(self._conv_key(entry.id))
                continue
            self._entries[entry.id] = entry
            self._known_revs[entry.id] = entry.rev

    def _meta_key(self, conversation_id: str) -> str:
        return f"{self.prefix}:meta:{conversation_id}"

    def _conv_key(self, conversation_id: str) -> str:
        return f"{self.prefix}:conv:{conversation_id}"


def parse_meta(conversation_id: str, text: str | None) -> Entry | None:
    """An entry from meta text, or `None` for anything this build cannot read."""
    if text is None or not conversation_id:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("v") != META_VERSION:
        return None
    title, updated, rev = data.get("title"), data.get("updated"), data.get("rev")
    if not isinstance(title, str) or not isinstance(rev, str):
        return None
    if isinstance(updated, bool) or not isinstance(updated, int):
        return None
    return Entry(conversation_id, title, updated, rev)


def newest_first(entries: Iterable[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (e.updated, e.id), reverse=True)


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

    async def keep(self, snapshot: Snapshot) -> str:
        await self.store.keep(snapshot.id, snapshot.to_dict(), snapshot.title)
        self._entries[snapshot.id] = Entry(snapshot.id, snapshot.title, snapshot.updated)
        return snapshot.id

    async def forget(self, conversation_id: str) -> None:
        await self.store.forget(conversation_id)
        self._entries.pop(conversation_id, None)

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
    return Entry(conversation_id, title if isinstance(title, str) else "", int(updated))
