"""The live conversation and the kept ones: what is stored, and when.

After each settled turn, again when a generated title lands, before switching away (a new
conversation, opening another, forking) and on dispose, the live conversation is stored.
An empty conversation is never stored, and an answer still streaming never is either (a
snapshot leaves it out).

When the server keeps an answer for a reload (with Redis), it names it with a turn id as it
starts: the conversation is stored at once with that id beside it (`pending` in its meta),
and after a reload it is opened again and the answer picked up (`pick_up`) where the server
has it. A tab holds a claim on a turn while it reads it, so a second tab never picks up the
same answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from .errors import SnapshotError, TurnError, WidgetError
from .history import Entry, StorageFull
from .messages import Message
from .sessions import Session, Transport
from .snapshots import Snapshot, from_dict, parse_json, read_snapshot, repair
from .titles import clean_title

EXPORT_FORMAT = "chatkeep-history"


class Kept(Protocol):
    """What `Conversations` needs of a history: `History` or `HostedHistory`."""

    async def load(self) -> None: ...
    def entries(self) -> list[Entry]: ...
    def __contains__(self, conversation_id: str) -> bool: ...
    async def read(self, conversation_id: str) -> dict[str, Any] | None: ...
    async def peek(self, conversation_id: str) -> dict[str, Any] | None: ...
    async def keep(
        self,
        snapshot: Snapshot,
        *,
        named: bool = False,
        spare: Collection[str] = (),
        pending: str = "",
    ) -> Entry: ...
    async def forget(self, conversation_id: str) -> None: ...
    async def changed(self, key: str) -> bool: ...
    async def accept(self, conversation_id: str) -> None: ...
    def entry(self, conversation_id: str) -> Entry | None: ...


class Conversations:
    """A session with its history. `history=None` keeps nothing (`history="off"`)."""

    def __init__(
        self,
        session: Session,
        history: Kept | None,
        transport: Transport,
        *,
        generate_title: bool = False,
        on_alert: Callable[[str], None] = lambda message: None,
        on_list: Callable[[], None] = lambda: None,
        on_stopping: Callable[[], None] = lambda: None,
        models: Mapping[str, tuple[str, str | None]] | None = None,
        claim: Callable[[str], Awaitable[bool]] | None = None,
        release: Callable[[str], None] = lambda turn: None,
    ) -> None:
        self.session = session
        self.history = history
        self.transport = transport
        self.generate_title = generate_title
        self.on_alert = on_alert
        self.on_list = on_list
        #: told when a running turn is asked to stop: abort requests, let approvals go
        self.on_stopping = on_stopping
        #: the server's model ids as (model, provider), the first its default; empty: unknown
        self.models = dict(models or {})
        #: the searchable text of kept conversations, read once (see `search`)
        self._texts: dict[str, str] = {}
        #: takes a turn for this tab (False: another tab reads it); `release` gives it back
        self.claim = claim or _always
        self.release = release
        self._claimed: list[str] = []
        #: the turn of the open conversation's unfinished answer, until `pick_up` reads it
        self.unfinished: str | None = None
        session.after_turn = self.keep
        session.on_turn = self._answer_named
        self._keeping = asyncio.Lock()
        self._idle = asyncio.Event()
        self._idle.set()

    async def start(self, snapshot: object = None) -> str | None:
        """Load the kept list, and open the host's start-up `snapshot` if one was given.

        The snapshot is read tolerantly (`read_snapshot`, repairing its ending); one that
        cannot be read leaves a new conversation and the warning this returns.
        """
        if self.history is not None:
            await self.history.load()
            self.on_list()
        if snapshot is None:
            await self._reopen_unfinished()
            return None
        data = read_snapshot(snapshot)
        if data is None:
            return "Chatkeep: the start-up snapshot could not be read; a new conversation opens."
        self._load(from_dict(data))
        self._offered_model()
        return None

    def listing(self) -> list[dict[str, Any]]:
        return [entry.to_dict() for entry in self.history.entries()] if self.history else []

    async def send(self, text: str, attachments: Sequence[Message] = ()) -> Message:
        return await self._turn(self.session.send(text, self.transport, attachments=attachments))

    async def retry(self, index: int) -> Message:
        return await self._turn(self.session.retry(index, self.transport))

    async def edit(self, index: int, text: str) -> Message:
        return await self._turn(self.session.edit(index, text, self.transport))

    async def show_version(self, index: int, version: int) -> None:
        self.session.show_version(index, version)
        await self.keep()

    async def pick_up(self) -> Message | None:
        """Show the rest of the open conversation's unfinished answer, as the server has it,
        and store it complete; None when there is nothing to pick up."""
        turn, self.unfinished = self.unfinished, None
        if turn is None:
            return None
        return await self._turn(self.session.resume(turn, self.transport))

    async def stop(self) -> None:
        """End the running turn, if any, and wait until it has settled (and been stored)."""
        if not self._idle.is_set():
            self.session.stop()
            self.on_stopping()
        await self._idle.wait()

    async def fork(self, index: int) -> str:
        """Store the live conversation, open the turns before message `index`; its text back."""
        await self.stop()
        forked, text = self.session.fork(index)
        await self.keep()
        self._load(forked)
        await self.keep()
        return text

    async def new(self) -> None:
        await self.stop()
        await self.keep()
        self._load(None)

    async def open(self, conversation_id: str) -> None:
        if conversation_id == self.session.id:
            return
        if self.history is None or conversation_id not in self.history:
            raise WidgetError("That conversation is no longer kept.")
        data = await self.history.read(conversation_id)
        if data is None:
            raise WidgetError("That conversation could not be read. It was left as it is.")
        await self.stop()
        await self.keep()
        self._load(from_dict(data))
        self._offered_model()
        entry = self.history.entry(conversation_id)
        if entry is not None and entry.named:
            self.session.adopt_title(entry.title)
        if entry is not None and entry.pending and await self._claim(entry.pending):
            self.unfinished = entry.pending

    async def restore(self, value: object | None) -> None:
        """Open a host-supplied snapshot (checked strictly), or a new conversation for `None`."""
        if value is None:
            await self.new()
            return
        snapshot = from_dict(value)
        # A call still waiting for its result (or an approval) is cut, never re-run.
        repaired = snapshot.with_messages(repair(list(snapshot.messages)))
        await self.stop()
        await self.keep()
        self._load(repaired)
        self._offered_model()
        await self.keep()  # kept at once, like every change: closing the page loses nothing

    async def set_history(self, messages: object) -> None:
        """Validate and replace the live conversation's messages, then store them at once."""
        self.session.set_history(messages)
        await self.keep()

    async def dispose(self) -> None:
        """Stop what runs and store the last complete state."""
        await self.stop()
        await self.keep()

    async def forget(self, conversation_id: str) -> None:
        if self.history is None:
            return
        await self.history.forget(conversation_id)
        self._texts.pop(conversation_id, None)
        if conversation_id == self.session.id:
            self._load(None)
        self.on_list()

    async def search(self, query: str) -> list[str]:
        """The kept conversations whose title or messages hold every word of `query`, newest
        first (all of them for an empty query). The messages of each conversation are read
        once, then kept in memory as plain text, so searching as a person types reads nothing.
        """
        entries = self.history.entries() if self.history else []
        terms = query.casefold().split()
        if not terms:
            return [entry.id for entry in entries]
        found = []
        for entry in entries:
            text = await self._searchable(entry.id)
            haystack = f"{entry.title.casefold()}\n{text}"
            if all(term in haystack for term in terms):
                found.append(entry.id)
        return found

    async def _searchable(self, conversation_id: str) -> str:
        if conversation_id == self.session.id:
            return searchable_text(self.session.settled)
        if conversation_id not in self._texts and self.history is not None:
            data = await self.history.peek(conversation_id)
            self._texts[conversation_id] = searchable_text(data["messages"] if data else [])
        return self._texts.get(conversation_id, "")

    async def choose(self, *, model: str | None = None, thinking: str | None = None) -> None:
        """Change the model (an id the server offers) or thinking level; kept at once."""
        if model is not None and self.models and model not in self.models:
            raise WidgetError(f'The model "{model}" is not offered here.')
        if thinking is not None:
            self.session.set_thinking(thinking)
        if model is not None:
            self.session.set_model(*self.models.get(model, (model, None)))
        if not self.session.busy:
            await self.keep()

    async def rename(self, conversation_id: str, title: str) -> None:
        if not title.strip():
            raise WidgetError("A title needs at least one character.")
        if conversation_id == self.session.id:
            self.session.title = title
            await self.keep()
            return
        if self.history is None or (data := await self.history.read(conversation_id)) is None:
            raise WidgetError("That conversation could not be read. It was left as it is.")
        snapshot = from_dict(data)
        renamed = replace(snapshot, title=clean_title(title))
        await self.history.keep(renamed, named=True, spare=self._live())
        self.on_list()

    async def export_all(self) -> str:
        """Every kept conversation (the live one first) as one JSON file's text."""
        await self.keep()
        snapshots = []
        for entry in self.history.entries() if self.history else []:
            data = await self.history.read(entry.id) if self.history else None
            if data is not None:
                snapshots.append(data)
        if self.history is None and not self.session.is_empty:
            snapshots.append(self.session.snapshot().to_dict())
        return json.dumps(
            {"format": EXPORT_FORMAT, "version": 1, "conversations": snapshots},
            ensure_ascii=False,
            separators=(",", ":"),
        )

    async def import_all(self, text: str) -> int:
        """Keep the conversations of an exported file (or one snapshot); all or nothing.

        Every conversation is checked strictly first; one bad conversation refuses the file.
        A conversation already kept in a newer version is left as it is. Returns how many
        conversations were kept.
        """
        if self.history is None:
            raise WidgetError("History is off, so there is nowhere to import conversations to.")
        data = parse_json(text)
        if isinstance(data, dict) and data.get("format") == EXPORT_FORMAT:
            version = data.get("version", 1)  # absent in hand-made files: taken as 1
            if version != 1 or isinstance(version, bool):
                raise SnapshotError(
                    f"this file is a Chatkeep export of version {json.dumps(version)[:20]}, "
                    "and this version of Chatkeep reads version 1 only: nothing was imported"
                )
            items = data.get("conversations")
            if not isinstance(items, list):
                raise SnapshotError('the file has no "conversations" array')
        else:
            items = [data]
        snapshots = []
        for number, item in enumerate(items, start=1):
            try:
                snapshot = from_dict(item)
            except SnapshotError as exc:
                raise SnapshotError(f"conversation {number} of the file: {exc}") from exc
            snapshots.append(snapshot.with_messages(repair(list(snapshot.messages))))
        known = {entry.id: entry.updated for entry in self.history.entries()}
        kept = 0
        for snapshot in sorted(snapshots, key=lambda s: s.updated):
            if snapshot.messages and known.get(snapshot.id, -1) < snapshot.updated:
                await self.history.keep(snapshot, spare=self._live())
                self._texts.pop(snapshot.id, None)
                kept += 1
        self.on_list()
        return kept

    async def keep(self) -> None:
        """Store the live conversation's settled state, unless it is empty."""
        if self.history is None or self.session.is_empty:
            return
        # One write at a time, each of the state as it is when its turn comes: two writes
        # interleaving could land the older state last.
        async with self._keeping:
            try:
                stored = await self.history.keep(
                    self.session.snapshot(), named=self.session.named,
                    pending=self.session.turn or self.unfinished or "",
                )  # fmt: skip
            except StorageFull as exc:
                self.on_alert(str(exc))
                return
            self._texts.pop(stored.id, None)  # its text is the session's until it is left
            if stored.id != self.session.id:
                # Another tab moved this conversation on: ours continues as a new one.
                self.session.id = stored.id
            if stored.named and stored.title != self.session.title:
                self.session.adopt_title(stored.title)  # renamed in another tab: the name wins
        self.on_list()

    async def storage_changed(self, key: str) -> None:
        self._texts.pop(key.rsplit(":", 1)[-1], None)  # another tab changed it: read it again
        if self.history is None or not await self.history.changed(key):
            return
        live = self.history.entry(self.session.id)
        if live is None and key.endswith(f":meta:{self.session.id}") and not self.session.is_empty:
            # Another tab gave up (or forgot) the conversation open here: keep it again, so
            # what this tab shows is never lost with it.
            await self.keep()
            return
        if (
            live is not None
            and live.named
            and (live.updated, live.size) == (self.session.updated, len(self.session.settled))
            and live.title != self.session.title
        ):
            # Another tab renamed the open conversation and added no turns: take the name.
            self.session.adopt_title(live.title)
            await self.history.accept(self.session.id)
        self.on_list()

    async def _answer_named(self, turn: str) -> None:
        """The server keeps the answer being written: store the turn id with the question."""
        await self._claim(turn)
        await self.keep()

    async def _reopen_unfinished(self) -> None:
        """After a reload, open the newest conversation whose answer the server was still
        writing (unless another tab is reading it), for `pick_up`."""
        if self.history is None:
            return
        for entry in self.history.entries():
            if not entry.pending or not await self._claim(entry.pending):
                continue
            data = await self.history.read(entry.id)
            if data is None:
                self._let_go()
                continue
            self._load(from_dict(data), unfinished=entry.pending)
            self._offered_model()
            if entry.named:
                self.session.adopt_title(entry.title)
            return

    async def _claim(self, turn: str) -> bool:
        if turn in self._claimed:
            return True
        if not await self.claim(turn):
            return False
        self._claimed.append(turn)
        return True

    def _let_go(self, keep: str | None = None) -> None:
        """Give back the claims of turns no longer read here, all but `keep`."""
        for turn in self._claimed:
            if turn != keep:
                self.release(turn)
        self._claimed = [keep] if keep in self._claimed else []

    def _load(self, snapshot: Snapshot | None, unfinished: str | None = None) -> None:
        """Open `snapshot` (None: a new conversation); `unfinished` names its answer still
        being written, claimed already. Every other claim is given back."""
        self.session.load(snapshot)
        self.unfinished = unfinished
        self._let_go(keep=unfinished)

    def _offered_model(self) -> None:
        """A conversation opened on a model no longer offered continues on the default one."""
        if not self.models or self.session.model_id in self.models:
            return
        gone = self.session.model_id
        default = next(iter(self.models))
        self.session.set_model(*self.models[default])
        self.on_alert(
            f'This conversation used the model "{gone}", which is no longer offered here. '
            f'It continues with "{default}".'
        )

    def _live(self) -> tuple[str, ...]:
        """The open conversation, once kept: never given up to make room for another."""
        return () if self.session.is_empty else (self.session.id,)

    async def _turn(self, turn: Coroutine[Any, Any, Message]) -> Message:
        """Run one turn, which `stop` waits for; a second one while it runs is refused."""
        if not self._idle.is_set():
            turn.close()  # never started, so never awaited: close it quietly
            raise TurnError("An answer is still being written: stop it or wait for it to finish.")
        self._idle.clear()
        try:
            answer = await turn
        finally:
            self._idle.set()
            self._let_go()
        await self._settled(answer)
        return answer

    async def _settled(self, answer: Message) -> None:
        # The turn itself was stored before it settled (`Session.after_turn`).
        if self.generate_title and self._wants_title(answer):
            await self.session.generate_title(self.transport)
            await self.keep()

    def _wants_title(self, answer: Message) -> bool:
        history = self.session.get_history()
        users = sum(1 for m in history if m["role"] == "user")
        answered = any(m["role"] == "assistant" and "error" not in m for m in history)
        return users == 1 and answered and "error" not in answer and not self.session.has_own_title


async def _always(turn: str) -> bool:
    return True


def searchable_text(messages: Sequence[Message]) -> str:
    """What a search looks in: the people's and the model's words, not tool output."""
    return "\n".join(
        m["content"].casefold()
        for m in messages
        if m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str)
    )
