"""One conversation's state: its messages, their versions, its choices and its title.

`Conversation` holds what a snapshot holds, plus the answer being written, and tells its
listeners what changed; it never talks to a model. `widget.sessions.Session` holds one and
runs the turn loop that extends it, through the few methods at the end of the class.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from . import snapshots, versions
from .context_use import Report, reported
from .errors import HistoryError, TurnError, WidgetError
from .ids import new_id
from .messages import RATINGS, Message, copy_message, pending_tool_calls, validate_messages
from .share_records import ShareRecord
from .snapshots import THINKING_LEVELS, Snapshot
from .streams import AnswerBuilder
from .titles import clean_title, derive_title

#: hears `"messages"` (the settled messages changed), `"draft"` (the answer being written
#: grew) or `"meta"` (title, model, thinking level, busy): `Conversation.subscribe`
ChangeListener = Callable[[str], None]


class Conversation:
    """The live conversation; every change is heard by its listeners."""

    def __init__(
        self,
        *,
        model: str | None = None,
        provider: str | None = None,
        clock: Callable[[], int] | None = None,
    ) -> None:
        #: what a new conversation starts on
        self.default_model = model or ""
        self.default_provider = provider
        self._clock = clock or (lambda: int(time.time() * 1000))
        #: the time now, in milliseconds (the session's clock: tests set it)
        self.now = self._clock
        self._listeners: list[ChangeListener] = []
        self.id = ""
        self.created = self.updated = 0
        self.model = self.default_model
        self.provider = self.default_provider
        self.thinking = "off"
        self._title = ""
        self._named = False
        self._messages: list[Message] = []
        #: the answer being streamed, as it is being built
        self._draft: AnswerBuilder | None = None
        #: a turn runs (streaming, or running tools between answers)
        self._running = False
        self.usage: dict[str, int] | None = None
        self.report: Report | None = None  # the upstream's count so far: the meter's truth
        #: tools the person allowed to run without asking, in this conversation only
        self.allowed_tools: tuple[str, ...] = ()
        self.shares: tuple[ShareRecord, ...] = ()  # the links it is shared by
        self._reset(None)

    # -- reading -------------------------------------------------------------------------

    def get_history(self) -> list[Message]:
        """A copy of the settled messages (no system message, no unfinished answer)."""
        return [copy_message(m) for m in self._messages]

    @property
    def settled(self) -> Sequence[Message]:
        """The settled messages themselves, not copies: for reading what changed, cheaply.

        A message is never changed in place once settled, so comparing these by identity
        tells which ones are new.
        """
        return tuple(self._messages)

    @property
    def answer(self) -> AnswerBuilder | None:
        """The answer being streamed, as it is being built (read it, never change it)."""
        return self._draft

    @property
    def draft(self) -> Message | None:
        """The answer being streamed right now, if any."""
        return self._draft.message() if self._draft else None

    @property
    def pending_tool_calls(self) -> list[Message]:
        """Restored tool calls that have no result; nothing runs them by itself."""
        return pending_tool_calls(self._messages)

    busy = property(lambda self: self._draft is not None or self._running)
    is_empty = property(lambda self: not self._messages)

    @property
    def model_id(self) -> str:
        """The id the server knows: `<provider>/<model>` with several upstreams, else the model."""
        return f"{self.provider}/{self.model}" if self.provider else self.model

    # -- titles --------------------------------------------------------------------------

    @property
    def title(self) -> str:
        return self._title or derive_title(self._messages)

    @title.setter
    def title(self, value: str) -> None:
        """A title a person gave."""
        self.adopt_title(value)

    @property
    def has_own_title(self) -> bool:
        """True once a title was generated or set, rather than derived from the first message."""
        return bool(self._title)

    @property
    def named(self) -> bool:
        """True when a person gave the title: a generated one never replaces it."""
        return self._named

    def adopt_title(self, value: str) -> None:
        """Take a person's title, given here or in another tab."""
        self._title = clean_title(value)
        self._named = True
        self._emit("meta")

    def offer_title(self, value: str) -> None:
        """A generated title: taken unless a person named the conversation."""
        if value and not self._named:
            self._title = value
            self._emit("meta")

    # -- choices -------------------------------------------------------------------------

    def set_model(self, model: str, provider: str | None = None) -> None:
        """Choose the model (and, with several upstreams, the provider that serves it)."""
        self.model = model
        self.provider = provider
        self._emit("meta")

    def set_thinking(self, level: str) -> None:
        if level not in THINKING_LEVELS:
            raise WidgetError(
                f'thinking must be one of {", ".join(THINKING_LEVELS)}, not "{level}"'
            )
        self.thinking = level
        self._emit("meta")

    # -- messages and versions -----------------------------------------------------------

    def set_history(self, messages: object) -> None:
        """Validate, then replace the messages; on `HistoryError` nothing has changed."""
        kept = validate_messages(messages, HistoryError)
        self.require_idle()
        self._messages = kept
        self._touch()

    def show_version(self, index: int, version: int) -> None:
        """Show version `version` (1-based) of the edited user message at `index`."""
        self.require_idle()
        self._messages = versions.with_version(self._messages, index, version)
        self._touch()

    def set_feedback(self, index: int, rating: str | None) -> None:
        """A person's rating of the answer at `index`: "good", "bad", or `None` to take it back.

        A rating is not a turn: the conversation keeps its place in the list."""
        message = self._messages[index] if 0 <= index < len(self._messages) else None
        if message is None or message["role"] != "assistant" or not message.get("content"):
            raise WidgetError.said("no_answer_to_rate", index=index)
        if rating is not None and rating not in RATINGS:
            raise WidgetError.said("bad_rating", rating=str(rating)[:40])
        rated = {key: value for key, value in message.items() if key != "feedback"}
        self.amend(index, rated if rating is None else rated | {"feedback": rating})

    def amend(self, index: int, message: Message) -> None:
        """The settled message at `index` replaced (rated, a form of it sent): not a turn."""
        self._messages[index] = message
        self._emit("messages")

    def allow_tool(self, name: str, allowed: bool) -> None:
        """Let `name` run without asking in this conversation (or ask again: `allowed` False)."""
        others = tuple(tool for tool in self.allowed_tools if tool != name)
        self.allowed_tools = (*others, name) if allowed else others
        self._emit("meta")

    # -- snapshots -----------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The settled conversation as a snapshot; an answer still streaming is left out."""
        return Snapshot(
            id=self.id,
            title=self.title,
            created=self.created,
            updated=self.updated,
            model=self.model,
            thinking=self.thinking,
            provider=self.provider,
            messages=tuple(copy_message(m) for m in self._messages),
            allowed_tools=self.allowed_tools,
            shares=self.shares,
        )

    def export_snapshot(self) -> str:
        """Version 1 snapshot JSON of the settled conversation."""
        return snapshots.dumps(self.snapshot())

    def import_snapshot(
        self, text: str | bytes, max_size_bytes: int = snapshots.DEFAULT_MAX_SIZE_BYTES
    ) -> None:
        """Replace the conversation with a snapshot's, checked whole first (`SnapshotError`)."""
        snapshot = snapshots.loads(text, max_size_bytes=max_size_bytes)
        self.load(snapshot)

    def load(self, snapshot: Snapshot | None) -> None:
        """Open `snapshot` in place (or a new, empty conversation for `None`)."""
        self.require_idle()
        self._reset(snapshot)
        self._emit("messages")
        self._emit("meta")

    # -- listeners -----------------------------------------------------------------------

    def subscribe(self, listener: ChangeListener) -> Callable[[], None]:
        """Call `listener(kind)` on every change; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, kind: str) -> None:
        for listener in list(self._listeners):
            listener(kind)

    # -- what the turn loop changes (`widget.sessions.Session`) ---------------------------

    def require_idle(self) -> None:
        if self.busy:
            raise TurnError.said("busy")

    def begin_turn(self, messages: list[Message] | None = None) -> None:
        """A turn starts: busy from the first change anyone hears. `messages` first replaces
        the settled ones (a retry or an edit rewinds)."""
        self.require_idle()
        self._running = True
        if messages is not None:
            self._messages = messages
            self._touch()

    def add(self, message: Message) -> None:
        """A settled message: the person's, a tool's result, or a whole answer."""
        self._draft = None
        self._messages.append(message)
        self._touch()

    def answered(self, message: Message, usage: dict[str, int] | None) -> None:
        """A whole answer, with the upstream's report of what the turn used."""
        self.usage = usage
        self.add(message)
        self.report = reported(usage, len(self._messages)) or self.report

    def cut(self, length: int) -> None:
        """Drop the settled messages from `length` on (tool calls cut by "stop")."""
        self._messages = self._messages[:length]
        self._touch()

    def show_answer(self, answer: AnswerBuilder | None) -> None:
        """The answer being streamed, as it stands now (`None`: none any more)."""
        self._draft = answer
        if answer is not None:
            self._emit("draft")

    def end_turn(self) -> None:
        self._draft = None
        self._running = False
        self._emit("messages")

    def _reset(self, snapshot: Snapshot | None) -> None:
        self.id = snapshot.id if snapshot else new_id()
        self._messages = [copy_message(m) for m in snapshot.messages] if snapshot else []
        derived = derive_title(self._messages)
        self._title = snapshot.title if snapshot and snapshot.title != derived else ""
        self._named = False  # the history that opens it says otherwise (`adopt_title`)
        self.created = snapshot.created if snapshot else 0
        self.updated = snapshot.updated if snapshot else 0
        self.model = snapshot.model if snapshot and snapshot.model else self.default_model
        self.thinking = snapshot.thinking if snapshot else "off"
        self.provider = snapshot.provider if snapshot and snapshot.model else self.default_provider
        self.usage = None
        self.report = None
        self.allowed_tools = snapshot.allowed_tools if snapshot else ()
        self.shares = snapshot.shares if snapshot else ()
        self._running = False

    def _touch(self) -> None:
        self.updated = self._clock()
        self.created = self.created or self.updated
        self._emit("messages")
