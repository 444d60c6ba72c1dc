"""The shared store: PostgreSQL through psycopg 3 (its async pool), for several servers.

A write locks its space's row first (`FOR UPDATE`), so the writes of one space take their
revisions one after another and become visible in that order: a device that read up to
revision n never misses one below it later. Spaces do not wait for each other. Each write
and wipe also says `NOTIFY chatkeep_sync, '<space>'` (sent when it commits); every server
listens, so the devices of a space hear of a write whichever server took it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from . import sql
from .migrations import SCHEMA_TABLE, pending
from .signals import SpaceSignals
from .store import Changes, Space, decide

log = logging.getLogger("chatkeep.sync")
CHANNEL = "chatkeep_sync"
#: seconds between tries to listen again after the listening connection broke
RELISTEN_SECONDS = 2.0

#: any fixed number: the lock under which one server migrates while the others wait
MIGRATION_LOCK = 0x43484B53


class PostgresStore:
    def __init__(self, url: str, space_bytes: int, space_items: int) -> None:
        self.url = url
        self.space_bytes = space_bytes
        self.space_items = space_items
        self.clock: Callable[[], float] = time.time
        self.signals = SpaceSignals()
        self._pool: Any = None
        self._listening: asyncio.Task[None] | None = None
        #: set once this server hears other servers' writes (its `LISTEN` in place)
        self.listening = asyncio.Event()

    async def changes(self, space: str, since: int) -> Changes:
        pool = await self._open()
        async with pool.connection() as db:
            rows = await (await db.execute(SINCE, (space, since))).fetchall()
        return sql.page(rows, since)

    async def write(
        self, space: str, item: str, data: bytes | None, expect: int | None, version: int = 2
    ) -> int:
        pool = await self._open()
        async with pool.connection() as db, db.transaction():
            await db.execute(NEW_SPACE, (space, version))
            row = await (await db.execute(SPACE_FOR_UPDATE, (space,))).fetchone()
            held = sql.held(row, self.clock())
            current = await (await db.execute(ITEM, (space, item))).fetchone()
            now = (current[0], current[1] or 0) if current else None
            items = None
            if now is None:
                counted = await (await db.execute(COUNT, (space,))).fetchone()
                items = (counted[0], self.space_items)
            done = decide(now, held, data, expect, self.space_bytes, items)
            await db.execute(PUT_SPACE, (space, done.rev, done.space_bytes, version))
            await db.execute(PUT_ITEM, (space, item, done.rev, data))
            await db.execute(NOTIFY, (CHANNEL, space))
        self.signals.notify(space)  # (at once here; the others hear it through NOTIFY)
        return done.rev

    async def space(self, space: str) -> Space | None:
        pool = await self._open()
        async with pool.connection() as db:
            row = await (await db.execute(SPACE, (space,))).fetchone()
        return sql.space_of(row, self.clock())

    async def wipe(self, space: str, version: int = 2) -> None:
        pool = await self._open()
        async with pool.connection() as db, db.transaction():
            await db.execute(NEW_SPACE, (space, version))
            await db.execute(SPACE_FOR_UPDATE, (space,))
            await db.execute(WIPE_ITEMS, (space,))
            await db.execute(WIPE_SPACE, (space, version, int(self.clock())))
            await db.execute(NOTIFY, (CHANNEL, space))
        self.signals.notify(space)

    async def put_pairing(self, pairing: str, data: bytes, expires: int) -> bool:
        pool = await self._open()
        async with pool.connection() as db, db.transaction():
            await db.execute(PAIRS_EXPIRED, (int(self.clock()),))
            done = await db.execute(PUT_PAIR, (pairing, data, expires))
            return bool(done.rowcount == 1)

    async def take_pairing(self, pairing: str) -> bytes | None:
        pool = await self._open()
        async with pool.connection() as db, db.transaction():
            row = await (await db.execute(TAKE_PAIR, (pairing,))).fetchone()
        return bytes(row[0]) if row is not None and row[1] > self.clock() else None

    async def put_share(self, share: str, data: bytes, token: str, expires: int) -> bool:
        pool = await self._open()
        async with pool.connection() as db, db.transaction():
            await db.execute(SHARES_EXPIRED, (int(self.clock()),))
            done = await db.execute(PUT_SHARE, (share, data, token, expires))
            return bool(done.rowcount == 1)

    async def share(self, share: str) -> tuple[bytes, str] | None:
        pool = await self._open()
        async with pool.connection() as db:
            row = await (await db.execute(GET_SHARE, (share,))).fetchone()
        return (bytes(row[0]), row[1]) if row is not None and row[2] > self.clock() else None

    async def delete_share(self, share: str) -> None:
        pool = await self._open()
        async with pool.connection() as db, db.transaction():
            await db.execute(DELETE_SHARE, (share,))

    async def close(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listening
            self._listening = None
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
            self._listening = asyncio.create_task(self._listen())
        return self._pool

    async def _listen(self) -> None:
        """Relay other servers' writes to this one's listeners, for as long as the store is
        open; a broken connection is opened again (meanwhile devices poll, as without)."""
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as db:
                    await db.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    async for heard in db.notifies():
                        self.signals.notify(heard.payload)
            except (OSError, psycopg.Error) as exc:
                self.listening.clear()
                log.warning("sync: not hearing other servers' writes for now (%s)", exc)
            await asyncio.sleep(RELISTEN_SECONDS)


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
SPACE_FOR_UPDATE = SPACE + " FOR UPDATE"
PUT_SPACE = sql.for_postgres(sql.PUT_SPACE)
PUT_ITEM = sql.for_postgres(sql.PUT_ITEM)
WIPE_ITEMS = sql.for_postgres(sql.WIPE_ITEMS)
WIPE_SPACE = sql.for_postgres(sql.WIPE_SPACE)
NEW_SPACE = "INSERT INTO sync_spaces (space, version) VALUES (%s, %s) ON CONFLICT DO NOTHING"
NOTIFY = "SELECT pg_notify(%s, %s)"
PAIRS_EXPIRED = sql.for_postgres(sql.PAIRS_EXPIRED)
PUT_PAIR = sql.for_postgres(sql.PUT_PAIR)
TAKE_PAIR = sql.for_postgres(sql.TAKE_PAIR)
SHARES_EXPIRED = sql.for_postgres(sql.SHARES_EXPIRED)
PUT_SHARE = sql.for_postgres(sql.PUT_SHARE)
GET_SHARE = sql.for_postgres(sql.GET_SHARE)
DELETE_SHARE = sql.for_postgres(sql.DELETE_SHARE)
