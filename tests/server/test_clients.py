"""Who a request is from: signed client tokens, trusted proxies; and daily token budgets."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from localclient import TestClient
from starlette.requests import Request
from upstreams import SSE, Chunks, Upstream, delta, sse

from server import Settings, create_app, sign_client_token
from server.clients import ClientIdentity, verify_client_token
from server.errors import APIError

SECRET = "a-long-shared-secret"


def test_a_token_names_its_subject_until_it_expires() -> None:
    token = sign_client_token(SECRET, "user-42", 60)
    assert verify_client_token(SECRET, token) == "user-42"
    with pytest.raises(APIError, match="expired"):
        verify_client_token(SECRET, token, now=time.time() + 61)
    for forged in [sign_client_token("another secret", "user-42", 60), token[:-2] + "xx",
                   token.replace(".", ""), "", "a.b"]:  # fmt: skip
        with pytest.raises(APIError, match="not valid"):
            verify_client_token(SECRET, forged)


def request_from(peer: str, forwarded: str | None = None, token: str | None = None) -> Request:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    return Request({"type": "http", "client": (peer, 5000), "headers": headers})


def test_a_forwarded_address_counts_only_from_a_trusted_proxy() -> None:
    identity = ClientIdentity(["10.0.0.0/8"], None)
    assert identity.of(request_from("10.0.0.5", "203.0.113.7")) == "address:203.0.113.7"
    # The right-most address that is not a trusted proxy: a client cannot put itself first.
    assert identity.address(request_from("10.0.0.5", "1.1.1.1, 203.0.113.7, 10.2.3.4")) == (
        "203.0.113.7"
    )
    # From anyone else, the header is the client's own words and is ignored.
    assert identity.address(request_from("198.51.100.9", "203.0.113.7")) == "198.51.100.9"
    assert ClientIdentity([], None).address(request_from("10.0.0.5", "1.2.3.4")) == "10.0.0.5"


def test_with_a_secret_the_client_is_the_token_s_subject() -> None:
    identity = ClientIdentity([], SECRET)
    token = sign_client_token(SECRET, "alice", 60)
    assert identity.of(request_from("10.0.0.5", token=token)) == "subject:alice"
    with pytest.raises(APIError) as refused:
        identity.of(request_from("10.0.0.5"))
    assert refused.value.status == 401


def test_with_a_client_secret_the_api_needs_a_valid_token(runtime_dir: Path) -> None:
    upstream = Upstream()
    settings = Settings(upstream="https://models.example/v1", models=("m",), client_secret=SECRET)
    app = create_app(settings, transport=httpx.MockTransport(upstream), runtime_dir=runtime_dir)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    token = sign_client_token(SECRET, "alice", 60)
    with TestClient(app) as http:
        assert http.get("/healthz").status_code == 200  # still open
        assert http.get("/static/runtime/pyodide/widget_python.zip").status_code == 200
        for headers in [{}, {"authorization": "Bearer nope"}]:
            models = http.get("/api/models", headers=headers)
            chat = http.post("/api/chat/completions", json=body, headers=headers)
            for response in (models, chat):
                assert response.status_code == 401
                assert response.json()["error"]["code"] == "invalid_client_token"
        assert upstream.requests == []
        good = {"authorization": f"Bearer {token}"}
        assert http.get("/api/models", headers=good).status_code == 200
        assert http.post("/api/chat/completions", json=body, headers=good).status_code == 200
    assert "authorization" not in upstream.requests[0].headers  # the token never goes upstream


def usage_upstream(tokens: int) -> Upstream:
    async def answer(request: httpx.Request) -> httpx.Response:
        usage = {"prompt_tokens": tokens - 1, "completion_tokens": 1, "total_tokens": tokens}
        if json.loads(request.content).get("stream"):
            end = {"choices": [], "usage": usage}
            events = Chunks(*sse(delta("Hi", "stop"), end, "[DONE]"))
            return httpx.Response(200, headers=SSE, stream=events)
        return httpx.Response(200, json={"choices": [{"index": 0, "message": {
            "role": "assistant", "content": "Hi"}}], "usage": usage})  # fmt: skip

    return Upstream(answer)


@pytest.mark.parametrize("stream", [True, False])
def test_past_the_client_s_daily_budget_requests_get_429_before_any_upstream_call(
    runtime_dir: Path, stream: bool
) -> None:
    upstream = usage_upstream(40)
    settings = Settings(upstream="https://models.example/v1", models=("m",),
                        client_daily_tokens=100)  # fmt: skip
    app = create_app(settings, transport=httpx.MockTransport(upstream), runtime_dir=runtime_dir)
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                            "stream": stream}  # fmt: skip
    with TestClient(app) as http:
        statuses = [http.post("/api/chat/completions", json=body).status_code for _ in range(3)]
        refused = http.post("/api/chat/completions", json=body)
    assert statuses == [200, 200, 200]  # 40 + 40 + 40: the third crosses 100
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "budget_exhausted"
    assert "daily budget of 100 tokens is used up" in refused.json()["error"]["message"]
    assert 0 < int(refused.headers["retry-after"]) <= 86_400
    assert len(upstream.requests) == 3
    if stream:
        assert upstream.bodies[0]["stream_options"] == {"include_usage": True}


def test_the_server_budget_counts_every_client(runtime_dir: Path) -> None:
    upstream = usage_upstream(60)
    settings = Settings(upstream="https://models.example/v1", models=("m",), daily_tokens=100,
                        forwarded_allow_ips=("*",))  # fmt: skip
    app = create_app(settings, transport=httpx.MockTransport(upstream), runtime_dir=runtime_dir)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with TestClient(app) as http:
        first = http.post(
            "/api/chat/completions", json=body, headers={"x-forwarded-for": "1.1.1.1"}
        )
        second = http.post(
            "/api/chat/completions", json=body, headers={"x-forwarded-for": "2.2.2.2"}
        )
        third = http.post(
            "/api/chat/completions", json=body, headers={"x-forwarded-for": "3.3.3.3"}
        )
    assert (first.status_code, second.status_code, third.status_code) == (200, 200, 429)
    assert "this server's budget" in third.json()["error"]["message"]
