"""Real HTTP servers on free loopback ports for tests: the app under test and a fake upstream."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from server import demo_wire
from server.testing import free_port

#: Marks tests that need a real Redis: skipped, saying why, where redis-server is missing.
needs_redis = pytest.mark.skipif(
    shutil.which("redis-server") is None,
    reason="redis-server is not installed (make test installs it)",
)


def wait_until(done: Callable[[], bool], seconds: float, every: float = 0.01) -> bool:
    """Whether `done()` came true within `seconds` (asked every `every` seconds): the one
    bounded wait for what happens in another thread or process."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True


class LiveServer:
    """Serves an ASGI app with uvicorn in a thread, for as long as the `with` block lasts."""

    def __init__(self, app: ASGIApp, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        if not wait_until(lambda: self.server.started, 10):
            raise RuntimeError(f"the test server on {self.url} did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@dataclass
class Received:
    path: str
    query: str
    headers: dict[str, str]
    body: dict[str, Any]
    started: float
    #: the upstream connection it came on (the proxy's local port)
    connection: int = 0
    ended: float | None = None
    client_left: bool = False


@dataclass
class FakeUpstream:
    """An OpenAI-compatible upstream with switches, recording what reached it and when.

    mode: "ok" (stream `count` chunks, `interval` seconds apart), "slow_start" (wait before
    answering), "slow_stream" (a chunk every `interval` seconds, for ever), "drop" (close
    mid-stream), "error_event", "status" (answer `status` with an error body).
    """

    mode: str = "ok"
    status: int = 500
    interval: float = 0.05
    count: int = 3
    #: the token counts reported after the answer (`stream_options.include_usage`), if any
    usage: dict[str, int] | None = None
    received: list[Received] = field(default_factory=list)

    def seconds_to_end(self, since: float, wait: float = 3.0) -> float:
        """How long after `since` (a `time.monotonic()`) the last request reaching this
        upstream ended, waiting up to `wait` seconds for it; infinity if it never did."""
        wait_until(lambda: bool(self.received) and self.received[-1].ended is not None,
                   since + wait - time.monotonic())  # fmt: skip
        ended = self.received[-1].ended if self.received else None
        return float("inf") if ended is None else ended - since

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.completions, methods=["POST"])])

    async def completions(self, request: Request) -> Response:
        record = Received(
            path=request.url.path,
            query=request.url.query,
            headers=dict(request.headers),
            body=json.loads(await request.body()),
            started=time.monotonic(),
            connection=request.client.port if request.client else 0,
        )
        self.received.append(record)
        if self.mode == "status":
            return JSONResponse({"error": {"message": "upstream says no"}}, status_code=self.status)
        if self.mode == "slow_start":
            while time.monotonic() - record.started < 30:
                if await request.is_disconnected():
                    record.client_left, record.ended = True, time.monotonic()
                    return Response(status_code=499)
                await asyncio.sleep(0.02)
        if not record.body.get("stream"):
            return JSONResponse({"id": "x", "object": "chat.completion", "created": 0,
                                 "model": record.body["model"], "choices": [{"index": 0,
                                 "message": {"role": "assistant", "content": "Hello there"},
                                 "finish_reason": "stop"}]})  # fmt: skip
        return StreamingResponse(self.stream(record), media_type="text/event-stream")

    async def stream(self, record: Received) -> Any:
        def chunk(text: str, finish: str | None = None) -> bytes:
            event = demo_wire.chunk({"content": text}, finish, model=record.body["model"])
            return demo_wire.sse_text(event).encode()

        try:
            yield b": a comment the proxy must not pass on\n\n"
            yield chunk("Hello")
            if self.mode == "drop":
                raise ConnectionResetError("dropped on purpose")
            if self.mode == "error_event":
                yield b'data: {"error": {"message": "the model overloaded"}}\n\n'
                return
            count = 0
            while self.mode == "slow_stream" or count < self.count:
                await asyncio.sleep(self.interval)
                yield chunk(f" {count}")
                count += 1
            yield chunk("", "stop")
            if self.usage is not None:
                report = demo_wire.chunk(None, model=record.body["model"], usage=self.usage)
                yield demo_wire.sse_text(report).encode()
            yield b"data: [DONE]\n\n"
        except asyncio.CancelledError:
            record.client_left = True
            raise
        finally:
            record.ended = time.monotonic()
