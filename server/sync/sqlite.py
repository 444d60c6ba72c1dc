"""The embedded store: one SQLite file, for one server (several worker processes share it).

SQLite's driver blocks, so every statement runs on one thread of the store's own, never on
the event loop. Writes take the database's write lock up front (`BEGIN IMMEDIATE`), so a
read-then-write never races another process; WAL lets reads go on meanwhile.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import sql
from .migrations import SCHEMA_TABLE, pending
from .store import Changes, decide


class SqliteStore:
    def __init__(self, path: str, space_bytes: int, space_items: int) -> None:
        self.path = path
        self.space_bytes = space_bytes
        self.space_items = space_items
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chatkeep-sync")
        self._db: sqlite3.Connection | None = None

    async def changes(self, space: str, since: int) -> Changes:
        def read(db: sqlite3.Connection) -> Changes:
            return sql.page(db.execute(sql.SINCE, (space, since)), since)

        return await self._run(read)

    async def write(self, space: str, item: str, data: bytes | None, expect: int | None) -> int:
        def write(db: sqlite3.Connection) -> int:
            db.execute("BEGIN IMMEDIATE")
            try:
                current = db.execute(sql.ITEM, (space, item)).fetchone()
                held = db.execute(sql.SPACE, (space,)).fetchone() or (0, 0)
                now = (current[0], current[1] or 0) if current else None
                items = None if now else (db.execute(sql.COUNT, (space,)).fetchone()[0],
                                          self.space_items)  # fmt: skip
                done = decide(now, held, data, expect, self.space_bytes, items)
                db.execute(sql.PUT_SPACE, (space, done.rev, done.space_bytes))
                db.execute(sql.PUT_ITEM, (space, item, done.rev, data))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return done.rev

        return await self._run(write)

    async def exists(self, space: str) -> bool:
        return await self._run(lambda db: db.execute(sql.SPACE, (space,)).fetchone() is not None)

    async def close(self) -> None:
        if self._db is not None:
            await self._run(lambda db: db.close())
            self._db = None
        self._thread.shutdown(wait=False)

    async def _run[T](self, action: Callable[[sqlite3.Connection], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, lambda: action(self._open()))

    def _open(self) -> sqlite3.Connection:
        """The connection (on the store's thread), the schema brought up to date once."""
        if self._db is None:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA busy_timeout=10000")
            db.execute("PRAGMA synchronous=NORMAL")
            migrate(db)
            self._db = db
        return self._db


def migrate(db: sqlite3.Connection) -> None:
    db.execute("BEGIN IMMEDIATE")  # one process migrates; the others wait, then find it done
    try:
        db.execute(SCHEMA_TABLE)
        row = db.execute("SELECT max(version) FROM sync_schema").fetchone()
        for number, statements in pending(row[0] or 0, {"bytes": "BLOB", "int": "INTEGER"}):
            for statement in statements:
                db.execute(statement)
            db.execute("INSERT INTO sync_schema (version) VALUES (?)", (number,))
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
