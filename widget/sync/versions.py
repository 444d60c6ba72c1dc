"""What an item holds, read as an import reads it (`snapshot_of`), and a batch of writes cut
short here (`cut_short`); how a version stands to the one kept here is `widget.sync.merge`'s."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

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
