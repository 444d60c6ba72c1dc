"""A chat server with a sync store (SQLite or PostgreSQL), for the browser tests of synced
history and shared links, and a way to read (and spoil) the store's raw bytes."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from postgres import PostgresServer
from servers import RunningServer


class Synced:
    """A chat server with a sync store, and a way to read the store's raw bytes."""

    def __init__(self, kind: str, folder: Path) -> None:
        self.kind = kind
        self.postgres = PostgresServer() if kind == "postgres" else None
        self.path = folder / "sync.db"
        self.url = self.postgres.database() if self.postgres else f"sqlite:///{self.path}"
        # (every device of these tests is 127.0.0.1: one client, for the rate limit)
        self.chat = RunningServer("--sync-store", self.url, "--rate-limit", "600").wait_until_up()

    def raw_bytes(self) -> bytes:
        """Everything the store holds about conversations, as bytes."""
        if self.postgres is None:
            with contextlib.closing(sqlite3.connect(self.path)) as db:
                rows = db.execute("SELECT space, item, data FROM sync_items").fetchall()
            files = b"".join(p.read_bytes() for p in self.path.parent.glob("sync.db*"))
            return files + b"".join(bytes(r[2] or b"") + r[0].encode() for r in rows)
        import psycopg

        with psycopg.connect(self.url) as db:
            rows = db.execute("SELECT space, item, data FROM sync_items").fetchall()
        return b"".join(bytes(r[2] or b"") + r[0].encode() + r[1].encode() for r in rows)

    def tamper(self) -> None:
        """Flip one byte of every item's ciphertext, as a hostile or broken server might."""
        if self.postgres is None:
            with contextlib.closing(sqlite3.connect(self.path, timeout=10)) as db:
                rows = db.execute("SELECT space, item, data FROM sync_items").fetchall()
                for space, item, data in rows:
                    if data:
                        flipped = bytes([data[0] ^ 1]) + bytes(data[1:])
                        db.execute("UPDATE sync_items SET data = ? WHERE space = ? AND item = ?",
                                   (flipped, space, item))  # fmt: skip
                db.commit()
            return
        import psycopg

        with psycopg.connect(self.url) as db:
            db.execute("UPDATE sync_items SET data = set_byte(data, 0, get_byte(data, 0) # 1) "
                       "WHERE data IS NOT NULL")  # fmt: skip

    def close(self) -> None:
        self.chat.stop()
        if self.postgres is not None:
            self.postgres.stop()
