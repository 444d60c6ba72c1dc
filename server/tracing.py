"""OpenTelemetry spans for upstream calls, after the GenAI semantic conventions (`--otel`).

Optional: `pip install chatkeep[otel]` brings the API; the operator configures the SDK and
its exporter (for example `opentelemetry-instrument chatkeep serve` with the usual `OTEL_*`
variables). Off by default. A span is one call to one upstream, named `chat <model>`, of kind
CLIENT, with `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, the
request's `max_tokens`, `temperature` and `top_p` when sent, `gen_ai.usage.input_tokens` and
`output_tokens`, `server.address` and `server.port`, and `error.type` when it failed. Never a
message, a prompt, a key or a client's identity: content capture is not offered.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .errors import SettingsError
from .providers import Destination

#: request fields recorded, by their attribute
REQUEST_ATTRIBUTES = {"max_tokens": "gen_ai.request.max_tokens",
                      "temperature": "gen_ai.request.temperature",
                      "top_p": "gen_ai.request.top_p"}  # fmt: skip


def make_tracer(provider: Any = None) -> Any:
    """The tracer spans come from (the global provider's unless one is given)."""
    try:
        from opentelemetry import trace
    except ImportError as exc:
        raise SettingsError(
            "--otel needs OpenTelemetry's API: pip install 'chatkeep[otel]'"
        ) from exc
    return trace.get_tracer("chatkeep", tracer_provider=provider)


def start_span(tracer: Any, where: Destination, payload: dict[str, Any]) -> Any:
    from opentelemetry.trace import SpanKind

    url = urlsplit(where.base_url)
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": where.provider or "openai",
        "gen_ai.request.model": where.model,
        "server.address": url.hostname or "",
        "server.port": url.port or (443 if url.scheme == "https" else 80),
    }
    for field, attribute in REQUEST_ATTRIBUTES.items():
        value = payload.get(field)
        if isinstance(value, int | float) and not isinstance(value, bool):
            attributes[attribute] = value
    return tracer.start_span(f"chat {where.model}", kind=SpanKind.CLIENT, attributes=attributes)


def end_span(span: Any, prompt: int, completion: int, failure: str | None) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("gen_ai.usage.input_tokens", prompt)
    span.set_attribute("gen_ai.usage.output_tokens", completion)
    if failure is not None:
        span.set_attribute("error.type", failure)
        span.set_status(Status(StatusCode.ERROR))
    span.end()
