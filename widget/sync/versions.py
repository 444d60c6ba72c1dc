"""How a version pulled from the server stands to the one kept here, for a round to know
when there is nothing to merge: this device's own write heard back, a version this device's
continues or one that continues this device's, or a batch of writes cut short here
(`widget.sync.rounds`)."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

from ..errors import WidgetError
from ..exports import IMPORTED_ID, dated
from ..history import Entry, History
from ..key_value import Conflict, StorageFull
from ..snapshots import Snapshot, from_dict, read_snapshot

#: the shape of what travels: {"v", "conversation": a snapshot, "title", "named", "pinned"}
PAYLOAD_VERSION = 1


def conversation_of(payload: dict[str, Any]) -> str:
    """The id of the conversation an item holds, read without reading the rest."""
    conversation = payload.get("conversation")
    found = conversation.get("id") if isinstance(conversation, dict) else None
    return found if isinstance(found, str) else ""


def snapshot_of(payload: dict[str, Any], now: int) -> Snapshot | None:
    """The conversation an item holds, checked as an import checks one (its size, its id, its
    times: `widget.exports`); None when it cannot be read (a newer build's, damaged before it
    was encrypted, or written by someone else who has the code: ids such as `n1:conv:x` would
    reach into this browser's storage keys). A time outside [2000, now + 1 day] becomes `now`:
    a conversation dated 2^53 would list first for ever and push out the person's own."""
    if payload.get("v") != PAYLOAD_VERSION:
        return None
    data = read_snapshot(payload.get("conversation"))
    if data is None:
        return None
    try:
        snapshot = from_dict(data)
    except ValueError:
        return None
    if not IMPORTED_ID.fullmatch(snapshot.id):
        return None
    return dataclasses.replace(snapshot, created=dated(snapshot.created, now),
                               updated=dated(snapshot.updated, now))  # fmt: skip


async def cut_short(history: History, entry: Entry, stored: dict[str, Any] | None) -> bool:
    """The transcript `stored` is not what its meta lists: a batch of writes cut short (the
    page closed between them). Kept again whole, so it counts, and is sent, as changed here."""
    if stored is None or entry.size < 0:
        return False
    if (len(stored.get("messages", ())), stored.get("updated")) == (entry.size, entry.updated):
        return False
    with contextlib.suppress(StorageFull, Conflict, ValueError):  # (giving up nothing for it)
        await history.keep(from_dict(stored), named=entry.named, make_room=False,
                           over_listed=True)  # fmt: skip
    return True


async def continued_here(
    history: History,
    entry: Entry,
    stored: dict[str, Any] | None,
    there: Snapshot,
    payload: dict[str, Any],
) -> str | None:
    """Whether the version `there` is one the conversation kept here continues: every
    message of it is here, in order, at the start. It is then this device's own write heard
    back (the answer to the write, or this device's note of it, was lost on the way), or an
    older version written again elsewhere for a new name or pin: nothing to merge, and no
    copy to make. None when not; else the local rev this device now holds as synced, or ""
    when its own version is still to be sent over that one.

    A name or a pin given there, and none here, is taken: a rename or a pin elsewhere is not
    lost to a turn added here (`_two_names`: not when both have a name). `stored` is the
    transcript kept here."""
    if stored is None:
        return None
    theirs, ours = list(there.messages), list(stored.get("messages", ()))
    title = payload.get("title")
    if ours[: len(theirs)] != theirs or _two_names(entry, payload):
        return None
    try:  # (nothing is given up to make room for a name or a pin)
        if payload.get("named") is True and not entry.named and isinstance(title, str) and title:
            renamed = dataclasses.replace(from_dict(stored), title=title)
            entry = await history.keep(renamed, named=True, make_room=False, over_listed=True)
        if payload.get("pinned") is True and not entry.pinned:
            await history.pin(entry.id, True)
            entry = history.entry(entry.id) or entry
    except (WidgetError, ValueError):
        return None  # not taken here (no room, another tab): merged as a change on both sides
    same = (title, payload.get("named"), payload.get("pinned")) == (
        entry.title, entry.named, entry.pinned)  # fmt: skip
    return entry.rev if same and len(ours) == len(theirs) else ""


def continues_ours(
    entry: Entry, stored: dict[str, Any] | None, there: Snapshot, payload: dict[str, Any]
) -> tuple[Snapshot, dict[str, Any]] | None:
    """Whether the version `there` holds every message kept here, in order, and more: another
    device continued the conversation this one holds, though this device cannot tell it
    unchanged since (it lost its note, or stopped syncing and started again). It is then
    taken, not copied: what to keep, the name or pin given here and none there kept on it
    (a new payload then, to send back). None when not (nor with `_two_names`)."""
    if stored is None:
        return None
    ours, theirs = list(stored.get("messages", ())), list(there.messages)
    if len(theirs) <= len(ours) or theirs[: len(ours)] != ours or _two_names(entry, payload):
        return None
    mine: dict[str, Any] = {}
    if entry.named and payload.get("named") is not True:
        mine |= {"title": entry.title, "named": True}
    if entry.pinned and payload.get("pinned") is not True:
        mine["pinned"] = True
    if not mine:
        return there, payload
    return dataclasses.replace(there, title=mine.get("title", there.title)), {**payload, **mine}


def _two_names(entry: Entry, payload: dict[str, Any]) -> bool:
    """Named here and there, differently: which came last cannot be told, so both versions
    are kept (the round's merge), and neither name is lost."""
    return entry.named and payload.get("named") is True and payload.get("title") != entry.title
