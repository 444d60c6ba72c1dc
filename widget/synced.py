"""Synced history as the page drives it: connecting with a code or a site's key, rounds of
sync on the page's cues and after each change, the status, and stopping.

This is the page's second facade (`widget.operations` reads its public async methods as
operations, beside `Conversations`'): it owns the sync code kept on this device and the
`Syncer` that merges, and tells the page the state in a `sync` event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .claims import Locks
from .conversations import Conversations
from .errors import WidgetError
from .history import History, no_marks
from .key_value import KeyValue
from .protocol import storage_key
from .snapshots import from_dict
from .sync_codes import grouped, new_code, read_code
from .texts import Notice

#: a change is sent this long after it was kept, so a burst of changes travels once
AFTER_CHANGE_SECONDS = 1.5
#: what the page hears: not connected, then a round running, done, or failing
OFF, SYNCING, SYNCED, OFFLINE, ERROR = "off", "syncing", "synced", "offline", "error"
#: the codes of failures that are the server's answer, not a missing connection
REFUSALS = (
    "sync_off",
    "sync_space_full",
    "sync_space_items",
    "sync_client_spaces",
    "sync_client_bytes",
    "invalid_client_token",
    "rate_limited",
    "sync_stalled",
)


# The sync engine (widget/sync.py) is imported when a device connects: a start only builds
# this facade, and every module imported before a first visit is ready is on its path.
if TYPE_CHECKING:
    from .sync import Remote, Syncer

    class SyncRemote(Remote, Protocol):
        async def open(self, secret: str) -> None:
            """Derive the space and the keys from the person's secret (in the worker)."""


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
        prefix = getattr(history, "prefix", "")
        self._secret_key = storage_key("sync", prefix, "secret")
        #: after "Stop syncing" with forgets not sent: which space they wait for
        self._left_key = storage_key("sync", prefix, "left")
        self._marks = storage_key("sync", prefix, "forgot:")  # (`widget.sync_state`)
        self._syncer: Syncer | None = None
        self._applying = False
        self._round = asyncio.Lock()
        self._soon: asyncio.Task[None] | None = None
        self._secret: str | None = None  # the one connected with
        #: the server's refusal the person was last told, shown with the state until a round
        #: goes through (the alert itself goes with the person's next action)
        self._reason: Notice | None = None
        conversations.keeper.followers.append(self._changed_elsewhere)

    # -- operations --------------------------------------------------------------------------

    async def sync_status(self) -> dict[str, Any]:
        """Whether sync can be used here, and its state (connecting again after a reload)."""
        if self.offered and self._syncer is None and self._store is not None:
            secret = await self._store.get(self._secret_key)
            if secret:
                await self._connect(secret)
        reason = self._reason if self.state == ERROR else None
        return {"offered": self.offered, "connected": self._syncer is not None,
                "state": self.state, "reason": reason}  # fmt: skip

    async def start_sync(self, code: str | None = None) -> dict[str, Any]:
        """Connect with a code typed on this device, or a new one to show ("Sync devices");
        returns the code, grouped for reading."""
        self._require_offered()
        secret = read_code(code) if code else await self._current_or_new()
        await self._keep_secret(secret)
        await self._connect(secret)
        await self.sync_now()
        return {"code": grouped(secret) if len(secret) == 32 else ""}

    async def use_sync_key(self, key: str) -> None:
        """A per-person secret from a site that signs people in (`element.syncKey`)."""
        self._require_offered()
        if len(key) < 16:
            raise WidgetError.said("sync_key_short")
        await self._keep_secret(key)
        await self._connect(key)
        await self.sync_now()

    async def stop_sync(self) -> None:
        """This device leaves: its history stays, nothing more travels. A last round first
        sends what waits here (a forget above all), if the server answers; then what this
        device knew of the server goes. Forgets it could not send (the server unreachable)
        stay marked for this same space: they go if this device syncs with it again."""
        syncer, self._syncer = self._syncer, None  # no other round starts from now on
        secret = self._secret
        async with self._round:  # one running ends first: nothing it writes outlives this
            if syncer is not None:
                await self._one_round(syncer)
            if self._history is not None:
                keys = list(await self._sync_keys())
                marks = [key for key in keys if key.startswith(self._marks)] if secret else []
                left = [(self._left_key, _space_print(secret))] if marks and secret else []
                gone = [(key, None) for key in keys if key not in marks]
                await self._history.store.write([*gone, *left])
            self._leave()

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

    def _leave(self) -> None:
        self._syncer, self._secret, self._reason = None, None, None
        if self._history is not None:
            self._history.backed_up = lambda entry: False  # no longer sent anywhere
            self._history.forget_marks = no_marks
        self._set(OFF)

    async def _changed_elsewhere(self, key: str) -> None:
        """Another tab of this browser kept a code or stopped syncing: this one follows, so
        a device that stopped in one tab sends nothing more from another."""
        if key != self._secret_key or self._store is None or not self.offered:
            return
        secret = await self._store.get(key)
        if secret == self._secret:
            return
        if secret is None:
            self._syncer = None
            async with self._round:  # (that tab cleared the keys)
                self._leave()
        else:
            await self._connect(secret)
            self._round_soon()

    async def _connect(self, secret: str) -> None:
        assert self._history is not None and self._store is not None
        from .sync import Syncer  # when connecting: see above

        await self.remote.open(secret)
        self._secret = secret
        self._syncer = Syncer(
            self._history, self.remote, self._store, self._history.prefix, self._taken,
            self.conversations.listener.alert, live=self.conversations.keeper.live,
        )  # fmt: skip
        self._history.watcher = self._heard

    def _heard(self, conversation_id: str, forgotten: bool) -> None:
        """History kept, pinned or forgot a conversation: send it soon (not our own round)."""
        if self._syncer is None or self._applying:
            return  # (a forget is marked in storage by the batch that made it: `widget.sync`)
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

    async def _current_or_new(self) -> str:
        stored = await self._store.get(self._secret_key) if self._store else None
        return stored if stored and len(stored) == 32 else new_code()

    async def _keep_secret(self, secret: str) -> None:
        """Keep the secret; another one is another space, where what this device knew of the
        last one (how far it had read, what it had sent) does not hold: it starts afresh."""
        if self._history is not None:
            kept = await self._sync_keys()
            stale = [] if kept.get(self._secret_key) == secret else list(kept)
            if kept.get(self._left_key) == _space_print(secret):  # the space left, again:
                stale = [key for key in stale if not key.startswith(self._marks)]  # its forgets go
            await self._history.store.write([*((key, None) for key in stale),
                                             (self._secret_key, secret)])  # fmt: skip

    async def _sync_keys(self) -> dict[str, str]:
        """This device's keys of synced history (the secret, the state, the marks), and values."""
        assert self._history is not None
        return dict(await self._history.store.read_all(storage_key("sync", self._history.prefix)))

    def _require_offered(self) -> None:
        if not self.offered:
            raise WidgetError.said("sync_off")

    def _set(self, state: str) -> None:
        """The state for the page (`sync` event), with `ERROR` the server's reason."""
        if state != self.state:
            self.state = state
            self.emit("sync", {"state": state, "reason": self._reason if state == ERROR else None})


def _space_print(secret: str) -> str:
    """A digest naming the space a secret opens, kept after the secret itself is gone."""
    import hashlib  # (only on leaving or joining: not on the first visit's path)

    return hashlib.sha256(b"chatkeep sync space\0" + secret.encode()).hexdigest()[:32]
