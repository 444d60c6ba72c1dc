"""An upstream replaced by an httpx transport, for the server's tests: it records what reached
it and answers as each test scripts (`Upstream`), with the app in process (`make_client`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from localclient import TestClient

from server import Settings, create_app
from server.demo_wire import chunk, sse_text

Handler = Callable[[httpx.Request], Awaitable[httpx.Response]]
KEY = "sk-SECRET-KEY-123"
SSE = {"content-type": "text/event-stream"}


class Chunks(httpx.AsyncByteStream):
    def __init__(self, *parts: bytes | Exception) -> None:
        self.parts = parts

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            if isinstance(part, Exception):
                raise part
            yield part


def sse(*events: dict[str, Any] | str) -> list[bytes]:
    """Each event a chunk of bytes of its own (as an upstream may send them)."""
    return [sse_text(event).encode() for event in events]


def delta(text: str, finish: str | None = None) -> dict[str, Any]:
    return chunk({"content": text}, finish)


class Upstream:
    """Records what reached the upstream and answers with `handler`."""

    def __init__(self, handler: Handler | None = None) -> None:
        self.requests: list[httpx.Request] = []
        self.bodies: list[dict[str, Any]] = []
        self.handler = handler or self.ok

    async def ok(self, request: httpx.Request) -> httpx.Response:
        if json.loads(request.content).get("stream"):
            return httpx.Response(
                200, headers=SSE, stream=Chunks(*sse(delta("Hi", "stop"), "[DONE]"))
            )
        return httpx.Response(200, json={"object": "chat.completion", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hi"}}]})  # fmt: skip

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.bodies.append(json.loads(request.content))
        return await self.handler(request)


def make_client(runtime_dir: Path, upstream: Upstream, **overrides: Any) -> TestClient:
    settings = Settings(upstream="https://models.example/v1", api_key=KEY,
                        models=("gpt-a", "gpt-b"), **overrides)  # fmt: skip
    app = create_app(settings, transport=httpx.MockTransport(upstream), runtime_dir=runtime_dir)
    return TestClient(app)


def chat(**fields: Any) -> dict[str, Any]:
    return {"model": "gpt-a", "messages": [{"role": "user", "content": "hi"}], **fields}
