"""Synced history: this browser's kept conversations merged with the person's other devices.

Local storage stays what the page reads (offline first); a round of sync brings it and the
server's copy together. The server holds one sealed item per conversation (the worker seals,
`Remote`); each item read is first judged (`widget.sync.judge`: newer than what was taken
here, or altered by the server), then taken (`widget.sync.take`):

- a conversation changed here (its meta has a new `rev`, or a batch of writes was cut short
  here) is sent as the item's next version, naming the revision it replaces: if another
  device wrote first, the next round merges that one first;
- a conversation the person forgot here is replaced there by a sealed deletion naming the
  version forgotten, unless another device changed it meanwhile (an edit beats a deletion);
  one dropped only to make room is not;
- a copy older than one taken here, a deletion no device sealed, or an item failing its tag
  over a conversation held here is not taken: this device keeps its own, sends it again, and
  says so once; an item of nobody this device knows is skipped, and the person told;
- when the store is full, the history gives up first what the server holds as it is here.

A device that kept a version 1 space moves by itself: its first round of version 2 reads the
old space whole, merges it as another device's versions, and wipes it once nothing of it
waits for room (`Remote.moving`). What this device knows of the server (`widget.sync.state`)
is kept beside the history."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Collection

from ..errors import WidgetError
from ..history import Entry, History
from ..key_value import Change, Conflict, KeyValue, StorageFull
from ..protocol import storage_key
from ..texts import Notice, notice
from .judge import Verdict, judge
from .move import moved_from_version_1
from .remote import Pulled, Remote
from .send import Sender, past_own
from .state import Synced, SyncState, forget_mark, forget_mark_text
from .take import Taker
from .versions import PAYLOAD_VERSION, conversation_of

#: rounds in a row while other devices keep writing first
MAX_ROUNDS = 3
#: pages one round reads at most (the rest waits for the next round): a server that always
#: says there is more cannot hold a round, nor "Stop syncing" waiting for it, for ever
MAX_PAGES = 100
ALTERED = (Verdict.KEEP_OURS, Verdict.REPLAY)


class Syncer:
    """Rounds of sync between `history` and `remote`; `changed` hears which conversations
    a round changed here (for the open one and the list)."""

    def __init__(
        self,
        history: History,
        remote: Remote,
        store: KeyValue,
        prefix: str,
        changed: Callable[[set[str]], Awaitable[None]],
        alert: Callable[[Notice], None],
        live: Callable[[], Collection[str]] = tuple,
        clock: Callable[[], int] = lambda: int(time.time() * 1000),
        heard: Callable[[str, bool], None] = lambda conversation_id, forgotten: None,
    ) -> None:
        self.history = history
        # (milliseconds: a time far off is taken as now, as an import does)
        self.taker = Taker(history, clock, live)
        self.sender = Sender(remote)
        self.remote = remote
        self.store = store
        self.keys = storage_key("sync", prefix)  # the state, marks, the code: this device's
        self.key, self.marks = self.keys + "state", forget_mark(prefix)
        self.changed = changed
        self.alert = alert
        self._told_no_room = False  # said once while another device's version waits for room
        self._told_altered = False  # said once while the server keeps altering items
        self._told_too_large: set[str] = set()  # conversations said to hold a turn too large
        self._known = SyncState()  # what the last round left: which versions the server holds
        self._heard = heard
        # From now on, this is synced history's hook into the history (`SyncHook`): a forget
        # marks the conversation in the same batch, for a round; a change is heard.
        history.sync = self

    # -- the history's hook (`widget.sync_hook.SyncHook`) ----------------------------------------

    def backed_up(self, entry: Entry) -> bool:
        return not self._known.changed_here(entry)

    async def forget_marks(self, entry: Entry) -> list[Change]:
        stored = await self.history.peek(entry.id)
        return [(self.marks + entry.id, forget_mark_text(entry, stored))]

    def heard(self, conversation_id: str, forgotten: bool) -> None:
        self._heard(conversation_id, forgotten)

    async def sync(self) -> None:
        """One round, repeated while another device wrote first (`MAX_ROUNDS`)."""
        kept = await self.store.read_all(self.keys)  # the state and the marks in one trip
        moving = await self.remote.moving()
        earlier = SyncState.from_json(kept.get(self.key))
        state = SyncState() if moving else earlier  # (a new space: read from its start)
        marks = [key for key in kept if key.startswith(self.marks)]
        for key in marks:
            if self.history.entry(key[len(self.marks) :]) is None:  # (not kept again)
                state.forget(key[len(self.marks) :], kept[key])
        touched: set[str] = set()
        waiting, done, altered = False, [], set[Verdict]()
        try:
            if moving:
                waiting = await moved_from_version_1(self.taker, self.remote, state, earlier,
                                                     touched)  # fmt: skip
            for _ in range(MAX_ROUNDS):
                waiting = await self._pull(state, touched, altered) or waiting
                if await self._push(state) and not state.again:
                    break
            done = marks  # (a round cut short keeps them: what they say is not all kept)
        finally:
            # The marks the round took in go in the same batch. With no room for it, the next
            # round reads again what this one took (and knows it: `widget.sync.merge`); the page
            # is told what changed all the same.
            with contextlib.suppress(StorageFull):
                await self.store.write([(self.key, state.to_json()), *((k, None) for k in done)])
            self._known = SyncState(state.cursor, dict(state.items))
            if touched:
                await self.changed(touched)
        if waiting and not self._told_no_room:
            self.alert(notice("sync_storage_full"))
        self._told_no_room = waiting
        if altered and not self._told_altered:
            self.alert(notice("sync_altered"))
        self._told_altered = bool(altered)

    # -- taking what other devices wrote ---------------------------------------------------

    async def _pull(self, state: SyncState, touched: set[str], altered: set[Verdict]) -> bool:
        """What other devices wrote; True if some found no room (the cursor stays before it).
        `altered` gathers what the server altered, to say once."""
        unreadable = 0
        waiting: list[int] = []
        raced: list[int] = []  # another tab wrote it meanwhile: the next round merges
        state.held_back.clear()
        state.again.clear()
        for _ in range(MAX_PAGES):
            page = await self.remote.pull(state.cursor)
            if page.more and page.cursor <= state.cursor:
                raise WidgetError.said("sync_stalled")  # more, from where it was: a loop
            for pulled in page.items:
                verdict = self._judged(state, pulled)
                if verdict in ALTERED:
                    altered.add(verdict)
                if verdict is Verdict.UNREADABLE:
                    unreadable += 1
                elif verdict is Verdict.DELETE:
                    await self.taker.take_deletion(state, pulled, touched)
                elif verdict is Verdict.TAKE:
                    tail = (pulled.payload or {}).get("tail") is True
                    take = self.taker.take_tail if tail else self.taker.take
                    try:
                        taken = await take(state, pulled, touched)
                    except Conflict:
                        taken, raced = True, [*raced, pulled.rev]
                    if not taken or raced[-1:] == [pulled.rev]:
                        waiting += [] if taken else [pulled.rev]
                        state.held_back.add(self._held(state, pulled) or _named(pulled))
            state.cursor = max(state.cursor, page.cursor)  # (a cursor never goes back)
            if not page.more:
                break
        state.cursor = min([state.cursor, *(rev - 1 for rev in waiting + raced + state.again)])
        if unreadable == 1:
            self.alert(notice("sync_unreadable_one"))
        elif unreadable:
            self.alert(notice("sync_unreadable", count=unreadable))
        return bool(waiting)

    def _judged(self, state: SyncState, pulled: Pulled) -> Verdict:
        """`judge`'s verdict, and what it asks of this device's note at once: the revision to
        write over next (ours sent again), or the deletion to send again."""
        held = self._held(state, pulled)
        synced = state.items.get(held) if held else None
        gone = state.gone.get(pulled.item)
        verdict = judge(pulled, synced, gone)
        if verdict is Verdict.SAME and synced is not None:
            synced.rev = pulled.rev  # (served again under a new revision: written over next)
        elif verdict is Verdict.KEEP_OURS and synced is not None:
            state.items[held] = Synced(pulled.item, pulled.rev, "", max(synced.seq, pulled.seq))
        elif verdict is Verdict.REPLAY and gone is not None:
            state.forgotten[gone[1]] = (pulled.item, pulled.rev, max(gone[0], pulled.seq))
        return verdict

    @staticmethod
    def _held(state: SyncState, pulled: Pulled) -> str:
        """The conversation of `pulled` this device synced ("" when none): by the id sealed in
        it, else (a tombstone, an item failing its tag) by its item's name."""
        payload = pulled.payload or {}
        named = payload.get("conversation")  # (a deletion's or a tail's: its id)
        conversation = named if isinstance(named, str) else conversation_of(payload)
        if conversation and (synced := state.items.get(conversation)) is not None:
            return conversation if synced.item == pulled.item else ""
        return next((c for c, s in state.items.items() if s.item == pulled.item), "")

    # -- sending what changed here ---------------------------------------------------------

    async def _push(self, state: SyncState) -> bool:
        """Send every change made here, forgets first (small, and what a person asked for);
        False when another device wrote first."""
        settled = True
        for conversation, (_, rev, seq) in list(state.forgotten.items()):
            deletion = {"v": PAYLOAD_VERSION, "deleted": True, "conversation": conversation,
                        "replaces": state.replaced(conversation)}  # fmt: skip
            pushed = await self.remote.delete(conversation, rev, seq + 1, deletion)
            if pushed.written:
                del state.forgotten[conversation]
                state.gone[pushed.item] = (seq + 1, conversation)
                past_own(state, pushed.rev)
            else:
                settled = False
        for entry in self.history.entries():
            if entry.pending or not state.changed_here(entry) or entry.id in state.held_back:
                continue  # (held back: sent over another device's version, it would lose it)
            snapshot = await self.history.peek(entry.id)
            if snapshot is None:
                continue
            payload = {"v": PAYLOAD_VERSION, "conversation": snapshot, "title": entry.title,
                       "named": entry.named, "pinned": entry.pinned}  # fmt: skip
            try:
                if not await self.sender.send(state, entry, payload):
                    settled = False
            except WidgetError as refused:  # (one turn alone too large: the others still go)
                if refused.code != "sync_too_large":
                    raise
                if entry.id not in self._told_too_large:
                    self.alert(refused.notice())
                self._told_too_large.add(entry.id)
        return settled


def _named(pulled: Pulled) -> str:
    """The conversation an item names inside (a version's, a tail's), or ""."""
    payload = pulled.payload or {}
    named = payload.get("conversation")
    return named if isinstance(named, str) else conversation_of(payload)
