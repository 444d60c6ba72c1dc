"""Synced history's server and a device, faked for the widget's tests: the real server's
rules (revisions, compare-and-set, tombstones, a cursor), and what crosses copied as JSON, as
ciphertext would be opaque: no object is shared between devices. An item's data is its
envelope as the worker seals it: the item's name and sequence number bound to its payload
(`seal`), so a server that moves or alters one makes it fail its tag, as in the browser."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from typing import Any

from scripted import run

from widget.conversation import Conversation
from widget.errors import WidgetError
from widget.history import History
from widget.key_value import MemoryKeyValue
from widget.snapshots import from_dict
from widget.sync.remote import Moved, Page, Pulled, Pushed
from widget.sync.rounds import Syncer
from widget.texts import Notice


def seal(item: str, seq: int, payload: dict[str, Any]) -> str:
    """What the worker's envelope binds (static/sync-seal.js), as JSON."""
    return json.dumps({"item": item, "seq": seq, "payload": payload})


def unseal(item: str, data: str) -> tuple[int, dict[str, Any]] | None:
    """The seq and payload sealed for `item`, or None when the tag fails (not ours, moved)."""
    try:
        envelope = json.loads(data)
    except ValueError:
        return None
    if not isinstance(envelope, dict) or envelope.get("item") != item:
        return None
    return envelope["seq"], envelope["payload"]


#: what `FakeServer.attack` can do
ATTACKS = ("rollback", "replay", "tombstone", "garbage", "swap", "stall")


def space_print(secret: str) -> str:
    """What the worker names a space by (a digest of its name, itself derived from the secret)."""
    return hashlib.sha256(f"print {secret}".encode()).hexdigest()[:32]


class FakeServer:
    """The server's store in memory: items with revisions, compare-and-set, tombstones."""

    def __init__(self) -> None:
        self.rev = 0
        self.items: dict[str, tuple[int, str | None]] = {}
        self.down = False
        self.tampered: set[str] = set()
        #: the next write is kept but its answer never reaches the device (the connection
        #: dropped on the way back: a train, a lift, a phone put to sleep)
        self.lose_next_answer = False
        #: the device and item of each answer lost so far
        self.answers_lost: list[tuple[object, str]] = []
        #: every version each item was written with, oldest first (what a server could serve
        #: again: a rollback, a replay)
        self.written: dict[str, list[str]] = {}
        #: a version 1 space still held for the move: item -> payload
        self.v1: dict[str, dict[str, Any]] | None = None
        #: the body limit (`--max-body-bytes`): a larger write is refused (413)
        self.max_bytes: int | None = None
        #: "Change sync code" wiped it: every request is refused (410)
        self.wiped = False
        #: the next read answers "more" from where it was asked (`attack`)
        self.stall_next = False
        #: pairing links' parts, and the secret each holds (taken once)
        self.pairings: dict[str, str] = {}
        self.numbers = itertools.count()

    def changes(self, since: int) -> list[tuple[str, int, str | None]]:
        return sorted(((i, r, d) for i, (r, d) in self.items.items() if r > since),
                      key=lambda x: x[1])  # fmt: skip

    def write(self, item: str, data: str | None, expect: int | None) -> Pushed:
        now = self.items.get(item)
        if (now[0] if now else None) != expect:
            return Pushed(item, now[0] if now else None, written=False)
        self.rev += 1
        self.items[item] = (self.rev, data)
        if data is not None:
            self.written.setdefault(item, []).append(data)
        return Pushed(item, self.rev, written=True)

    def serve(self, item: str, data: str | None) -> None:
        """The server puts `data` under `item` at a new revision, as no device wrote it."""
        self.rev += 1
        self.items[item] = (self.rev, data)

    def attack(self, kind: str, pick: int) -> None:
        """What a hostile server does between rounds (`ATTACKS`), to the `pick`-th item it
        holds: serve an older version again, replay one from before a deletion, make up a
        deletion, write garbage, swap two items, or answer "more" without moving its cursor."""
        names = sorted(self.items)
        if kind == "stall":
            self.stall_next = True
        if kind in ("rollback", "replay"):  # (of an item written more than once)
            names = [name for name in names if len(self.written.get(name, [])) >= 2]
        if not names:
            return
        item = names[pick % len(names)]
        if kind in ("rollback", "replay"):
            self.serve(item, self.written[item][-2])
        elif kind == "tombstone":
            self.serve(item, None)
        elif kind == "garbage":
            self.serve(item, "garbage")
        elif kind == "swap" and len(names) >= 2:
            other = names[(pick + 1) % len(names)]
            mine, theirs = self.items[item][1], self.items[other][1]
            self.serve(item, theirs)
            self.serve(other, mine)


