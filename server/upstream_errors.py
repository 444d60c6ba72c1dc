"""What an upstream's failure becomes for the client: our status, in words a person can act on
(each a code of `server.errors.TEXTS`, with its params, for the page to say in its language).

The upstream's own words pass only where they help (a rejected request), and never a secret
they quote; its credentials, quota and outages are said plainly, never with its details.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx

from .errors import TEXTS, APIError

MAX_ERROR_BODY = 64 * 1024
#: what every relayed text passes through (`server.redaction.Redactor`)
Redact = Callable[[str], str]
BAD_ANSWER = TEXTS["bad_upstream_response"]


def bad_answer() -> APIError:
    return APIError.said(502, "bad_upstream_response")


def upstream_error(exc: httpx.HTTPError, *, started: bool = False) -> APIError:
    if isinstance(exc, httpx.TimeoutException):
        return APIError.said(504, "upstream_timeout")
    if started:
        return APIError.said(502, "upstream_dropped")
    return APIError.said(502, "upstream_unreachable")


async def error_from_upstream(response: httpx.Response, redact: Redact) -> APIError:
    """Map an upstream error status to ours; the upstream's own words only where they help,
    and never a secret they quote."""
    body = b""
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_ERROR_BODY:
            break
    try:
        detail = message_of(json.loads(body).get("error"), redact)
    except (ValueError, AttributeError):
        detail = ""
    status = response.status_code
    if status in (401, 403):
        return APIError.said(502, "upstream_auth")
    if status == 429:
        return APIError.said(429, "upstream_rate_limited")
    if 400 <= status < 500:
        return APIError.said(400, "upstream_rejected", detail=detail or str(status))
    return APIError.said(502, "upstream_failed")


def error_event(error: object, redact: Redact) -> APIError:
    """An `error` event mid-stream: the upstream's own words (redacted), or that it said none."""
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str):
        return APIError.said(502, "upstream_error", detail=redact(message)[:500])
    return APIError.said(502, "upstream_error.unexplained")


def message_of(error: object, redact: Redact) -> str:
    """An upstream error's own words, short, with any configured secret they quote redacted."""
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str):
        return redact(message)[:500]
    return TEXTS["upstream_error.unexplained"]
