"""What an upstream's failure becomes for the client: our status, in words a person can act on.

The upstream's own words pass only where they help (a rejected request); its credentials,
quota and outages are said plainly, never with its details.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx

from .errors import APIError

MAX_ERROR_BODY = 64 * 1024
#: what every relayed text passes through (`server.redaction.Redactor`)
Redact = Callable[[str], str]
BAD_ANSWER = "The model service sent an answer this server cannot read."


def upstream_error(exc: httpx.HTTPError, *, started: bool = False) -> APIError:
    if isinstance(exc, httpx.TimeoutException):
        return APIError(
            504, "The model service took too long to answer. Try again.", "upstream_timeout"
        )
    if started:
        return APIError(
            502, "The connection to the model service broke off mid-answer.", "upstream_dropped"
        )
    return APIError(
        502, "The model service could not be reached. Try again later.", "upstream_unreachable"
    )


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
        return APIError(
            502, "The model service refused this server's credentials.", "upstream_auth"
        )
    if status == 429:
        return APIError(
            429,
            "The model service is busy or over its quota. Try again shortly.",
            "upstream_rate_limited",
        )
    if 400 <= status < 500:
        return APIError(
            400, f"The model service rejected the request: {detail or status}", "upstream_rejected"
        )
    return APIError(502, "The model service failed to answer. Try again later.", "upstream_failed")


def message_of(error: object, redact: Redact) -> str:
    """An upstream error's own words, short, with any configured secret they quote redacted."""
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str):
        return redact(message)[:500]
    return "The model service reported an error."
