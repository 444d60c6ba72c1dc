"""Taking what another device wrote into this browser's history: a version of a conversation
(`take`) or its sealed deletion (`take_deletion`), once `widget.sync.judge` found it newer than
anything taken here. What this device changed meanwhile is never written over:

- a version is taken when this device has not changed the conversation since it last synced
  it; when both have, both continuations are kept in it, as versions of the message where they
  part (`widget.sync.branches`; a copy whose title ends " (other device)" only when they part
  before any question);
- a version from another device is never given room by dropping one that exists only here,
  or the one open in this tab; with no room it waits on the server (pulled again next round);
- a deletion wins over the very version it says it replaced, and over one unchanged here since
  it was synced; a version continued or renamed here since beats it (an edit beats a deletion).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from typing import Any

from ..errors import WidgetError
from ..exports import IMPORTED_ID, dated
from ..history import Entry, History
from ..ids import new_id
from ..key_value import StorageFull
from ..snapshots import Snapshot, from_dict
from .branches import branched
from .merge import Here, Plan, Step, There, merge
from .remote import Pulled
from .state import Synced, SyncState, beginnings, digest_of
from .versions import conversation_of, cut_short, snapshot_of

OTHER_DEVICE = " (other device)"


class Taker:
    def __init__(
        self, history: History, clock: Callable[[], int], live: Callable[[], Collection[str]]
    ) -> None:
        self.history = history
        self.clock = clock
        self.live = live  # the conversation open in this tab, never given up for another's

    async def take(self, state: SyncState, pulled: Pulled, touched: set[str]) -> bool:
        """Takes one version another device wrote; False when it found no room here
        (`Conflict` when another tab wrote the conversation meanwhile)."""
        payload = pulled.payload or {}
        synced = state.items.get(conversation := conversation_of(payload))
        if (snapshot := snapshot_of(payload, self.clock())) is None or snapshot.id != conversation:
            return True  # a newer build's, damaged, or not what an import takes: left alone
        if state.forgotten_here(conversation, payload, (pulled.item, pulled.rev, pulled.seq)):
            return True  # this round deletes it there
        state.forgotten.pop(conversation, None)  # changed there after it was forgotten here
        state.gone.pop(pulled.item, None)  # (an edit there beat a deletion)
        local = self.history.entry(conversation)
        stored = await self.history.peek(conversation) if local is not None else None  # (once)
        there = There(snapshot.messages, str(payload.get("title") or snapshot.title),
                      payload.get("named") is True, payload.get("pinned") is True)  # fmt: skip
        if local is None or stored is None:
            return await self._apply(state, pulled, merge(Here(False), there), snapshot, touched)
        changed = state.changed_here(local)
        cut = not changed and await cut_short(self.history, local, stored)  # (repaired then)
        here = Here(True, list(stored.get("messages") or []), local.title, local.named,
                    local.pinned, changed, cut)  # fmt: skip
        plan = merge(here, there)
        if plan.step is Step.ADOPT:
            try:  # (nothing is given up to make room for a name or a pin)
                rev = await self._adopt(local, stored, plan)
            except (WidgetError, ValueError):  # (no room, another tab): as changed on both sides
                plan = merge(here, there, adopting=False)
            else:
                state.items[conversation] = _synced(pulled, "" if plan.send else rev, snapshot)
                return True
        return await self._apply(state, pulled, plan, snapshot, touched,
                                 synced.local if synced else "")  # fmt: skip

    async def _adopt(self, local: Entry, stored: dict[str, Any], plan: Plan) -> str:
        """Ours stays, with the name and pin `plan` adds (written only if it adds one); the
        local rev then."""
        entry = local
        if plan.named and not entry.named:
            renamed = dataclasses.replace(from_dict(stored), title=plan.title)
            entry = await self.history.keep(renamed, named=True, make_room=False,
                                            over_listed=True)  # fmt: skip
        if plan.pinned and not entry.pinned:
            await self.history.pin(entry.id, True)
            entry = self.history.entry(entry.id) or entry
        return str(entry.rev)

    async def _apply(
        self, state: SyncState, pulled: Pulled, plan: Plan, snapshot: Snapshot,
        touched: set[str], noted: str = "",
    ) -> bool:  # fmt: skip
        """Keeps what `plan` says; False without room (nothing then moves: ours sent now
        would replace the other device's version on the server, and lose it)."""
        conversation = snapshot.id
        if plan.step is Step.COPY:
            copy = dataclasses.replace(snapshot, id=new_id(), title=_other_device(plan.title))
            if await self.keep(copy, {"named": True, "pinned": plan.pinned}, state) is None:
                return False
            touched.add(copy.id)
            state.items[conversation] = _synced(pulled, noted, snapshot)
            return True
        kept = dataclasses.replace(snapshot, messages=tuple(plan.messages), title=plan.title)
        if plan.step is Step.BRANCH:
            stored = await self.history.peek(conversation) or {}
            kept = dataclasses.replace(
                from_dict(stored),
                messages=tuple(plan.messages),
                updated=max(stored.get("updated") or 0, snapshot.updated),
            )
        meta = {"named": plan.named, "pinned": plan.pinned}
        rev = await self.keep(kept, meta, state, over_listed=True)
        if rev is None:
            return False
        state.items[conversation] = _synced(pulled, "" if plan.send else rev, snapshot)
        touched.add(conversation)
        return True

    async def take_tail(self, state: SyncState, pulled: Pulled, touched: set[str]) -> bool:
        """Another device's turns, added to the server's copy this device took: appended here
        when this device has not changed the conversation since, else kept beside its own as
        versions; False when there was no room. A tail of a checkpoint this device has not
        taken (or that a newer one took in since), or of a start it does not hold, is left:
        the next checkpoint brings it."""
        payload = pulled.payload or {}
        conversation = payload.get("conversation")
        forgot = state.forgotten.get(conversation) if isinstance(conversation, str) else None
        if (forgot is not None and forgot[1] is not None and payload.get("base") == forgot[2]
                and not _in_forgotten(state, str(conversation), payload)):  # fmt: skip
            # Forgotten here, continued there since: an edit beats a deletion. It comes back
            # whole: its checkpoint is read again, then this tail.
            del state.forgotten[str(conversation)]
            state.versions.pop(str(conversation), None)
            state.again.append(forgot[1])
            return True
        synced = state.items.get(conversation) if isinstance(conversation, str) else None
        added, after = payload.get("messages"), payload.get("after")
        if synced is None or payload.get("base") != synced.seq or not isinstance(added, list):
            return True
        local = self.history.entry(str(conversation))
        stored = await self.history.peek(str(conversation)) if local is not None else None
        here = list((stored or {}).get("messages") or [])
        if (
            local is None
            or stored is None
            or not isinstance(after, int)
            or not (0 <= after <= len(here) and digest_of(here[:after]) == payload.get("parent"))
        ):
            return True
        there = [*here[:after], *added]
        unchanged = not state.changed_here(local) and len(here) == after
        if here[: len(there)] == there and not unchanged:  # had it (its own, or continued it)
            synced.length, synced.digest = len(there), digest_of(there)
            synced.tails.append((pulled.item, pulled.rev))
            said = (payload.get("title"), payload.get("named"), payload.get("pinned"))
            if len(here) == len(there) and said == (local.title, local.named, local.pinned):
                synced.local = local.rev  # the very version this device holds: nothing to send
            return True
        continued = there[: len(here)] == here  # (only a name or a pin changed here)
        shown = there if unchanged or continued else branched(here, there)
        if shown is None:
            return True  # (parting before any question: the next checkpoint settles it)
        # A name given there is taken unless this device named it since; a pin from either
        # side stays (an unpin travels with a checkpoint, as a rename alone does).
        named_there = payload.get("named") is True and (unchanged or not local.named)
        title = payload.get("title") if named_there else None
        meta = {"named": named_there or local.named,
                "pinned": local.pinned or payload.get("pinned") is True}  # fmt: skip
        try:
            named = title if isinstance(title, str) and title else stored["title"]
            snapshot = from_dict({**stored, "messages": shown, "title": named,
                                  "updated": max(stored.get("updated") or 0,
                                                 payload.get("updated") or 0)})  # fmt: skip
        except ValueError:
            return True  # not what an import takes: left alone
        snapshot = dataclasses.replace(snapshot, updated=dated(snapshot.updated, self.clock()))
        if (rev := await self.keep(snapshot, meta, state, over_listed=True)) is None:
            return False
        synced.tails.append((pulled.item, pulled.rev))
        synced.length, synced.digest = len(there), digest_of(there)
        synced.local = rev if unchanged else ""  # (merged: the whole goes next)
        touched.add(str(conversation))
        return True

    async def take_deletion(self, state: SyncState, pulled: Pulled, touched: set[str]) -> None:
        """Another device's sealed deletion: this device forgets the conversation too, unless
        it holds a version the deletion did not replace, changed here since (it then stays,
        and is sent again over the deletion)."""
        payload = pulled.payload or {}
        conversation = payload.get("conversation")
        if not isinstance(conversation, str) or not IMPORTED_ID.fullmatch(conversation):
            return  # not what a device of this person writes: nothing here is touched
        synced = state.items.get(conversation)
        forgot = state.forgotten.get(conversation)
        if forgot is not None and forgot[0] in ("", pulled.item):
            del state.forgotten[conversation]  # deleted there already
        local = self.history.entry(conversation)
        stored = await self.history.peek(conversation) if local is not None else None
        unchanged = local is not None and synced is not None and synced.local == local.rev
        if (
            local is None
            or _replaced(payload, stored)
            or (unchanged and not await cut_short(self.history, local, stored))
        ):
            state.items.pop(conversation, None)
            state.gone[pulled.item] = (pulled.seq, conversation)
            if local is not None:
                await self.history.forget(conversation)
                touched.add(conversation)
            return
        state.items[conversation] = Synced(pulled.item, pulled.rev, "", pulled.seq)  # sent again

    async def keep(
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


def _synced(pulled: Pulled, local: str, there: Snapshot) -> Synced:
    """The note of a checkpoint taken: the server now holds `there`, and no tail since."""
    messages = [dict(m) for m in there.messages]
    return Synced(pulled.item, pulled.rev, local, pulled.seq, len(messages), digest_of(messages))


def _in_forgotten(state: SyncState, conversation: str, tail: dict[str, Any]) -> bool:
    """Whether the version forgotten here holds `tail` (this device's own, heard back)."""
    forgot = state.versions.get(conversation)
    added, after, parent = tail.get("messages"), tail.get("after"), tail.get("parent")
    if forgot is None or not isinstance(added, list) or not isinstance(after, int):
        return False
    digests = forgot[3]
    end = after + len(added)
    starts = after == 0 or (0 < after <= len(digests) and digests[after - 1] == parent)
    grown = beginnings(added, str(parent or ""))
    return starts and 0 < end <= len(digests) and bool(grown) and digests[end - 1] == grown[-1]


def _replaced(deletion: dict[str, Any], stored: dict[str, Any] | None) -> bool:
    """Whether the deletion names the very version kept here (its length and digest)."""
    replaces = deletion.get("replaces")
    if not isinstance(replaces, dict) or stored is None:
        return False
    messages = stored.get("messages") or []
    digests = beginnings(messages)
    return (
        replaces.get("length") == len(messages)
        and bool(digests)
        and (replaces.get("digest") == digests[-1])
    )


def _other_device(title: str) -> str:
    return title if title.endswith(OTHER_DEVICE) else title + OTHER_DEVICE
