"""Synced history's server and a device, faked for the widget's tests: the real server's
rules (revisions, compare-and-set, tombstones, a cursor), and what crosses copied as JSON, as
ciphertext would be opaque: no object is shared between devices."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from scripted import run

from widget.conversation import Conversation
from widget.history import History
from widget.key_value import MemoryKeyValue
from widget.snapshots import from_dict
from widget.sync import Syncer
from widget.sync_remote import Page, Pulled, Pushed
from widget.texts import Notice


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

    def changes(self, since: int) -> list[tuple[str, int, str | None]]:
        return sorted(((i, r, d) for i, (r, d) in self.items.items() if r > since),
                      key=lambda x: x[1])  # fmt: skip

    def write(self, item: str, data: str | None, expect: int | None) -> Pushed:
        now = self.items.get(item)
        if (now[0] if now else None) != expect:
            return Pushed(item, now[0] if now else None, written=False)
        self.rev += 1
        self.items[item] = (self.rev, data)
        return Pushed(item, self.rev, written=True)


class FakeRemote:
    """The worker's side of sync (it encrypts in the browser), speaking to `server`. The keys
    it derives stay in `keys` (the browser's IndexedDB, shared by its tabs): here the secret
    stands for them, as what a later visit takes up without the person typing it."""

    def __init__(self, server: FakeServer, keys: dict[str, str] | None = None) -> None:
        self.server = server
        self.keys = {} if keys is None else keys
        self.secret = ""

    async def open(self, secret: str, keep_as: str) -> str:
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

    async def pull(self, since: int) -> Page:
        if self.server.down:
            raise OSError("offline")
        items = [Pulled(i, r, json.loads(d) if d else None, readable=i not in self.server.tampered)
                 for i, r, d in self.server.changes(since)]  # fmt: skip
        return Page(items, items[-1].rev if items else since, False)

    async def push(
        self, conversation_id: str, expect: int | None, payload: dict[str, Any]
    ) -> Pushed:
        if self.server.down:
            raise OSError("offline")
        return self._answer(self.server.write("i" + conversation_id, json.dumps(payload), expect))

    async def delete(self, item: str, expect: int) -> Pushed:
        if self.server.down:
            raise OSError("offline")
        return self._answer(self.server.write(item, None, expect))

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