class FakeRemote:
    """The worker's side of sync (it encrypts in the browser), speaking to `server`. The keys
    it derives stay in `keys` (the browser's IndexedDB, shared by its tabs): here the secret
    stands for them, as what a later visit takes up without the person typing it."""

    def __init__(self, server: FakeServer, keys: dict[str, str] | None = None) -> None:
        self.server = server
        self.keys = {} if keys is None else keys
        self.secret = ""

    async def open(self, secret: str, keep_as: str, fresh: bool = False) -> str:
        self.secret = self.keys[keep_as] = secret
        return space_print(secret)

    async def resume(self, kept_as: str) -> str | None:
        secret = self.keys.get(kept_as)
        if secret is None:
            return None
        self.secret = secret
        return space_print(secret)

    async def forget(self, kept_as: str) -> None:
        self.keys.pop(kept_as, None)
        self.secret = ""

    async def known_before(self, secret: str) -> bool:
        return False

    async def listen(self) -> None:
        pass

    async def pair(self, secret: str) -> str:
        link = f"pairing-{next(self.server.numbers)}"
        self.server.pairings[link] = secret
        return link

    async def unpair(self, link: str) -> str:
        secret = self.server.pairings.pop(link, None)
        if secret is None:
            raise WidgetError("This link to connect a device has expired or was used already.",
                              code="sync_pairing_gone")  # fmt: skip
        return secret

    async def wipe(self) -> None:
        if self.server.down:
            raise OSError("offline")
        self.server.items.clear()
        self.server.wiped = True

    async def pull(self, since: int) -> Page:
        if self.server.down:
            raise OSError("offline")
        if self.server.wiped:
            raise WidgetError("This sync code was changed on another device. Use the new code.",
                              code="sync_space_wiped")  # fmt: skip
        if self.server.stall_next:
            self.server.stall_next = False
            return Page([], since, more=True)
        items = [self._opened(i, r, d) for i, r, d in self.server.changes(since)]
        return Page(items, items[-1].rev if items else since, False)

    def _opened(self, item: str, rev: int, data: str | None) -> Pulled:
        if data is None:
            return Pulled(item, rev, None)
        opened = None if item in self.server.tampered else unseal(item, data)
        if opened is None:
            return Pulled(item, rev, None, readable=False)
        return Pulled(item, rev, opened[1], seq=opened[0])

    async def push(
        self, conversation_id: str, expect: int | None, seq: int, payload: dict[str, Any],
        tail: str = "",
    ) -> Pushed:  # fmt: skip
        return self._write(conversation_id + (f"-{tail}" if tail else ""), expect, seq, payload)

    async def drop(self, item: str, expect: int) -> Pushed:
        if self.server.down:
            raise OSError("offline")
        return self._answer(self.server.write(item, None, expect))

    async def delete(
        self, conversation_id: str, expect: int | None, seq: int, payload: dict[str, Any]
    ) -> Pushed:
        return self._write(conversation_id, expect, seq, payload)

    def _write(
        self, conversation_id: str, expect: int | None, seq: int, payload: dict[str, Any]
    ) -> Pushed:
        if self.server.down:
            raise OSError("offline")
        body = len(json.dumps(payload))
        if self.server.max_bytes is not None and body > self.server.max_bytes:
            raise WidgetError(f"The request body is larger than the limit of "
                              f"{self.server.max_bytes} bytes.", code="body_too_large")  # fmt: skip
        item = "i" + conversation_id
        return self._answer(self.server.write(item, seal(item, seq, payload), expect))

    async def moving(self) -> bool:
        return self.server.v1 is not None and self.keys.get("moving:" + self.secret) is None

    async def pull_moved(self) -> list[Moved]:
        if self.server.down:
            raise OSError("offline")
        return [Moved(i, p) for i, p in (self.server.v1 or {}).items()]

    async def moved(self) -> None:
        if self.server.down:
            raise OSError("offline")
        self.server.v1 = {}  # wiped: what moves later finds nothing there
        self.keys["moving:" + self.secret] = "moved"

    def _answer(self, pushed: Pushed) -> Pushed:
        if self.server.lose_next_answer:
            self.server.lose_next_answer = False
            self.server.answers_lost.append((self, pushed.item))
            raise OSError("connection reset")
        return pushed


class Device(FakeRemote):
    """One browser: its history and its side of sync."""

    def __init__(self, server: FakeServer, limit: int = 20) -> None:
        super().__init__(server)
        self.store = MemoryKeyValue()
        self.limit = limit
        self.heard: list[Notice] = []
        self.touched: set[str] = set()
        self.clock = iter(range(1_000, 10**9, 1_000))
        #: the conversation open in this device's tab
        self.open = ""
        self.reopen()

    def reopen(self) -> None:
        """The page is opened (again): what it holds in memory starts afresh from storage."""

        async def changed(ids: set[str]) -> None:
            self.touched |= ids

        self.history = History(self.store, limit=self.limit)
        run(self.history.load())
        self.syncer = Syncer(self.history, self, self.store, "chatkeep", changed,
                             self.heard.append, live=lambda: (self.open,))  # fmt: skip

    # -- what a person does --
    def keep(self, text: str, *, answers: int = 1, conversation_id: str | None = None) -> str:
        made = Conversation(clock=lambda: next(self.clock))
        if conversation_id is not None:
            snapshot = run(self.history.read(conversation_id))
            assert snapshot is not None
            made.import_snapshot(json.dumps(snapshot))
        history = made.get_history()
        for n in range(answers):
            history += [{"role": "user", "content": f"{text} {n}"},
                        {"role": "assistant", "content": f"about {text}"}]  # fmt: skip
        made.set_history(history)
        entry = self.history.entry(made.id)
        run(self.history.keep(made.snapshot(), named=bool(entry and entry.named)))
        return made.id

    def rename(self, conversation_id: str, title: str) -> None:
        stored = run(self.history.read(conversation_id))
        renamed = dataclasses.replace(from_dict(stored), title=title)
        run(self.history.keep(renamed, named=True))

    def sync(self) -> None:
        run(self.syncer.sync())

    def titles(self) -> list[str]:
        run(self.history.load())
        return sorted(e.title for e in self.history.entries())


def sealed_deletion(server: FakeServer, item: str) -> bool:
    """Whether the server holds a deletion sealed by a device as `item`."""
    data = server.items[item][1]
    opened = unseal(item, data) if data is not None else None
    return opened is not None and opened[1].get("deleted") is True


def held(server: FakeServer, conversation: str) -> str:
    """What the server holds of a conversation, its checkpoint and tails, as text."""
    prefix = "i" + conversation
    return "".join(data or "" for item, (_, data) in sorted(server.items.items())
                   if item == prefix or item.startswith(prefix + "-"))  # fmt: skip
