"""Opening the store a URL names: the backends import `store` (its promise and `decide`), so
the choice between them lives here, where nothing imports back."""

from __future__ import annotations

from ..errors import SettingsError
from .store import SPACE_ITEMS, SyncStore


def open_store(url: str, space_bytes: int, space_items: int = SPACE_ITEMS) -> SyncStore:
    """The store `url` names: `sqlite:///PATH` or `postgresql://…`."""
    if url.startswith("sqlite:///"):
        from .sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:///"), space_bytes, space_items)
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresStore

        return PostgresStore(url, space_bytes, space_items)
    raise SettingsError(
        f"--sync-store must be sqlite:///PATH or postgresql://…, not {url.split(':')[0]!r}"
    )
