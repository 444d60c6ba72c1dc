"""The statements both backends run, with `?` for parameters (`for_postgres` converts)."""

from __future__ import annotations

from collections.abc import Iterable

from .store import PAGE_BYTES, PAGE_ITEMS, Changes, Item, Space, SpaceWiped

SPACE = "SELECT rev, bytes, version, wiped FROM sync_spaces WHERE space = ?"
ITEM = "SELECT rev, length(data) FROM sync_items WHERE space = ? AND item = ?"
COUNT = "SELECT count(*) FROM sync_items WHERE space = ?"
#: one row more than a page: whether `more` is true
SINCE = f"""SELECT item, rev, data FROM sync_items WHERE space = ? AND rev > ?
            ORDER BY rev LIMIT {PAGE_ITEMS + 1}"""
#: a write (reviving a space wiped long enough ago)
PUT_SPACE = """INSERT INTO sync_spaces (space, rev, bytes, version) VALUES (?, ?, ?, ?)
               ON CONFLICT (space) DO UPDATE SET rev = excluded.rev, bytes = excluded.bytes,
               wiped = NULL"""
WIPE_ITEMS = "DELETE FROM sync_items WHERE space = ?"
PAIRS_EXPIRED = "DELETE FROM sync_pairs WHERE expires <= ?"
PUT_PAIR = "INSERT INTO sync_pairs (id, data, expires) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
TAKE_PAIR = "DELETE FROM sync_pairs WHERE id = ? RETURNING data, expires"
SHARES_EXPIRED = "DELETE FROM sync_shares WHERE expires <= ?"
PUT_SHARE = """INSERT INTO sync_shares (id, data, token, expires) VALUES (?, ?, ?, ?)
               ON CONFLICT DO NOTHING"""
GET_SHARE = "SELECT data, token, expires FROM sync_shares WHERE id = ?"
DELETE_SHARE = "DELETE FROM sync_shares WHERE id = ?"
WIPE_SPACE = """INSERT INTO sync_spaces (space, rev, bytes, version, wiped) VALUES (?, 0, 0, ?, ?)
                ON CONFLICT (space) DO UPDATE SET bytes = 0, wiped = excluded.wiped"""
PUT_ITEM = """INSERT INTO sync_items (space, item, rev, data) VALUES (?, ?, ?, ?)
              ON CONFLICT (space, item) DO UPDATE SET rev = excluded.rev, data = excluded.data"""


def for_postgres(sql: str) -> str:
    return sql.replace("?", "%s").replace("length(data)", "octet_length(data)")


def page(rows: Iterable[tuple[str, int, bytes | None]], since: int) -> Changes:
    """One answer of `changes`: at most `PAGE_ITEMS` items and about `PAGE_BYTES` of data."""
    items: list[Item] = []
    size = 0
    more = False
    for item, rev, data in rows:
        if len(items) == PAGE_ITEMS or (items and size + len(data or b"") > PAGE_BYTES):
            more = True
            break
        items.append(Item(item, rev, bytes(data) if data is not None else None))
        size += len(data or b"")
    return Changes(items, items[-1].rev if items else since, more)


def space_of(row: tuple[int, int, int, int | None] | None, now: float) -> Space | None:
    """The space a row of `SPACE` describes; None for none, or one wiped long enough ago."""
    if row is None:
        return None
    found = Space(int(row[2]), None if row[3] is None else int(row[3]), int(row[0]))
    if found.wiped is not None and not found.gone(now):
        return None
    return found


def held(row: tuple[int, int, int, int | None] | None, now: float) -> tuple[int, int]:
    """The space's (last revision, bytes held) for a write, or `SpaceWiped`."""
    if row is None:
        return (0, 0)
    if row[3] is not None and Space(int(row[2]), int(row[3])).gone(now):
        raise SpaceWiped()
    return (int(row[0]), int(row[1]) if row[3] is None else 0)
