"""The proxy in process: what is forwarded, limits, and error mapping (upstream mocked)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from localclient import TestClient
from upstreams import KEY, SSE, Chunks, Upstream, chat, delta, make_client, sse


def test_an_upstream_s_cookie_never_reaches_another_person_s_request(runtime_dir: Path) -> None:
    """A client's cookie jar kept what an upstream set and sent it with every later request,
    whoever asked: requests now go straight to the connection pool."""

    async def sets_a_cookie(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={**SSE, "set-cookie": "session=alice; Path=/"},
                              stream=Chunks(*sse(delta("Hi", "stop"), "[DONE]")))  # fmt: skip

    upstream = Upstream(sets_a_cookie)
    with make_client(runtime_dir, upstream) as http:
        for _ in range(2):
            assert http.post("/api/chat/completions", json=chat(stream=True)).status_code == 200
    assert [r.headers.get("cookie") for r in upstream.requests] == [None, None]


def test_only_documented_fields_go_to_the_configured_upstream(runtime_dir: Path) -> None:
    upstream = Upstream()
    body = chat(temperature=0.2, api_base="https://evil.example", base_url="https://evil.example",
                extra_headers={"x": "y"}, metadata={"base_url": "x"})  # fmt: skip
    with make_client(runtime_dir, upstream) as http:
        response = http.post(
            "/api/chat/completions?base_url=https://evil.example",
            json=body,
            headers={"X-Base-Url": "https://evil.example", "Authorization": "Bearer user-key"},
        )
    assert response.status_code == 200
    [request] = upstream.requests
    assert str(request.url) == "https://models.example/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "x-base-url" not in request.headers
    assert upstream.bodies[0] == {"model": "gpt-a", "messages": body["messages"],
                                  "temperature": 0.2, "stream": False,
                                  "max_tokens": 4096}  # fmt: skip
    assert KEY not in response.text


def test_a_model_off_the_list_is_refused_before_any_upstream_call(runtime_dir: Path) -> None:
    upstream = Upstream()
    with make_client(runtime_dir, upstream) as http:
        response = http.post("/api/chat/completions", json=chat(model="gpt-expensive"))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "model_not_allowed"
    assert "gpt-a, gpt-b" in error["message"]
    assert upstream.requests == []


def test_a_missing_model_uses_the_default(runtime_dir: Path) -> None:
    upstream = Upstream()
    with make_client(runtime_dir, upstream) as http:
        http.post("/api/chat/completions", json={"messages": [{"role": "user", "content": "x"}]})
    assert upstream.bodies[0]["model"] == "gpt-a"


def test_costly_parameters_are_capped(runtime_dir: Path) -> None:
    upstream = Upstream()
    with make_client(runtime_dir, upstream, max_tokens=100) as http:
        http.post(
            "/api/chat/completions", json=chat(max_tokens=99999, max_completion_tokens=50, n=8)
        )
        bad = http.post("/api/chat/completions", json=chat(max_tokens="lots"))
    assert upstream.bodies[0]["max_tokens"] == 100
    assert upstream.bodies[0]["max_completion_tokens"] == 50
    assert upstream.bodies[0]["n"] == 1
    assert bad.status_code == 400


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", "invalid_json"),
        (b"[1]", "invalid_body"),
        (b'{"model": "gpt-a"}', "invalid_messages"),
    ],
)
def test_malformed_requests_get_a_clear_400(runtime_dir: Path, body: bytes, code: str) -> None:
    with make_client(runtime_dir, Upstream()) as http:
        response = http.post("/api/chat/completions", content=body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code


def test_bodies_over_the_limit_get_413_with_or_without_a_length(runtime_dir: Path) -> None:
    upstream = Upstream()
    big = json.dumps(chat(padding="x" * 2000)).encode()

    def chunked() -> Any:
        yield big[:1000]
        yield big[1000:]

    with make_client(runtime_dir, upstream, max_body_bytes=1000) as http:
        declared = http.post("/api/chat/completions", content=big)
        streamed = http.post("/api/chat/completions", content=chunked())
    for response in (declared, streamed):
        assert response.status_code == 413
        assert response.json()["error"]["type"] == "invalid_request_error"
    assert upstream.requests == []


def test_clients_over_the_rate_limit_get_429_with_retry_after(runtime_dir: Path) -> None:
    with make_client(runtime_dir, Upstream(), rate_limit=2) as http:
        statuses = [http.post("/api/chat/completions", json=chat()) for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert 1 <= int(statuses[2].headers["retry-after"]) <= 60
    assert statuses[2].json()["error"]["type"] == "rate_limit_error"


@pytest.mark.parametrize(
    ("failure", "status", "code"),
    [
        (httpx.ConnectError("refused"), 502, "upstream_unreachable"),
        (httpx.ConnectTimeout("slow"), 504, "upstream_timeout"),
        (httpx.ReadTimeout("slow"), 504, "upstream_timeout"),
        (httpx.Response(500, text="boom"), 502, "upstream_failed"),
        (httpx.Response(401, json={"error": {"message": f"bad key {KEY}"}}), 502, "upstream_auth"),
        (httpx.Response(429), 429, "upstream_rate_limited"),
        (
            httpx.Response(400, json={"error": {"message": "context too long"}}),
            400,
            "upstream_rejected",
        ),
        (httpx.Response(200, text="<html>not json</html>"), 502, "bad_upstream_response"),
    ],
)
def test_upstream_failures_before_streaming_are_openai_shaped(
    runtime_dir: Path, failure: Exception | httpx.Response, status: int, code: str
) -> None:
    async def fail(request: httpx.Request) -> httpx.Response:
        if isinstance(failure, Exception):
            raise failure
        return failure

    with make_client(runtime_dir, Upstream(fail)) as http:
        for stream in (False, True):
            response = http.post("/api/chat/completions", json=chat(stream=stream))
            assert response.status_code == status
            assert response.json()["error"]["code"] == code
            assert set(response.json()["error"]) <= {"message", "type", "code", "params"}
            assert KEY not in response.text


def streamed(http: TestClient) -> list[str]:
    with http.stream("POST", "/api/chat/completions", json=chat(stream=True)) as response:
        assert response.status_code == 200
        # Each event's number (`id:`, for a page that comes back) is left out.
        return [line for line in response.iter_lines() if line and not line.startswith("id: ")]


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ([*sse(delta("Hel")), httpx.ReadError("connection reset")], "broke off mid-answer"),
        ([*sse(delta("Hel"))], "was cut off"),
        ([*sse(delta("Hel"), {"error": {"message": "overloaded"}})], "overloaded"),
        ([*sse(delta("Hel")), b"data: {broken\n\n"], "cannot read"),
    ],
)
def test_a_failure_after_streaming_began_ends_with_one_error_event(
    runtime_dir: Path, parts: list[bytes | Exception], message: str
) -> None:
    async def drop(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, stream=Chunks(*parts))

    with make_client(runtime_dir, Upstream(drop)) as http:
        lines = streamed(http)
    assert json.loads(lines[0][6:])["choices"][0]["delta"]["content"] == "Hel"
    errors = [json.loads(line[6:]) for line in lines if '"error"' in line]
    assert len(errors) == 1 and errors[0] == json.loads(lines[-1][6:])  # one, and the last
    assert message in errors[0]["error"]["message"]
    assert "[DONE]" not in lines[-1]


def test_only_chat_completion_data_is_passed_through(runtime_dir: Path) -> None:
    answer = delta("ok", "stop")  # once: its `created` second is the one expected back

    async def noisy(request: httpx.Request) -> httpx.Response:
        parts = [b": keep-alive comment\n\n", b"event: ping\nid: 7\nretry: 10\n\n",
                 *sse(answer, "[DONE]")]  # fmt: skip
        return httpx.Response(200, headers=SSE, stream=Chunks(*parts))

    with make_client(runtime_dir, Upstream(noisy)) as http:
        lines = streamed(http)
    assert lines == [f"data: {json.dumps(answer)}", "data: [DONE]"]
