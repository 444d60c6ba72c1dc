"""`--metrics`: what the server did, in Prometheus's text format at `GET /metrics`.

prometheus_client keeps the figures. Across `--workers` each process writes its own into a
shared folder (prometheus_client's multiprocess mode: `PROMETHEUS_MULTIPROC_DIR`, set by
`chatkeep serve` before the workers start) and `/metrics` adds them up, so any worker answers
for the whole server. Off (the default) every call here is a no-op on a `NullMetrics`.
"""

from __future__ import annotations

import hmac
import os
from typing import Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from .errors import APIError

#: the folder the workers share their figures through (prometheus_client's own variable)
MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
#: refusals by the error code that said them: `chatkeep_refused_total{reason}`
REFUSAL_REASONS = {
    "rate_limited": "rate",
    "budget_exhausted": "budget",
    "budget_exhausted.client": "budget",
    "too_many_streams": "streams",
    "origin_not_allowed": "origin",
    "host_not_allowed": "host",
    "body_too_large": "body",
    "body_timeout": "body",
}
#: first-token buckets (seconds): a proxy's own share is milliseconds, a model's up to seconds
FIRST_TOKEN_BUCKETS = (0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 8, 13, 20, 30, 60)


class Meter(Protocol):
    """What the app tells about its requests (`Metrics`, or `NullMetrics` when off)."""

    def request(self, status: int) -> None: ...
    def tokens(self, model: str, prompt: int, completion: int) -> None: ...
    def first_token(self, seconds: float) -> None: ...
    def stream(self, change: int) -> None: ...
    def upstream_error(self, provider: str, status: str) -> None: ...
    def refused(self, code: str) -> None: ...
    def tool_call(self, tool: str, status: str) -> None: ...


class NullMetrics:
    """Metrics off: nothing counted, nothing served."""

    def request(self, status: int) -> None:
        pass

    def tokens(self, model: str, prompt: int, completion: int) -> None:
        pass

    def first_token(self, seconds: float) -> None:
        pass

    def stream(self, change: int) -> None:
        pass

    def upstream_error(self, provider: str, status: str) -> None:
        pass

    def refused(self, code: str) -> None:
        pass

    def tool_call(self, tool: str, status: str) -> None:
        pass


class Metrics:
    """The server's figures, for one app (its own registry, so tests may build many)."""

    def __init__(self, token: str | None = None) -> None:
        self.token = token
        self.shared = bool(os.environ.get(MULTIPROCESS_VARIABLE))
        self.registry = CollectorRegistry()
        registry = None if self.shared else self.registry  # shared: read from the folder
        self._requests = Counter("chatkeep_requests", "API requests answered, by HTTP status",
                                 ["status"], registry=registry)  # fmt: skip
        self._tokens = Counter("chatkeep_tokens", "tokens the upstreams reported, by model and "
                               "kind (prompt or completion)", ["model", "kind"],
                               registry=registry)  # fmt: skip
        self._first_token = Histogram("chatkeep_first_token_seconds", "seconds from a streamed "
                                      "request to its first event relayed",
                                      buckets=FIRST_TOKEN_BUCKETS, registry=registry)  # fmt: skip
        self._streams = Gauge("chatkeep_streams_in_flight", "streamed answers being relayed",
                              registry=registry, multiprocess_mode="livesum")  # fmt: skip
        self._upstream_errors = Counter("chatkeep_upstream_errors", "failed upstream calls, by "
                                        "provider and status (an HTTP status, or timeout, "
                                        "connect, dropped, invalid)", ["provider", "status"],
                                        registry=registry)  # fmt: skip
        self._refused = Counter("chatkeep_refused", "requests refused before any upstream "
                                "call, by reason", ["reason"], registry=registry)  # fmt: skip
        self._tool_calls = Counter("chatkeep_tool_calls", "MCP tool calls, by tool and status "
                                   "(ok, or the error's code)", ["tool", "status"],
                                   registry=registry)  # fmt: skip

    def request(self, status: int) -> None:
        self._requests.labels(str(status)).inc()

    def tokens(self, model: str, prompt: int, completion: int) -> None:
        if prompt:
            self._tokens.labels(model, "prompt").inc(prompt)
        if completion:
            self._tokens.labels(model, "completion").inc(completion)

    def first_token(self, seconds: float) -> None:
        self._first_token.observe(seconds)

    def stream(self, change: int) -> None:
        self._streams.inc(change)

    def upstream_error(self, provider: str, status: str) -> None:
        self._upstream_errors.labels(provider, status).inc()

    def refused(self, code: str) -> None:
        if reason := REFUSAL_REASONS.get(code):
            self._refused.labels(reason).inc()

    def tool_call(self, tool: str, status: str) -> None:
        self._tool_calls.labels(tool, status).inc()

    async def endpoint(self, request: Request) -> Response:
        """`GET /metrics`, wanting the Bearer token when one is set."""
        if self.token is not None:
            header = request.headers.get("authorization", "")
            given = header[7:].strip() if header[:7].lower() == "bearer " else ""
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                # for a scraper, never a person in the widget: English only
                raise APIError(401, "GET /metrics wants the metrics token as a Bearer token.",
                               "invalid_metrics_token")  # fmt: skip
        registry = self.registry
        if self.shared:
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


def count_refusal(scope: Scope, code: str) -> None:
    """Count a refusal said by `code`, wherever in the app it was said (middleware too)."""
    app = scope.get("app")
    metrics = getattr(getattr(app, "state", None), "metrics", None)
    if metrics is not None:
        metrics.refused(code)
