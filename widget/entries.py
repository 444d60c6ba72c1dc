"""One line of the history list, and the meta text it is stored as.

    <prefix>:meta:<id>   {"v": 1, "title", "updated", "rev", "size", "named"?, "pending"?,
                          "pinned"?, "shared"?}

The list shows pinned conversations first, then the newest; a pinned one is never given up
for room (`widget.history`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .ids import new_id

META_VERSION = 1


@dataclass(frozen=True)
class Entry:
    """One line of the history list."""

    id: str
    title: str
    updated: int
    rev: str = ""
    #: the title was given by a person (never replaced by a generated one)
    named: bool = False
    #: how many messages the stored conversation holds (-1: not recorded)
    size: int = -1
    #: the server's turn id of an answer still being written when this was stored
    pending: str = ""
    #: a person pinned it: listed first, never dropped by the limit or a full store
    pinned: bool = False
    #: shared by a link until then (seconds since the epoch; 0: not shared)
    shared: int = 0

    def to_dict(self) -> dict[str, Any]:
        listed = {"id": self.id, "title": self.title, "updated": self.updated,
                  "pinned": self.pinned}  # fmt: skip
        return {**listed, "shared": self.shared} if self.shared else listed


def meta_text(
    title: str, updated: int, size: int, *, named: bool, pending: str, pinned: bool, shared: int = 0
) -> str:
    """The meta of a conversation as stored, with a new revision."""
    meta: dict[str, Any] = {"v": META_VERSION, "title": title, "updated": updated,
                            "rev": new_id(), "size": size}  # fmt: skip
    if named:
        meta["named"] = True
    if pending:
        meta["pending"] = pending
    if pinned:
        meta["pinned"] = True
    if shared:
        meta["shared"] = shared
    return json.dumps(meta, ensure_ascii=False)


def repinned(text: str, pinned: bool) -> str:
    """The same meta text, pinned or not, with a new revision (so other tabs hear of it)."""
    meta = json.loads(text)
    meta["rev"] = new_id()
    if pinned:
        meta["pinned"] = True
    else:
        meta.pop("pinned", None)
    return json.dumps(meta, ensure_ascii=False)


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
    size = data.get("size")
    if isinstance(size, bool) or not isinstance(size, int):
        size = -1
    pending, shared = data.get("pending"), data.get("shared")
    return Entry(
        conversation_id, title, updated, rev, data.get("named") is True, size,
        pending if isinstance(pending, str) else "", data.get("pinned") is True,
        shared if isinstance(shared, int) and not isinstance(shared, bool) else 0,
    )  # fmt: skip


def newest_first(entries: Iterable[Entry]) -> list[Entry]:
    """The order of the list: pinned ones first, each part newest first."""
    return sorted(entries, key=lambda e: (e.pinned, e.updated, e.id), reverse=True)
