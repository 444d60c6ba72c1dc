"""The embedded store: one SQLite file, for one server (several worker processes share it).

SQLite's driver blocks, so every statement runs on one thread of the store's own, never on
the event loop. Writes take the database's write lock up front (`BEGIN IMMEDIATE`), so a
read-then-write never races another process; WAL lets reads go on meanwhile.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import sql
from .migrations import SCHEMA_TABLE, pending
from .signals import SpaceSignals
from .store import Changes, Space, decide


class SqliteStore:
    def __init__(self, path: str, space_bytes: int, space_items: int) -> None:
        self.path = path
        self.space_bytes = space_bytes
        self.space_items = space_items
        self.clock: Callable[[], float] = time.time
        #: what the events of this server's open devices wait on (one server: in process)
        self.signals = SpaceSignals()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chatkeep-sync")
        self._db: sqlite3.Connection | None = None

    async def changes(self, space: str, since: int) -> Changes:
        def read(db: sqlite3.Connection) -> Changes:
            return sql.page(db.execute(sql.SINCE, (space, since)), since)

        return await self._run(read)

    async def write(
        self, space: str, item: str, data: bytes | None, expect: int | None, version: int = 2
    ) -> int:
        def write(db: sqlite3.Connection) -> int:
            current = db.execute(sql.ITEM, (space, item)).fetchone()
            held = sql.held(db.execute(sql.SPACE, (space,)).fetchone(), self.clock())
            now = (current[0], current[1] or 0) if current else None
            items = None if now else (db.execute(sql.COUNT, (space,)).fetchone()[0],
                                      self.space_items)  # fmt: skip
            done = decide(now, held, data, expect, self.space_bytes, items)
            db.execute(sql.PUT_SPACE, (space, done.rev, done.space_bytes, version))
            db.execute(sql.PUT_ITEM, (space, item, done.rev, data))
            return done.rev

        rev = await self._run(lambda db: locked(db, write))
        self.signals.notify(space)
        return rev

    async def space(self, space: str) -> Space | None:
        row = await self._run(lambda db: db.execute(sql.SPACE, (space,)).fetchone())
        return sql.space_of(row, self.clock())

    async def wipe(self, space: str, version: int = 2) -> None:
        def wipe(db: sqlite3.Connection) -> None:
            db.execute(sql.WIPE_ITEMS, (space,))
            db.execute(sql.WIPE_SPACE, (space, version, int(self.clock())))

        await self._run(lambda db: locked(db, wipe))
        self.signals.notify(space)

    async def put_pairing(self, pairing: str, data: bytes, expires: int) -> bool:
        def put(db: sqlite3.Connection) -> bool:
            db.execute(sql.PAIRS_EXPIRED, (int(self.clock()),))
            return db.execute(sql.PUT_PAIR, (pairing, data, expires)).rowcount == 1

        return await self._run(lambda db: locked(db, put))

    async def take_pairing(self, pairing: str) -> bytes | None:
        def take(db: sqlite3.Connection) -> tuple[bytes, int] | None:
            row: tuple[bytes, int] | None = db.execute(sql.TAKE_PAIR, (pairing,)).fetchone()
            return row

        row = await self._run(lambda db: locked(db, take))
        return bytes(row[0]) if row is not None and row[1] > self.clock() else None

    async def put_share(self, share: str, data: bytes, token: str, expires: int) -> bool:
        def put(db: sqlite3.Connection) -> bool:
            db.execute(sql.SHARES_EXPIRED, (int(self.clock()),))
            return db.execute(sql.PUT_SHARE, (share, data, token, expires)).rowcount == 1

        return await self._run(lambda db: locked(db, put))

    async def share(self, share: str) -> tuple[bytes, str] | None:
        row: tuple[bytes, str, int] | None = await self._run(
            lambda db: db.execute(sql.GET_SHARE, (share,)).fetchone()
        )
        return (bytes(row[0]), row[1]) if row is not None and row[2] > self.clock() else None

    async def delete_share(self, share: str) -> None:
        await self._run(lambda db: locked(db, lambda db: db.execute(sql.DELETE_SHARE, (share,))))

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
    """The schema brought up to date; one process migrates, the others wait, then find it done."""

    def bring_up(db: sqlite3.Connection) -> None:
        db.execute(SCHEMA_TABLE)
        row = db.execute("SELECT max(version) FROM sync_schema").fetchone()
        for number, statements in pending(row[0] or 0, {"bytes": "BLOB", "int": "INTEGER"}):
            for statement in statements:
                db.execute(statement)
            db.execute("INSERT INTO sync_schema (version) VALUES (?)", (number,))

    locked(db, bring_up)


def locked[T](db: sqlite3.Connection, action: Callable[[sqlite3.Connection], T]) -> T:
    """`action` in one transaction that holds the write lock from its start (`BEGIN
    IMMEDIATE`), so a read-then-write never races another process."""
    db.execute("BEGIN IMMEDIATE")
    try:
        result = action(db)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return result
