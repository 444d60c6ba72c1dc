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
        said = own_words(json.loads(body).get("error"), redact)
        detail = TEXTS["upstream_error.unexplained"] if said is None else said
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
    said = own_words(error, redact)
    if said is None:
        return APIError.said(502, "upstream_error.unexplained")
    return APIError.said(502, "upstream_error", detail=said)


def own_words(error: object, redact: Redact) -> str | None:
    """An upstream error's own words, short, with any configured secret they quote redacted;
    None when it gave none."""
    message = error.get("message") if isinstance(error, dict) else None
    return redact(message)[:500] if isinstance(message, str) else None
