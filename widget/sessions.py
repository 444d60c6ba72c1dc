"""The session: a conversation and the turn loop that extends it by asking the model.

The session decides everything about a turn; a `Transport` only carries requests to the
model and batches of answer chunks back. In the browser the transport is the worker's
`fetch`; in tests it is a fake that replays chunks.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any, Protocol

from . import snapshots, versions
from .conversation import Conversation
from .errors import NoSuchMessage, TurnError, WidgetError
from .messages import Message, validate_messages
from .protocol import TURN_KEY
from .request_bodies import chat_request, title_request
from .streams import AnswerBuilder
from .texts import Notice, notice
from .titles import clean_title
from .tools import Tool, run_call, tool_from_callable, unrun

MAX_TOOL_ROUNDS = 8
#: tool calls run per answer (the server's `CHATKEEP_MAX_TOOL_CALLS`); the rest are answered
#: with `TOO_MANY_TOOL_CALLS`, never run: one answer of a thousand calls would run the page's
#: tools a thousand times, or ask the person a thousand times
MAX_TOOL_CALLS = 16
TOO_MANY_TOOL_CALLS = "too many tool calls"


class Transport(Protocol):
    """Carries one request to the model; yields batches of parsed stream chunks."""

    def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]: ...

    def resume(self, turn: str) -> AsyncIterator[list[Any]]:
        """The answer the server keeps under `turn`, from its first chunk."""
        ...


class TurnHooks(Protocol):
    """What a turn tells whoever stores the conversation (`widget.keeper.Keeper`)."""

    async def turn_named(self, turn: str) -> None:
        """The server keeps the answer being written under `turn`, for a reload."""

    async def turn_ending(self) -> None:
        """The turn is over: called before listeners hear that it has settled."""


class Session:
    """A conversation with a model: the `conversation` (history, choices, title), the tools,
    the operator's instructions, and the turn loop that asks the model.

    The conversation's listeners hear every change a turn makes. The few methods the public
    Python API names (`get_history`, `set_history`, snapshots, `pending_tool_calls`) are
    here too, as the conversation's.
    """

    def __init__(
        self,
        *,
        instructions: str | None = None,
        tools: Iterable[Callable[..., Any] | Tool] = (),
        model: str | None = None,
        provider: str | None = None,
        clock: Callable[[], int] | None = None,
        max_tool_calls: int = MAX_TOOL_CALLS,
    ) -> None:
        self.conversation = Conversation(model=model, provider=provider, clock=clock)
        self.instructions = instructions
        #: what the host page said about itself for the next requests (JSON text); never kept
        self.page_context: str | None = None
        self.max_tool_calls = max_tool_calls
        self.tools: dict[str, Tool] = {}
        for tool in tools:
            self.add_tool(tool)
        self._stop_requested = False
        self._hooks: TurnHooks | None = None
        #: the server's id of the answer being streamed, while a reload could pick it up
        self.turn: str | None = None

    # -- the public Python API's conversation members -----------------------------------

    def get_history(self) -> list[Message]:
        return self.conversation.get_history()

    def set_history(self, messages: object) -> None:
        self.conversation.set_history(messages)

    def export_snapshot(self) -> str:
        return self.conversation.export_snapshot()

    def import_snapshot(
        self, text: str | bytes, max_size_bytes: int = snapshots.DEFAULT_MAX_SIZE_BYTES
    ) -> None:
        self.conversation.import_snapshot(text, max_size_bytes)

    @property
    def pending_tool_calls(self) -> list[Message]:
        return self.conversation.pending_tool_calls

    # -- turns -----------------------------------------------------------------------------

    async def send(
        self,
        text: str,
        transport: Transport,
        *,
        attachments: Sequence[Message] = (),
        hooks: TurnHooks | None = None,
    ) -> Message:
        """Add a user message and run the model (and its tool calls) until it answers."""
        message: Message = {"role": "user", "content": text}
        if attachments:
            message["attachments"] = [dict(a) for a in attachments]
        [message] = validate_messages([message], TurnError)
        self.conversation.begin_turn()
        self.conversation.add(message)
        return await self._run(transport, hooks)

    async def resume(
        self, turn: str, transport: Transport, hooks: TurnHooks | None = None
    ) -> Message:
        """Pick up the answer the server kept writing under `turn` (after a reload), and
        carry on from it as `send` would have: tool calls run, the turn is stored once done."""
        settled = self.conversation.settled
        if not settled or settled[-1]["role"] not in ("user", "tool"):
            raise NoSuchMessage("there is no unanswered message to pick an answer up for")
        self.conversation.begin_turn()
        return await self._run(transport, hooks, resume=turn)

    async def retry(
        self, index: int, transport: Transport, hooks: TurnHooks | None = None
    ) -> Message:
        """Run the user message at `index` again, replacing everything after it."""
        settled = self.conversation.settled
        self.conversation.require_idle()
        versions.user_message(settled, index, "retry")
        self.conversation.begin_turn(list(settled[: index + 1]))
        return await self._run(transport, hooks)

    async def edit(
        self, index: int, text: str, transport: Transport, hooks: TurnHooks | None = None
    ) -> Message:
        """Send the user message at `index` again with new `text`, replacing what followed.

        The earlier version (the message and the answers after it) stays in the message's
        `versions`, reachable with `show_version`; the new one is shown, last of all.
        """
        settled = self.conversation.settled
        self.conversation.require_idle()
        message = versions.user_message(settled, index, "edit")
        [edit] = validate_messages([{**message, "content": text}], TurnError)
        self.conversation.begin_turn(versions.edited(settled, index, edit))
        return await self._run(transport, hooks)

    def stop(self) -> None:
        """Ask the running turn to end; the transport is expected to abort its request too."""
        if self.conversation.busy:
            self._stop_requested = True

    async def generate_title(self, transport: Transport) -> str:
        """Ask the model to name the conversation; on any failure keep the derived title.

        The answer is used only if, when it lands, the same conversation is still open and
        nobody has named it meanwhile: a person's name always wins.
        """
        conversation = self.conversation
        asked_about = conversation.id
        try:
            builder = AnswerBuilder()
            request = title_request(conversation.settled, model=conversation.model_id)
            async for batch in transport.complete(request):
                for chunk in batch:
                    builder.feed(chunk)
        except WidgetError:
            return conversation.title
        if conversation.id == asked_about:
            conversation.offer_title(clean_title(builder.text))
        return conversation.title

    def request(self) -> dict[str, Any]:
        """The request body that continues the conversation as it stands."""
        conversation = self.conversation
        return chat_request(
            conversation.settled,
            instructions=self.instructions,
            model=conversation.model_id,
            thinking=conversation.thinking,
            tools=self.tools.values(),
            page_context=self.page_context,
        )

    # -- tools -----------------------------------------------------------------------------

    def add_tool(self, tool: Callable[..., Any] | Tool) -> Tool:
        made = tool_from_callable(tool)
        self.tools[made.name] = made
        return made

    def remove_tool(self, name: str) -> None:
        self.tools.pop(name, None)

    # -- the loop --------------------------------------------------------------------------

    async def _run(
        self, transport: Transport, hooks: TurnHooks | None, resume: str | None = None
    ) -> Message:
        conversation = self.conversation
        self._stop_requested = False
        self._hooks = hooks
        try:
            for _ in range(MAX_TOOL_ROUNDS):
                answer = await self._stream_answer(transport, resume)
                resume = None
                if "error" in answer or not answer.get("tool_calls"):
                    return answer
                calls_at = len(conversation.settled) - 1
                for number, call in enumerate(answer["tool_calls"]):
                    if number >= self.max_tool_calls:
                        conversation.add(unrun(call, TOO_MANY_TOOL_CALLS))
                        continue
                    result = await run_call(self.tools, call)
                    if self._stop_requested:
                        # Stopped while tools ran (or waited for approval): the calls are cut,
                        # never kept half-answered, so a new call is approved afresh.
                        conversation.cut(calls_at)
                        return self._fail(AnswerBuilder(), notice("stopped"))
                    conversation.add(result)
            return self._fail(AnswerBuilder(), notice("tools_loop"))
        finally:
            conversation.show_answer(None)
            try:
                if hooks is not None:
                    await hooks.turn_ending()  # stored before anyone hears the turn has settled
            finally:
                self._hooks = None
                conversation.end_turn()

    async def _stream_answer(self, transport: Transport, resume: str | None) -> Message:
        conversation = self.conversation
        builder = AnswerBuilder(clock=lambda: conversation.now() / 1000)
        conversation.show_answer(builder)
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
                conversation.show_answer(builder)
        except TurnError as exc:
            return self._fail(builder, notice("stopped") if self._stop_requested else exc.notice())
        finally:
            self.turn = None
        if self._stop_requested:
            return self._fail(builder, notice("stopped"))
        if builder.finish_reason is None and not builder.content and not builder.tool_calls:
            return self._fail(builder, notice("empty_answer"))
        message = builder.message()
        conversation.answered(message, builder.usage)
        return message

    async def _turn_named(self, turn: str) -> None:
        self.turn = turn
        if self._hooks is not None:
            await self._hooks.turn_named(turn)

    def _fail(self, builder: AnswerBuilder, reason: Notice) -> Message:
        message: Message = {"role": "assistant", "content": builder.text,
                            "error": reason["message"]}  # fmt: skip
        if reason["code"]:  # for the page to say in its language (widget.texts)
            message |= {"error_code": reason["code"], "error_params": reason["params"]}
        message |= builder.thought()  # what the model thought before it was stopped is kept
        self.conversation.add(message)
        return message
