"""Which space this browser syncs with, and what its storage notes of it.

The worker derives the keys from a code (or a site's key) and keeps them, non-extractable, in
IndexedDB (`SyncRemote`); the page's storage holds only the space's print (`<prefix>:sync:device`),
what this device knows of the server (`:state`), forget marks (`:forgot:<id>`) and, after a
stop with forgets not sent, which space they wait for (`:left`). No storage holds the code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..errors import WidgetError
from ..history import History
from ..protocol import storage_key
from .codes import grouped, new_code, read_code

if TYPE_CHECKING:
    from .remote import Remote

    class SyncRemote(Remote, Protocol):
        async def open(self, secret: str, keep_as: str, fresh: bool = False) -> str:
            """Derive the space and the keys from the person's secret, and keep the keys
            (never the secret) under `keep_as` for later visits; the space's print. A secret
            not `fresh` (typed, or a site's) may have named a version 1 space: the next
            round moves from it."""

        async def known_before(self, secret: str) -> bool:
            """Whether `secret` named a version 1 space (codes made then have no check)."""

        async def resume(self, kept_as: str) -> str | None:
            """Take up the keys kept under `kept_as`: the space's print, or None."""

        async def forget(self, kept_as: str) -> None:
            """The keys kept under `kept_as` go."""

        async def listen(self) -> None:
            """From now on, the server's events about this space start rounds (`syncNow`)."""

        async def wipe(self) -> None:
            """Everything the space holds goes; it answers 410 for 30 days."""

        async def pair(self, secret: str) -> str:
            """A pairing link's part for `secret` (the server keeps it sealed, once, 10 min)."""

        async def unpair(self, link: str) -> str:
            """The secret a pairing link's part holds, taken from the server once."""


class DeviceSpace:
    """This device's space, as `history`'s storage notes it and the worker keeps its keys."""

    def __init__(self, history: History, remote: SyncRemote) -> None:
        self.history = history
        self.remote = remote
        prefix = history.prefix
        self.keys = storage_key("sync", prefix)  # what every note starts with
        #: the print of the space this device syncs with (what other tabs follow)
        self.device_key = storage_key("sync", prefix, "device")
        self.keys_name = prefix or "chatkeep"
        #: where versions before 2.1 kept the code itself: moved into keys on the next visit
        self.legacy_key = storage_key("sync", prefix, "secret")
        #: after "Stop syncing" with forgets not sent: which space they wait for
        self.left_key = storage_key("sync", prefix, "left")
        self.state_key = storage_key("sync", prefix, "state")  # (`widget.sync.rounds`)
        self.marks = storage_key("sync", prefix, "forgot:")  # (`widget.sync.state`)

    async def secret_of(self, code: str | None, pairing: str | None) -> tuple[str, bool]:
        """The secret a person gave: a code typed, or the one a pairing link's part holds
        (taken from the server, once), or else a new code; and whether it is new (`fresh`).
        A code that fails its check is refused unless it named a space before version 2
        (codes made then have none)."""
        if pairing:
            code = await self.remote.unpair(pairing)
        if not code:
            return new_code(), True
        secret, checked = read_code(code)
        if not checked and not await self.remote.known_before(secret):
            raise WidgetError.said("sync_code_mistyped")
        return secret, False

    async def shown(self, code: str | None) -> dict[str, Any]:
        """What "Sync devices" shows: the code, grouped, and a pairing link's part ("" when
        the server cannot keep one now: the code alone then); nothing without a code."""
        if not code:
            return {"code": "", "pairing": ""}
        try:
            pairing = await self.remote.pair(code)
        except Exception:  # (offline, or refused: the code still works)
            pairing = ""
        return {"code": grouped(code), "pairing": pairing}

    async def marked(self) -> str | None:
        """The print this browser's storage notes (another tab may have changed it)."""
        return await self.history.store.get(self.device_key)

    async def resume(self) -> str | None:
        """The space to connect with again (a reload, a new visit, another tab), its keys
        taken up; a code kept by an earlier version becomes keys, and leaves storage."""
        store = self.history.store
        legacy = await store.get(self.legacy_key)
        if legacy:
            space = await self.remote.open(legacy, self.keys_name)
            await store.write([(self.legacy_key, None), (self.device_key, space)])
            return space
        marked = await store.get(self.device_key)
        if marked and await self.remote.resume(self.keys_name) == marked:
            return marked
        return None

    async def open(self, secret: str, *, fresh: bool = False) -> str:
        """Keys for `secret` (`fresh`: made in this visit), kept by the worker, and its space
        noted here. Another space than before is another space: what this device knew of the
        last one (how far it had read, what it had sent) does not hold, and it starts afresh."""
        space = await self.remote.open(secret, self.keys_name, fresh)
        kept = await self.notes()
        stale = [] if kept.get(self.device_key) == space else list(kept)
        if kept.get(self.left_key) == space:  # the space left, again:
            stale = [key for key in stale if not key.startswith(self.marks)]  # its forgets go
        await self.history.store.write([*((key, None) for key in stale),
                                        (self.device_key, space)])  # fmt: skip
        return space

    async def leave(self, space: str | None, *, sign_out: bool) -> list[str]:
        """This device no longer syncs: its notes and its keys go. Forgets not sent stay
        marked for this same space (not after a sign-out: the next person's space is not
        theirs). With `sign_out`, the ids of the conversations it had synced."""
        from .state import SyncState

        kept = await self.notes()
        synced = list(SyncState.from_json(kept.get(self.state_key)).items) if sign_out else []
        marks = [k for k in kept if k.startswith(self.marks)] if space and not sign_out else []
        left = [(self.left_key, space)] if marks and space else []
        await self.history.store.write([*((k, None) for k in kept if k not in marks), *left])
        await self.remote.forget(self.keys_name)
        return synced

    async def notes(self) -> dict[str, str]:
        """This device's notes of synced history (the space, the state, the marks), and values."""
        return dict(await self.history.store.read_all(self.keys))
