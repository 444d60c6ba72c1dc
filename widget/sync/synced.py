"""Synced history as the page drives it: connecting with a code or a site's key, rounds of
sync on the page's cues and after each change, the status, and stopping.

This is the page's second facade (`widget.operations` reads its public async methods as
operations, beside `Conversations`'): it owns the sync code kept on this device and the
`Syncer` that merges, and tells the page the state in a `sync` event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..claims import Locks
from ..conversations import Conversations
from ..errors import WidgetError
from ..history import History
from ..key_value import KeyValue
from ..snapshots import from_dict
from ..sync_hook import NOT_SYNCED
from ..texts import Notice
from .device import DeviceSpace
from .status import ERROR, OFF, OFFLINE, REFUSALS, SYNCED, SYNCING, WIPED

#: a change is sent this long after it was kept, so a burst of changes travels once
AFTER_CHANGE_SECONDS = 1.5


# The sync engine (widget/sync/rounds.py) is imported when a device connects: a start only builds
# this facade, and every module imported before a first visit is ready is on its path.
if TYPE_CHECKING:
    from .device import SyncRemote
    from .rounds import Syncer

#: a site's `syncKey` is at least this long, of at least `KEY_DISTINCT` different characters
KEY_LENGTH, KEY_DISTINCT = 32, 16


class SyncedHistory:
    def __init__(
        self,
        conversations: Conversations,
        remote: SyncRemote,
        *,
        offered: bool,
        emit: Callable[[str, Any], None],
        locks: Locks | None = None,
    ) -> None:
        history = conversations.keeper.history
        self.conversations = conversations
        self.remote = remote
        #: the server keeps synced history, and history is in this browser's storage
        self.offered = offered and isinstance(history, History)
        self.emit = emit
        #: one round at a time in this browser: two tabs' rounds at once would each take
        #: another device's change, and the second would take the first's for a conflict
        self.locks = locks
        self.state = OFF
        self._history = history if isinstance(history, History) else None
        self._store: KeyValue | None = self._history.store if self._history else None
        #: which space this device syncs with, noted in its storage (keys in the worker)
        self._device = DeviceSpace(self._history, remote) if self._history else None
        self._syncer: Syncer | None = None
        self._applying = False
        self._round = asyncio.Lock()
        self._soon: asyncio.Task[None] | None = None
        self._print: str | None = None  # the space's, connected with
        #: the code made or typed in this visit, shown again by "Sync devices" (never stored)
        self._code: str | None = None
        #: the server's refusal the person was last told, shown with the state until a round
        #: goes through (the alert itself goes with the person's next action)
        self._reason: Notice | None = None
        conversations.keeper.followers.append(self._changed_elsewhere)

    # -- operations --------------------------------------------------------------------------

    async def sync_status(self) -> dict[str, Any]:
        """Whether sync can be used here, and its state (connecting again after a reload)."""
        device = self._device if self.offered and self._syncer is None else None
        if device is not None and (space := await device.resume()):
            await self._connect(space)
        reason = self._reason if self.state == ERROR else None
        return {"offered": self.offered, "connected": self._syncer is not None,
                "state": self.state, "reason": reason}  # fmt: skip

    async def start_sync(
        self, code: str | None = None, pairing: str | None = None
    ) -> dict[str, Any]:
        """Connect with a code typed on this device, or a pairing link's part opened here, or
        a new code to show ("Sync devices"); returns the code, grouped for reading, and a
        pairing link's part for another device (`pairing`: once, for 10 minutes). While
        syncing, "Sync devices" shows the code only if it was made or typed in this visit: no
        storage keeps it (empty otherwise, and no pairing)."""
        self._require_offered()
        assert self._device is not None
        if not code and not pairing and self._syncer is not None:
            return await self._device.shown(self._code)
        secret, fresh = await self._device.secret_of(code, pairing)
        await self._connect_with(secret, fresh=fresh)
        self._code = secret
        await self.sync_now()
        return await self._device.shown(secret)

    async def change_sync_code(self) -> dict[str, Any]:
        """ "Change sync code" (a code leaked, or a device was lost): a last round on the old
        space, which is then wiped (the devices still using it are told, and stop); a new
        code, to which everything here is sent; returns it, grouped for reading."""
        self._require_offered()
        if self._syncer is None:
            raise WidgetError.said("sync_off")
        assert self._device is not None
        await self.sync_now()
        async with self._round:
            await self.remote.wipe()
        secret, fresh = await self._device.secret_of(None, None)  # a new code
        await self._connect_with(secret, fresh=fresh)
        self._code = secret
        await self.sync_now()
        return await self._device.shown(secret)

    async def use_sync_key(self, key: str) -> None:
        """A per-person secret from a site that signs people in (`element.syncKey`): long,
        and not a word (a short or repetitive one is found from the space's name)."""
        self._require_offered()
        if len(key) < KEY_LENGTH or len(set(key)) < KEY_DISTINCT:
            raise WidgetError.said("sync_key_short", length=KEY_LENGTH, distinct=KEY_DISTINCT)
        await self._connect_with(key)
        self._code = None
        await self.sync_now()

    async def stop_sync(self) -> None:
        """This device leaves: its history stays, nothing more travels. A last round first
        sends what waits here (a forget above all), if the server answers; then what this
        device knew of the server goes, its keys too. Forgets it could not send (the server
        unreachable) stay marked for this same space: they go if this device syncs with it
        again."""
        await self._leave_space(sign_out=False)

    async def sign_out(self) -> None:
        """The site signed its person out (`element.syncKey = ""`): as "Stop syncing", and the
        conversations that came from or went to their synced history leave this browser too
        (they stay in that history), so the next person here neither sees nor sends them; so
        does one kept while signed in that the last round could not send (the server away), for
        the same reason."""
        await self._leave_space(sign_out=True)

    async def sync_now(self) -> None:
        """A round now (the page's cues: opened, focused, every 30 s, back online)."""
        if self._syncer is None:
            return
        async with self._round:
            if self._syncer is not None:  # (not stopped while this one waited)
                await self._one_round(self._syncer)

    # -- inside ---------------------------------------------------------------------------------

    async def _one_round(self, syncer: Syncer) -> None:
        lock = "sync:" + (self._history.prefix if self._history else "")
        if self.locks is not None and not await self.locks.claim(lock):
            return self._round_soon()  # another tab's round runs: this one follows
        self._set(SYNCING)
        self._applying = True
        try:
            await syncer.sync()
        except WidgetError as exc:
            if exc.code == WIPED:
                return await self._wiped(exc)
            if exc.code in REFUSALS:
                if self._reason is None or self._reason["code"] != exc.code:
                    self.conversations.listener.alert(exc.notice())  # once while it lasts
                self._reason = exc.notice()
                return self._set(ERROR)
            return self._set(OFFLINE)
        except Exception:
            return self._set(OFFLINE)  # no answer at all: the changes wait here
        finally:
            self._applying = False
            if self.locks is not None:
                self.locks.release(lock)
        self._reason = None
        self._set(SYNCED)

    async def _wiped(self, refusal: WidgetError) -> None:
        """The code was changed on another device: this one stops syncing, keeping its
        history (the person types the new code to sync again)."""
        self.conversations.listener.alert(refusal.notice())
        self._syncer = None
        if self._device is not None:
            await self._device.leave(self._print, sign_out=False)
        self._leave()

    def _leave(self) -> None:
        self._syncer, self._print, self._reason, self._code = None, None, None, None
        if self._history is not None:
            self._history.sync = NOT_SYNCED  # no longer sent anywhere
        self._set(OFF)

    async def _changed_elsewhere(self, key: str) -> None:
        """Another tab of this browser connected or stopped syncing: this one follows, so a
        device that stopped in one tab sends nothing more from another."""
        device = self._device
        if device is None or key != device.device_key or not self.offered:
            return
        marked = await device.marked()
        if marked == self._print:
            return
        if marked is None:
            self._syncer = None
            async with self._round:  # (that tab cleared the keys)
                self._leave()
        elif await device.resume() == marked:
            await self._connect(marked)
            self._round_soon()

    async def _connect_with(self, secret: str, *, fresh: bool = False) -> None:
        assert self._device is not None
        await self._connect(await self._device.open(secret, fresh=fresh))

    async def _connect(self, space: str) -> None:
        assert self._history is not None and self._store is not None
        from .rounds import Syncer  # when connecting: see above

        self._print = space
        self._syncer = Syncer(
            self._history, self.remote, self._store, self._history.prefix, self._taken,
            self.conversations.listener.alert, live=self.conversations.keeper.live,
            heard=self._heard,
        )  # fmt: skip
        await self.remote.listen()

    async def _leave_space(self, *, sign_out: bool) -> None:
        syncer, self._syncer = self._syncer, None  # no other round starts from now on
        space = self._print
        async with self._round:  # one running ends first: nothing it writes outlives this
            if syncer is not None:
                await self._one_round(syncer)
            synced = await self._device.leave(space, sign_out=sign_out) if self._device else []
            if sign_out and self._history is not None:  # (while signed in, all of it syncs)
                synced = [entry.id for entry in self._history.entries()]
            self._leave()
            for conversation in synced:  # not sent anywhere: this device no longer syncs
                if self._history is not None and self._history.entry(conversation):
                    await self._history.forget(conversation)
            if synced:
                self.conversations.keeper.list()

    def _heard(self, conversation_id: str, forgotten: bool) -> None:
        """History kept, pinned or forgot a conversation: send it soon (not our own round)."""
        if self._syncer is None or self._applying:
            return  # (a forget is marked in storage by the batch that made it: `rounds`)
        self._round_soon()

    def _round_soon(self) -> None:
        """A round in a moment (one for a burst of changes)."""
        try:
            current = asyncio.current_task()
        except RuntimeError:
            return  # no event loop (driven by hand, in tests): the next round sends it
        if self._soon is None or self._soon.done() or self._soon is current:
            self._soon = asyncio.ensure_future(self._after_change())

    async def _after_change(self) -> None:
        await asyncio.sleep(AFTER_CHANGE_SECONDS)
        await self.sync_now()

    async def _taken(self, conversation_ids: set[str]) -> None:
        """A round changed these here: the open one is shown anew when it sits idle."""
        keeper = self.conversations.keeper
        live = self.conversations.conversation
        if live.id in conversation_ids and not live.busy and self._history is not None:
            entry = self._history.entry(live.id)
            data = await self._history.read(live.id) if entry else None
            keeper.load(from_dict(data) if data else None, entry)
        keeper.list()

    def _require_offered(self) -> None:
        if not self.offered:
            raise WidgetError.said("sync_off")

    def _set(self, state: str) -> None:
        """The state for the page (`sync` event), with `ERROR` the server's reason."""
        if state != self.state:
            self.state = state
            self.emit("sync", {"state": state, "reason": self._reason if state == ERROR else None})
