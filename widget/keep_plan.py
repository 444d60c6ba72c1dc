"""How one conversation is stored: a plan of writes, worked out before anything is written.

`History.keep` makes a `KeepPlan` from what it knows (the entries, the limit, what this tab
last saw), writes it in one batch, and on a refusal asks the plan for the next one: another
tab renamed the conversation (`over_rename`), changed its turns (`as_copy`), or the store is
full (`giving_up_one`). Each step is a new frozen plan; nothing here touches the store.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from .entries import Entry, meta_text
from .ids import new_id
from .share_records import shared_until
from .snapshots import Snapshot


@dataclass(frozen=True)
class KeepPlan:
    """One batch that stores `snapshot`: its meta, what the store must still hold (`expect`),
    and the other conversations `dropped` with it; `room` is what may still be given up."""

    snapshot: Snapshot
    named: bool
    pending: str
    pinned: bool
    expect: Mapping[str, str | None]
    dropped: tuple[str, ...] = ()
    #: conversations that may be given up for room: those backed up elsewhere first, each
    #: group oldest first
    room: tuple[str, ...] = ()

    @classmethod
    def first(
        cls, snapshot: Snapshot, entries: list[Entry], *, limit: int, named: bool, pending: str,
        spare: Collection[str], expect: Mapping[str, str | None], make_room: bool,
        backed_up: Collection[str] = (),
    ) -> KeepPlan | None:  # fmt: skip
        """The first attempt: over the limit, the oldest unpinned others are dropped (never
        `spare` ones); None when it would need to drop some and may not (`make_room` off).
        For room, those `backed_up` (on synced history's server as they are here) go first:
        given up, nothing of them is lost."""
        before = next((e for e in entries if e.id == snapshot.id), None)
        pinned = before is not None and before.pinned
        unpinned = [e.id for e in entries if e.id != snapshot.id and not e.pinned]
        kept = [i for i in unpinned if i in spare]
        others = [i for i in unpinned if i not in spare]
        over_limit = others[max(0, limit - (not pinned) - len(kept)) :]
        room = tuple(reversed(others[: len(others) - len(over_limit)]))  # oldest first
        room = tuple(sorted(room, key=lambda i: i not in backed_up))  # stable: backed up first
        if not make_room:
            if over_limit and before is None:
                return None
            over_limit, room = [], ()
        return cls(snapshot, named, pending, pinned, dict(expect), tuple(over_limit), room)

    def meta(self) -> str:
        """The meta text to write, with a revision of its own."""
        snapshot = self.snapshot
        return meta_text(snapshot.title, snapshot.updated, len(snapshot.messages),
                         named=self.named, pending=self.pending, pinned=self.pinned,
                         shared=shared_until(snapshot.shares))  # fmt: skip

    def giving_up_one(self) -> KeepPlan | None:
        """The store was full: the same batch, giving up the oldest conversation left in
        `room` too; None when there is none left to give up."""
        if not self.room:
            return None
        return replace(self, dropped=(*self.dropped, self.room[0]), room=self.room[1:])

    def over_rename(self, meta_key: str, text: str, entry: Entry) -> KeepPlan:
        """Another tab only renamed or pinned it: write over that, keeping its name and pin."""
        snapshot, named = self.snapshot, self.named
        if entry.named:
            snapshot, named = replace(snapshot, title=entry.title), True
        return replace(self, snapshot=snapshot, named=named, pinned=entry.pinned,
                       expect={meta_key: text})  # fmt: skip

    def as_copy(self) -> KeepPlan:
        """Another tab added turns: this version is kept beside it, as a new conversation."""
        copy = replace(self.snapshot, id=new_id())
        return replace(self, snapshot=copy, expect={}, pinned=False)
