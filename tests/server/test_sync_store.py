"""The sync store's promises, one suite over both backends (SQLite and a real PostgreSQL)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest
from postgres import PostgresServer, needs_postgres

from server.sync import Conflict, OverQuota, SyncStore, TooManyItems, open_store
from server.sync.postgres import PostgresStore
from server.sync.store import (
    MIN_ITEM_BYTES,
    PAGE_ITEMS,
    SPACE_ITEMS,
    WIPED_SECONDS,
    Space,
    SpaceWiped,
)

QUOTA = 10_000


def with_store(
    url: str, body: Callable[[SyncStore], Awaitable[None]], quota: int = QUOTA,
    items: int = SPACE_ITEMS,
) -> None:  # fmt: skip
    """Run `body` on a store opened on `url` (in an event loop of its own), then close it."""

    async def run() -> None:
        opened = open_store(url, quota, items)
        try:
            await body(opened)
        finally:
            await opened.close()

    asyncio.run(run())


def space() -> str:
    return uuid.uuid4().hex


def test_a_write_names_the_revision_it_replaces(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        where = space()
        first = await store.write(where, "conv1", b"one", None)
        with pytest.raises(Conflict) as created_twice:
            await store.write(where, "conv1", b"again", None)
        assert created_twice.value.current == first
        second = await store.write(where, "conv1", b"two", first)
        assert second > first
        with pytest.raises(Conflict) as stale:
            await store.write(where, "conv1", b"lost?", first)
        assert stale.value.current == second
        with pytest.raises(Conflict) as missing:
            await store.write(where, "never", b"x", 7)
        assert missing.value.current is None
        [item] = (await store.changes(where, 0)).items
        assert (item.id, item.rev, item.data) == ("conv1", second, b"two")

    with_store(store_url, body)


def test_changes_since_a_cursor_are_only_the_newer_ones(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        where = space()
        for name in ("a", "b", "c"):
            await store.write(where, name, name.encode(), None)
        everything = await store.changes(where, 0)
        assert [i.id for i in everything.items] == ["a", "b", "c"]
        assert not everything.more
        rev_b = everything.items[1].rev
        await store.write(where, "b", b"b2", rev_b)
        later = await store.changes(where, everything.cursor)
        assert [(i.id, i.data) for i in later.items] == [("b", b"b2")]
        idle = await store.changes(where, later.cursor)
        assert idle.items == [] and idle.cursor == later.cursor

    with_store(store_url, body)


def test_a_deletion_is_a_tombstone_that_other_devices_see(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        where = space()
        rev = await store.write(where, "gone", b"x" * 100, None)
        cursor = (await store.changes(where, 0)).cursor
        tomb = await store.write(where, "gone", None, rev)
        [seen] = (await store.changes(where, cursor)).items
        assert (seen.id, seen.rev, seen.data) == ("gone", tomb, None)
        with pytest.raises(Conflict):  # a tombstone is a revision like any other
            await store.write(where, "gone", b"back", None)
        assert await store.write(where, "gone", b"back", tomb) > tomb

    with_store(store_url, body)


def test_a_space_over_its_quota_is_refused_and_keeps_what_it_had(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        where = space()
        big = await store.write(where, "big", b"x" * 6_000, None)
        with pytest.raises(OverQuota) as refused:
            await store.write(where, "more", b"y" * 5_000, None)
        assert refused.value.limit == QUOTA
        assert [i.id for i in (await store.changes(where, 0)).items] == ["big"]
        smaller = await store.write(where, "big", b"x" * 2_000, big)  # replacing frees its bytes
        await store.write(where, "more", b"y" * 5_000, None)
        await store.write(where, "big", None, smaller)  # a deletion frees them too
        await store.write(where, "third", b"z" * 4_000, None)

    with_store(store_url, body)


def test_spaces_are_apart(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        mine, theirs = space(), space()
        await store.write(mine, "same-id", b"mine", None)
        assert (await store.changes(theirs, 0)).items == []
        await store.write(theirs, "same-id", b"theirs", None)  # its own item, no conflict
        [item] = (await store.changes(mine, 0)).items
        assert item.data == b"mine"

    with_store(store_url, body)


def test_a_long_history_comes_in_pages(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        where = space()
        for n in range(PAGE_ITEMS + 3):
            await store.write(where, f"c{n}", b"", None)
        first = await store.changes(where, 0)
        assert len(first.items) == PAGE_ITEMS and first.more
        rest = await store.changes(where, first.cursor)
        assert [i.id for i in rest.items] == [f"c{n}" for n in range(PAGE_ITEMS, PAGE_ITEMS + 3)]
        assert not rest.more

    with_store(store_url, body, quota=(PAGE_ITEMS + 3) * MIN_ITEM_BYTES)


def test_empty_items_and_tombstones_count_against_the_space(store_url: str) -> None:
    """They counted nothing: a client filled a space with millions of rows."""

    async def body(store: SyncStore) -> None:
        where = space()
        revs = [await store.write(where, f"e{n}", b"", None) for n in range(4)]
        with pytest.raises(OverQuota):
            await store.write(where, "e4", b"", None)
        await store.write(where, "e0", None, revs[0])  # a deletion still goes (it frees nothing)
        with pytest.raises(OverQuota):
            await store.write(where, "e5", b"", None)

    with_store(store_url, body, quota=4 * MIN_ITEM_BYTES)


def test_a_space_holds_at_most_so_many_items_tombstones_included(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        where = space()
        first = await store.write(where, "a", b"1", None)
        await store.write(where, "b", b"2", None)
        await store.write(where, "a", None, first)  # a tombstone is still an item
        with pytest.raises(TooManyItems) as crowded:
            await store.write(where, "c", b"3", None)
        assert crowded.value.limit == 2
        assert await store.write(where, "b", b"changed", first + 1) > 0  # an item held: fine
        assert await store.space(where) is not None and await store.space(space()) is None

    with_store(store_url, body, items=2)


def test_many_writers_on_one_space_never_lose_an_update(store_url: str) -> None:
    """Twelve writers (over three store objects: three servers, or three processes on one
    file) each add to one counter 10 times, reading, then writing with the revision read,
    and on a conflict reading again. Every increment lands."""
    stores = [open_store(store_url, QUOTA) for _ in range(3)]
    where = space()

    async def add_ten(store: SyncStore) -> None:
        for _ in range(10):
            while True:
                [item] = [i for i in (await store.changes(where, 0)).items if i.id == "counter"]
                try:
                    await store.write(where, "counter", str(int(item.data or b"0") + 1).encode(),
                                      item.rev)  # fmt: skip
                    break
                except Conflict:
                    await asyncio.sleep(0)

    async def race() -> None:
        try:
            await stores[0].write(where, "counter", b"0", None)
            await asyncio.gather(*(add_ten(stores[n % 3]) for n in range(12)))
            [item] = (await stores[1].changes(where, 0)).items
            assert item.data == b"120"
            assert item.rev == 121  # one revision per write, none skipped or repeated
        finally:
            for opened in stores:
                await opened.close()

    asyncio.run(race())


def test_the_schema_is_made_once_and_recorded(store_url: str) -> None:
    async def written(store: SyncStore) -> None:
        await store.write(space(), "x", b"1", None)

    for _ in range(2):  # a second server opening the same database migrates nothing
        with_store(store_url, written)


def test_a_store_url_of_another_kind_is_refused_with_a_sentence() -> None:
    with pytest.raises(ValueError, match=r"sqlite:///PATH or postgresql://"):
        open_store("mysql://db/chat", QUOTA)


def test_a_wiped_space_holds_nothing_and_is_gone_for_thirty_days(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        where, now = space(), [1_000_000.0]
        store.clock = lambda: now[0]
        first = await store.write(where, "a", b"1" * 300, None)
        await store.write(where, "b", b"2", None)
        await store.wipe(where)
        assert await store.space(where) == Space(2, 1_000_000, first + 1)
        assert (await store.changes(where, 0)).items == []
        with pytest.raises(SpaceWiped):
            await store.write(where, "c", b"3", None)
        now[0] += WIPED_SECONDS - 1
        assert (await store.space(where)) is not None
        now[0] += 1  # thirty days on, the id is free again, as if never used
        assert await store.space(where) is None
        again = await store.write(where, "a", b"new", None)
        assert again > first and await store.space(where) == Space(2, None, again)
        assert [(i.id, i.data) for i in (await store.changes(where, 0)).items] == [("a", b"new")]

    with_store(store_url, body)


def test_a_space_keeps_the_version_it_was_made_with(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        old, new = space(), space()
        rev = await store.write(old, "a", b"1", None, version=1)
        await store.write(old, "a", b"2", rev, version=2)  # (the version is the space's)
        await store.write(new, "a", b"1", None)
        assert (await store.space(old), await store.space(new)) == (
            Space(1, None, rev + 1),
            Space(2, None, 1),
        )

    with_store(store_url, body)


def test_writes_and_wipes_wake_the_devices_listening_to_that_space(store_url: str) -> None:
    async def body(store: SyncStore) -> None:
        where, other = space(), space()
        with store.signals.listen(where) as changed, store.signals.listen(other) as quiet:
            await store.write(where, "a", b"1", None)
            await asyncio.wait_for(changed.wait(), 10)
            changed.clear()
            await store.wipe(where)
            await asyncio.wait_for(changed.wait(), 10)
            assert not quiet.is_set()
        assert store.signals.listeners == 0

    with_store(store_url, body)


@needs_postgres
def test_over_postgres_a_write_through_one_server_wakes_another_s_devices(
    postgres: PostgresServer,
) -> None:
    url = postgres.database()

    async def run() -> None:
        one, two = PostgresStore(url, QUOTA, SPACE_ITEMS), PostgresStore(url, QUOTA, SPACE_ITEMS)
        try:
            where = space()
            await two.space(where)  # (opened: it listens from now on)
            await asyncio.wait_for(two.listening.wait(), 10)
            with two.signals.listen(where) as changed:
                await one.write(where, "a", b"1", None)
                await asyncio.wait_for(changed.wait(), 10)
        finally:
            await one.close()
            await two.close()

    asyncio.run(run())
