"""What one upstream call tells the operator: its first token, its tokens, its failures.

The proxy gives each `UpstreamCall` a `CallMeter`; the call reports to it as it relays, and
the meter hands the figures on to the metrics (server/metrics.py), the day's usage
(server/usage.py) and the request's log record (server/request_log.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .metrics import Meter
from .providers import Destination
from .request_log import Record
from .tracing import end_span, start_span
from .usage import Usage


@dataclass
class CallMeter:
    metrics: Meter
    usage: Usage
    record: Record | None
    #: the client's keyed id (server/client_ids.py)
    client: str
    where: Destination
    started: float = field(default_factory=time.perf_counter)
    #: OpenTelemetry's tracer with `--otel` (server/tracing.py), else None
    tracer: Any = None
    _first_seen: bool = False
    _span: Any = None
    _failure: str | None = None

    def begin(self, payload: dict[str, Any]) -> None:
        """The upstream call starts (a span opens, with `--otel`)."""
        if self.tracer is not None:
            self._span = start_span(self.tracer, self.where, payload)

    def first_event(self) -> None:
        if self._first_seen:
            return
        self._first_seen = True
        seconds = time.perf_counter() - self.started
        self.metrics.first_token(seconds)
        if self.record is not None:
            self.record.first_token_ms = round(seconds * 1000, 1)

    def stream(self, change: int) -> None:
        self.metrics.stream(change)

    def failed(self, status: str) -> None:
        self._failure = status
        self.metrics.upstream_error(self.where.provider or "upstream", status)

    async def ended(self, prompt: int, completion: int) -> None:
        if self._span is not None:
            end_span(self._span, prompt, completion, self._failure)
        self.metrics.tokens(self.where.model_id, prompt, completion)
        if self.record is not None:
            self.record.prompt_tokens, self.record.completion_tokens = prompt, completion
        await self.usage.add(self.client, prompt, completion, self.where.price)
