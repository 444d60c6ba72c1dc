"""Sending a conversation changed here (`Sender.send`): the turns added since the server's
copy as a tail of their own, else the whole as its checkpoint's next version, and a
conversation too large for one request in parts; with what this device notes of each write.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from ..errors import WidgetError
from ..history import Entry
from ..ids import new_id
from .remote import Remote
from .state import Synced, SyncState, digest_of
from .versions import PAYLOAD_VERSION

#: tails a conversation gathers since its checkpoint, and their bytes, before it is written
#: whole again (the tails then go): a new device reads about one item per conversation
TAILS, TAIL_BYTES = 20, 16 * 1024


class Sender:
    def __init__(self, remote: Remote) -> None:
        self.remote = remote

    async def send(self, state: SyncState, entry: Entry, payload: dict[str, Any]) -> bool:
        """One conversation changed here: the turns added since the server's copy as a tail
        (`_send_tail`), else the whole as its checkpoint's next version; False when another
        device wrote first. No size stops a conversation: one too large for a request goes
        in parts (its start as the checkpoint, the rest as tails, each as large as fits)."""
        messages = payload["conversation"].get("messages") or []
        count, limits = len(messages), True
        while True:
            synced = state.items.get(entry.id)
            try:
                if synced is not None and await self._send_tail(
                    state, entry, synced, payload, count, limits=limits
                ):
                    sent = True
                else:
                    sent = await self._send_whole(state, entry, payload, count)
            except WidgetError as refused:
                if refused.code != "body_too_large":
                    raise
                if limits:  # the whole did not fit: the rest as a tail, past the tails' limits
                    limits = False
                    continue
                part = _part(messages, synced, count)
                if part is None:
                    raise WidgetError.said("sync_too_large", title=entry.title) from refused
                limits, count = False, part
                continue
            if not sent or count == len(messages):
                return sent
            count, limits = len(messages), False  # (the rest, now, as a tail)

    async def _send_whole(
        self, state: SyncState, entry: Entry, payload: dict[str, Any], count: int
    ) -> bool:
        """The first `count` messages (all: the whole) as the checkpoint's next version."""
        synced = state.items.get(entry.id)
        messages = payload["conversation"].get("messages") or []
        whole = count == len(messages)
        if not whole:
            payload = {**payload, "conversation": {**payload["conversation"],
                                                   "messages": messages[:count]}}  # fmt: skip
        expect, seq = (synced.rev, synced.seq + 1) if synced else (None, 1)
        pushed = await self.remote.push(entry.id, expect, seq, payload)
        if not pushed.written and synced is None and pushed.rev is not None:
            deleted = state.gone.get(pushed.item)
            if deleted is not None and deleted[1] == entry.id:
                expect, seq = pushed.rev, deleted[0] + 1
                pushed = await self.remote.push(entry.id, expect, seq, payload)
        if not (pushed.written and pushed.rev is not None):
            return False
        state.items[entry.id] = Synced(pushed.item, pushed.rev, entry.rev if whole else "", seq,
                                       count, digest_of(messages[:count]))  # fmt: skip
        state.gone.pop(pushed.item, None)
        past_own(state, pushed.rev)
        for item, rev in synced.tails if synced else ():  # taken in by the checkpoint
            with contextlib.suppress(WidgetError, OSError):
                past_own(state, (await self.remote.drop(item, rev)).rev)
        return True

    async def _send_tail(
        self, state: SyncState, entry: Entry, synced: Synced, payload: dict[str, Any],
        count: int, *, limits: bool = True,
    ) -> bool:  # fmt: skip
        """The turns added here since the server's copy, up to the `count`-th message (with the
        name and pin), as a tail of their own: a turn costs about its own size, whatever the
        conversation's length. Not when the conversation changed otherwise (a retry, an edit,
        a merge, a rename or a pin alone: the whole goes), nor, with `limits`, past `TAILS`
        tails or `TAIL_BYTES` since the checkpoint (it is written anew)."""
        messages = payload["conversation"].get("messages") or []
        if not synced.holds(messages) or (limits and len(synced.tails) >= TAILS):
            return False
        added = messages[synced.length : count]
        if not added:
            return False  # a rename or a pin alone: the checkpoint carries it
        size = len(json.dumps(added, ensure_ascii=False))
        if limits and synced.tail_bytes + size > TAIL_BYTES:
            return False
        tail = {"v": PAYLOAD_VERSION, "tail": True, "conversation": entry.id, "base": synced.seq,
                "after": synced.length, "parent": synced.digest, "messages": added,
                "updated": payload["conversation"].get("updated"), "title": entry.title,
                "named": entry.named, "pinned": entry.pinned}  # fmt: skip
        pushed = await self.remote.push(entry.id, None, 1, tail, new_id())
        if not (pushed.written and pushed.rev is not None):
            return False
        synced.tails.append((pushed.item, pushed.rev))
        synced.tail_bytes += size
        synced.length, synced.digest = count, digest_of(messages[:count])
        synced.local = entry.rev if count == len(messages) else ""
        past_own(state, pushed.rev)
        return True


def _part(messages: list[Any], synced: Synced | None, count: int) -> int | None:
    """How many messages to send, when the first `count` were too large for one request:
    about half of what was to go, ending before a question (a turn is never cut); None when
    no smaller part is left (one turn alone is too large)."""
    start = synced.length if synced is not None and synced.holds(messages) else 0
    cut = start + (count - start) // 2
    while cut > start and messages[cut].get("role") != "user":
        cut -= 1
    return cut if cut > start else None


def past_own(state: SyncState, rev: int | None) -> None:
    """A write that took the revision right after the cursor: nothing came between, so the
    cursor moves past it, and this device never downloads its own write again (no echo)."""
    if rev is not None and rev == state.cursor + 1:
        state.cursor = rev
