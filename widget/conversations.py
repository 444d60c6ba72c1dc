"""The operations the page may ask of the widget: one public async method each.

`Conversations` is the one facade over the session, its storage and its search. The page's
table of operations (`widget.operations.OPERATIONS`) is read from these methods' signatures,
so a new operation is a method here and the UI that calls it. A turn's answer reaches the
page as events (`widget.changes`); an operation's reply says only that it has settled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Coroutine
from dataclasses import replace
from typing import Any, Protocol

from .claims import Claims, Locks
from .errors import TurnError, WidgetError
from .forks import fork
from .history import Kept
from .keeper import Keeper, Listener, Unheard
from .messages import Message
from .models import Offer
from .request_bodies import page_context
from .search import SearchIndex
from .sessions import Session, Transport
from .snapshots import from_dict, read_snapshot, repair
from .texts import Notice
from .titles import clean_title

# LAZY: the modules of operations no start needs (exports, Markdown transcripts) are imported
# when first used. A first visit imports the widget before it is ready (the memory snapshot
# later visits boot from is made then), so every module imported at the top is on its path.


class StoppableTransport(Transport, Protocol):
    def cancel(self) -> None:
        """Abort every request in flight: a stop ends a turn at once, not at the next chunk."""


class Conversations:
    """A session with its history (`None`: history is off), as the page drives it."""

    def __init__(
        self,
        session: Session,
        history: Kept | None,
        transport: StoppableTransport,
        *,
        listener: Listener | None = None,
        offer: Offer | None = None,
        locks: Locks | None = None,
        generate_title: bool = False,
    ) -> None:
        self.session = session
        self.conversation = session.conversation
        self.transport = transport
        self.listener = listener or Unheard()
        self.keeper = Keeper(session, history, self.listener, Claims(locks), offer or Offer())
        self.index = SearchIndex(history)
        self.generate_title = generate_title
        self._idle = asyncio.Event()
        self._idle.set()

    # -- turns -----------------------------------------------------------------------------

    async def send(self, text: str, attachments: list[Message] | None = None) -> None:
        await self._turn(self.session.send(text, self.transport, attachments=attachments or (),
                                           hooks=self.keeper))  # fmt: skip

    async def retry(self, index: int) -> None:
        await self._turn(self.session.retry(index, self.transport, self.keeper))

    async def edit(self, index: int, text: str) -> None:
        await self._turn(self.session.edit(index, text, self.transport, self.keeper))

    async def show_version(self, index: int, version: int) -> None:
        self.conversation.show_version(index, version)
        await self.keeper.keep()

    async def pick_up(self) -> None:
        """Show the rest of the open conversation's unfinished answer, as the server has it,
        and store it complete (nothing when there is none)."""
        turn, self.keeper.unfinished = self.keeper.unfinished, None
        if turn is not None:
            self.listener.unfinished(False)
            await self._turn(self.session.resume(turn, self.transport, self.keeper))

    async def stop(self) -> None:
        """End the running turn, if any, and wait until it has settled (and been stored)."""
        if not self._idle.is_set():
            self.session.stop()
            self.transport.cancel()
            self.listener.stopping()
        await self._idle.wait()

    # -- the live conversation -------------------------------------------------------------

    async def save(self) -> dict[str, Any]:
        return self.conversation.snapshot().to_dict()

    async def restore(self, snapshot: object) -> None:
        """Open a host-supplied snapshot (checked strictly), or a new conversation for `None`."""
        repaired = None
        if snapshot is not None:
            strict = from_dict(snapshot)
            # A call still waiting for its result (or an approval) is cut, never re-run.
            repaired = strict.with_messages(repair(list(strict.messages)))
        await self._leave()
        self.keeper.load(repaired)
        await self.keeper.keep()  # kept at once, like every change: closing the page loses nothing

    async def fork(self, index: int) -> str:
        """Store the live conversation, open the turns before message `index`; its text back."""
        await self.stop()
        forked, text = fork(self.conversation, index)
        await self.keeper.keep()
        left = self.conversation.id
        self.keeper.load(forked)
        await self.keeper.keep(spare=(left,))  # never giving up the one it came from for room
        return text

    async def get_history(self) -> list[Message]:
        return self.session.get_history()

    async def set_history(self, messages: object) -> None:
        """Validate and replace the live conversation's messages, then store them at once."""
        self.session.set_history(messages)
        await self.keeper.keep()

    async def read_snapshot(self, value: object) -> dict[str, Any] | None:
        return read_snapshot(value)

    async def set_model(self, model: str) -> None:
        self.conversation.set_model(*self.keeper.offer.choose(model))
        if not self.conversation.busy:
            await self.keeper.keep()

    async def set_page_context(self, context: str | None) -> None:
        """The host page's context (a JSON object's text) for the requests that follow."""
        self.session.page_context = page_context(context)

    async def set_thinking(self, level: str) -> None:
        self.conversation.set_thinking(level)
        if not self.conversation.busy:
            await self.keeper.keep()

    async def set_feedback(self, index: int, rating: str | None) -> None:
        """Rate the answer at `index` "good" or "bad" (`None` takes the rating back)."""
        self.conversation.set_feedback(index, rating)
        if not self.conversation.busy:
            await self.keeper.keep()

    async def export_markdown(self) -> dict[str, str]:
        """The open conversation as a Markdown file: its `name` and its `text`."""
        from .transcripts import conversation_markdown, file_name  # when used: see LAZY

        title, settled = self.conversation.title, self.conversation.settled
        return {"name": file_name(title), "text": conversation_markdown(title, settled)}

    async def rename(self, conversation_id: str, title: str) -> None:
        if not title.strip():
            raise WidgetError.said("title_empty")
        if conversation_id == self.conversation.id:
            self.conversation.title = title
            await self.keeper.keep()
            return
        history = self.keeper.history
        if history is None or (data := await history.read(conversation_id)) is None:
            raise WidgetError.said("conversation_unreadable")
        renamed = replace(from_dict(data), title=clean_title(title))
        await history.keep(renamed, named=True, spare=self.keeper.live())
        self.keeper.list()

    # -- kept conversations ----------------------------------------------------------------

    async def open(self, conversation_id: str) -> None:
        history = self.keeper.history
        if conversation_id == self.conversation.id:
            return
        entry = history.entry(conversation_id) if history else None
        if history is None or entry is None:
            raise WidgetError.said("conversation_gone")
        data = await history.read(conversation_id)
        if data is None:
            raise WidgetError.said("conversation_unreadable")
        await self._leave(spare=(conversation_id,))  # never given up to make room here
        self.keeper.load(from_dict(data), await self.keeper.claim_unfinished(entry))

    async def forget(self, conversation_id: str) -> None:
        if self.keeper.history is None:
            return
        await self.keeper.history.forget(conversation_id)
        if conversation_id == self.conversation.id:
            self.keeper.load(None)
        self.keeper.list()

    async def pin(self, conversation_id: str, pinned: bool) -> None:
        """Pinned conversations are listed first and never given up for room."""
        if self.keeper.history is None:
            raise WidgetError.said("history_off_pin")
        if conversation_id == self.conversation.id:
            await self.keeper.keep()  # the open conversation, as it is now
        await self.keeper.history.pin(conversation_id, pinned)
        self.keeper.list()

    async def export_all(self) -> str:
        """Every kept conversation (the live one first) as one JSON file's text."""
        from .exports import export_text  # when used: see LAZY

        await self.keeper.keep()
        history, conversation = self.keeper.history, self.conversation
        unkept = conversation.snapshot() if history is None and not conversation.is_empty else None
        return await export_text(history, unkept)

    async def import_all(self, text: str) -> dict[str, int]:
        """Keep the conversations of an exported file (or one snapshot): a bad file is refused
        whole; one already kept in a newer version is left as it is; what does not fit is
        not imported. How many were imported, and how many did not fit."""
        from .exports import keep_newer, read_export  # when used: see LAZY

        if self.keeper.history is None:
            raise WidgetError.said("history_off_import")
        read = read_export(text)
        imported = await keep_newer(
            self.keeper.history, read, self.keeper.live(), self.conversation.now()
        )
        self.keeper.list()
        return imported.to_dict()

    async def storage_changed(self, key: str) -> None:
        await self.keeper.storage_changed(key)

    async def search(self, query: str) -> list[str]:
        return await self.index.search(query, self.conversation.id, self.conversation.settled)

    # -- tools and lifetime ----------------------------------------------------------------

    async def dispose(self) -> None:
        """Stop what runs and store the last complete state."""
        await self._leave()

    # -- internals -------------------------------------------------------------------------

    async def _leave(self, spare: Collection[str] = ()) -> None:
        """Before the live conversation is left: its turn stopped, its state stored (never
        giving up those in `spare` for room)."""
        await self.stop()
        await self.keeper.keep(spare)

    async def _turn(self, turn: Coroutine[Any, Any, Message]) -> None:
        """Run one turn, which `stop` waits for; a second one while it runs is refused."""
        if not self._idle.is_set():
            turn.close()  # never started, so never awaited: close it quietly
            raise TurnError.said("busy")
        self._idle.clear()
        try:
            answer = await turn
        finally:
            self._idle.set()
            self.keeper.claims.let_go()
        error = answer.get("error")
        if error and answer.get("error_code") != "stopped":
            said: Notice = {"message": error, "code": answer.get("error_code", ""),
                            "params": answer.get("error_params", {})}  # fmt: skip
            self.listener.alert(said)
        elif self.generate_title and not error and self._wants_title():
            await self.session.generate_title(self.transport)
            await self.keeper.keep()

    def _wants_title(self) -> bool:
        history = self.session.get_history()
        users = sum(1 for m in history if m["role"] == "user")
        answered = any(m["role"] == "assistant" and "error" not in m for m in history)
        return users == 1 and answered and not self.conversation.has_own_title
