"""Synced history: this browser's kept conversations merged with the person's other devices.

Local storage stays what the page reads (offline first); a round of sync brings it and the
server's copy together. The server holds one encrypted item per conversation (the worker
encrypts, `Remote`); this module decides, conversation by conversation, what travels:

- a change from another device is taken when this device has not changed the conversation
  since it last synced it; when both have, both versions are kept, the other device's as a
  copy whose title ends " (other device)";
- a version from another device is never given room by dropping one that exists only here,
  or the one open in this tab; with no room it waits on the server (pulled again next round),
  and the person is told;
- a conversation changed here (its meta has a new `rev`, or a batch of writes was cut short
  here) is sent, naming the revision it replaces: if another device wrote first, the next
  round merges that one first;
- a conversation the person forgot here is deleted there (a tombstone) unless another device
  changed it meanwhile (an edit beats a deletion); one dropped only to make room is not;
- an item failing its authentication tag is skipped and the person told, never merged;
- when the store is full, the history gives up first what the server holds as it is here.

What this device knows of the server (`widget.sync_state`) is kept beside the history."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from .errors import WidgetError
from .history import Entry, History
from .ids import new_id
from .key_value import Change, Conflict, KeyValue, StorageFull
from .protocol import storage_key
from .snapshots import Snapshot
from .sync_remote import Pulled, Remote
from .sync_state import Synced, SyncState, forget_mark, forget_mark_text
from .sync_versions import (
    PAYLOAD_VERSION,
    continued_here,
    continues_ours,
    conversation_of,
    cut_short,
    snapshot_of,
)
from .texts import Notice, notice

OTHER_DEVICE = " (other device)"
#: rounds in a row while other devices keep writing first
MAX_ROUNDS = 3
#: pages one round reads at most (the rest waits for the next round): a server that always
#: says there is more cannot hold a round, nor "Stop syncing" waiting for it, for ever
MAX_PAGES = 100


class Syncer:
    """Rounds of sync between `history` and `remote`; `changed` hears which conversations
    a round changed here (for the open one and the list)."""

    def __init__(
        self,
        history: History,
        remote: Remote,
        store: KeyValue,
        prefix: str,
        changed: Callable[[set[str]], Awaitable[None]],
        alert: Callable[[Notice], None],
        live: Callable[[], Collection[str]] = tuple,
        clock: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self.history = history
        self.clock = clock  # (milliseconds: a time far off is taken as now, as an import does)
        self.live = live  # the conversation open in this tab, never given up for another's
        self.remote = remote
        self.store = store
        self.keys = storage_key("sync", prefix)  # the state, marks, the code: this device's
        self.key, self.marks = self.keys + "state", forget_mark(prefix)
        self.changed = changed
        self.alert = alert
        self._told_no_room = False  # said once while another device's version waits for room
        # From now on, forgetting a conversation here marks it, in the same batch, for a round.
        history.forget_marks = self._forget_marks

    async def _forget_marks(self, entry: Entry) -> list[Change]:
        stored = await self.history.peek(entry.id)
        return [(self.marks + entry.id, forget_mark_text(entry, stored))]

    async def sync(self) -> None:
        """One round, repeated while another device wrote first (`MAX_ROUNDS`)."""
        kept = await self.store.read_all(self.keys)  # the state and the marks in one trip
        state = SyncState.from_json(kept.get(self.key))
        marks = [key for key in kept if key.startswith(self.marks)]
        for key in marks:
            if self.history.entry(key[len(self.marks) :]) is None:  # (not kept again)
                state.forget(key[len(self.marks) :], kept[key])
        touched: set[str] = set()
        waiting, done = False, []
        try:
            for _ in range(MAX_ROUNDS):
                waiting = await self._pull(state, touched)
                if await self._push(state):
                    break
            done = marks  # (a round cut short keeps them: what they say is not all kept)
        finally:
            # The marks the round took in go in the same batch. With no room for it, the next
            # round reads again what this one took (and knows it: `continued_here`); the page
            # is told what changed all the same.
            with contextlib.suppress(StorageFull):
                await self.store.write([(self.key, state.to_json()), *((k, None) for k in done)])
            known = SyncState(state.cursor, dict(state.items))
            self.history.backed_up = lambda entry: not known.changed_here(entry)
            if touched:
                await self.changed(touched)
        if waiting and not self._told_no_room:
            self.alert(notice("sync_storage_full"))
        self._told_no_room = waiting

    # -- taking what other devices wrote ---------------------------------------------------

    async def _pull(self, state: SyncState, touched: set[str]) -> bool:
        """What other devices wrote; True if some found no room (the cursor stays before it)."""
        unreadable = 0
        waiting: list[int] = []
        raced: list[int] = []  # another tab wrote it meanwhile: the next round merges
        for _ in range(MAX_PAGES):
            page = await self.remote.pull(state.cursor)
            if page.more and page.cursor <= state.cursor:
                raise WidgetError.said("sync_stalled")  # more, from where it was: a loop
            for pulled in page.items:
                if not pulled.readable:
                    unreadable += 1
                elif pulled.payload is None:
                    await self._take_deletion(state, pulled, touched)
                else:
                    try:
                        if not await self._take(state, pulled, touched):
                            waiting.append(pulled.rev)
                    except Conflict:
                        raced.append(pulled.rev)
            state.cursor = max(state.cursor, page.cursor)  # (a cursor never goes back)
            if not page.more:
                break
        state.cursor = min([state.cursor, *(rev - 1 for rev in waiting + raced)])
        if unreadable == 1:
            self.alert(notice("sync_unreadable_one"))
        elif unreadable:
            self.alert(notice("sync_unreadable", count=unreadable))
        return bool(waiting)

    async def _take(self, state: SyncState, pulled: Pulled, touched: set[str]) -> bool:
        """Takes one item another device wrote; False when it found no room here."""
        payload = pulled.payload or {}
        synced = state.items.get(conversation := conversation_of(payload))
        if synced is not None and synced.rev == pulled.rev:
            return True  # our own write, heard back (not read further: every round has some)
        if (snapshot := snapshot_of(payload, self.clock())) is None or snapshot.id != conversation:
            return True  # a newer build's, damaged, or not what an import takes: left alone
        if state.forgotten_here(conversation, payload, (pulled.item, pulled.rev)):
            return True  # this round deletes it there
        state.forgotten.pop(conversation, None)  # changed there after it was forgotten here
        local = self.history.entry(conversation)
        stored = await self.history.peek(conversation) if local is not None else None  # (once)
        ours = None  # kept or continued here already (this device's own write, its answer or
        # note lost, or sync stopped and started again): nothing to merge, no copy to make
        if local is not None and (synced is None or state.changed_here(local)):
            ours = await continued_here(self.history, local, stored, snapshot, payload)
        if ours is not None:
            state.items[conversation] = Synced(pulled.item, pulled.rev, ours)
            return True
        unchanged_here = local is None or not state.changed_here(local)
        if unchanged_here and local is not None and await cut_short(self.history, local, stored):
            unchanged_here = False  # its newest turns exist only here
        taken = payload  # (or with a name or pin given here, to send back)
        if (
            local is not None
            and not unchanged_here
            and (continued := continues_ours(local, stored, snapshot, payload))
        ):
            (snapshot, taken), unchanged_here = continued, True
        if unchanged_here:
            if (rev := await self._keep(snapshot, taken, state, over_listed=True)) is not None:
                sent = rev if taken is payload else ""
                state.items[conversation] = Synced(pulled.item, pulled.rev, sent)
                touched.add(conversation)
            return rev is not None
        # Changed on both sides: ours stays and is sent next, the other's is kept as a copy.
        # With no room for the copy, neither moves: ours sent now would replace the other
        # device's version on the server, and that device would take ours over its own.
        title = _other_device(str(payload.get("title") or snapshot.title))
        copy = dataclasses.replace(snapshot, id=new_id(), title=title)
        if await self._keep(copy, {**payload, "named": True}, state) is None:
            return False
        touched.add(copy.id)
        state.items[conversation] = Synced(pulled.item, pulled.rev, synced.local if synced else "")
        return True

    async def _take_deletion(self, state: SyncState, pulled: Pulled, touched: set[str]) -> None:
        found = [c for c, s in state.items.items() if s.item == pulled.item]
        for conversation in found:
            synced = state.items[conversation]
            local = self.history.entry(conversation)
            here = local is not None and local.rev != synced.local  # changed here since
            if local is not None and (
                here or await cut_short(self.history, local, await self.history.peek(local.id))
            ):
                synced.rev = pulled.rev  # kept, and sent again over it
                continue
            del state.items[conversation]
            if local is not None:
                await self.history.forget(conversation)
                touched.add(conversation)
        for conversation, (item, _) in list(state.forgotten.items()):
            if item == pulled.item:
                del state.forgotten[conversation]  # deleted there already

    async def _keep(
        self,
        snapshot: Snapshot,
        payload: dict[str, Any],
        state: SyncState,
        *,
        over_listed: bool = False,
    ) -> str | None:
        """Keeps another device's version, never in place of one `changed_here` or the one
        open here; its rev, or None without room (`Conflict` if another tab wrote it since)."""
        spare = {e.id for e in self.history.entries() if state.changed_here(e)} | set(self.live())
        try:
            named = payload.get("named") is True
            entry = await self.history.keep(snapshot, named=named, spare=spare,
                                            over_listed=over_listed)  # fmt: skip
            if (payload.get("pinned") is True) != entry.pinned:
                await self.history.pin(snapshot.id, payload.get("pinned") is True)
        except StorageFull:
            return None
        stored = self.history.entry(entry.id)
        return stored.rev if stored is not None else None

    # -- sending what changed here ---------------------------------------------------------

    async def _push(self, state: SyncState) -> bool:
        """Send every change made here, forgets first (small, and what a person asked for);
        False when another device wrote first."""
        settled = True
        for conversation, (item, rev) in list(state.forgotten.items()):
            pushed = await self.remote.delete(item, rev)
            if pushed.written:
                del state.forgotten[conversation]
            else:
                settled = False
        for entry in self.history.entries():
            if entry.pending or not state.changed_here(entry):
                continue
            synced = state.items.get(entry.id)
            snapshot = await self.history.peek(entry.id)
            if snapshot is None:
                continue
            payload = {"v": PAYLOAD_VERSION, "conversation": snapshot, "title": entry.title,
                       "named": entry.named, "pinned": entry.pinned}  # fmt: skip
            pushed = await self.remote.push(entry.id, synced.rev if synced else None, payload)
            if pushed.written and pushed.rev is not None:
                state.items[entry.id] = Synced(pushed.item, pushed.rev, entry.rev)
            else:
                settled = False
        return settled


def _other_device(title: str) -> str:
    return title if title.endswith(OTHER_DEVICE) else title + OTHER_DEVICE
