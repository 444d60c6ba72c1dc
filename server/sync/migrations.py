"""The store's schema, as numbered migrations: a database is brought up to the newest one
when a server opens it, each migration once, in order, in its own transaction.

A migration is never edited once released: a change to the schema is a new number. SQL is
written once for both backends; `{bytes}` and `{int}` stand for the column types that differ.
"""

from __future__ import annotations

from collections.abc import Sequence

#: (version, statements); the newest last
MIGRATIONS: Sequence[tuple[int, Sequence[str]]] = (
    (
        1,
        (
            """CREATE TABLE sync_spaces (
                 space TEXT PRIMARY KEY,
                 rev {int} NOT NULL DEFAULT 0,
                 bytes {int} NOT NULL DEFAULT 0)""",
            """CREATE TABLE sync_items (
                 space TEXT NOT NULL,
                 item TEXT NOT NULL,
                 rev {int} NOT NULL,
                 data {bytes},
                 PRIMARY KEY (space, item))""",
            "CREATE INDEX sync_items_by_rev ON sync_items (space, rev)",
        ),
    ),
    (
        2,  # sync version 2: spaces checked by a token (those before stay version 1), wipes
        (
            "ALTER TABLE sync_spaces ADD COLUMN version {int} NOT NULL DEFAULT 1",
            "ALTER TABLE sync_spaces ADD COLUMN wiped {int}",
        ),
    ),
    (
        3,  # pairing links: a sealed code, taken once, for 10 minutes
        (
            """CREATE TABLE sync_pairs (
                 id TEXT PRIMARY KEY,
                 data {bytes} NOT NULL,
                 expires {int} NOT NULL)""",
        ),
    ),
    (
        4,  # share links: a conversation sealed with a key only the link holds
        (
            """CREATE TABLE sync_shares (
                 id TEXT PRIMARY KEY,
                 data {bytes} NOT NULL,
                 token TEXT NOT NULL,
                 expires {int} NOT NULL)""",
        ),
    ),
)

SCHEMA_TABLE = "CREATE TABLE IF NOT EXISTS sync_schema (version INTEGER NOT NULL)"


def pending(version: int, types: dict[str, str]) -> list[tuple[int, list[str]]]:
    """The migrations after `version`, their SQL in the backend's types."""
    return [
        (number, [sql.format(**types) for sql in statements])
        for number, statements in MIGRATIONS
        if number > version
    ]
