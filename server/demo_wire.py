"""The demo model's answers as an OpenAI-compatible server sends them: a whole completion, or
its events streamed in several chunks (`server.demo` decides what it says). `DemoTransport` is
plugged in as the shared httpx client's transport, so a demo chat goes through exactly the
proxy code a real upstream does; the testing kit's model (`server.scripted_model`) streams
with the same events."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from .demo import Reply, demo_answer, text_of


@dataclass
class DemoTransport(httpx.AsyncBaseTransport):
    """Answers `POST …/chat/completions` like an OpenAI-compatible server would."""

    chunk_delay: float = 0.03
    requests: list[dict[str, Any]] = field(default_factory=list)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return httpx.Response(404, json={"error": {"message": "not found", "type": "x"}})
        body = json.loads(await request.aread())
        self.requests.append(body)
        # In a thread: a long hostile body never holds the event loop (other clients wait).
        reply = await asyncio.to_thread(demo_answer, body)
        if body.get("stream"):
            chunks = _stream(reply, body, self.chunk_delay)
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, stream=_ByteStream(chunks)
            )
        return httpx.Response(200, json=completion(reply, body))


class _ByteStream(httpx.AsyncByteStream):
    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            yield chunk


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, int]:
    prompt = sum(len(text_of(m).split()) for m in body.get("messages", []))
    completion = max(1, len(reply.text.split()) + len(reply.reasoning.split()))
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}  # fmt: skip


def _tool_calls(reply: Reply, arguments: str | None = None) -> list[dict[str, Any]]:
    assert reply.tool_call is not None
    call = reply.tool_call
    function = {
        "name": call["name"],
        "arguments": call["arguments"] if arguments is None else arguments,
    }
    return [{"index": 0, "id": call["id"], "type": "function", "function": function}]


def completion(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_call:
        message["tool_calls"] = [
            {k: v for k, v in call.items() if k != "index"} for call in _tool_calls(reply)
        ]
    return {
        "id": "chatcmpl-demo",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "demo"),
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if reply.tool_call else "stop"}],
        "usage": _usage(body, reply),
    }  # fmt: skip


def chunk(
    delta: dict[str, Any] | None, finish: str | None = None, *, model: str = "demo", **extra: Any
) -> dict[str, Any]:
    """One Chat Completions stream chunk: `delta` (None: no choice, as a usage report has) and
    its finish reason. The one builder of chunks: the demo model's, the testing kit's and the
    tests' (`sse_text` writes them as events)."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {"id": "chatcmpl-demo", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model, "choices": choices, **extra}  # fmt: skip


def sse_text(*events: dict[str, Any] | str) -> str:
    """Events as a stream's text: each chunk (or `[DONE]`) a `data:` line and a blank one."""
    return "".join(f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n" for e in events)


#: one streamed event, and whether it carries a word (a model takes time to write each)
Event = tuple[bool, bytes]


def reply_events(reply: Reply, body: dict[str, Any]) -> list[Event]:
    """A reply as the Server-Sent Events an OpenAI-compatible server streams, word by word:
    its reasoning first, then its tool call or text, the finish, the usage if asked, [DONE]."""

    def delta(content: dict[str, Any], finish: str | None = None) -> bytes:
        return sse_text(chunk(content, finish, model=body.get("model", "demo"))).encode()

    words = [
        delta({"reasoning_content": piece}) for piece in re.findall(r"\S+\s*", reply.reasoning)
    ]
    if reply.tool_call:  # its arguments in pieces, as providers stream them
        words.append(delta({"tool_calls": _tool_calls(reply, "")}))
        arguments = reply.tool_call["arguments"]
        for at in range(0, len(arguments), 24):
            piece = {"index": 0, "function": {"arguments": arguments[at : at + 24]}}
            words.append(delta({"tool_calls": [piece]}))
    words += [delta({"content": piece}) for piece in re.findall(r"\S+\s*", reply.text)]
    end = [delta({}, "tool_calls" if reply.tool_call else "stop")]
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = chunk(None, model=body.get("model", "demo"), usage=_usage(body, reply))
        end.append(sse_text(usage).encode())
    end.append(b"data: [DONE]\n\n")
    first = delta({"role": "assistant", "content": ""})
    return [(False, first), *((True, w) for w in words), *((False, e) for e in end)]


async def _stream(reply: Reply, body: dict[str, Any], delay: float) -> AsyncIterator[bytes]:
    for word, event in reply_events(reply, body):
        if word:
            await asyncio.sleep(delay)
        yield event
