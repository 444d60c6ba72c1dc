"""The shared store: PostgreSQL through psycopg 3 (its async pool), for several servers.

A write locks its space's row first (`FOR UPDATE`), so the writes of one space take their
revisions one after another and become visible in that order: a device that read up to
revision n never misses one below it later. Spaces do not wait for each other.
"""

from __future__ import annotations

from typing import Any

from . import sql
from .migrations import SCHEMA_TABLE, pending
from .store import Changes, decide

#: any fixed number: the lock under which one server migrates while the others wait
MIGRATION_LOCK = 0x43484B53


class PostgresStore:
    def __init__(self, url: str, space_bytes: int, space_items: int) -> None:
        self.url = url
        self.space_bytes = space_bytes
        self.space_items = space_items
        self._pool: Any = None

    async def changes(self, space: str, since: int) -> Changes:
        pool = await self._open()
        async with pool.connection() as db:
            rows = await (await db.execute(SINCE, (space, since))).fetchall()
        return sql.page(rows, since)

    async def write(self, space: str, item: str, data: bytes | None, expect: int | None) -> int:
        pool = await self._open()
        async with pool.connection() as db, db.transaction():
            await db.execute(NEW_SPACE, (space,))
            held = await (await db.execute(LOCK_SPACE, (space,))).fetchone()
            current = await (await db.execute(ITEM, (space, item))).fetchone()
            now = (current[0], current[1] or 0) if current else None
            items = None
            if now is None:
                counted = await (await db.execute(COUNT, (space,))).fetchone()
                items = (counted[0], self.space_items)
            done = decide(now, held, data, expect, self.space_bytes, items)
            await db.execute(PUT_SPACE, (space, done.rev, done.space_bytes))
            await db.execute(PUT_ITEM, (space, item, done.rev, data))
        return done.rev

    async def exists(self, space: str) -> bool:
        pool = await self._open()
        async with pool.connection() as db:
            return await (await db.execute(SPACE, (space,))).fetchone() is not None

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _open(self) -> Any:
        if self._pool is None:
            from psycopg_pool import AsyncConnectionPool

            pool = AsyncConnectionPool(self.url, min_size=1, max_size=10, open=False)
            await pool.open(wait=True, timeout=10)
            async with pool.connection() as db:
                await migrate(db)
            self._pool = pool
        return self._pool


async def migrate(db: Any) -> None:
    async with db.transaction():
        await db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await db.execute(SCHEMA_TABLE)
        row = await (await db.execute("SELECT max(version) FROM sync_schema")).fetchone()
        for number, statements in pending(row[0] or 0, {"bytes": "BYTEA", "int": "BIGINT"}):
            for statement in statements:
                await db.execute(statement)
            await db.execute("INSERT INTO sync_schema (version) VALUES (%s)", (number,))


SINCE = sql.for_postgres(sql.SINCE)
ITEM = sql.for_postgres(sql.ITEM)
COUNT = sql.for_postgres(sql.COUNT)
SPACE = sql.for_postgres(sql.SPACE)
PUT_SPACE = sql.for_postgres(sql.PUT_SPACE)
PUT_ITEM = sql.for_postgres(sql.PUT_ITEM)
NEW_SPACE = "INSERT INTO sync_spaces (space) VALUES (%s) ON CONFLICT DO NOTHING"
LOCK_SPACE = "SELECT rev, bytes FROM sync_spaces WHERE space = %s FOR UPDATE"
