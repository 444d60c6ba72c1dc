"""The export file: every kept conversation in one JSON file, and reading one back.

    {"format": "chatkeep-history", "version": 1, "conversations": [snapshot, ...]}

A single snapshot's JSON is accepted on import too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from .errors import SnapshotError
from .history import Kept
from .key_value import StorageFull
from .snapshots import Snapshot, from_dict, parse_json, repair

EXPORT_FORMAT = "chatkeep-history"
#: an id becomes part of storage keys: one holding `:conv:` was stored where nothing lists it
IMPORTED_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: 2000-01-01 in milliseconds: no conversation of a file is older
EARLIEST = 946_684_800_000
DAY = 86_400_000


@dataclass(frozen=True)
class Imported:
    """What an import did: conversations kept, and those that did not fit (never made room for)."""

    kept: int
    skipped: int

    def to_dict(self) -> dict[str, int]:
        return {"imported": self.kept, "skipped": self.skipped}


async def export_text(history: Kept | None, unkept: Snapshot | None = None) -> str:
    """Every conversation `history` keeps, and `unkept` (history off), as one file's text."""
    snapshots: list[dict[str, Any]] = []
    for entry in history.entries() if history else []:
        data = await history.read(entry.id) if history else None
        if data is not None:
            snapshots.append(data)
    if unkept is not None:
        snapshots.append(unkept.to_dict())
    return json.dumps(
        {"format": EXPORT_FORMAT, "version": 1, "conversations": snapshots},
        ensure_ascii=False,
        separators=(",", ":"),
    )


def read_export(text: str) -> list[Snapshot]:
    """The conversations of an exported file (or one snapshot), every one checked strictly:
    one bad conversation (or id) refuses the whole file (`SnapshotError`)."""
    data = parse_json(text)
    if isinstance(data, dict) and data.get("format") == EXPORT_FORMAT:
        version = data.get("version", 1)  # absent in hand-made files: taken as 1
        if version != 1 or isinstance(version, bool):
            raise SnapshotError.said("export_version", version=json.dumps(version)[:20])
        items = data.get("conversations")
        if not isinstance(items, list):
            raise SnapshotError('the file has no "conversations" array')
    else:
        items = [data]
    snapshots = []
    for number, item in enumerate(items, start=1):
        try:
            snapshot = from_dict(item)
            if not IMPORTED_ID.fullmatch(snapshot.id):
                raise SnapshotError(
                    'its "id" must be 1 to 64 letters, digits, "-" or "_": nothing was imported'
                )
        except SnapshotError as exc:
            raise SnapshotError(f"conversation {number} of the file: {exc}") from exc
        snapshots.append(snapshot.with_messages(repair(list(snapshot.messages))))
    return snapshots


def dated(time: int, now: int) -> int:
    """`time`, or `now` when it lies outside [2000-01-01, `now` + 1 day]."""
    return time if in_range(time, now) else now


def in_range(time: int, now: int) -> bool:
    return EARLIEST <= time <= now + DAY


async def keep_newer(
    history: Kept, snapshots: list[Snapshot], spare: Collection[str], now: int
) -> Imported:
    """Keep each conversation not already kept in a newer version, the newest first, while
    there is room: an import never gives up a conversation kept before it.

    A time outside [2000-01-01, `now` + 1 day] becomes `now`: a file dated in the far future
    would list first for ever and push out everything the person had. Such a conversation is
    imported once (`now` would make it newer at every import).
    """
    known = {entry.id: entry.updated for entry in history.entries()}
    kept = skipped = 0
    for snapshot in sorted(snapshots, key=lambda s: dated(s.updated, now), reverse=True):
        if not snapshot.messages or known.get(snapshot.id, -1) >= snapshot.updated:
            continue
        if not in_range(snapshot.updated, now) and snapshot.id in known:
            continue
        snapshot = replace(snapshot, created=dated(snapshot.created, now),
                           updated=dated(snapshot.updated, now))  # fmt: skip
        try:
            await history.keep(snapshot, spare=spare, make_room=False)
        except StorageFull:
            skipped += 1
        else:
            kept += 1
    return Imported(kept, skipped)
