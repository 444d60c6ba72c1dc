"""Sharing a conversation by a link, and opening one ("Share", "Continue this conversation").

The conversation as it is now is sealed in the worker with a fresh key that only the link's
fragment holds (static/share-client.js); the server keeps the ciphertext and answers a delete
token. What the link needs (id, key, token, expiry) is kept in the shared conversation's
snapshot (`widget.share_records`), so every synced device of the person lists it and can stop
it. A shared copy carries neither those nor the tools its owner allowed.

A conversation opened from a link is a stranger's: checked as strictly as an import, it is
only drawn until the person continues it, which copies it into this browser's history under
an id of its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import time
from typing import Any, Protocol

from .conversations import Conversations
from .errors import SnapshotError, WidgetError
from .ids import new_id
from .share_records import MAX_SHARES, ShareRecord
from .snapshots import Snapshot, dumps, from_dict, parse_json, repair


class ShareHost(Protocol):
    """The worker's half: sealing and keeping on the server, and stopping."""

    async def seal(self, text: str) -> dict[str, Any]:
        """Keep `text` sealed; {"id", "key", "token", "expires"}."""
        ...

    async def stop(self, share_id: str, token: str) -> None: ...


class ShareOperations:
    """What the page asks about shared conversations (a facade of `widget.operations`)."""

    def __init__(self, conversations: Conversations, host: ShareHost) -> None:
        self.conversations = conversations
        self.host = host

    async def share(self, conversation_id: str) -> dict[str, Any]:
        """A link to the conversation as it is now: the one it has when nothing changed
        since, else a new one (the older link is stopped). `{"fragment", "expires"}`."""
        snapshot = await self._snapshot(conversation_id)
        now = int(time.time())
        live = [s for s in snapshot.shares if s.expires > now]
        current = live[-1] if live else None
        copy = _shared_copy(snapshot)
        digest = _digest(snapshot)
        if current is None or current.digest != digest:
            sealed = await self.host.seal(copy)
            current = ShareRecord(str(sealed["id"]), str(sealed["key"]), str(sealed["token"]),
                                  int(sealed["expires"]), digest)  # fmt: skip
            for older in live:
                await self._stop_quietly(older)
            live = [current]
        kept = tuple(live[-MAX_SHARES:])
        if kept != snapshot.shares:
            await self._keep(conversation_id, dataclasses.replace(snapshot, shares=kept))
        return {"fragment": current.fragment, "expires": current.expires}

    async def stop_sharing(self, conversation_id: str) -> None:
        """Every link to the conversation stops working (on the server first)."""
        snapshot = await self._snapshot(conversation_id)
        for share in snapshot.shares:
            await self.host.stop(share.id, share.token)
        await self._keep(conversation_id, dataclasses.replace(snapshot, shares=()))

    async def read_shared(self, text: str) -> dict[str, Any]:
        """A shared conversation checked as an import is: its title and messages, or the
        reason it cannot be shown (`share_unreadable`)."""
        snapshot = _checked(text)
        return {"title": snapshot.title, "messages": list(snapshot.messages)}

    async def continue_shared(self, text: str) -> str:
        """Copy a shared conversation into this browser's history, open it; its new id."""
        snapshot = _checked(text)
        now = self.conversations.conversation.now()
        copy = dataclasses.replace(
            snapshot, id=new_id(), updated=now, created=snapshot.created or now
        )
        await self.conversations.restore(copy.to_dict())
        return copy.id

    async def _snapshot(self, conversation_id: str) -> Snapshot:
        conversations = self.conversations
        conversation = conversations.conversation
        if conversation_id == conversation.id and not conversation.is_empty:
            await conversations.keeper.keep()
            return conversation.snapshot()
        history = conversations.keeper.history
        data = await history.read(conversation_id) if history is not None else None
        if data is None:
            raise WidgetError.said("conversation_gone")
        return from_dict(data)

    async def _keep(self, conversation_id: str, snapshot: Snapshot) -> None:
        conversations = self.conversations
        if conversation_id == conversations.conversation.id:
            conversations.conversation.shares = snapshot.shares
            await conversations.keeper.keep()
            return
        history = conversations.keeper.history
        entry = history.entry(conversation_id) if history is not None else None
        if history is None or entry is None:
            raise WidgetError.said("conversation_gone")
        await history.keep(snapshot, named=entry.named, spare=conversations.keeper.live())
        conversations.keeper.list()

    async def _stop_quietly(self, share: ShareRecord) -> None:
        """An older link of a conversation shared again: stopped if the server can be told."""
        with contextlib.suppress(WidgetError):  # else it expires on its own
            await self.host.stop(share.id, share.token)


def _shared_copy(snapshot: Snapshot) -> str:
    """What a link opens: the conversation, without its links or the tools allowed in it."""
    return dumps(dataclasses.replace(snapshot, shares=(), allowed_tools=()))


def _digest(snapshot: Snapshot) -> str:
    """What a reader of the link sees (its title and messages), as synced devices all hold
    it: the same on each, so any of them gives the same link again."""
    seen = json.dumps([snapshot.title, snapshot.messages], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(seen.encode()).hexdigest()[:32]


def _checked(text: str) -> Snapshot:
    try:
        data = parse_json(text)
        snapshot = from_dict(data)
    except SnapshotError as exc:
        raise WidgetError.said("share_unreadable", reason=str(exc)) from exc
    messages = repair(list(snapshot.messages))
    if not messages:
        raise WidgetError.said("share_unreadable", reason="the snapshot holds no messages")
    return dataclasses.replace(snapshot, messages=tuple(messages), shares=(), allowed_tools=())
