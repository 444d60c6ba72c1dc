"""Kept conversations: an index in memory over per-conversation storage entries.

Storage is any key-value store (localStorage through the page, or page memory). Each
conversation has two keys of its own, and there is no shared index a tab could overwrite
with a stale copy:

    <prefix>:meta:<id>   its line in the list (`widget.entries`)           read at start-up
    <prefix>:conv:<id>   the snapshot's JSON text (the worker packs it)     read when opened

(`widget.protocol.STORAGE_KEYS` declares the layout; the page reads it too, `static/stored.js`.)

Each store is one batch of writes that the page applies together or not at all (one trip),
transcript before meta, so even a page dying mid-batch never leaves a listed entry without
its transcript. Entries that cannot be read (corrupt, truncated, hand-edited, from a newer
version) are skipped and never written over or removed.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Protocol

from .config import DEFAULT_MAX_CONVERSATIONS, DEFAULT_PREFIX
from .entries import Entry, newest_first, parse_meta, repinned
from .errors import WidgetError
from .keep_plan import KeepPlan
from .key_value import Change, Conflict, KeyValue, StorageFull
from .protocol import storage_key
from .snapshots import Snapshot, dumps, read_snapshot
from .sync_hook import NOT_SYNCED, SyncHook

__all__ = ["Entry", "History", "Kept", "newest_first", "parse_meta"]


class Kept(Protocol):
    """What the widget needs of a history: `History` here, or `HostedHistory`."""

    async def load(self) -> None: ...
    def entries(self) -> list[Entry]: ...
    def __contains__(self, conversation_id: str) -> bool: ...
    def entry(self, conversation_id: str) -> Entry | None: ...
    async def read(self, conversation_id: str) -> dict[str, Any] | None: ...
    async def peek(self, conversation_id: str) -> dict[str, Any] | None: ...
    async def keep(self, snapshot: Snapshot, *, named: bool = ..., spare: Collection[str] = ...,
                   pending: str = ..., make_room: bool = ..., over_listed: bool = ...,
                   ) -> Entry: ...  # fmt: skip
    async def forget(self, conversation_id: str) -> None: ...
    async def pin(self, conversation_id: str, pinned: bool) -> None: ...
    async def changed(self, key: str) -> bool: ...
    async def accept(self, conversation_id: str) -> None: ...


class History:
    """The kept conversations of one store, newest first, listed from memory."""

    def __init__(
        self, store: KeyValue, *, prefix: str = DEFAULT_PREFIX,
        limit: int = DEFAULT_MAX_CONVERSATIONS,
    ) -> None:  # fmt: skip
        self.store = store
        self.prefix = prefix
        self.limit = max(1, limit)
        self._entries: dict[str, Entry] = {}
        # The meta text this tab last wrote or read of each conversation: other text in
        # storage means another tab has moved that conversation on since.
        self._known: dict[str, str] = {}
        self._meta_texts: dict[str, str] = {}
        #: synced history's one hook into this history (`SyncHook`), while it syncs
        self.sync: SyncHook = NOT_SYNCED

    async def load(self) -> None:
        """Build the list from the meta keys (one trip); unreadable entries are skipped."""
        meta_prefix = storage_key("meta", self.prefix)
        self._entries = {}
        self._meta_texts = {}
        for key, text in (await self.store.read_all(meta_prefix)).items():
            entry = parse_meta(key[len(meta_prefix) :], text)
            if entry:
                self._entries[entry.id] = entry
                self._meta_texts[entry.id] = text
                self._known.setdefault(entry.id, text)

    def entries(self) -> list[Entry]:
        """Newest first."""
        return newest_first(self._entries.values())

    def __contains__(self, conversation_id: str) -> bool:
        return conversation_id in self._entries

    async def peek(self, conversation_id: str) -> dict[str, Any] | None:
        """The stored snapshot, like `read`, for looking only (searching): this tab does not
        take it as the version it continues, so it can never write over turns it did not see."""
        text = await self.store.get(self._conv_key(conversation_id))
        return read_snapshot(text) if text is not None else None

    async def read(self, conversation_id: str) -> dict[str, Any] | None:
        """The stored snapshot, repaired, or `None` when it is missing or unreadable.

        Its meta is read first, then the transcript: if another tab writes in between, this
        tab knows an older version than it holds, so its next write makes a copy rather
        than overwriting turns it has not seen.
        """
        meta = await self.store.get(self._meta_key(conversation_id))
        text = await self.store.get(self._conv_key(conversation_id))
        snapshot = read_snapshot(text) if text is not None else None
        entry = parse_meta(conversation_id, meta)
        if snapshot is not None and meta is not None and entry is not None:
            self._known[conversation_id] = self._meta_texts[conversation_id] = meta
            self._entries[conversation_id] = entry
        return snapshot

    async def keep(
        self,
        snapshot: Snapshot,
        *,
        named: bool = False,
        spare: Collection[str] = (),
        pending: str = "",
        make_room: bool = True,
        over_listed: bool = False,
    ) -> Entry:
        """Store a conversation in one batch of writes; returns its entry as stored.

        `pending` is the turn id of an answer the server is still writing, kept in the meta.

        The batch also drops what is over the limit. If another tab added turns to this
        conversation since this tab last saw it, this tab's version is kept as a new
        conversation (another id) rather than written over the other's turns; if the other
        tab only renamed it, the person's name is kept (the entry's title says which). When
        the store is full, the oldest other conversations are given up, in the same batch,
        until it fits (those `backed_up` first); if it cannot fit alone, `StorageFull` is
        raised and nothing stored is touched. Conversations in `spare` (the one open) and
        pinned ones are never given up for another, and pinned ones do not count towards the
        limit. Without `make_room` (an import) nothing else is given up: `StorageFull` when it
        does not fit as things are.

        With `over_listed` (synced history taking another device's version) it writes over the
        version as listed, or raises `Conflict` if another tab wrote it meanwhile; the version
        this tab's open conversation is based on stays as it was, so a turn still answered
        there is kept beside the taken version, never over it.
        """
        known = self._meta_texts if over_listed else self._known
        expect = {}
        if snapshot.id in known:
            expect[self._meta_key(snapshot.id)] = known[snapshot.id]
        entries = self.entries()
        backed_up = {e.id for e in entries if self.sync.backed_up(e)}
        plan = KeepPlan.first(snapshot, entries, limit=self.limit, named=named,
                              pending=pending, spare=spare, expect=expect, make_room=make_room,
                              backed_up=backed_up)  # fmt: skip
        if plan is None:
            raise StorageFull.said("storage_full")
        while True:
            meta = plan.meta()
            try:
                await self.store.write(self._changes(plan, meta), plan.expect)
                break
            except Conflict:
                if over_listed:
                    await self.changed(self._meta_key(plan.snapshot.id))
                    raise
                renamed = await self._renamed_elsewhere(plan.snapshot.id)
                meta_key = self._meta_key(plan.snapshot.id)
                plan = plan.over_rename(meta_key, *renamed) if renamed else plan.as_copy()
            except StorageFull:
                fuller = plan.giving_up_one()
                if fuller is None:
                    pins = any(e.pinned for e in self.entries() if e.id != plan.snapshot.id)
                    raise StorageFull.said(
                        "storage_full_of_pins" if pins else "storage_full"
                    ) from None
                plan = fuller
        snapshot = plan.snapshot
        for gone in plan.dropped:
            self._drop(gone)
        stored = parse_meta(snapshot.id, meta)
        assert stored is not None  # written just above, in this build's format
        self._entries[snapshot.id] = stored
        self._meta_texts[snapshot.id] = meta
        if not over_listed:
            self._known[snapshot.id] = meta
        self.sync.heard(snapshot.id, False)
        return stored

    def _changes(self, plan: KeepPlan, meta: str) -> list[Change]:
        """The plan's batch: what it drops, then transcript before meta (a listed entry
        always has its transcript)."""
        changes = [change for gone in plan.dropped for change in self._removal(gone)]
        changes.append((self._conv_key(plan.snapshot.id), dumps(plan.snapshot)))
        changes.append((self._meta_key(plan.snapshot.id), meta))
        return changes

    async def pin(self, conversation_id: str, pinned: bool) -> None:
        """Pin a kept conversation (listed first, never given up for room), or unpin it.

        Only the flag changes: if another tab changed the entry meanwhile, its newer meta is
        read and pinned instead, so nothing it wrote is lost.
        """
        key = self._meta_key(conversation_id)
        for _ in range(3):
            text = self._meta_texts.get(conversation_id)
            if text is None or conversation_id not in self._entries:
                raise WidgetError.said("conversation_gone")
            changed = repinned(text, pinned)
            try:
                await self.store.write([(key, changed)], {key: text})
            except Conflict:
                await self.changed(key)
                continue
            pinned_entry = parse_meta(conversation_id, changed)  # its new rev too
            assert pinned_entry is not None  # this build's own format
            self._entries[conversation_id] = pinned_entry
            self._meta_texts[conversation_id] = changed
            if self._known.get(conversation_id) == text:
                self._known[conversation_id] = changed
            self.sync.heard(conversation_id, False)
            return
        raise WidgetError.said("changing_elsewhere")

    async def accept(self, conversation_id: str) -> None:
        """This tab has taken in the stored entry (another tab's rename): it may write over it."""
        if conversation_id in self._meta_texts:
            self._known[conversation_id] = self._meta_texts[conversation_id]

    def entry(self, conversation_id: str) -> Entry | None:
        return self._entries.get(conversation_id)

    async def _renamed_elsewhere(self, conversation_id: str) -> tuple[str, Entry] | None:
        """The stored meta, when another tab changed only the title since this tab's write."""
        text = await self.store.get(self._meta_key(conversation_id))
        stored = parse_meta(conversation_id, text)
        known = parse_meta(conversation_id, self._known.get(conversation_id))
        if text is None or stored is None or known is None:
            return None
        if (stored.updated, stored.size) != (known.updated, known.size) or stored.size < 0:
            return None  # turns were added, retried or cut there
        return text, stored

    async def forget(self, conversation_id: str) -> None:
        # The mark last: the removals make room for it, so a full store never stops a forget.
        entry = self._entries.get(conversation_id)
        marks = await self.sync.forget_marks(entry) if entry is not None else []
        await self.store.write([*self._removal(conversation_id), *marks])
        self._drop(conversation_id)
        self.sync.heard(conversation_id, True)

    async def changed(self, key: str) -> bool:
        """Another tab changed `key`: refresh that entry. True when the list changed."""
        meta_prefix = storage_key("meta", self.prefix)
        if not key.startswith(meta_prefix):
            return False
        conversation_id = key[len(meta_prefix) :]
        text = await self.store.get(key)
        entry = parse_meta(conversation_id, text)
        before = self._entries.get(conversation_id)
        if entry is None or text is None:
            self._entries.pop(conversation_id, None)
            self._meta_texts.pop(conversation_id, None)
            self._known.pop(conversation_id, None)  # gone: writing it again is no conflict
        else:
            self._entries[conversation_id] = entry
            self._meta_texts[conversation_id] = text
        return before != entry

    def _removal(self, conversation_id: str) -> list[Change]:
        # Meta before transcript: an entry stops being listed before it stops opening.
        return [(self._meta_key(conversation_id), None), (self._conv_key(conversation_id), None)]

    def _drop(self, conversation_id: str) -> None:
        self._entries.pop(conversation_id, None)
        self._meta_texts.pop(conversation_id, None)
        self._known.pop(conversation_id, None)

    def _meta_key(self, conversation_id: str) -> str:
        return storage_key("meta", self.prefix, conversation_id)

    def _conv_key(self, conversation_id: str) -> str:
        return storage_key("conversation", self.prefix, conversation_id)
