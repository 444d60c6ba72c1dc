"""One request to one upstream, and the Server-Sent Events writer its answer streams into.

`server/proxy.py` (the page waits for the answer) and `server/turns.py` (the answer runs on
for a reload to pick up) both relay through `UpstreamCall.stream_into`, each with its own
`StreamSink`; neither imports the other.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import httpx
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .errors import APIError
from .event_lines import drain, sse_data, sse_lines
from .providers import Destination
from .redaction import StreamRedaction
from .upstream_client import UpstreamClient
from .upstream_errors import bad_answer, error_event, error_from_upstream, upstream_error

if TYPE_CHECKING:
    from .call_meter import CallMeter


SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


class StreamSink(Protocol):
    """Where a streamed answer goes: the page that asked, or a turn others can pick up."""

    async def refuse(self, error: APIError) -> None:
        """The answer never started: an error response instead."""

    async def start(self) -> None:
        """The answer starts: from here on, events."""

    async def event(self, data: str) -> None:
        """One event's `data`: a chunk, or `{"error": ...}` as the last event."""

    async def end(self, done: bool) -> None:
        """No more events; `done` when the answer is complete (`[DONE]`), else after an error."""


#: told once, however an answer ended: the upstream's last reported `total_tokens` (None
#: without a report) and the characters of the answer that streamed
Ended = Callable[[int | None, int], Awaitable[None]]


@dataclass
class UpstreamCall:
    """One request to one upstream, relayed as a whole answer or into a `StreamSink`."""

    http: UpstreamClient
    where: Destination
    payload: dict[str, Any]
    on_end: Ended | None = None
    #: told of the first event, the tokens and any failure (the operator's view)
    meter: CallMeter | None = None
    #: the last usage the upstream reported (cumulative reports: the last one counts)
    reported: int | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    streamed_chars: int = 0
    _told: bool = False

    @property
    def streams(self) -> bool:
        return bool(self.payload["stream"])

    def _request(self) -> httpx.Request:
        url = f"{self.where.base_url}/chat/completions"
        return self.http.post(url, self.payload, _auth_headers(self.where.api_key))

    async def stream_into(self, sink: StreamSink) -> None:
        """Relay a streamed answer; every outcome, failures too, reaches `sink`."""
        if self.meter is not None:
            self.meter.stream(+1)
            self.meter.begin(self.payload)
        try:
            await self._stream_into(sink)
        finally:
            if self.meter is not None:
                self.meter.stream(-1)
            await self._ended()

    async def _stream_into(self, sink: StreamSink) -> None:
        try:
            response = await self.http.send(self._request())
        except httpx.HTTPError as exc:
            await sink.refuse(self._failed(upstream_error(exc)))
            return
        try:
            if response.status_code >= 400:
                error = await error_from_upstream(response, self.http.redact)
                await sink.refuse(self._failed(error, response.status_code))
            elif not response.headers.get("content-type", "").startswith("text/event-stream"):
                await sink.refuse(self._failed(bad_answer()))
            else:
                await sink.start()
                await self._relay_events(response, sink)
        finally:
            await response.aclose()

    async def _relay_events(self, response: httpx.Response, sink: StreamSink) -> None:
        finished = False
        redact = self.http.redact
        redaction = StreamRedaction(redact)  # a key split across two events is seen whole
        events = sse_data(sse_lines(response.aiter_bytes()))
        try:
            async for data in events:
                if data == "[DONE]":
                    break
                event = json.loads(data)
                if not isinstance(event, dict):
                    raise ValueError("an event that is not an object")
                if "error" in event:
                    raise error_event(event["error"], redact)
                self._note(event)
                ends = _has_finish_reason(event)
                finished = finished or ends
                if (
                    "\n" in data
                ):  # several `data:` lines: one line again, or it reaches the page torn
                    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
                if self.meter is not None:
                    self.meter.first_event()
                await sink.event(redaction.event(data, event, last=ends))
            else:
                # Some servers end without [DONE]; an answer without a finish reason was cut off.
                if not finished:
                    raise APIError.said(502, "upstream_dropped.cut_off")
        except APIError as exc:
            error = exc
        except httpx.HTTPError as exc:
            error = upstream_error(exc, started=True)
        except ValueError:
            error = bad_answer()
        else:
            await sink.end(done=True)
            await drain(events)
            return
        await sink.event(self._failed(error).sse_data())
        await sink.end(done=False)

    async def whole(self) -> Response:
        """A non-streamed answer, or the error response that replaces it."""
        if self.meter is not None:
            self.meter.begin(self.payload)
        try:
            return await self._whole()
        finally:
            await self._ended()

    async def _whole(self) -> Response:
        try:
            response = await self.http.send(self._request())
        except httpx.HTTPError as exc:
            return self._failed(upstream_error(exc)).response()
        try:
            if response.status_code >= 400:
                error = await error_from_upstream(response, self.http.redact)
                return self._failed(error, response.status_code).response()
            body = await response.aread()
            data = json.loads(body)
            if not isinstance(data, dict) or "choices" not in data:
                raise ValueError("not a chat completion")
            self._note(data)
        except httpx.HTTPError as exc:
            return self._failed(upstream_error(exc)).response()
        except ValueError:
            return self._failed(bad_answer()).response()
        finally:
            await response.aclose()
        return Response(self.http.redact(json.dumps(data)), media_type="application/json")

    def _note(self, event: dict[str, Any]) -> None:
        """What an event says of the answer's cost: its usage report, its characters."""
        usage = event.get("usage")
        if isinstance(usage, dict):
            total, prompt, completion = (
                usage.get(name) for name in ("total_tokens", "prompt_tokens", "completion_tokens")
            )
            if _count(total):
                self.reported = total
            if (
                isinstance(prompt, int)
                and isinstance(completion, int)
                and _count(prompt)
                and _count(completion)
            ):
                self.prompt_tokens, self.completion_tokens = prompt, completion
        for choice in event.get("choices") or ():
            part = (
                choice.get("delta") or choice.get("message") if isinstance(choice, dict) else None
            )
            if isinstance(part, dict):
                for text in ("content", "reasoning_content", "reasoning"):  # reasoning is billed
                    self.streamed_chars += len(str(part.get(text) or ""))
                if part.get("tool_calls"):
                    self.streamed_chars += len(json.dumps(part["tool_calls"]))

    def _failed(self, error: APIError, upstream_status: int | None = None) -> APIError:
        """`error`, counted as the upstream's failure (by its HTTP status, or what went wrong)."""
        if self.meter is not None:
            label = str(upstream_status) if upstream_status else FAILURES.get(error.code, "error")
            self.meter.failed(label)
        return error

    async def _ended(self) -> None:
        """Tell `on_end` once, even when the client left and this task is being cancelled."""
        if self._told:
            return
        self._told = True
        with anyio.CancelScope(shield=True):
            if self.on_end is not None:
                await self.on_end(self.reported, self.streamed_chars)
            if self.meter is not None:
                await self.meter.ended(self.prompt_tokens, self.completion_tokens)


