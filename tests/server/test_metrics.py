"""The operator's view: known traffic in, and the metrics, the usage table and the JSON log
lines checked against it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from live import needs_redis
from localclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from upstreams import KEY, SSE, Chunks, Upstream, chat, delta, sse

from server import Settings, create_app
from server.cli import main as cli
from server.client_ids import ClientIds
from server.providers import Provider
from server.testing import ChatkeepServer, RedisServer

PRICE = (2.0, 8.0)  # USD per million prompt / completion tokens


def usage_event(prompt: int, completion: int) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "choices": [],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}}  # fmt: skip


async def answers_with_usage(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    if body["messages"][-1]["content"] == "fail":
        return httpx.Response(500, json={"error": {"message": "overloaded"}})
    if body.get("stream"):
        events = sse(delta("Hi", "stop"), usage_event(10, 5), "[DONE]")
        return httpx.Response(200, headers=SSE, stream=Chunks(*events))
    return httpx.Response(200, json={"object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hi"}}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}})  # fmt: skip


ID_SECRET = "the-server-s-own-key"
#: how the test's one client (the test client's address) shows in logs and usage
SEEN_AS = ClientIds(ID_SECRET).of("address:testclient")


def app_with(runtime_dir: Path, **overrides: Any) -> TestClient:
    provider = Provider("acme", "https://models.example/v1", ("gpt-a",), KEY, {"gpt-a": PRICE})
    settings = Settings(providers=(provider,), id_secret=ID_SECRET, **overrides)
    upstream = Upstream(answers_with_usage)
    transport = httpx.MockTransport(upstream)
    return TestClient(create_app(settings, transport=transport, runtime_dir=runtime_dir))


def scraped(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus page: (name, sorted labels) → value."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def send_known_traffic(http: TestClient) -> None:
    ask = {"model": "acme/gpt-a", "stream_options": {"include_usage": True}}
    for _ in range(2):
        assert http.post("/api/chat/completions", json=chat(stream=True, **ask)).status_code == 200
    assert http.post("/api/chat/completions", json=chat(model="acme/gpt-a")).status_code == 200
    failing = chat(model="acme/gpt-a", messages=[{"role": "user", "content": "fail"}])
    assert http.post("/api/chat/completions", json=failing).status_code == 502
    refused = http.post("/api/chat/completions", json=chat(model="acme/gpt-a"))
    assert refused.status_code == 429  # the fifth request in the minute: the rate limit
    other_site = http.get("/api/models", headers={"origin": "https://evil.example"})
    assert other_site.status_code == 403


def test_known_traffic_shows_in_the_metrics(runtime_dir: Path) -> None:
    with app_with(runtime_dir, metrics=True, rate_limit=4) as http:
        send_known_traffic(http)
        page = http.get("/metrics")
    assert page.headers["content-type"].startswith("text/plain")
    seen = scraped(page.text)
    assert seen[("chatkeep_requests_total", (("status", "200"),))] == 3
    assert seen[("chatkeep_requests_total", (("status", "502"),))] == 1
    assert seen[("chatkeep_requests_total", (("status", "429"),))] == 1
    assert seen[("chatkeep_requests_total", (("status", "403"),))] == 1
    prompt = (("kind", "prompt"), ("model", "acme/gpt-a"))
    completion = (("kind", "completion"), ("model", "acme/gpt-a"))
    assert seen[("chatkeep_tokens_total", prompt)] == 10 + 10 + 7
    assert seen[("chatkeep_tokens_total", completion)] == 5 + 5 + 3
    assert seen[("chatkeep_first_token_seconds_count", ())] == 2  # the two streams
    assert 0 < seen[("chatkeep_first_token_seconds_sum", ())] < 5
    assert seen[("chatkeep_streams_in_flight", ())] == 0
    assert seen[("chatkeep_upstream_errors_total", (("provider", "acme"), ("status", "500")))] == 1
    assert seen[("chatkeep_refused_total", (("reason", "rate"),))] == 1
    assert seen[("chatkeep_refused_total", (("reason", "origin"),))] == 1
    assert KEY not in page.text


def test_metrics_want_their_token_and_are_off_by_default(runtime_dir: Path) -> None:
    with app_with(runtime_dir, metrics=True, metrics_token="scrape-secret") as http:
        missing = http.get("/metrics")
        wrong = http.get("/metrics", headers={"authorization": "Bearer nope"})
        right = http.get("/metrics", headers={"authorization": "Bearer scrape-secret"})
    assert missing.status_code == wrong.status_code == 401
    assert right.status_code == 200 and "chatkeep_requests_total" in right.text
    with app_with(runtime_dir) as http:
        assert http.get("/metrics").status_code == 404


def test_each_request_is_one_json_line_without_secrets(
    runtime_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with app_with(runtime_dir, log_format="json", rate_limit=4) as http:
        send_known_traffic(http)
        http.get("/api/chat/turns/turn-secret-123")
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    fields = {"time", "method", "path", "client", "model", "status", "prompt_tokens",
              "completion_tokens", "first_token_ms", "duration_ms"}  # fmt: skip
    assert [set(line) for line in lines] == [fields] * len(lines)
    chats = [line for line in lines if line["path"] == "/api/chat/completions"]
    assert [line["status"] for line in chats] == [200, 200, 200, 502, 429]
    assert [line["model"] for line in chats[:4]] == ["acme/gpt-a"] * 4
    assert chats[0]["prompt_tokens"] == 10 and chats[0]["completion_tokens"] == 5
    assert chats[2]["prompt_tokens"] == 7 and chats[2]["completion_tokens"] == 3
    assert chats[0]["first_token_ms"] > 0 and chats[2]["first_token_ms"] is None
    assert all(line["duration_ms"] >= 0 for line in lines)
    assert {line["client"] for line in chats[:4]} == {SEEN_AS}
    text = "\n".join(json.dumps(line) for line in lines)
    for secret in (KEY, "testclient", "turn-secret-123", '"hi"', "fail"):
        assert secret not in text
    assert lines[-1]["path"] == "/api/chat/turns/[turn]"


@needs_redis
def test_the_usage_table_adds_up_spend_per_client(
    runtime_dir: Path, redis: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    with app_with(runtime_dir, redis_url=redis.url, rate_limit=4) as http:
        send_known_traffic(http)
    capsys.readouterr()
    assert cli(["usage", "--redis-url", redis.url]) == 0
    table = capsys.readouterr().out
    client = SEEN_AS
    # four requests reached the upstream (one failed, with no tokens); 27 prompt tokens at
    # $2 and 13 completion tokens at $8 per million: 0.000158 USD
    row = next(line for line in table.splitlines() if line.startswith(client))
    assert row.split() == [client, "4", "27", "13", "0.000158"]
    total = next(line for line in table.splitlines() if line.startswith("total"))
    assert total.split() == ["total", "4", "27", "13", "0.000158"]
    assert "testclient" not in table
    assert cli(["usage", "--redis-url", redis.url, "--day", "2000-01-01"]) == 0
    assert "0 clients" in capsys.readouterr().out


def test_usage_without_redis_says_where_spend_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["usage"]) == 2
    assert "Redis" in capsys.readouterr().err
    assert cli(["usage", "--redis-url", "redis://x", "--day", "yesterday"]) == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err


@pytest.mark.slow
def test_two_workers_count_as_one_server() -> None:
    with ChatkeepServer("--workers", "2", "--metrics", "--rate-limit", "0") as server:
        server.wait_until_up()
        with httpx.Client(base_url=server.url, timeout=30) as http:
            body = chat(model="demo", stream=True, stream_options={"include_usage": True})
            for _ in range(12):  # new connections: both workers answer some
                with httpx.Client(base_url=server.url, timeout=30) as fresh:
                    assert fresh.post("/api/chat/completions", json=body).status_code == 200
            pages = [scraped(http.get("/metrics").text) for _ in range(6)]
    for seen in pages:  # whichever worker answers, the figures are the whole server's
        assert seen[("chatkeep_requests_total", (("status", "200"),))] == 12
        assert seen[("chatkeep_first_token_seconds_count", ())] == 12
        assert seen[("chatkeep_tokens_total", (("kind", "completion"), ("model", "demo")))] > 0


def test_upstream_calls_are_spans_after_the_genai_conventions(runtime_dir: Path) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import SpanKind, StatusCode

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    provider_settings = Provider("acme", "https://models.example/v1", ("gpt-a",), KEY)
    app = create_app(Settings(providers=(provider_settings,), otel=True),
                     transport=httpx.MockTransport(Upstream(answers_with_usage)),
                     runtime_dir=runtime_dir, tracer_provider=provider)  # fmt: skip
    with TestClient(app) as http:
        ask = {"model": "acme/gpt-a", "stream_options": {"include_usage": True}}
        http.post("/api/chat/completions", json=chat(stream=True, temperature=0.5, **ask))
        failing = chat(model="acme/gpt-a", messages=[{"role": "user", "content": "fail"}])
        http.post("/api/chat/completions", json=failing)
    answered, failed = exporter.get_finished_spans()
    assert answered.name == "chat gpt-a" and answered.kind == SpanKind.CLIENT
    assert dict(answered.attributes or {}) == {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "acme",
        "gen_ai.request.model": "gpt-a", "gen_ai.request.max_tokens": 4096,
        "gen_ai.request.temperature": 0.5, "server.address": "models.example",
        "server.port": 443, "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5,
    }  # fmt: skip
    assert failed.attributes is not None and failed.attributes["error.type"] == "500"
    assert failed.status.status_code == StatusCode.ERROR
    text = json.dumps([dict(s.attributes or {}) for s in (answered, failed)])
    assert KEY not in text and "fail" not in text and "testclient" not in text
