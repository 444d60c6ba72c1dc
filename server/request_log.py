"""One record per request: what the metrics count and what `--log-format json` writes.

`RequestLog` is the outermost middleware. It puts a `Record` in the request's scope; the proxy
fills in whose request it is (a keyed id: server/client_ids.py) and which model, the upstream
call its tokens and its first token; when the response has gone, the record becomes
`chatkeep_requests_total` and, with JSON logs, one line on the `chatkeep.requests` logger.
A record never holds message text, a key, a client token, an address, a turn id or a sync
space: only the fields below.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .access_log import hidden
from .metrics import Meter
from .security import route_path

SCOPE_KEY = "chatkeep.record"
LOGGER = logging.getLogger("chatkeep.requests")


@dataclass
class Record:
    """What one request did, as the operator may see it."""

    started: float
    client: str | None = None
    model: str | None = None
    status: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    first_token_ms: float | None = None

    def line(self, path: str, method: str) -> str:
        return json.dumps({
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "method": method,
            "path": path,
            "client": self.client,
            "model": self.model,
            "status": self.status,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "first_token_ms": self.first_token_ms,
            "duration_ms": round((time.perf_counter() - self.started) * 1000, 1),
        }, separators=(",", ":"))  # fmt: skip


def record_of(scope: Scope) -> Record | None:
    found = scope.get(SCOPE_KEY)
    return found if isinstance(found, Record) else None


class RequestLog:
    """Counts every API request by status and, with `json_lines`, logs each one."""

    def __init__(self, app: ASGIApp, metrics: Meter, json_lines: bool = False) -> None:
        self.app = app
        self.metrics = metrics
        self.json_lines = json_lines
        if json_lines:
            use_json_lines()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        record = Record(started=time.perf_counter())
        scope[SCOPE_KEY] = record

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                record.status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noting)
        finally:
            path = route_path(scope)
            if path.startswith("/api/"):
                self.metrics.request(record.status or 500)
            if self.json_lines:
                LOGGER.info(record.line(hidden(path), scope.get("method", "")))


def use_json_lines() -> None:
    """`chatkeep.requests` writes bare JSON lines to stdout; uvicorn's access log stays off."""
    if not LOGGER.handlers:
        LOGGER.addHandler(_Stdout())
        LOGGER.setLevel(logging.INFO)
        LOGGER.propagate = False
    logging.getLogger("uvicorn.access").disabled = True


def note(scope: Scope, **fields: Any) -> None:
    """Fill in fields of the request's record (nothing outside the app's middleware)."""
    if (record := record_of(scope)) is not None:
        for name, value in fields.items():
            setattr(record, name, value)


class _Stdout(logging.Handler):
    """Each record's message as a line on whatever `sys.stdout` is when it is written."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stdout.write(record.getMessage() + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            self.handleError(record)
