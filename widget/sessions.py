"""The session: a conversation and the turn loop that extends it by asking the model.

The session decides everything about a turn; a `Transport` only carries requests to the
model and batches of answer chunks back. In the browser the transport is the worker's
`fetch`; in tests it is a fake that replays chunks.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any, Protocol

from . import versions
from .conversation import Conversation
from .errors import NoSuchMessage, TurnError, WidgetError
from .messages import Message, validate_messages
from .protocol import TURN_KEY
from .request_bodies import chat_request, title_request
from .streams import AnswerBuilder
from .texts import Notice, notice
from .titles import clean_title
from .tools import Tool, tool_from_callable

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


class Session(Conversation):
    """A conversation with a model: history, choices (model, thinking level, title) and tools.

    Listeners hear `"messages"` when the settled conversation changes, `"draft"` while an
    answer streams, and `"meta"` when the title, model, thinking level or `busy` change.
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
        super().__init__(model=model, provider=provider, clock=clock)
        self.instructions = instructions
        self.max_tool_calls = max_tool_calls
        self.tools: dict[str, Tool] = {}
        for tool in tools:
            self.add_tool(tool)
        self._stop_requested = False
        self._hooks: TurnHooks | None = None
        #: the server's id of the answer being streamed, while a reload could pick it up
        self.turn: str | None = None

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
        self._require_idle()
        message: Message = {"role": "user", "content": text}
        if attachments:
            message["attachments"] = [dict(a) for a in attachments]
        [message] = validate_messages([message], TurnError)
        self._running = True  # busy from the first change listeners hear
        self._append(message)
        return await self._run(transport, hooks)

    async def resume(
        self, turn: str, transport: Transport, hooks: TurnHooks | None = None
    ) -> Message:
        """Pick up the answer the server kept writing under `turn` (after a reload), and
        carry on from it as `send` would have: tool calls run, the turn is stored once done."""
        self._require_idle()
        if not self._messages or self._messages[-1]["role"] not in ("user", "tool"):
            raise NoSuchMessage("there is no unanswered message to pick an answer up for")
        self._running = True
        return await self._run(transport, hooks, resume=turn)

    async def retry(
        self, index: int, transport: Transport, hooks: TurnHooks | None = None
    ) -> Message:
        """Run the user message at `index` again, replacing everything after it."""
        self._require_idle()
        versions.user_message(self._messages, index, "retry")
        self._running = True
        self._messages = self._messages[: index + 1]
        self._touch()
        return await self._run(transport, hooks)

    async def edit(
        self, index: int, text: str, transport: Transport, hooks: TurnHooks | None = None
    ) -> Message:
        """Send the user message at `index` again with new `text`, replacing what followed.

        The earlier version (the message and the answers after it) stays in the message's
        `versions`, reachable with `show_version`; the new one is shown, last of all.
        """
        self._require_idle()
        message = versions.user_message(self._messages, index, "edit")
        [edit] = validate_messages([{**message, "content": text}], TurnError)
        self._running = True
        self._messages = versions.edited(self._messages, index, edit)
        self._touch()
        return await self._run(transport, hooks)

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
        if self.id == conversation:
            self.offer_title(clean_title(builder.text))
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
        self._running = True
        self._stop_requested = False
        self._hooks = hooks
        try:
            for _ in range(MAX_TOOL_ROUNDS):
                answer = await self._stream_answer(transport, resume)
                resume = None
                if "error" in answer or not answer.get("tool_calls"):
                    return answer
                calls_at = len(self._messages) - 1
                for number, call in enumerate(answer["tool_calls"]):
                    if number >= self.max_tool_calls:
                        self._append(_unrun(call, TOO_MANY_TOOL_CALLS))
                        continue
                    result = await self._run_tool(call)
                    if self._stop_requested:
                        # Stopped while tools ran (or waited for approval): the calls are cut,
                        # never kept half-answered, so a new call is approved afresh.
                        self._messages = self._messages[:calls_at]
                        return self._fail(AnswerBuilder(), notice("stopped"))
                    self._append(result)
            return self._fail(AnswerBuilder(), notice("tools_loop"))
        finally:
            self._draft = None
            try:
                if hooks is not None:
                    await hooks.turn_ending()  # stored before anyone hears the turn has settled
            finally:
                self._running = False
                self._hooks = None
                self._emit("messages")

    async def _stream_answer(self, transport: Transport, resume: str | None) -> Message:
        builder = AnswerBuilder(clock=lambda: self._clock() / 1000)
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
            return self._fail(builder, notice("stopped") if self._stop_requested else exc.notice())
        finally:
            self.turn = None
        if self._stop_requested:
            return self._fail(builder, notice("stopped"))
        if builder.finish_reason is None and not builder.content and not builder.tool_calls:
            return self._fail(builder, notice("empty_answer"))
        self.usage = builder.usage
        message = builder.message()
        self._draft = None
        self._append(message)
        return message

    async def _turn_named(self, turn: str) -> None:
        self.turn = turn
        if self._hooks is not None:
            await self._hooks.turn_named(turn)

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

    def _fail(self, builder: AnswerBuilder, reason: Notice) -> Message:
        message: Message = {"role": "assistant", "content": builder.text,
                            "error": reason["message"]}  # fmt: skip
        if reason["code"]:  # for the page to say in its language (widget.texts)
            message |= {"error_code": reason["code"], "error_params": reason["params"]}
        message |= builder.thought()  # what the model thought before it was stopped is kept
        self._draft = None
        self._append(message)
        return message


def _unrun(call: Message, why: str) -> Message:
    """The result of a call that was not run, saying why (the model reads it)."""
    name = call["function"]["name"]
    return {"role": "tool", "tool_call_id": call["id"], "name": name, "content": why}
