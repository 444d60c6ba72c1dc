"""Synced history's store: opaque items per space, compare-and-set, tombstones, a cursor.

The server never reads an item: the browser encrypts each conversation before it leaves
(docs/history.md, "Synced history"). `open_store` picks the backend from the URL.
"""

from .store import Changes, Conflict, Item, OverQuota, SyncStore, TooManyItems
from .stores import open_store

__all__ = ["Changes", "Conflict", "Item", "OverQuota", "SyncStore", "TooManyItems", "open_store"]
