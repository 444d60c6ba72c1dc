"""Origins, CORS and hardening headers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from localclient import TestClient

from server import Settings, create_app

ALLOWED = "https://shop.example"


@pytest.fixture
def http(runtime_dir: Path) -> TestClient:
    settings = Settings(allowed_origins=(ALLOWED,), allowed_hosts=("chat.example",))
    return TestClient(create_app(settings, runtime_dir=runtime_dir), base_url="http://chat.example")


def chat() -> dict[str, object]:
    return {"model": "demo", "messages": [{"role": "user", "content": "hi"}]}


def test_an_allowed_origin_may_call_the_api_with_cors_headers(http: TestClient) -> None:
    with http:
        response = http.post("/api/chat/completions", json=chat(), headers={"origin": ALLOWED})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED


def test_an_embedding_page_may_read_the_turn_id_and_stop_a_turn(http: TestClient) -> None:
    """Cross-origin, a page reads only the headers it is allowed to: the turn id must be one
    of them, or a widget embedded elsewhere could never pick an answer up after a reload."""
    preflight = {"origin": ALLOWED, "access-control-request-method": "DELETE"}
    with http:
        response = http.post("/api/chat/completions", json=chat(), headers={"origin": ALLOWED})
        stop = http.options("/api/chat/turns/some-turn", headers=preflight)
    assert "x-chatkeep-turn" in response.headers["access-control-expose-headers"]
    assert stop.status_code == 200 and "DELETE" in stop.headers["access-control-allow-methods"]


def test_a_preflight_from_an_allowed_origin_is_answered(http: TestClient) -> None:
    headers = {"origin": ALLOWED, "access-control-request-method": "POST",
               "access-control-request-headers": "content-type"}  # fmt: skip
    with http:
        response = http.options("/api/chat/completions", headers=headers)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED
    assert "POST" in response.headers["access-control-allow-methods"]


def test_other_origins_are_refused(http: TestClient) -> None:
    headers = {"origin": "https://evil.example"}
    preflight = {**headers, "access-control-request-method": "POST"}
    with http:
        response = http.post("/api/chat/completions", json=chat(), headers=headers)
        models = http.get("/api/models", headers=headers)
        options = http.options("/api/chat/completions", headers=preflight)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "origin_not_allowed"
    assert "access-control-allow-origin" not in response.headers
    assert models.status_code == 403
    assert options.status_code == 400


def test_same_origin_and_non_browser_clients_pass(http: TestClient) -> None:
    with http:
        same = http.post(
            "/api/chat/completions", json=chat(), headers={"origin": "http://chat.example"}
        )
        plain = http.post("/api/chat/completions", json=chat())
    assert same.status_code == plain.status_code == 200


def test_the_widget_script_is_shared_with_allowed_origins_only(http: TestClient) -> None:
    with http:
        allowed = http.get("/static/chat-widget.js", headers={"origin": ALLOWED})
        other = http.get("/static/chat-widget.js", headers={"origin": "https://evil.example"})
    assert allowed.headers["access-control-allow-origin"] == ALLOWED
    assert "access-control-allow-origin" not in other.headers


def test_content_hashed_assets_are_shared_with_any_origin_and_not_varied_by_it(
    http: TestClient,
) -> None:
    """One cached copy serves a page's module import (with `Origin`) and the service worker's
    offline copy (without): a returning visit asks for neither again."""
    with http:
        entry = http.get("/static/chat-widget.js").text
        build = re.search(r"v/(\w+)/", entry)
        assert build is not None
        url = f"/static/v/{build[1]}/chat-view.js"
        cross = http.get(url, headers={"origin": "https://evil.example"})
        plain = http.get(url)
    for response in (cross, plain):
        assert response.status_code == 200
        assert "immutable" in response.headers["cache-control"]
        assert response.headers["access-control-allow-origin"] == "*"
        assert "origin" not in response.headers.get("vary", "").lower()


def test_the_demo_page_sends_a_tight_content_security_policy(http: TestClient) -> None:
    with http:
        page = http.get("/")
    policy = dict(
        part.strip().split(" ", 1) for part in page.headers["content-security-policy"].split(";")
    )
    assert policy["default-src"] == "'none'"
    # WebAssembly only: the page compiles Pyodide's for its worker (without it, a violation a visit)
    assert policy["script-src"] == "'self' 'wasm-unsafe-eval'"
    assert policy["worker-src"] == "'self' blob:"
    assert policy["connect-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in page.headers["content-security-policy"]
    assert "'unsafe-eval'" not in page.headers["content-security-policy"]
    assert "<style>" not in page.text and "<script>" not in page.text.replace(" ", "")
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"


def test_every_response_is_hardened(http: TestClient) -> None:
    with http:
        for url in ("/healthz", "/api/models", "/static/chat-widget.js"):
            assert http.get(url).headers["x-content-type-options"] == "nosniff"


def test_the_key_is_in_no_page_asset_or_error(runtime_dir: Path) -> None:
    key = "sk-never-shown-7731"
    settings = Settings(upstream="http://127.0.0.1:9/v1", api_key=key, models=("m",))
    with TestClient(create_app(settings, runtime_dir=runtime_dir)) as http:
        responses = [
            http.get("/"),
            http.get("/api/models"),
            http.get("/static/chat-widget.js"),
            http.get("/static/worker.js"),
            http.post(
                "/api/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
            ),
            http.post("/api/chat/completions", json={"model": "nope", "messages": []}),
        ]
    for response in responses:
        assert key not in response.text
        assert all(key not in value for value in response.headers.values())
