"""What is stored, and when: the live conversation in the kept ones.

After each settled turn, again when a generated title lands, before switching away (a new
conversation, opening another, forking) and on dispose, the live conversation is stored.
An empty conversation is never stored, and an answer still streaming never is either (a
snapshot leaves it out).

When the server keeps an answer for a reload (with Redis), it names it with a turn id as it
starts: the conversation is stored at once with that id beside it (`pending` in its meta),
and after a reload it is opened again and the answer picked up where the server has it. A
tab claims a turn while it reads it, so a second tab never picks up the same answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Protocol

from .claims import Claims
from .history import Entry, Kept
from .key_value import StorageFull
from .models import Offer
from .protocol import storage_key
from .sessions import Session
from .snapshots import Snapshot, from_dict, read_snapshot
from .texts import Notice, notice

UNREADABLE_START = "Chatkeep: the start-up snapshot could not be read; a new conversation opens."


class Listener(Protocol):
    """Hears what the page should show beyond the conversation itself."""

    def alert(self, notice: Notice) -> None:
        """What to tell the person (a full store, a model no longer offered, a failed turn)."""

    def listed(self, entries: Sequence[Entry]) -> None:
        """The kept conversations changed: all of them, newest first."""

    def stopping(self) -> None:
        """A running turn was asked to stop: approvals waiting are let go."""

    def unfinished(self, waiting: bool) -> None:
        """The open conversation has an answer the server is still writing, to pick up."""


class Unheard:
    """A listener that hears nothing: the Python API without a page."""

    def alert(self, notice: Notice) -> None:
        pass

    def listed(self, entries: Sequence[Entry]) -> None:
        pass

    def stopping(self) -> None:
        pass

    def unfinished(self, waiting: bool) -> None:
        pass


class Keeper:
    """Stores the session's conversation in `history` (None: history is off)."""

    def __init__(
        self, session: Session, history: Kept | None, listener: Listener, claims: Claims,
        offer: Offer,
    ) -> None:  # fmt: skip
        self.session = session
        self.conversation = session.conversation
        self.history = history
        self.listener = listener
        self.claims = claims
        self.offer = offer
        #: the turn of the open conversation's unfinished answer, until it is picked up
        self.unfinished: str | None = None
        #: told first of each key another tab changed (synced history follows its code)
        self.followers: list[Callable[[str], Awaitable[None]]] = []
        self._writing = asyncio.Lock()

    async def start(self, snapshot: object = None) -> str | None:
        """Load the kept list, then open the host's start-up `snapshot` if one was given,
        else a conversation whose answer the server was still writing. The snapshot is read
        tolerantly; one that cannot be read leaves a new conversation and the warning this
        returns."""
        if self.history is not None:
            await self.history.load()
            self.list()
        if snapshot is None:
            await self._reopen_unfinished()
            return None
        data = read_snapshot(snapshot)
        if data is None:
            return UNREADABLE_START
        self.load(from_dict(data))
        return None

    async def keep(self, spare: Collection[str] = ()) -> None:
        """Store the live conversation's settled state, unless it is empty; the conversations
        in `spare` (one about to be opened) are never given up to make room for it."""
        if self.history is None or self.conversation.is_empty:
            return
        # One write at a time, each of the state as it is when its turn comes: two writes
        # interleaving could land the older state last.
        async with self._writing:
            conversation = self.conversation
            pending = self.session.turn or self.unfinished or ""
            try:
                snapshot = conversation.snapshot()
                stored = await self.history.keep(
                    snapshot, named=conversation.named, pending=pending, spare=spare
                )
            except StorageFull as exc:
                self.listener.alert(exc.notice())
                return
            if stored.id != conversation.id:
                conversation.id = stored.id  # another tab moved it on: ours continues as a new one
            if stored.named and stored.title != conversation.title:
                conversation.adopt_title(stored.title)  # renamed in another tab: the name wins
        self.list()

    def load(self, snapshot: Snapshot | None, entry: Entry | None = None) -> None:
        """Open `snapshot` (None: a new conversation) with what its `entry` says; every
        claim on a turn but the one it leaves unfinished is given back."""
        self.conversation.load(snapshot)
        if entry is not None and entry.named:
            self.conversation.adopt_title(entry.title)
        self.unfinished = entry.pending if entry is not None and entry.pending else None
        self.claims.let_go(keep=self.unfinished)
        self.listener.unfinished(self.unfinished is not None)
        if snapshot is not None:
            self._on_offered_model()

    async def claim_unfinished(self, entry: Entry) -> Entry:
        """The entry, its pending turn left out when another tab reads that answer."""
        if entry.pending and not await self.claims.claim(entry.pending):
            return Entry(entry.id, entry.title, entry.updated, entry.rev, entry.named, entry.size)
        return entry

    def list(self) -> None:
        self.listener.listed(self.history.entries() if self.history else [])

    def live(self) -> tuple[str, ...]:
        """The open conversation, once kept: never given up to make room for another."""
        return () if self.conversation.is_empty else (self.conversation.id,)

    async def storage_changed(self, key: str) -> None:
        """Another tab changed `key`: follow a rename, keep what it gave up, list again."""
        for follow in self.followers:
            await follow(key)
        if self.history is None:
            return
        conversation = self.conversation
        before = self.history.entry(conversation.id)
        if not await self.history.changed(key):
            return
        live = self.history.entry(conversation.id)
        # (`changed` was true: `key` is a meta key of this history's; is it the open one's?)
        open_meta = storage_key("meta", "", conversation.id)
        if live is None and key.endswith(open_meta) and not conversation.is_empty:
            # Another tab gave up (or forgot) the conversation open here: keep it again, so
            # what this tab shows is never lost with it, under the name a person gave it
            # there, if one did (this tab, a turn behind, had not taken it).
            if before is not None and before.named and not conversation.named:
                conversation.adopt_title(before.title)
            await self.keep()
            return
        if (
            live is not None
            and live.named
            and (live.updated, live.size) == (conversation.updated, len(conversation.settled))
            and live.title != conversation.title
        ):
            # Another tab renamed the open conversation and added no turns: take the name.
            conversation.adopt_title(live.title)
            await self.history.accept(conversation.id)
        elif live is not None and before is not None and self._moved_on_elsewhere(before, live):
            # Another tab moved the open conversation on (its turns, or another device's
            # version its round took) while nothing here was unsaved: show that, as this
            # tab's own round would (`widget.sync.synced`); a turn here then continues it.
            data = await self.history.read(conversation.id)
            if data is not None:
                self.load(from_dict(data), await self.claim_unfinished(live))
        self.list()

    def _moved_on_elsewhere(self, before: Entry, now: Entry) -> bool:
        """The open conversation is idle, stored here as it is (`before`), and its stored
        turns changed since."""
        here = (self.conversation.updated, len(self.conversation.settled))
        idle = not self.conversation.busy and not self._writing.locked()
        return idle and here == (before.updated, before.size) != (now.updated, now.size)

    # -- TurnHooks: what a running turn tells -----------------------------------------------

    async def turn_named(self, turn: str) -> None:
        """The server keeps the answer being written: store the turn id with the question."""
        await self.claims.claim(turn)
        await self.keep()

    async def turn_ending(self) -> None:
        await self.keep()

    # -- internals -------------------------------------------------------------------------

    async def _reopen_unfinished(self) -> None:
        """After a reload, open the newest conversation whose answer the server was still
        writing (unless another tab is reading it)."""
        for entry in self.history.entries() if self.history else []:
            if not entry.pending or not await self.claims.claim(entry.pending):
                continue
            data = await self.history.read(entry.id) if self.history else None
            if data is None:
                self.claims.let_go()
                continue
            self.load(from_dict(data), entry)
            return

    def _on_offered_model(self) -> None:
        """A conversation opened on a model no longer offered continues on the default one."""
        gone, default = self.conversation.model_id, self.offer.default
        if default is None or gone in self.offer:
            return
        self.conversation.set_model(*self.offer.choose(default))
        self.listener.alert(notice("model_gone", gone=gone, model=default))
