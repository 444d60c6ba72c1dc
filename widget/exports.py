"""The export file: every kept conversation in one JSON file, and reading one back.

    {"format": "chatkeep-history", "version": 1, "conversations": [snapshot, ...]}

A single snapshot's JSON is accepted on import too.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from .errors import SnapshotError
from .history import Kept
from .snapshots import Snapshot, from_dict, parse_json, repair

EXPORT_FORMAT = "chatkeep-history"


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
    one bad conversation refuses the whole file (`SnapshotError`)."""
    data = parse_json(text)
    if isinstance(data, dict) and data.get("format") == EXPORT_FORMAT:
        version = data.get("version", 1)  # absent in hand-made files: taken as 1
        if version != 1 or isinstance(version, bool):
            raise SnapshotError(
                f"this file is a Chatkeep export of version {json.dumps(version)[:20]}, "
                "and this version of Chatkeep reads version 1 only: nothing was imported"
            )
        items = data.get("conversations")
        if not isinstance(items, list):
            raise SnapshotError('the file has no "conversations" array')
    else:
        items = [data]
    snapshots = []
    for number, item in enumerate(items, start=1):
        try:
            snapshot = from_dict(item)
        except SnapshotError as exc:
            raise SnapshotError(f"conversation {number} of the file: {exc}") from exc
        snapshots.append(snapshot.with_messages(repair(list(snapshot.messages))))
    return snapshots


async def keep_newer(history: Kept, snapshots: list[Snapshot], spare: Collection[str]) -> list[str]:
    """Keep each conversation not already kept in a newer version; the ids kept."""
    known = {entry.id: entry.updated for entry in history.entries()}
    kept = []
    for snapshot in sorted(snapshots, key=lambda s: s.updated):
        if snapshot.messages and known.get(snapshot.id, -1) < snapshot.updated:
            await history.keep(snapshot, spare=spare)
            kept.append(snapshot.id)
    return kept