class EventStream:
    """Writes a streamed answer to an ASGI response as Server-Sent Events."""

    def __init__(self, scope: Scope, send: Send, headers: Mapping[str, str] | None = None) -> None:
        self.scope = scope
        self.send = send
        self.headers = headers or {}

    async def refuse(self, error: APIError) -> None:
        await error.response()(self.scope, no_receive, self.send)

    async def start(self) -> None:
        headers = [(b"content-type", b"text/event-stream; charset=utf-8")]
        headers += [(k.encode(), v.encode()) for k, v in {**SSE_HEADERS, **self.headers}.items()]
        await self.send({"type": "http.response.start", "status": 200, "headers": headers})

    async def event(self, data: str, event_id: int | None = None) -> None:
        line = f"id: {event_id}\n" if event_id is not None else ""
        body = f"{line}data: {data}\n\n".encode()
        await self.send({"type": "http.response.body", "body": body, "more_body": True})

    async def end(self, done: bool) -> None:
        if done:
            await self.send({"type": "http.response.body", "body": b"data: [DONE]\n\n",
                             "more_body": True})  # fmt: skip
        await self.send({"type": "http.response.body", "body": b"", "more_body": False})


async def while_connected(receive: Receive, work: Callable[[], Awaitable[None]]) -> None:
    """Run `work` until it ends or the client disconnects, whichever comes first."""
    async with anyio.create_task_group() as group:

        async def watch_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(watch_disconnect)
        await work()
        group.cancel_scope.cancel()


def _has_finish_reason(event: dict[str, Any]) -> bool:
    choices = event.get("choices")
    return isinstance(choices, list) and any(
        isinstance(c, dict) and c.get("finish_reason") for c in choices
    )


def _auth_headers(api_key: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {api_key}"} if api_key else {}


#: an upstream failure without an HTTP status of its own, by the code we said it with
FAILURES = {
    "upstream_timeout": "timeout",
    "upstream_unreachable": "connect",
    "upstream_dropped": "dropped",
    "upstream_dropped.cut_off": "dropped",
    "bad_upstream_response": "invalid",
}


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


async def no_receive() -> dict[str, Any]:  # pragma: no cover - never awaited
    return {"type": "http.disconnect"}
