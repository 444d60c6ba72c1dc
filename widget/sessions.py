"""The session: one live conversation, the turn loop that extends it, and its snapshots.

The session decides everything about the conversation; a `Transport` only carries requests
to the model and batches of answer chunks back. In the browser the transport is the worker's
`fetch`; in tests it is a fake that replays chunks.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from . import snapshots
from .errors import HistoryError, TurnError, WidgetError
from .messages import Message, copy_message, pending_tool_calls, validate_messages
from .requests import chat_request, title_request
from .snapshots import THINKING_LEVELS, Snapshot
from .streams import TURN_KEY, AnswerBuilder
from .titles import clean_title, derive_title
from .tools import Tool, tool_from_callable

MAX_TOOL_ROUNDS = 8
STOPPED = "Stopped before the answer was finished."


class Transport(Protocol):
    """Carries one request to the model; yields batches of parsed stream chunks."""

    def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]: ...

    def resume(self, turn: str) -> AsyncIterator[list[Any]]:
        """The answer the server keeps under `turn`, from its first chunk."""
        ...


Listener = Callable[[str], None]


class Session:
    """A conversation with a model: history, choices (model, thinking level, title) and tools.

    Listeners hear `"messages"` when the settled conversation changes, `"draft"` while an
    answer streams, and `"meta"` when the title, model or thinking level change.
    """

    def __init__(
        self,
        *,
        instructions: str | None = None,
        tools: Iterable[Callable[..., Any] | Tool] = (),
        model: str | None = None,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.instructions = instructions
        self.tools: dict[str, Tool] = {}
        for tool in tools:
            self.add_tool(tool)
        self.default_model = model or ""
        self.default_provider: str | None = None
        self._clock = clock or (lambda: int(time.time() * 1000))
        self._listeners: list[Listener] = []
        self.id = ""
        self.created = self.updated = 0
        self.model = self.default_model
        self.thinking = "off"
        self.provider: str | None = self.default_provider
        self._title = ""
        self._named = False
        self._messages: list[Message] = []
        self._running = False
        self._draft: AnswerBuilder | None = None
        self._stop_requested = False
        self.usage: dict[str, int] | None = None
        #: the server's id of the answer being streamed, while a reload could pick it up
        self.turn: str | None = None
        #: awaited when a turn ends, before listeners hear that it has (used to store it)
        self.after_turn: Callable[[], Awaitable[None]] | None = None
        #: awaited when the server names the answer being streamed (used to store the name)
        self.on_turn: Callable[[str], Awaitable[None]] | None = None
        self._reset(None)

    # -- the conversation --------------------------------------------------------------

    def get_history(self) -> list[Message]:
        """A copy of the settled messages (no system message, no unfinished answer)."""
        return [copy_message(m) for m in self._messages]

    def set_history(self, messages: object) -> None:
        """Validate, then replace the messages; on `HistoryError` nothing has changed."""
        kept = validate_messages(messages, HistoryError)
        self._require_idle()
        self._messages = kept
        self.updated = self._clock()
        self.created = self.created or self.updated
        self._emit("messages")

    @property
    def pending_tool_calls(self) -> list[Message]:
        """Restored tool calls that have no result; nothing runs them by itself."""
        return pending_tool_calls(self._messages)

    @property
    def draft(self) -> Message | None:
        """The answer being streamed right now, if any."""
        return self._draft.message() if self._draft else None

    @property
    def answer(self) -> AnswerBuilder | None:
        """The answer being streamed, as it is being built (read it, never change it)."""
        return self._draft

    @property
    def settled(self) -> Sequence[Message]:
        """The settled messages themselves, not copies: for reading what changed, cheaply.

        A message is never changed in place once settled, so comparing these by identity
        tells which ones are new.
        """
        return tuple(self._messages)

    @property
    def busy(self) -> bool:
        return self._draft is not None or self._running

    @property
    def has_own_title(self) -> bool:
        """True once a title was generated or set, rather than derived from the first message."""
        return bool(self._title)

    @property
    def named(self) -> bool:
        """True when a person gave the title: a generated one never replaces it."""
        return self._named

    @property
    def title(self) -> str:
        return self._title or derive_title(self._messages)

    @title.setter
    def title(self, value: str) -> None:
        """A title a person gave."""
        self.adopt_title(value)

    def adopt_title(self, value: str) -> None:
        """Take a person's title, given here or in another tab."""
        self._title = clean_title(value)
        self._named = True
        self._emit("meta")

    def set_model(self, model: str, provider: str | None = None) -> None:
        """Choose the model (and, with several upstreams, the provider that serves it)."""
        self.model = model
        self.provider = provider
        self._emit("meta")

    @property
    def model_id(self) -> str:
        """The id the server knows: `<provider>/<model>` with several upstreams, else the model."""
        return f"{self.provider}/{self.model}" if self.provider else self.model

    def set_thinking(self, level: str) -> None:
        if level not in THINKING_LEVELS:
            raise WidgetError(
                f'thinking must be one of {", ".join(THINKING_LEVELS)}, not "{level}"'
            )
        self.thinking = level
        self._emit("meta")

    # -- snapshots ---------------------------------------------------------------------

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
        )

    def export_snapshot(self) -> str:
        """Version 1 snapshot JSON of the settled conversation."""
        return snapshots.dumps(self.snapshot())

    def import_snapshot(
        self, text: str | bytes, max_size_bytes: int = snapshots.DEFAULT_MAX_SIZE_BYTES
    ) -> None:
        """Replace the conversation with a snapshot's, checked whole first (`SnapshotError`)."""
        snapshot = snapshots.loads(text, max_size_bytes=max_size_bytes)
        self._require_idle()
        self.load(snapshot)

    def load(self, snapshot: Snapshot | None) -> None:
        """Open `snapshot` in place (or a new, empty conversation for `None`)."""
        self._require_idle()
        self._reset(snapshot)
        self._emit("messages")
        self._emit("meta")

    @property
    def is_empty(self) -> bool:
        return not self._messages

    # -- turns ---------------------------------------------------------------------------

    async def send(
        self, text: str, transport: Transport, *, attachments: Sequence[Message] = ()
    ) -> Message:
        """Add a user message and run the model (and its tool calls) until it answers."""
        self._require_idle()
        message: Message = {"role": "user", "content": text}
        if attachments:
            message["attachments"] = [dict(a) for a in attachments]
        [message] = validate_messages([message], TurnError)
        self._running = True  # busy from the first change listeners hear
        self._append(message)
        return await self._run(transport)

    async def resume(self, turn: str, transport: Transport) -> Message:
        """Pick up the answer the server kept writing under `turn` (after a reload), and
        carry on from it as `send` would have: tool calls run, the turn is stored once done."""
        self._require_idle()
        if not self._messages or self._messages[-1]["role"] not in ("user", "tool"):
            raise TurnError("there is no unanswered message to pick an answer up for")
        self._running = True
        return await self._run(transport, resume=turn)

    async def retry(self, index: int, transport: Transport) -> Message:
        """Run the user message at `index` again, replacing everything after it."""
        self._require_idle()
        if not 0 <= index < len(self._messages) or self._messages[index]["role"] != "user":
            raise TurnError(f"there is no user message at index {index} to retry")
        self._running = True
        self._messages = self._messages[: index + 1]
        self._touch()
        return await self._run(transport)

    async def edit(self, index: int, text: str, transport: Transport) -> Message:
        """Send the user message at `index` again with new `text`, replacing what followed.

        The earlier version (the message and the answers after it) stays in the message's
        `versions`, reachable with `show_version`; the new one is shown, last of all.
        """
        self._require_idle()
        message = self._user_message(index, "edit")
        [edited] = validate_messages([{**message, "content": text}], TurnError)
        versions = [*message.get("versions", []), self._shown_version(index)]
        shown = message.get("version", len(versions))
        # The one shown before keeps its place; the new one goes last.
        versions.insert(shown - 1, versions.pop())
        edited["versions"], edited["version"] = versions, len(versions) + 1
        self._running = True
        self._messages = [*self._messages[:index], edited]
        self._touch()
        return await self._run(transport)

    def show_version(self, index: int, version: int) -> None:
        """Show version `version` (1-based) of the edited user message at `index`."""
        self._require_idle()
        message = self._user_message(index, "show a version of")
        versions = message.get("versions")
        if not versions or not 1 <= version <= len(versions) + 1:
            raise TurnError(f"the message at index {index} has no version {version}")
        every = list(versions)
        every.insert(message["version"] - 1, self._shown_version(index))
        chosen = every.pop(version - 1)
        shown: Message = {**message, "content": chosen["content"], "versions": every,
                          "version": version}  # fmt: skip
        shown.pop("attachments", None)
        if "attachments" in chosen:
            shown["attachments"] = chosen["attachments"]
        self._messages = [*self._messages[:index], shown, *chosen["after"]]
        self._touch()

    def _shown_version(self, index: int) -> Message:
        message = self._messages[index]
        after = [copy_message(m) for m in self._messages[index + 1 :]]
        version: Message = {"content": message["content"], "after": after}
        if "attachments" in message:
            version["attachments"] = message["attachments"]
        return version

    def _user_message(self, index: int, action: str) -> Message:
        if not 0 <= index < len(self._messages) or self._messages[index]["role"] != "user":
            raise TurnError(f"there is no user message at index {index} to {action}")
        return self._messages[index]

    def fork(self, index: int) -> tuple[Snapshot, str]:
        """A new conversation holding the turns before the user message at `index`, and its text."""
        if not 0 <= index < len(self._messages) or self._messages[index]["role"] != "user":
            raise TurnError(f"there is no user message at index {index} to fork from")
        now = self._clock()
        forked = Snapshot(
            id=new_id(),
            created=now if index else 0,
            updated=now if index else 0,
            model=self.model,
            thinking=self.thinking,
            provider=self.provider,
            messages=tuple(copy_message(m) for m in self._messages[:index]),
        )
        return forked, self._messages[index]["content"] or ""

    def stop(self) -> None:
        """Ask the running turn to end; the transport is expected to abort its request too."""
        if self.busy:
            self._stop_requested = True

    async def generate_title(self, transport: Transport) -> str:
        """Ask the model to name the conversation; on any failure keep the derived title.

        The answer is used only if, when it lands, the same conversation is still open and
        nobody has named it meanwhile: a person's name always wins.
        """
        conversation = self.id
        try:
            builder = AnswerBuilder()
            request = title_request(self._messages, model=self.model_id)
            async for batch in transport.complete(request):
                for chunk in batch:
                    builder.feed(chunk)
        except WidgetError:
            return self.title
        title = clean_title(builder.text)
        if title and not self._named and self.id == conversation:
            self._title = title
            self._emit("meta")
        return self.title

    def request(self) -> dict[str, Any]:
        """The request body that continues the conversation as it stands."""
        return chat_request(
            self._messages,
            instructions=self.instructions,
            model=self.model_id,
            thinking=self.thinking,
            tools=self.tools.values(),
        )

    # -- tools and listeners -------------------------------------------------------------

    def add_tool(self, tool: Callable[..., Any] | Tool) -> Tool:
        made = tool_from_callable(tool)
        self.tools[made.name] = made
        return made

    def remove_tool(self, name: str) -> None:
        self.tools.pop(name, None)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(kind)` on every change; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- internals ---------------------------------------------------------------------

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
        self._running = False

    async def _run(self, transport: Transport, resume: str | None = None) -> Message:
        self._running = True
        self._stop_requested = False
        try:
            for _ in range(MAX_TOOL_ROUNDS):
                answer = await self._stream_answer(transport, resume)
                resume = None
                if "error" in answer or not answer.get("tool_calls"):
                    return answer
                calls_at = len(self._messages) - 1
                for call in answer["tool_calls"]:
                    result = await self._run_tool(call)
                    if self._stop_requested:
                        # Stopped while tools ran (or waited for approval): the calls are cut,
                        # never kept half-answered, so a new call is approved afresh.
                        self._messages = self._messages[:calls_at]
                        return self._fail(AnswerBuilder(), STOPPED)
                    self._append(result)
            return self._fail(AnswerBuilder(), "The model kept calling tools without answering.")
        finally:
            self._draft = None
            try:
                if self.after_turn is not None:
                    await self.after_turn()  # stored before anyone hears the turn has settled
            finally:
                self._running = False
                self._emit("messages")

    async def _stream_answer(self, transport: Transport, resume: str | None) -> Message:
        builder = AnswerBuilder()
        self._draft = builder
        self._emit("draft")
        self.turn = resume
        chunks = transport.resume(resume) if resume else transport.complete(self.request())
        try:
            async for batch in chunks:
                if self._stop_requested:  # what arrives after "stop" is not shown
                    break
                for chunk in batch:
                    if isinstance(chunk, dict) and isinstance(chunk.get(TURN_KEY), str):
                        await self._turn_named(chunk[TURN_KEY])
                    else:
                        builder.feed(chunk)
                self._emit("draft")
        except TurnError as exc:
            return self._fail(builder, STOPPED if self._stop_requested else str(exc))
        finally:
            self.turn = None
        if self._stop_requested:
            return self._fail(builder, STOPPED)
        if builder.finish_reason is None and not builder.content and not builder.tool_calls:
            return self._fail(builder, "The model sent an empty answer. Try again.")
        self.usage = builder.usage
        message = builder.message()
        self._draft = None
        self._append(message)
        return message

    async def _turn_named(self, turn: str) -> None:
        self.turn = turn
        if self.on_turn is not None:
            await self.on_turn(turn)

    async def _run_tool(self, call: Message) -> Message:
        name = call["function"]["name"]
        result: Message = {"role": "tool", "tool_call_id": call["id"], "name": name}
        tool = self.tools.get(name)
        if tool is None:
            result["content"] = f'Error: there is no tool named "{name}".'
            return result
        try:
            arguments = json.loads(call["function"]["arguments"] or "{}")
            if not isinstance(arguments, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            result["content"] = f"Error: the arguments are not valid JSON ({exc})."
            return result
        try:
            output = await tool.run(arguments)
        except Exception as exc:  # a tool's failure is the model's to read, not the session's
            output = f"Error: {exc}"
        result["content"] = output if isinstance(output, str) else json.dumps(output)
        return result

    def _fail(self, builder: AnswerBuilder, reason: str) -> Message:
        message: Message = {"role": "assistant", "content": builder.text, "error": reason}
        self._draft = None
        self._append(message)
        return message

    def _append(self, message: Message) -> None:
        self._messages.append(message)
        self._touch()

    def _touch(self) -> None:
        self.updated = self._clock()
        self.created = self.created or self.updated
        self._emit("messages")

    def _require_idle(self) -> None:
        if self.busy:
            raise TurnError("An answer is still being written: stop it or wait for it to finish.")

    def _emit(self, kind: str) -> None:
        for listener in list(self._listeners):
            listener(kind)


def new_id() -> str:
    return uuid.uuid4().hex
