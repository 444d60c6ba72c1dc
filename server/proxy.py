"""`POST /api/chat/completions`: checks a request, then relays it to its one upstream.

The client chooses nothing about where a request goes: only documented Chat Completions
fields are forwarded, to the configured URL, with the configured key. Without Redis the
upstream request starts inside the response, alongside a watcher for the client going away,
so a disconnect at any moment (before the first byte too) closes the upstream request at
once. With Redis a streamed answer is a turn that runs to its end on its own, for a reload to
pick up (server/turns.py).
"""

from __future__ import annotations

import json
import math
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .call_meter import CallMeter
from .errors import APIError
from .limits import Budgets, Release, Releasing, read_body
from .providers import Destination
from .request_checks import check_depth, check_text, check_tools, checked_messages
from .request_log import record_of
from .settings import Settings
from .upstream import EventStream, UpstreamCall, no_receive, while_connected

FORWARDED_FIELDS = frozenset(
    {
        "messages", "model", "stream", "stream_options", "temperature", "top_p", "n", "stop",
        "max_tokens", "max_completion_tokens", "presence_penalty", "frequency_penalty",
        "logit_bias", "logprobs", "top_logprobs", "tools", "tool_choice", "parallel_tool_calls",
        "response_format", "seed", "user", "reasoning_effort", "modalities", "prediction",
    }
)  # fmt: skip


#: forwarded fields that may hold objects: bounded in depth (messages and tools are checked
#: whole, the rest are numbers, text or flags)
NESTED_FIELDS = frozenset(
    {"stream_options", "stop", "logit_bias", "tool_choice", "response_format", "prediction",
     "modalities"}
)  # fmt: skip


class TurnKeeper(Protocol):
    """Keeps a streamed answer running for a reload to pick up (`server.turns.Turns`)."""

    async def begin(self, call: UpstreamCall, client: str, release: Release) -> Response | None:
        """Start `call` as a turn that gives the client's slot back (`release`) when it ends;
        None when the turn cannot be kept (Redis away)."""


async def chat_completions(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    client = request.app.state.identity.of(request)  # 401 without a valid client token
    await request.app.state.rate_limiter.check(client)
    budgets: Budgets = request.app.state.budgets
    await budgets.check(client)  # 429 before any upstream call once a budget is used up
    body = await read_body(request, settings.max_body_bytes, settings.body_timeout)
    payload, where = clean_payload(body, settings)
    payload["model"] = where.model  # the upstream knows the bare name
    if payload["stream"]:
        # Only `include_usage` of the client's options: others (vLLM's continuous usage) would
        # have every chunk report usage.
        asked = (payload.get("stream_options") or {}).get("include_usage") is True
        payload["stream_options"] = {"include_usage": asked or budgets.active}
    release = request.app.state.slots.take(client)  # 429 with too many answers in flight
    try:
        # Counted as admitted, in the same step as the check; corrected as the answer ends.
        reservation = await budgets.reserve(client, estimated_tokens(payload))

        async def settle(reported: int | None, streamed_chars: int) -> None:
            if reported is None:  # no report (a stop, a disconnect, an upstream that ignores it)
                reported = reservation.estimate + math.ceil(streamed_chars / 4)
            await reservation.settle(reported)

        record = record_of(request.scope)
        seen_as = request.app.state.client_ids.of(client)  # keyed: never reverses
        if record is not None:
            record.client, record.model = seen_as, where.model_id
        meter = CallMeter(request.app.state.metrics, request.app.state.usage, record,
                          seen_as, where, tracer=request.app.state.tracer)  # fmt: skip
        call = UpstreamCall(request.app.state.upstream, where, payload, on_end=settle,
                            meter=meter)  # fmt: skip
        turns: TurnKeeper | None = request.app.state.turns
        if call.streams and turns is not None:
            resumable = await turns.begin(call, client, release)
            if resumable is not None:  # None: Redis is unreachable, so as without it
                return resumable
        return Releasing(UpstreamResponse(call), release)
    except BaseException:
        release()
        raise


def estimated_tokens(payload: dict[str, Any]) -> int:
    """What a request costs at least: its prompt's characters / 4, rounded up."""
    prompt = json.dumps(payload["messages"], ensure_ascii=False)
    tools = json.dumps(payload.get("tools") or [], ensure_ascii=False)
    return math.ceil((len(prompt) + len(tools)) / 4)


def clean_payload(body: bytes, settings: Settings) -> tuple[dict[str, Any], Destination]:
    """The request as it will be sent upstream (known fields only, costs capped) and where it
    goes (its model allowed: a 400 before any upstream call otherwise)."""
    try:
        # Decoded strictly first: json.loads would let UTF-8-encoded surrogates through.
        data = json.loads(body.decode("utf-8"), parse_constant=_not_json,  # no NaN, Infinity
                          parse_float=_finite_number, parse_int=_whole_number)  # fmt: skip
    except OutOfRange as exc:
        raise APIError(400, str(exc), "invalid_number") from exc
    except (ValueError, RecursionError) as exc:
        raise APIError(400, "The request body is not valid JSON.", "invalid_json") from exc
    if not isinstance(data, dict):
        raise APIError(400, "The request body must be a JSON object.", "invalid_body")
    check_text(body, data)  # before any of it is quoted back in an error
    payload = {key: value for key, value in data.items() if key in FORWARDED_FIELDS}
    payload["messages"] = checked_messages(
        payload.get("messages"), settings.instructions, settings.image_hosts
    )
    if "tools" in payload:
        check_tools(payload["tools"])
    for name in NESTED_FIELDS & payload.keys():
        check_depth(name, payload[name])
    where = settings.destination(payload.setdefault("model", settings.default_model))
    for field in ("max_tokens", "max_completion_tokens"):
        if field in payload:
            payload[field] = _capped(payload[field], settings.max_tokens, field)
    if "max_tokens" not in payload and "max_completion_tokens" not in payload:
        payload["max_tokens"] = settings.max_tokens  # an answer never runs to the whole context
    if "n" in payload:
        payload["n"] = _capped(payload["n"], settings.max_choices, "n")
    payload["stream"] = payload.get("stream") is True
    if not payload["stream"]:
        payload.pop("stream_options", None)
    return payload, where


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


class OutOfRange(ValueError):
    """A number no upstream could take: said as such, not as JSON that is not valid."""


#: digits a whole number may have: more than any field takes (and Python's own limit of
#: 4,300 digits would otherwise end the request in a 500)
WHOLE_NUMBER_DIGITS = 30


def _finite_number(text: str) -> float:
    """`1e999` reads as infinity, which no JSON can carry on: refused as what it is."""
    number = float(text)
    if not math.isfinite(number):
        raise OutOfRange(f"The number {text[:40]} in the request is too large.")
    return number


def _whole_number(text: str) -> int:
    if len(text.lstrip("-")) > WHOLE_NUMBER_DIGITS:
        raise OutOfRange(f"A number in the request has more than {WHOLE_NUMBER_DIGITS} digits.")
    return int(text)


def _capped(value: object, maximum: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise APIError(400, f'"{field}" must be a positive integer.', "invalid_parameter")
    return min(value, maximum)


class UpstreamResponse(Response):
    """Relays one request to the upstream while watching for the client to disconnect."""

    def __init__(self, call: UpstreamCall) -> None:
        super().__init__()
        self.call = call

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def relay() -> None:
            if self.call.streams:
                await self.call.stream_into(EventStream(scope, send))
            else:
                await (await self.call.whole())(scope, no_receive, send)

        await while_connected(receive, relay)
