"""Folding a streamed Chat Completions answer, chunk by chunk, into one assistant message.

Reasoning models stream what they think before they answer, in a field of the delta that
depends on the server: `reasoning_content` (DeepSeek, vLLM, llama.cpp) or `reasoning`
(OpenRouter, Ollama, newer vLLM). Either is folded into the message's `reasoning`, with the
whole seconds from its first piece to the answer's first (`reasoning_seconds`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import TurnError
from .messages import Message
from .sources import Source, from_annotations


@dataclass
class AnswerBuilder:
    """Accumulates `chat.completion.chunk` objects (or one whole `chat.completion`)."""

    content: list[str] = field(default_factory=list)
    tool_calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    reasoning: list[str] = field(default_factory=list)
    #: the links the answer cites (`url_citation` annotations, widget/sources.py)
    sources: list[Source] = field(default_factory=list)
    clock: Callable[[], float] = time.monotonic
    #: when the first reasoning arrived, and when the answer itself started
    thinking_since: float | None = None
    thinking_until: float | None = None

    def feed(self, chunk: object) -> None:
        """Add one parsed chunk; raises `TurnError` for an error event from the server."""
        if not isinstance(chunk, dict):
            return
        if chunk.get("error") is not None:
            raise _turn_error(chunk["error"])
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = {k: v for k, v in usage.items() if isinstance(v, int)}
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            if isinstance(delta, dict):
                self._feed_delta(delta)
            if isinstance(choice.get("finish_reason"), str):
                self.finish_reason = choice["finish_reason"]

    def message(self) -> Message:
        """The assistant message so far (complete once the stream has ended)."""
        text = "".join(self.content)
        message: Message = {"role": "assistant", "content": text or None}
        calls = self.calls()
        if calls:
            message["tool_calls"] = calls
        elif message["content"] is None:
            message["content"] = ""
        if self.sources:
            message["sources"] = list(self.sources)
        return message | self.thought()

    def thought(self) -> Message:
        """The reasoning fields of the message: none when the model streamed no reasoning."""
        if not self.reasoning or self.thinking_since is None:
            return {}
        until = self.thinking_until if self.thinking_until is not None else self.clock()
        seconds = max(0, round(until - self.thinking_since))
        return {"reasoning": "".join(self.reasoning), "reasoning_seconds": seconds}

    @property
    def text(self) -> str:
        return "".join(self.content)

    def calls(self) -> list[Message]:
        """The tool calls so far (complete once the stream has ended)."""
        return [self._finished_call(i, c) for i, c in sorted(self.tool_calls.items())]

    def _feed_delta(self, delta: dict[str, Any]) -> None:
        thought = delta.get("reasoning_content")
        if not isinstance(thought, str) or not thought:
            thought = delta.get("reasoning")  # some servers send both: the same text, once
        if isinstance(thought, str) and thought:
            if self.thinking_since is None:
                self.thinking_since = self.clock()
            self.reasoning.append(thought)
        answering = bool(delta.get("content")) or bool(delta.get("tool_calls"))
        if answering and self.thinking_since is not None and self.thinking_until is None:
            self.thinking_until = self.clock()
        if isinstance(delta.get("content"), str):
            self.content.append(delta["content"])
        from_annotations(delta.get("annotations"), self.sources)
        calls = delta.get("tool_calls")
        if not isinstance(calls, list):
            return
        for position, part in enumerate(calls):
            if not isinstance(part, dict):
                continue
            index = part.get("index", position)
            call = self.tool_calls.setdefault(index, {"id": "", "name": "", "arguments": []})
            if isinstance(part.get("id"), str):
                call["id"] = part["id"]
            function = part.get("function")
            if isinstance(function, dict):
                if isinstance(function.get("name"), str):
                    call["name"] += function["name"]
                if isinstance(function.get("arguments"), str):
                    call["arguments"].append(function["arguments"])

    @staticmethod
    def _finished_call(index: int, call: dict[str, Any]) -> Message:
        return {
            "id": call["id"] or f"call_{index}",
            "type": "function",
            "function": {"name": call["name"], "arguments": "".join(call["arguments"]) or "{}"},
        }


def _turn_error(error: object) -> TurnError:
    """The server's last event (`{"error": {message, code, params?}}`), as a `TurnError` the
    page can say in its language."""
    found = error if isinstance(error, dict) else {}
    message, code, params = found.get("message"), found.get("code"), found.get("params")
    if not isinstance(message, str):
        return TurnError("The model service reported an error.", code="upstream_error",
                         params={"variant": "unexplained"})  # fmt: skip
    return TurnError(message, code=code if isinstance(code, str) else "",
                     params=params if isinstance(params, dict) else None)  # fmt: skip
